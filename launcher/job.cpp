#include "launcher/job.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <utility>
#include <optional>

#include <netinet/in.h>

#include <fstream>
#include <sstream>

#include "common/log.hpp"
#include "launcher/io_forward.hpp"
#include "launcher/pmi_server.hpp"
#include "launcher/wait_graph.hpp"

namespace fabmpi::launcher {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kJobSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// After every rank has exited, how long output pipes held open by leftovers may keep the job alive.
constexpr auto kOutputDrainLimit = std::chrono::seconds(2);
constexpr std::size_t kReadChunk = 65536;

void say(const std::string& message) { write_all(2, "mpirun: " + message + "\n"); }

// "rank 3" or "ranks 0,2,5".
std::string ranks_text(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
  return text;
}

std::string signal_text(int sig) {
  const char* name = strsignal(sig);
  return std::to_string(sig) + " (" + (name ? name : "unknown signal") + ")";
}

bool is_inherited_pmi_variable(const std::string& entry) {
  for (const char* name : {"PMI_FD=", "PMI_PORT=", "PMI_ID=", "PMI_RANK=", "PMI_SIZE=", "PMI_KVSNAME=",
                           "PMI_SPAWNED=", "PMIX_"})
    if (entry.rfind(name, 0) == 0) return true;
  return false;
}

// Sends one reply on a rank's (non-blocking) PMI socket. False when the rank does not take it within a
// second: the caller drops that connection rather than block the job on it.
bool send_reply(int fd, const std::string& line) {
  std::string_view rest = line;
  auto deadline = Clock::now() + std::chrono::seconds(1);
  while (!rest.empty()) {
    ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n > 0) {
      rest.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && Clock::now() < deadline) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    return false;
  }
  return true;
}

enum class Phase { running, terminating, killing };

struct RankSlot {
  int rank = 0;
  std::string host;  // "": this machine; else the process is the launch agent, the rank's proxy dials in
  std::unique_ptr<RankProcess> process;
  UniqueFd pmi;
  // A remote rank's connection from its proxy: `pmi` is a dup of it, which the PMI server may drop while
  // the connection stays open; closing this one tells the proxy to end the rank.
  UniqueFd control;
  UniqueFd out;
  UniqueFd err;
  std::optional<LineForwarder> out_lines;
  std::optional<LineForwarder> err_lines;
  bool reaped = false;
  // A spawned process whose job failed to start as a whole: killed, and its exit judged by nobody.
  bool abandoned = false;
};

class JobRunner {
 public:
  JobRunner(const JobConfig& config, Launcher& launcher, Launcher* remote)
      : config_(config),
        launcher_(launcher),
        remote_launcher_(remote),
        server_(PmiServerConfig{config.np, config.np, config.kvsname, config.node_of_rank}) {}

  int run();

 private:
  bool start_ranks();
  bool listen_for_proxies();
  void accept_proxies();
  void on_proxy_readable(std::size_t index);
  void loop();
  void report_barrier();
  void report_silent_ranks();
  void report_wait_graph();
  void on_signal();
  void on_pmi_readable(RankSlot& slot);
  void apply(PmiActions& actions);
  // MPI_Comm_spawn: starts the requested job on this machine and answers the asking rank.
  void serve_spawn(const PmiActions::Spawn& spawn);
  void on_rank_exit(RankSlot& slot);
  void read_output(UniqueFd& fd, std::optional<LineForwarder>& lines);
  void pump_stdin(short in_events, short out_events);
  void close_stdin();
  // The first failure decides the message and the exit status; every failure starts the teardown.
  void fail(int exit_code, const std::string& message, int signal_to_send = SIGTERM);
  void begin_teardown(int sig);
  void remove_shared_memory_left_behind();
  bool all_reaped() const;
  bool output_open() const;
  RankSlot* slot_of(int rank) { return &ranks_[static_cast<std::size_t>(rank)]; }

