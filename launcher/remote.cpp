#include "launcher/remote.hpp"

#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/unique_fd.hpp"
#include "launcher/hosts.hpp"
#include "launcher/io_forward.hpp"

namespace fabmpi::launcher {

bool is_host_specific_variable(const std::string& entry) {
  for (const char* name : {"HOSTNAME=", "PWD=", "OLDPWD=", "SHLVL=", "_=", "SSH_", "DISPLAY=", "XAUTHORITY=",
                           "TMUX", "TERM=", "PMI_FD=", "PMI_PORT=", "PMI_ID="})
    if (entry.rfind(name, 0) == 0) return true;
  return false;
}

std::vector<std::string> RemoteLauncher::agent_command(const RankLaunchSpec& spec) const {
  std::vector<std::string> proxy{mpirun_path_, "--fabmpi-proxy", spec.proxy_contact, spec.proxy_key,
                                 std::to_string(spec.rank), spec.wdir.empty() ? "-" : spec.wdir};
  std::vector<std::string> env;
  for (const auto& e : spec.env)
    if (!is_host_specific_variable(e)) env.push_back(e);
  proxy.push_back(std::to_string(env.size()));
  proxy.insert(proxy.end(), env.begin(), env.end());
  proxy.insert(proxy.end(), spec.argv.begin(), spec.argv.end());
  // ssh joins its arguments into one line for the remote shell: quote every word.
  std::string line = "exec";
  for (const auto& word : proxy) line += " " + shell_quote(word);
  std::vector<std::string> argv = agent_argv(agent_, spec.host);
  argv.push_back(line);
  return argv;
}

std::unique_ptr<RankProcess> RemoteLauncher::launch(const RankLaunchSpec& spec, std::string* error, int* exit_code) {
  RankLaunchSpec agent = spec;
  agent.argv = agent_command(spec);
  agent.env = own_env_;
  agent.wdir.clear();
  agent.cpus.reset();
  agent.pmi_child = -1;
  auto process = local_.launch(agent, error, exit_code);
  if (!process) *error = "rank " + std::to_string(spec.rank) + " on " + spec.host + ": " + *error;
  return process;
}

// ---- the proxy, on the rank's host

namespace {

void proxy_say(int rank, const std::string& message) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  write_all(2, "mpirun (proxy of rank " + std::to_string(rank) + " on " + host + "): " + message + "\n");
}

// Connects to "ADDRESS:PORT", retrying for a while (mpirun listens before it starts any agent, so
// failures are name or route problems; retries cover a slow resolver).
int connect_to(const std::string& contact, std::string* error) {
  const auto colon = contact.rfind(':');
  if (colon == std::string::npos) {
    *error = "bad contact '" + contact + "'";
    return -1;
  }
  const std::string host = contact.substr(0, colon), port = contact.substr(colon + 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    int last_errno = 0;
    if (gai == 0) {
      for (addrinfo* a = found; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(found);
          return fd;
        }
        last_errno = errno;
        ::close(fd);
      }
      ::freeaddrinfo(found);
      *error = "cannot connect to mpirun at " + contact + ": " + std::strerror(last_errno);
    } else {
      *error = "cannot resolve mpirun's address " + contact + ": " + gai_strerror(gai);
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

bool write_fd_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

int proxy_main(const std::vector<std::string>& args) {
  // CONTACT KEY RANK WDIR N VAR=VAL*N PROGRAM ARGS...
  if (args.size() < 6) {
    write_all(2, "mpirun --fabmpi-proxy: internal use by mpirun on other hosts\n");
    return 1;
  }
  const std::string& contact = args[0];
  const std::string& key = args[1];
  const int rank = std::atoi(args[2].c_str());
  std::string wdir = args[3] == "-" ? "" : args[3];
  // "?DIR": mpirun's own directory, used when this host has it.
  if (wdir.starts_with("?")) wdir = ::access(wdir.c_str() + 1, X_OK) == 0 ? wdir.substr(1) : "";
  const std::size_t nenv = static_cast<std::size_t>(std::atoll(args[4].c_str()));
  if (args.size() < 5 + nenv + 1) {
    proxy_say(rank, "malformed command line");
    return 1;
  }
  std::vector<std::string> overlay(args.begin() + 5, args.begin() + 5 + static_cast<std::ptrdiff_t>(nenv));
  std::vector<std::string> program(args.begin() + 5 + static_cast<std::ptrdiff_t>(nenv), args.end());

  // Signals arrive through a signalfd; block them before any child exists.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  UniqueFd signals(::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));

  std::string error;
  UniqueFd mpirun(connect_to(contact, &error));
  if (!mpirun.valid()) {
    proxy_say(rank, error);
    return 1;
  }
  const std::string hello = "fabmpi-proxy " + key + " " + std::to_string(rank) + "\n";
  if (!write_fd_all(mpirun.get(), hello.data(), hello.size())) {
    proxy_say(rank, "lost the connection to mpirun");
    return 1;
  }

  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    proxy_say(rank, std::string("socketpair: ") + std::strerror(errno));
    return 1;
  }
  UniqueFd pmi(pair[0]), pmi_child(pair[1]);

  // The rank's environment: this host's, overlaid with what mpirun sent (as MPICH passes its whole
  // environment), and the PMI descriptor.
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  const auto set_var = [&env](const std::string& entry) {
    const std::string prefix = entry.substr(0, entry.find('=') + 1);
    std::erase_if(env, [&prefix](const std::string& x) { return x.rfind(prefix, 0) == 0; });
    env.push_back(entry);
  };
  for (const auto& e : overlay) set_var(e);
  set_var("PMI_FD=" + std::to_string(pmi_child.get()));

  RankLaunchSpec spec;
  spec.rank = rank;
  spec.argv = program;
  spec.env = std::move(env);
  spec.wdir = wdir;
  spec.stdin_child = 0;
  spec.stdout_child = 1;
  spec.stderr_child = 2;
  spec.pmi_child = pmi_child.get();
  LocalLauncher launcher;
  int code = 1;
  std::unique_ptr<RankProcess> process = launcher.launch(spec, &error, &code);
  pmi_child.reset();
  if (!process) {
    proxy_say(rank, error);
    return code;
  }

  using Clock = std::chrono::steady_clock;
  Clock::time_point kill_at = Clock::time_point::max();  // SIGKILL then, after a SIGTERM
  bool mpirun_open = true, rank_open = true;
  char buffer[65536];
  while (true) {
    if (process->poll_exit()) break;
    if (Clock::now() >= kill_at) {
      process->signal_group(SIGKILL);
      kill_at = Clock::time_point::max();
    }
    pollfd fds[3] = {{signals.get(), POLLIN, 0}, {mpirun_open ? mpirun.get() : -1, POLLIN, 0},
                     {rank_open ? pmi.get() : -1, POLLIN, 0}};
    if (::poll(fds, 3, 200) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      signalfd_siginfo info;
      while (::read(signals.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info))
        if (info.ssi_signo != SIGCHLD) process->signal_group(static_cast<int>(info.ssi_signo));
    }
    // mpirun ended the job (closed the connection) or is gone: the rank goes too.
    const auto lose_mpirun = [&] {
      if (!mpirun_open) return;
      mpirun_open = false;
      process->signal_group(SIGTERM);
      kill_at = Clock::now() + std::chrono::seconds(2);
    };
    if (fds[1].revents) {
      const ssize_t n = ::recv(mpirun.get(), buffer, sizeof buffer, 0);
      if (n > 0 && rank_open && !write_fd_all(pmi.get(), buffer, static_cast<std::size_t>(n))) rank_open = false;
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) lose_mpirun();
    }
    if (fds[2].revents) {
      const ssize_t n = ::recv(pmi.get(), buffer, sizeof buffer, 0);
      if (n > 0 && mpirun_open && !write_fd_all(mpirun.get(), buffer, static_cast<std::size_t>(n))) lose_mpirun();
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) rank_open = false;
    }
  }
  // What the rank wrote last (MPI_Abort's request, finalize) reaches mpirun before its exit does.
  while (rank_open && mpirun_open) {
    pollfd p{pmi.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) break;
    ssize_t n = ::recv(pmi.get(), buffer, sizeof buffer, 0);
    if (n <= 0 || !write_fd_all(mpirun.get(), buffer, static_cast<std::size_t>(n))) break;
  }
  process->signal_group(SIGKILL);  // children it left behind
  const int status = process->wait_status();
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace fabmpi::launcher
