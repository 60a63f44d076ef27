#include "launcher/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fabmpi::launcher {

bool make_pipe(UniqueFd* read_end, UniqueFd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end->reset(fds[0]);
  write_end->reset(fds[1]);
  return true;
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

RankProcess::~RankProcess() {
  // Belt and braces: normal teardown has already signalled and reaped; this covers error paths.
  signal_group(SIGKILL);
  if (!exited_) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void RankProcess::signal_group(int sig) const {
  if (pid_ > 0) ::kill(-pid_, sig);
}

bool RankProcess::poll_exit() {
  if (exited_) return true;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    wait_status_ = status;
  } else if (r < 0 && errno == ECHILD) {
    exited_ = true;  // reaped elsewhere; status unknown
    wait_status_ = 0;
  }
  return exited_;
}

namespace {

// What a child reports through the exec-error pipe before it gives up.
struct ChildFailure {
  int stage;  // 1: chdir, 2: exec, 3: descriptor setup
  int error;  // errno
};

[[noreturn]] void child_fail(int report_fd, int stage) {
  ChildFailure f{stage, errno};
  ssize_t ignored = ::write(report_fd, &f, sizeof f);
  (void)ignored;
  ::_exit(127);
}

// Puts fd on target (stdin/out/err); -1 opens /dev/null there.
void install_fd(int fd, int target, int open_flags, int report_fd) {
  if (fd < 0) {
    fd = ::open("/dev/null", open_flags);
    if (fd < 0) child_fail(report_fd, 3);
  }
  if (fd == target) {
    int flags = ::fcntl(fd, F_GETFD);
    ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    return;
  }
  if (::dup2(fd, target) < 0) child_fail(report_fd, 3);
}

}  // namespace

std::unique_ptr<RankProcess> LocalLauncher::launch(const RankLaunchSpec& spec, std::string* error,
                                                   int* exit_code) {
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  if (spec.argv.empty()) {
    *error = "no program given";
    *exit_code = 1;
    return nullptr;
  }

  UniqueFd report_read, report_write;
  if (!make_pipe(&report_read, &report_write)) {
    *error = std::string("cannot create a pipe: ") + std::strerror(errno);
    *exit_code = 1;
    return nullptr;
  }
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    *error = std::string("cannot fork: ") + std::strerror(errno);
    *exit_code = 1;
    return nullptr;
  }
  if (pid == 0) {
    const int report = report_write.get();
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // mpirun died between fork and prctl
    // mpirun blocks and ignores signals for its own event loop; the program starts with defaults.
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT, SIGTTIN, SIGTTOU})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Descriptors: dup2 clears close-on-exec on the targets; the PMI fd keeps its number.
    install_fd(spec.stdin_child, 0, O_RDONLY, report);
    install_fd(spec.stdout_child, 1, O_WRONLY, report);
    install_fd(spec.stderr_child, 2, O_WRONLY, report);
    if (spec.pmi_child >= 0) {
      int flags = ::fcntl(spec.pmi_child, F_GETFD);
      ::fcntl(spec.pmi_child, F_SETFD, flags & ~FD_CLOEXEC);
    }
    if (spec.cpus) ::sched_setaffinity(0, sizeof(cpu_set_t), &*spec.cpus);
    if (!spec.wdir.empty() && ::chdir(spec.wdir.c_str()) != 0) child_fail(report, 1);
    ::execvpe(argv[0], argv.data(), envp.data());
    child_fail(report, 2);
  }
  ::setpgid(pid, pid);  // also from the parent: no window where the child is in mpirun's group
  auto process = std::make_unique<RankProcess>(spec.rank, pid);
  report_write.reset();
  ChildFailure failure{};
  ssize_t n;
  while ((n = ::read(report_read.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof failure)) {
    const char* what = std::strerror(failure.error);
    if (failure.stage == 1) {
      *error = "cannot change to directory '" + spec.wdir + "': " + what;
      *exit_code = 1;
    } else if (failure.stage == 2) {
      *error = "cannot execute '" + spec.argv[0] + "': " + what;
      *exit_code = (failure.error == ENOENT) ? 127 : 126;
    } else {
      *error = std::string("cannot set up the standard descriptors of a rank: ") + what;
      *exit_code = 1;
    }
    return nullptr;  // the RankProcess destructor reaps the failed child
  }
  return process;
}

}  // namespace fabmpi::launcher