  const JobConfig& config_;
  Launcher& launcher_;
  Launcher* remote_launcher_;
  PmiServer server_;
  // Proxies of remote ranks dial in here; until their handshake line names the rank they wait in
  // pending_proxies_.
  UniqueFd proxy_listener_;
  std::string proxy_contact_, proxy_key_;
  struct PendingProxy {
    UniqueFd fd;
    std::string received;
  };
  std::vector<PendingProxy> pending_proxies_;
  // One slot per process of every job, by universe index (spawned jobs append theirs; a deque keeps
  // references to slots valid meanwhile).
  std::deque<RankSlot> ranks_;
  std::vector<PmiActions::Spawn> pending_spawns_;  // served at the top of the loop, outside slot iteration
  int jobs_started_ = 1;
  UniqueFd signals_;
  Phase phase_ = Phase::running;
  std::optional<int> exit_code_;          // decided by the first failure
  int first_nonzero_after_finalize_ = 0;  // a rank that finalized and then exited non-zero
  std::optional<Clock::time_point> job_deadline_;
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
  // stdin -> rank 0
  bool stdin_open_ = false;
  UniqueFd stdin_to_rank0_;
  std::string stdin_pending_;
};

bool JobRunner::start_ranks() {
  ranks_.resize(static_cast<std::size_t>(config_.np));
  for (int r = 0; r < config_.np && r < static_cast<int>(config_.host_of_rank.size()); ++r)
    ranks_[static_cast<std::size_t>(r)].host = config_.host_of_rank[static_cast<std::size_t>(r)];
  const bool any_remote = std::any_of(ranks_.begin(), ranks_.end(), [](const RankSlot& s) { return !s.host.empty(); });
  if (any_remote && !listen_for_proxies()) return false;
  UniqueFd stdin_child;
  if (config_.np > 0) {
    UniqueFd read_end, write_end;
    if (make_pipe(&read_end, &write_end)) {
      stdin_child = std::move(read_end);
      stdin_to_rank0_ = std::move(write_end);
      set_nonblocking(stdin_to_rank0_.get());
      stdin_open_ = true;
    }
  }
  for (int r = 0; r < config_.np; ++r) {
    RankSlot& slot = ranks_[static_cast<std::size_t>(r)];
    slot.rank = r;
    const bool remote = !slot.host.empty();
    UniqueFd pmi_child;
    if (!remote) {  // a remote rank's PMI connection is its proxy's, accepted later
      int pair[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        fail(1, std::string("cannot create the PMI socket of rank ") + std::to_string(r) + ": " + std::strerror(errno));
        return false;
      }
      slot.pmi.reset(pair[0]);
      pmi_child.reset(pair[1]);
      set_nonblocking(slot.pmi.get());
    }
    UniqueFd out_child, err_child;
    if (!make_pipe(&slot.out, &out_child) || !make_pipe(&slot.err, &err_child)) {
      fail(1, std::string("cannot create output pipes: ") + std::strerror(errno));
      return false;
    }
    set_nonblocking(slot.out.get());
    set_nonblocking(slot.err.get());
    std::string prefix = config_.tag_output ? "[" + std::to_string(r) + "] " : "";
    slot.out_lines.emplace(1, prefix);
    slot.err_lines.emplace(2, prefix);
    slot.err_lines->watch_for("fabmpi: rank " + std::to_string(r) + ": hang report");
    slot.err_lines->capture("waiting on world ranks:");

    RankLaunchSpec spec;
    spec.rank = r;
    spec.argv = config_.program;
    spec.env = rank_environment(config_, r, pmi_child.get());
    spec.wdir = config_.wdir;
    if (remote) {
      // Like MPICH's and Open MPI's launchers: the ranks start in mpirun's directory when the host has
      // it ('?': the proxy falls back to the login directory otherwise), or in --wdir.
      if (spec.wdir.empty()) {
        char cwd[4096];
        if (::getcwd(cwd, sizeof cwd)) spec.wdir = std::string("?") + cwd;
      }
      spec.host = slot.host;
      spec.proxy_contact = proxy_contact_;
      spec.proxy_key = proxy_key_;
      if (config_.report_bindings) say("rank " + std::to_string(r) + " on " + slot.host + " not bound");
    } else if (!config_.bindings.empty()) {
      const CoreBinding& b = config_.bindings[static_cast<std::size_t>(r) % config_.bindings.size()];
      spec.cpus = b.cpus;
      if (config_.report_bindings) say("rank " + std::to_string(r) + " bound to " + b.description);
    } else if (config_.report_bindings) {
      say("rank " + std::to_string(r) + " not bound");
    }
    spec.stdin_child = (r == 0) ? stdin_child.get() : -1;
    spec.stdout_child = out_child.get();
    spec.stderr_child = err_child.get();
    spec.pmi_child = pmi_child.get();
    std::string error;
    int code = 1;
    slot.process = (remote ? *remote_launcher_ : launcher_).launch(spec, &error, &code);
    if (!slot.process) {
      fail(code, error);
      return false;
    }
    FABMPI_LOG(debug, launcher, "rank %d started as pid %d", r, static_cast<int>(slot.process->pid()));
  }
  return true;
}

// A TCP socket the proxies of remote ranks connect to, and the key they must present.
bool JobRunner::listen_for_proxies() {
  if (!remote_launcher_) {
    fail(1, "ranks on other hosts but no way to start them");
    return false;
  }
  proxy_listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  if (!proxy_listener_.valid() || ::bind(proxy_listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(proxy_listener_.get(), 1024) != 0 ||
      ::getsockname(proxy_listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    fail(1, std::string("cannot listen for the ranks on other hosts: ") + std::strerror(errno));
    return false;
  }
  proxy_contact_ = config_.launcher_address + ":" + std::to_string(ntohs(addr.sin_port));
  // The key keeps strangers that find the port from posing as a rank.
  unsigned char bytes[16] = {};
  std::ifstream random("/dev/urandom", std::ios::binary);
  random.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  static const char hex[] = "0123456789abcdef";
  for (unsigned char b : bytes) {
    proxy_key_ += hex[b >> 4];
    proxy_key_ += hex[b & 15];
  }
  return true;
}

void JobRunner::accept_proxies() {
  while (true) {
    int fd = ::accept4(proxy_listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    pending_proxies_.push_back({UniqueFd(fd), {}});
  }
}

// Reads a proxy's handshake "fabmpi-proxy KEY RANK\n"; a valid one makes the connection that rank's PMI
// connection (bytes after the line are already PMI).
void JobRunner::on_proxy_readable(std::size_t index) {
  PendingProxy& p = pending_proxies_[index];
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(p.fd.get(), buffer, sizeof buffer, 0)) > 0) p.received.append(buffer, static_cast<std::size_t>(n));
  const auto newline = p.received.find('\n');
  if (newline == std::string::npos) {
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || p.received.size() > 256) p.fd.reset();  // not a proxy
    return;
  }
  std::istringstream line(p.received.substr(0, newline));
  std::string word, key;
  int rank = -1;
  line >> word >> key >> rank;
  RankSlot* slot = (rank >= 0 && rank < config_.np) ? slot_of(rank) : nullptr;
  if (word != "fabmpi-proxy" || key != proxy_key_ || !slot || slot->host.empty() || slot->control.valid()) {
    FABMPI_LOG(warn, launcher, "dropped a connection that is not one of this job's rank proxies");
    p.fd.reset();
    return;
  }
  slot->control = std::move(p.fd);
  slot->pmi.reset(::dup(slot->control.get()));
  FABMPI_LOG(debug, launcher, "rank %d on %s connected", rank, slot->host.c_str());
  const std::string rest = p.received.substr(newline + 1);
  if (!rest.empty()) {
    PmiActions actions;
    server_.feed(rank, rest, &actions);
    apply(actions);
  }
}

}  // namespace

std::vector<std::string> rank_environment(const JobConfig& config, int rank, int pmi_fd) {
  std::vector<std::string> env;
  for (const auto& e : config.base_env)
    if (!is_inherited_pmi_variable(e)) env.push_back(e);
  const int node = config.node_of_rank.empty() ? 0 : config.node_of_rank[static_cast<std::size_t>(rank)];
  int local_rank = 0, local_size = 0;
  for (int r = 0; r < config.np; ++r) {
    int n = config.node_of_rank.empty() ? 0 : config.node_of_rank[static_cast<std::size_t>(r)];
    if (n != node) continue;
    if (r < rank) ++local_rank;
    ++local_size;
  }
  auto set = [&env](const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    std::erase_if(env, [&prefix](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  };
  // torchrun's variables (torch.distributed env://); -x/-genv may have set them already: keep those.
  auto set_default = [&env, &set](const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    if (std::none_of(env.begin(), env.end(), [&prefix](const std::string& e) { return e.rfind(prefix, 0) == 0; }))
      set(name, value);
  };
  set("RANK", std::to_string(rank));
  set("WORLD_SIZE", std::to_string(config.np));
  set("LOCAL_RANK", std::to_string(local_rank));
  set("LOCAL_WORLD_SIZE", std::to_string(local_size));
  set_default("MASTER_ADDR", config.master_addr);
  set_default("MASTER_PORT", std::to_string(config.master_port));
  // Debian's libfabric links libinfinipath, whose constructor installs a SIGSEGV handler that prints a
  // backtrace and exits with 1: a crashing rank would look like exit(1). Keep the real signal.
  set_default("IPATH_NO_BACKTRACE", "1");
  // This job's own deadline, also over one inherited from an outer job.
  if (config.hang_report_unix_ms > 0) set("FABMPI_HANG_DEADLINE", std::to_string(config.hang_report_unix_ms));
  // A rank bound to one core sees one CPU in its affinity and would take itself for oversubscribed
  // (yielding instead of spinning: np=2 ping-pong 0.14 -> 0.50 us): tell it the CPUs that this node's
  // bound ranks have between them.
  auto runs_here = [&config](int r) {
    const auto i = static_cast<std::size_t>(r);
    return i >= config.host_of_rank.size() || config.host_of_rank[i].empty();
  };
  if (!config.bindings.empty() && runs_here(rank)) {
    // Rank r uses bindings[r % size]: stop once every binding is in (np ranks would make launch quadratic).
    cpu_set_t node_cpus;
    CPU_ZERO(&node_cpus);
    std::vector<bool> counted(config.bindings.size(), false);
    std::size_t left = counted.size();
    for (int r = 0; r < config.np && left > 0; ++r) {
      const std::size_t b = static_cast<std::size_t>(r) % config.bindings.size();
      if (!runs_here(r) || counted[b]) continue;
      counted[b] = true;
      --left;
      CPU_OR(&node_cpus, &node_cpus, &config.bindings[b].cpus);
    }
    set("FABMPI_NODE_CPUS", std::to_string(CPU_COUNT(&node_cpus)));
  }
  set("MPI_LOCALRANKID", std::to_string(local_rank));
  set("MPI_LOCALNRANKS", std::to_string(local_size));
  if (pmi_fd >= 0) set("PMI_FD", std::to_string(pmi_fd));  // else a proxy on the rank's host sets it
  set("PMI_RANK", std::to_string(rank));
  set("PMI_SIZE", std::to_string(config.np));
  return env;
}

namespace {

void JobRunner::fail(int exit_code, const std::string& message, int signal_to_send) {
  if (!exit_code_) {
    exit_code_ = exit_code;
    say(message);
  }
  begin_teardown(signal_to_send);
}

void JobRunner::begin_teardown(int sig) {
  if (phase_ != Phase::running) {
    // A second interrupt while terminating: stop waiting.
    if (sig == SIGINT || sig == SIGTERM) {
      if (phase_ == Phase::terminating && kill_deadline_) kill_deadline_ = Clock::now();
    }
    return;
  }
  phase_ = Phase::terminating;
  for (RankSlot& slot : ranks_) {
    if (slot.process) slot.process->signal_group(sig);
    if (!slot.host.empty()) {  // its proxy ends the rank when the connection closes
      slot.control.reset();
      slot.pmi.reset();
    }
  }
  pending_proxies_.clear();
  kill_deadline_ = Clock::now() + std::chrono::seconds(std::max(0, config_.abort_timeout_seconds));
  close_stdin();
}

bool JobRunner::all_reaped() const {
  return std::all_of(ranks_.begin(), ranks_.end(), [](const RankSlot& s) { return !s.process || s.reaped; });
}

bool JobRunner::output_open() const {
  return std::any_of(ranks_.begin(), ranks_.end(), [](const RankSlot& s) { return s.out.valid() || s.err.valid(); });
}

void JobRunner::close_stdin() {
  stdin_open_ = false;
  stdin_pending_.clear();
  stdin_to_rank0_.reset();
}

void JobRunner::apply(PmiActions& actions) {
  for (const auto& text : actions.diagnostics) FABMPI_LOG(warn, launcher, "PMI: %s", text.c_str());
  for (const auto& reply : actions.replies) {
    RankSlot* slot = slot_of(reply.rank);
    if (!slot->pmi.valid()) continue;
    if (!send_reply(slot->pmi.get(), reply.line)) {
      PmiActions ignored;
      server_.disconnect(reply.rank, &ignored);
      slot->pmi.reset();
    }
  }
  for (int rank : actions.drop) slot_of(rank)->pmi.reset();
  if (actions.spawn) pending_spawns_.push_back(std::move(*actions.spawn));
  if (actions.abort) {
    RankSlot* slot = slot_of(actions.abort->rank);
    fail(actions.abort->exit_code,
         "rank " + std::to_string(slot->rank) + " (pid " + std::to_string(slot->process ? slot->process->pid() : 0) +
             ") aborted the job with code " + std::to_string(actions.abort->exit_code));
  }
}

void JobRunner::serve_spawn(const PmiActions::Spawn& spawn) {
  PmiActions actions;
  int total = 0;
  for (const pmi::SpawnCommand& c : spawn.request.commands) total += c.maxprocs;
  if (phase_ != Phase::running || total <= 0) {
    server_.answer_spawn(spawn.rank, false, 0, 0, "", phase_ != Phase::running ? "the job is ending" : "no processes",
                         &actions);
    apply(actions);
    return;
  }
  std::vector<int> appnums;
  for (std::size_t i = 0; i < spawn.request.commands.size(); ++i)
    appnums.insert(appnums.end(), static_cast<std::size_t>(spawn.request.commands[i].maxprocs), static_cast<int>(i));
  const std::string kvsname = config_.kvsname + "_" + std::to_string(jobs_started_++);
  const int base = server_.add_job(total, kvsname, appnums, spawn.request.preput);
  // The new job's environment: a job of `total` processes on this node (the spawned ones run here).
  JobConfig shape = config_;
  shape.np = total;
  shape.node_of_rank.assign(static_cast<std::size_t>(total), 0);
  shape.host_of_rank.clear();  // all here,
  shape.bindings.clear();      // and not bound (they share the parents' cores)
  std::string error;
  int index = 0;
  for (const pmi::SpawnCommand& command : spawn.request.commands) {
    for (int i = 0; i < command.maxprocs && error.empty(); ++i, ++index) {
      RankSlot& slot = ranks_.emplace_back();
      slot.rank = base + index;
      int pair[2];
      UniqueFd out_child, err_child;
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        error = std::string("cannot create a PMI socket: ") + std::strerror(errno);
        break;
      }
      slot.pmi.reset(pair[0]);
      UniqueFd pmi_child(pair[1]);
      set_nonblocking(slot.pmi.get());
      if (!make_pipe(&slot.out, &out_child) || !make_pipe(&slot.err, &err_child)) {
        error = std::string("cannot create output pipes: ") + std::strerror(errno);
        break;
      }
      set_nonblocking(slot.out.get());
      set_nonblocking(slot.err.get());
      const std::string prefix = config_.tag_output ? "[" + std::to_string(slot.rank) + "] " : "";
      slot.out_lines.emplace(1, prefix);
      slot.err_lines.emplace(2, prefix);
      RankLaunchSpec spec;
      spec.rank = index;
      spec.argv.push_back(command.program);
      spec.argv.insert(spec.argv.end(), command.args.begin(), command.args.end());
      spec.env = rank_environment(shape, index, pmi_child.get());
      spec.wdir = command.wdir.empty() ? config_.wdir : command.wdir;
      spec.stdout_child = out_child.get();
      spec.stderr_child = err_child.get();
      spec.pmi_child = pmi_child.get();
      int code = 1;
      slot.process = launcher_.launch(spec, &error, &code);
      if (slot.process)
        FABMPI_LOG(debug, launcher, "spawned %s as universe index %d, pid %d", command.program.c_str(), slot.rank,
                   static_cast<int>(slot.process->pid()));
    }
  }
  if (!error.empty()) {
    // All or nothing: the processes already started go (MPI_Comm_spawn fails as a whole).
    for (int r = base; r < static_cast<int>(ranks_.size()); ++r) {
      RankSlot& slot = *slot_of(r);
      slot.abandoned = true;
      if (slot.process) slot.process->signal_group(SIGKILL);
      slot.pmi.reset();
    }
    server_.answer_spawn(spawn.rank, false, 0, 0, "", error, &actions);
  } else {
    server_.answer_spawn(spawn.rank, true, base, total, kvsname, "", &actions);
  }
  apply(actions);
}

void JobRunner::on_pmi_readable(RankSlot& slot) {
  char buffer[4096];
  while (slot.pmi.valid()) {
    ssize_t n = ::recv(slot.pmi.get(), buffer, sizeof buffer, 0);
    PmiActions actions;
    if (n > 0) {
      server_.feed(slot.rank, std::string_view(buffer, static_cast<std::size_t>(n)), &actions);
      apply(actions);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    server_.disconnect(slot.rank, &actions);  // EOF or error
    apply(actions);
    slot.pmi.reset();
  }
}

void JobRunner::read_output(UniqueFd& fd, std::optional<LineForwarder>& lines) {
  char buffer[kReadChunk];
  while (fd.valid()) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n > 0) {
      lines->consume(std::string_view(buffer, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    lines->finish();
    fd.reset();
  }
}

void JobRunner::on_rank_exit(RankSlot& slot) {
  slot.reaped = true;
  if (!slot.host.empty() && !slot.control.valid() && proxy_listener_.valid()) {
    // Its proxy called back before it started the rank; the handshake may still wait unread.
    accept_proxies();
    for (std::size_t i = 0; i < pending_proxies_.size(); ++i)
      if (pending_proxies_[i].fd.valid()) on_proxy_readable(i);
  }
  // What the rank wrote to PMI before it died (an abort request) counts before its death does.
  on_pmi_readable(slot);
  if (phase_ != Phase::running || slot.abandoned) return;
  const int status = slot.process->wait_status();
  const std::string who = slot.host.empty()
                              ? "rank " + std::to_string(slot.rank) + " (pid " + std::to_string(slot.process->pid()) + ")"
                              : "rank " + std::to_string(slot.rank) + " (on " + slot.host + ")";
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    fail(128 + sig, who + " killed by signal " + signal_text(sig) + "; terminating the job");
    return;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (!slot.host.empty() && !slot.control.valid() && code != 0) {
    // The launch agent ended before the rank's proxy called back: ssh could not reach the host, or
    // mpirun is not at the same path there (the agent's own message is above).
    fail(code, who + ": the launch agent exited with code " + std::to_string(code) +
                   " before the rank started (can the agent reach " + slot.host +
                   ", and is this mpirun installed at the same path there?); terminating the job");
    return;
  }
  if (server_.ever_connected(slot.rank) && !server_.finalized(slot.rank)) {
    fail(code != 0 ? code : 1, who + " exited with code " + std::to_string(code) +
                                   " before MPI_Finalize; terminating the job");
  } else if (code != 0 && server_.finalized(slot.rank)) {
    if (first_nonzero_after_finalize_ == 0) first_nonzero_after_finalize_ = code;
  } else if (code != 0) {
    fail(code, who + " exited with code " + std::to_string(code) + "; terminating the job");
  }
}

void JobRunner::on_signal() {
  signalfd_siginfo info;
  while (::read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) continue;  // reaping happens after every poll
    fail(128 + sig, "received signal " + signal_text(sig) + "; terminating the job", sig == SIGQUIT ? SIGKILL : sig);
  }
}

void JobRunner::pump_stdin(short in_events, short out_events) {
  if (!stdin_open_) return;
  if (stdin_pending_.empty() && (in_events & (POLLIN | POLLHUP | POLLERR))) {
    char buffer[kReadChunk];
    ssize_t n = ::read(0, buffer, sizeof buffer);
    if (n > 0) {
      stdin_pending_.assign(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      close_stdin();  // EOF (or EIO from a terminal we may not read): rank 0 sees EOF
      return;
    }
  }
  if (!stdin_pending_.empty() && (out_events & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t n = ::write(stdin_to_rank0_.get(), stdin_pending_.data(), stdin_pending_.size());
    if (n > 0) {
      stdin_pending_.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
      close_stdin();  // rank 0 closed its stdin or exited
    }
  }
}

// A hang report's part that only mpirun can give: ranks that wait in the job-wide PMI barrier (MPI_Init's
// address exchange, MPI_Finalize) wait there for the others, which the ranks themselves cannot report.
void JobRunner::report_barrier() {
  if (server_.ranks_in_barrier() == 0) return;
  std::vector<int> waiting, missing;
  for (int r = 0; r < config_.np; ++r) (server_.in_barrier(r) ? waiting : missing).push_back(r);
  say(ranks_text(waiting) + (waiting.size() == 1 ? " waits" : " wait") +
      " in the job-wide barrier of MPI_Init or MPI_Finalize for " + ranks_text(missing));
}

// After the ranks' hang reports (once any rank printed one): the running ranks that printed none were
// not waiting in MPI, which is often the answer (a rank computing, or stuck outside MPI).
void JobRunner::report_silent_ranks() {
  std::vector<int> silent;
  bool any_report = false;
  for (int r = 0; r < config_.np; ++r) {
    const RankSlot& slot = ranks_[static_cast<std::size_t>(r)];
    const bool reported = slot.err_lines && slot.err_lines->saw_needle();
    any_report |= reported;
    if (!reported && !slot.reaped && !server_.in_barrier(r)) silent.push_back(r);
  }
  if (!any_report || silent.empty()) return;
  say(ranks_text(silent) + " printed no hang report: not waiting in MPI (computing, or blocked outside MPI)");
}

// The ranks' wait summaries as one graph: deadlock cycles, and waits on ranks that will not answer.
void JobRunner::report_wait_graph() {
  std::vector<RankWaitState> states(static_cast<std::size_t>(config_.np));
  bool any_report = false;
  for (int r = 0; r < config_.np; ++r) {
    const RankSlot& slot = ranks_[static_cast<std::size_t>(r)];
    RankWaitState& s = states[static_cast<std::size_t>(r)];
    if (slot.reaped) {
      s.kind = RankWaitState::Kind::exited;
      const int status = slot.process ? slot.process->wait_status() : 0;
      s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    } else if (server_.finalized(r)) {
      s.kind = RankWaitState::Kind::finalized;
    } else if (server_.in_barrier(r)) {
      s.kind = RankWaitState::Kind::in_barrier;
    } else if (slot.err_lines && slot.err_lines->saw_needle()) {
      s.kind = RankWaitState::Kind::waiting;
      any_report = true;
      parse_wait_summary(slot.err_lines->captured(), &s.waits_for, &s.any_source);
    }
  }
  if (!any_report) return;
  for (const std::string& line : explain_waits(states)) say(line);
}

void JobRunner::loop() {
  while (true) {
    for (const PmiActions::Spawn& spawn : std::exchange(pending_spawns_, {})) serve_spawn(spawn);
    // Reap first: every exit is judged once, after the rank's last PMI bytes are read.
    for (RankSlot& slot : ranks_)
      if (slot.process && !slot.reaped && slot.process->poll_exit()) on_rank_exit(slot);
    if (stdin_open_ && (ranks_.empty() || ranks_[0].reaped)) close_stdin();

    const auto now = Clock::now();
    if (phase_ == Phase::running && job_deadline_ && now >= *job_deadline_) {
      report_barrier();
      report_silent_ranks();
      report_wait_graph();
      fail(124, "job timed out after " + std::to_string(config_.timeout_seconds) +
                    " seconds; terminating the job (ranks that were waiting in MPI printed what for, above)");
    }
    if (phase_ == Phase::terminating && kill_deadline_ && Clock::now() >= *kill_deadline_) {
      phase_ = Phase::killing;
      for (RankSlot& slot : ranks_)
        if (slot.process) slot.process->signal_group(SIGKILL);
    }
    if (all_reaped()) {
      if (!drain_deadline_) {
        // Children the ranks left in their process groups may hold the output pipes open.
        for (RankSlot& slot : ranks_)
          if (slot.process) slot.process->signal_group(SIGKILL);
        drain_deadline_ = Clock::now() + kOutputDrainLimit;
      }
      if (!output_open() || Clock::now() >= *drain_deadline_) break;
    }

    std::vector<pollfd> fds;
    enum class Kind { signal, pmi, out, err, stdin_read, stdin_write, proxy_listener, proxy };
    std::vector<std::pair<Kind, int>> what;
    auto watch = [&](int fd, short events, Kind kind, int rank) {
      fds.push_back(pollfd{fd, events, 0});
      what.emplace_back(kind, rank);
    };
    watch(signals_.get(), POLLIN, Kind::signal, -1);
    std::erase_if(pending_proxies_, [](const PendingProxy& p) { return !p.fd.valid(); });
    if (proxy_listener_.valid() && phase_ == Phase::running) watch(proxy_listener_.get(), POLLIN, Kind::proxy_listener, -1);
    for (std::size_t i = 0; i < pending_proxies_.size(); ++i)
      watch(pending_proxies_[i].fd.get(), POLLIN, Kind::proxy, static_cast<int>(i));
    for (RankSlot& slot : ranks_) {
      if (slot.pmi.valid()) watch(slot.pmi.get(), POLLIN, Kind::pmi, slot.rank);
      if (slot.out.valid()) watch(slot.out.get(), POLLIN, Kind::out, slot.rank);
      if (slot.err.valid()) watch(slot.err.get(), POLLIN, Kind::err, slot.rank);
    }
    if (stdin_open_) {
      if (stdin_pending_.empty()) watch(0, POLLIN, Kind::stdin_read, 0);
      else watch(stdin_to_rank0_.get(), POLLOUT, Kind::stdin_write, 0);
    }

    auto next = Clock::now() + std::chrono::seconds(1);
    for (const auto& d : {job_deadline_, kill_deadline_, drain_deadline_})
      if (d && *d < next) next = *d;
    if (phase_ == Phase::killing) next = std::min(next, Clock::now() + std::chrono::milliseconds(50));
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms + 1, 0, 1000)));
    if (ready < 0 && errno != EINTR) {
      fail(1, std::string("poll failed: ") + std::strerror(errno));
      continue;
    }
    for (std::size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto [kind, rank] = what[i];
      switch (kind) {
        case Kind::signal: on_signal(); break;
        case Kind::pmi: on_pmi_readable(*slot_of(rank)); break;
        case Kind::out: read_output(slot_of(rank)->out, slot_of(rank)->out_lines); break;
        case Kind::err: read_output(slot_of(rank)->err, slot_of(rank)->err_lines); break;
        case Kind::stdin_read: pump_stdin(fds[i].revents, 0); break;
        case Kind::stdin_write: pump_stdin(0, fds[i].revents); break;
        case Kind::proxy_listener: accept_proxies(); break;
        case Kind::proxy: on_proxy_readable(static_cast<std::size_t>(rank)); break;
      }
    }
  }
  // Whatever is still buffered: partial lines are completed, pipes closed.
  for (RankSlot& slot : ranks_) {
    if (slot.out.valid()) read_output(slot.out, slot.out_lines);
    if (slot.err.valid()) read_output(slot.err, slot.err_lines);
    if (slot.out_lines) slot.out_lines->finish();
    if (slot.err_lines) slot.err_lines->finish();
  }
}

// A node's native shared-memory segment is unlinked by the last of its ranks to map it; ranks killed
// before that (a rank that dies during MPI_Init, the teardown of a failed job) leave it in /dev/shm. Its
// name went through our PMI server, so once every rank is reaped we remove whatever is left. Only names
// of fabmpi's own form, and only here: every rank of a job runs on this machine (the local launcher).
void JobRunner::remove_shared_memory_left_behind() {
  std::vector<std::string> coll_prefixes;
  for (const std::string& name : server_.bootstrap_values_with_prefix("fabmpi-shm-node-")) {
    if (!name.starts_with("/fabmpi-") || name.find('/', 1) != std::string::npos) continue;
    if (::shm_unlink(name.c_str()) == 0) FABMPI_LOG(debug, launcher, "removed %s left behind by the job", name.c_str());
    coll_prefixes.push_back(name.substr(1) + "-coll-");  // the shm collectives' regions (coll/shm_region.cpp)
  }
  if (coll_prefixes.empty()) return;
  std::vector<std::string> left;
  if (DIR* dir = ::opendir("/dev/shm")) {
    while (const dirent* entry = ::readdir(dir))
      for (const std::string& prefix : coll_prefixes)
        if (std::string_view(entry->d_name).starts_with(prefix)) left.push_back(std::string("/") + entry->d_name);
    ::closedir(dir);
  }
  for (const std::string& name : left)
    if (::shm_unlink(name.c_str()) == 0) FABMPI_LOG(debug, launcher, "removed %s left behind by the job", name.c_str());
}

int JobRunner::run() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kJobSignals) sigaddset(&set, sig);
  signals_.reset(::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!signals_.valid()) {
    say(std::string("cannot create a signalfd: ") + std::strerror(errno));
    return 1;
  }
  if (config_.timeout_seconds > 0) job_deadline_ = Clock::now() + std::chrono::seconds(config_.timeout_seconds);
  start_ranks();
  loop();
  ranks_.clear();  // RankProcess destructors: SIGKILL to every group (already empty) and reap
  remove_shared_memory_left_behind();
  if (exit_code_) return *exit_code_;
  return first_nonzero_after_finalize_;
}

}  // namespace

void block_job_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kJobSignals) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGTTIN, SIG_IGN);
  ::signal(SIGTTOU, SIG_IGN);
}

int run_job(const JobConfig& config, Launcher& launcher, Launcher* remote) {
  JobConfig job = config;
  if (job.timeout_seconds > 0) {
    // Ranks report a little before the end: up to 2 s (a fifth of short timeouts) for the reports to
    // be written and forwarded while every rank is still alive.
    const long long timeout_ms = 1000LL * job.timeout_seconds;
    const long long now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
    job.hang_report_unix_ms = now_ms + timeout_ms - std::min(2000LL, timeout_ms / 5);
  }
  JobRunner runner(job, launcher, remote);
  return runner.run();
}

}  // namespace fabmpi::launcher
