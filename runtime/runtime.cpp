#include "runtime/runtime.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <algorithm>

#include "common/log.hpp"
#include "coll/engine.hpp"
#include "pt2pt/engine.hpp"

namespace fabmpi {
namespace {

// Round robin over this process's CPUs by the rank's index on its node: the CPU an oversubscribed rank
// settles on (Runtime::settle_on_home_cpu), so neighbouring ranks run on different CPUs. -1: one CPU.
int home_cpu_of(long local_index) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2) return -1;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus[static_cast<std::size_t>(local_index) % cpus.size()];
}

int cores_available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace

// Debian's libfabric pulls in libinfinipath, whose load-time constructor installs handlers for fatal
// signals that print a backtrace and exit(1): a crashing rank would then look like a clean exit code 1 to
// the launcher. Put back the default action, but only where the handler is libinfinipath's own, so a
// user's handler installed before MPI_Init survives.
void drop_infinipath_fault_handlers() noexcept {
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) != 0) continue;
    void* handler = (current.sa_flags & SA_SIGINFO) ? reinterpret_cast<void*>(current.sa_sigaction)
                                                     : reinterpret_cast<void*>(current.sa_handler);
    if (handler == reinterpret_cast<void*>(SIG_DFL) || handler == reinterpret_cast<void*>(SIG_IGN)) continue;
    Dl_info info;
    if (dladdr(handler, &info) != 0 && info.dli_fname && std::strstr(info.dli_fname, "infinipath")) {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      sigaction(sig, &dfl, nullptr);
    }
  }
}


namespace {
// Hang watch: a rank waiting when mpirun's --timeout comes reports only once it has been idle this long
// (a rank merely between two messages is not hanging), and compares the wall clock with that deadline
// this often.
constexpr std::chrono::steady_clock::duration kHangDeadlineMinIdle = std::chrono::milliseconds(100);
constexpr auto kHangDeadlineCheckEvery = std::chrono::milliseconds(50);

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}
}  // namespace

Rc Runtime::create(Options options, std::unique_ptr<Runtime>* out) {
  std::unique_ptr<Runtime> rt(new Runtime());
  std::string tunable_error;
  rt->tunables_ = Tunables::from_environment(&tunable_error);
  std::string log_error;
  log::configure(log::parse_config(rt->tunables_.log, rt->tunables_.log_subsys, &log_error));
  if (!tunable_error.empty()) FABMPI_LOG(warn, runtime, "%s", tunable_error.c_str());
  if (!log_error.empty()) FABMPI_LOG(warn, runtime, "%s", log_error.c_str());

  drop_infinipath_fault_handlers();
  rt->thread_level_ = std::clamp(options.required_thread_level, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  rt->main_thread_ = std::this_thread::get_id();

  if (options.bootstrap) {
    rt->bootstrap_ = std::move(options.bootstrap);
  } else {
    FABMPI_TRY(make_bootstrap_from_environment(&rt->bootstrap_));
  }
  rt->world_base_ = rt->bootstrap_->universe_base();
  rt->world_rank_ = rt->world_base_ + rt->bootstrap_->rank();
  rt->world_size_ = rt->bootstrap_->size();
  log::set_rank(rt->bootstrap_->rank());
  std::vector<int> job_nodes = rt->bootstrap_->node_of_rank();
  if (static_cast<int>(job_nodes.size()) != rt->world_size_) job_nodes.assign(static_cast<std::size_t>(rt->world_size_), 0);
  // By universe index; earlier jobs' processes are "another node" (-1) until met.
  rt->node_of_rank_.assign(static_cast<std::size_t>(rt->world_base_), -1);
  rt->node_of_rank_.insert(rt->node_of_rank_.end(), job_nodes.begin(), job_nodes.end());

  const int my_node = rt->node_of_rank_[static_cast<std::size_t>(rt->world_rank_)];
  const auto local_ranks = std::count(rt->node_of_rank_.begin(), rt->node_of_rank_.end(), my_node);
  rt->cores_ = rt->tunables_.node_cpus > 0 ? static_cast<int>(rt->tunables_.node_cpus) : cores_available();
  rt->oversubscribed_ = local_ranks > rt->cores_;
  rt->local_ranks_ = static_cast<int>(local_ranks);
  if (rt->oversubscribed_ && rt->tunables_.coschedule_max > 0)
    rt->home_cpu_ = home_cpu_of(std::count(rt->node_of_rank_.begin(), rt->node_of_rank_.begin() + rt->world_rank_, my_node));
  if (rt->tunables_.hang_report > 0) rt->hang_report_after_ = std::chrono::seconds(rt->tunables_.hang_report);
  rt->hang_deadline_unix_ms_ = std::max(0LL, rt->tunables_.hang_deadline);
  rt->hang_watch_from_ = rt->hang_deadline_unix_ms_ ? std::min(rt->hang_report_after_, kHangDeadlineMinIdle)
                                                    : rt->hang_report_after_;

  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  rt->processor_name_ = host;

  std::vector<int> world_ranks(static_cast<std::size_t>(rt->world_size_));
  for (int i = 0; i < rt->world_size_; ++i) world_ranks[static_cast<std::size_t>(i)] = rt->world_base_ + i;
  rt->world_ = std::make_shared<Comm>(*rt, ContextIdPool::kWorldId,
                                      std::make_shared<Group>(std::move(world_ranks)), rt->world_rank_ - rt->world_base_);
  rt->world_->name = "MPI_COMM_WORLD";
  rt->world_->errhandler = predefined_errhandler(Errhandler::Kind::are_fatal);
  rt->self_ = std::make_shared<Comm>(*rt, ContextIdPool::kSelfId,
                                     std::make_shared<Group>(std::vector<int>{rt->world_rank_}), 0);
  rt->self_->name = "MPI_COMM_SELF";
  rt->self_->errhandler = predefined_errhandler(Errhandler::Kind::are_fatal);
  rt->context_ids_->set_peers(ContextIdPool::kWorldId, rt->world_->group());
  rt->context_ids_->set_peers(ContextIdPool::kSelfId, rt->self_->group());

  FABMPI_TRY(pt2pt::Engine::create(*rt, &rt->pt2pt_));
  rt->add_progress_source(rt->pt2pt_.get());
  FABMPI_TRY(coll::attach(*rt));  // validates FABMPI_*_ALGORITHM and FABMPI_COLL_TABLE
  FABMPI_LOG(info, runtime, "initialized: rank %d of %d, thread level %d, %s", rt->world_rank_ - rt->world_base_,
             rt->world_size_, rt->thread_level_, rt->oversubscribed_ ? "oversubscribed" : "not oversubscribed");
  *out = std::move(rt);
  return Rc();
}

Runtime::~Runtime() = default;

Rc Runtime::add_processes(const std::vector<int>& world_ranks) {
  for (int r : world_ranks) {
    if (r < 0) return fail(MPI_ERR_INTERN, "negative universe index %d", r);
    if (static_cast<std::size_t>(r) >= node_of_rank_.size()) node_of_rank_.resize(static_cast<std::size_t>(r) + 1, -1);
  }
  return pt2pt_->add_peers(world_ranks);
}

Rc Runtime::finalize() {
  if (finalized_) return Rc();
  finalized_ = true;
  Rc rc = pt2pt_->quiesce();
  // Every rank has pushed out its traffic before anyone closes its endpoints.
  Rc fence_rc = bootstrap_->fence();
  if (partitioned) {
    remove_progress_source(partitioned.get());
    partitioned.reset();
  }
  remove_progress_source(pt2pt_.get());
  pt2pt_.reset();
  Rc fin_rc = bootstrap_->finalize();
  if (!rc.ok()) return rc;
  if (!fence_rc.ok()) return fence_rc;
  return fin_rc;
}

int Runtime::progress() {
  int events = 0;
  // Index loop: a source may add another (a collective starting a sub-schedule) while we iterate.
  for (std::size_t i = 0; i < progress_sources_.size(); ++i) events += progress_sources_[i]->progress();
  return events;
}

int Runtime::progress_toward(const Request& request) {
  int events = 0;
  for (std::size_t i = 0; i < progress_sources_.size(); ++i) {
    events += progress_sources_[i]->progress();
    if (events > 0 && request.is_complete()) break;
  }
  return events;
}

void Runtime::add_progress_source(ProgressSource* source) { progress_sources_.push_back(source); }

void Runtime::remove_progress_source(ProgressSource* source) {
  progress_sources_.erase(std::remove(progress_sources_.begin(), progress_sources_.end(), source),
                          progress_sources_.end());
}

namespace {
// An oversubscribed rank yields its core (sched_yield) rather than sleeping on its doorbell: the peer
// it waits for is usually a time slice away on the other core or next in line on this one, and a futex
// wake-up per message costs more than that (np=4 on 2 cores, 8 B: ping-pong ~6.5 us sleeping vs
// Open MPI's 0.4 us yielding; shm allreduce ~40 us vs ~6 us). But when something outside the job
// competes for the core, one yield can hand it a whole time slice (milliseconds) while a woken sleeper
// preempts it; so a yield that took longer than kSlowYield makes the rank sleep for a spell, and any
// wait longer than kIdleBeforeSleep sleeps (measured under a parallel compile: yielding only, 1-4 ms
// per collective; sleeping, 10-100 us). The spell starts short (a sibling rank that computed for a
// millisecond says little; measured at np=4 on an idle machine, 100 ms spells put 8 B allreduce at
// 20-35 us instead of 3-4 us) and doubles while slow yields keep following spells (two busy loops
// outside the job: 16-rank ring 270-315 us per step with fixed 5 ms spells, 49-61 us with 100 ms). A rank that owns its core only yields (measured: on a
// loaded machine, a rank that sleeps waits for a run-queue slot on every wake-up, ~1 ms per message,
// while a yielding one keeps its share), and sleeps only after the same long idle stretch, so a rank
// waiting on a peer that computes for seconds does not burn its core.
constexpr auto kIdleBeforeSleep = std::chrono::milliseconds(50);
constexpr auto kSlowYield = std::chrono::microseconds(1000);
constexpr auto kFirstSleepSpell = std::chrono::milliseconds(5);
constexpr auto kLongestSleepSpell = std::chrono::milliseconds(160);
// A slow yield this soon after a spell ended continues it (with twice the length).
constexpr auto kSpellMemory = std::chrono::milliseconds(50);
// A sleep ends after this long even without a wake-up (progress not driven by a message).
constexpr int kSleepMicros = 1000;

// Threads runnable on the whole machine right now (the kernel's nr_running: /proc/loadavg's fourth
// field, "running/total"), or -1 when unknown. Read only after a slow yield (at most one per ms).
int machine_runnable_threads() {
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* p = buf;  // "0.52 0.58 0.59 3/345 12345"
  for (int field = 0; field < 3 && p; ++field) {
    p = std::strchr(p, ' ');
    if (p) ++p;
  }
  return p ? std::atoi(p) : -1;
}
}  // namespace

bool Runtime::outside_work_runnable() const noexcept {
  const int runnable = machine_runnable_threads();
  const int awake = pt2pt_ ? pt2pt_->local_ranks_awake() : -1;
  if (runnable < 0) return true;  // unknown: assume the worst, as before this check existed
  return runnable > (awake >= 0 ? awake : local_ranks_);
}

bool Runtime::yields_instead_of_sleeping(std::chrono::steady_clock::duration idle_time) const noexcept {
  if (needs_api_lock() || idle_time > kIdleBeforeSleep) return needs_api_lock();
  // No clock read while no sleep spell has ever begun (the usual case).
  return !oversubscribed_ || sleep_spell_until_ == std::chrono::steady_clock::time_point{} ||
         std::chrono::steady_clock::now() >= sleep_spell_until_;
}

void Runtime::watch_for_hang(std::chrono::steady_clock::duration idle_time) {
  const auto now = std::chrono::steady_clock::now();
  // One report per idle stretch; a stretch is known by when it started.
  const auto stretch_start = now - idle_time;
  if (stretch_start - hang_stretch_start_ > std::chrono::milliseconds(1) ||
      hang_stretch_start_ - stretch_start > std::chrono::milliseconds(1)) {
    hang_stretch_start_ = stretch_start;
    hang_reported_ = false;
  }
  if (hang_reported_) return;
  if (idle_time >= hang_report_after_) {
    hang_reported_ = true;
    report_hang("no progress for " + seconds_text(idle_time) + " (FABMPI_HANG_REPORT=" +
                std::to_string(tunables_.hang_report) + ")");
    return;
  }
  if (hang_deadline_unix_ms_ == 0 || idle_time < kHangDeadlineMinIdle || now < hang_next_clock_check_) return;
  hang_next_clock_check_ = now + kHangDeadlineCheckEvery;
  const long long unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
  if (unix_ms < hang_deadline_unix_ms_) return;
  hang_deadline_unix_ms_ = 0;  // once per process: mpirun ends the job next
  hang_reported_ = true;
  report_hang("mpirun's --timeout is about to end the job; no progress for " + seconds_text(idle_time));
}

void Runtime::watch_polling() {
  const auto now = std::chrono::steady_clock::now();
  if (fruitless_polls_ == 1024) polling_since_ = now;
  const auto idle = now - polling_since_;
  if (idle >= hang_watch_from_) watch_for_hang(idle);
}

void Runtime::report_hang(const std::string& why) const {
  const std::string prefix = "fabmpi: rank " + std::to_string(world_rank_) + ": ";
  const char* call = current_call_ ? current_call_->load(std::memory_order_relaxed) : nullptr;
  std::string text = prefix + "hang report: " + why + "; in " + (call ? call : "an MPI call") + ", waiting for:\n";
  std::vector<std::string> lines;
  if (shm_wait_comm_)
    lines.push_back("shared-memory collective on " + *shm_wait_comm_ + ": waiting for rank " +
                    std::to_string(shm_wait_rank_) + " of it to arrive or finish");
  for (const ProgressSource* source : progress_sources_) source->describe_waiting(&lines);
  if (lines.empty())
    lines.push_back("no operation in flight here");
  // The same as world ranks in one line mpirun reads (launcher/wait_graph.hpp): "waiting on world ranks: 1 3 any".
  std::vector<int> waited;
  bool any = false;
  if (shm_wait_comm_ && shm_wait_world_rank_ >= 0) waited.push_back(shm_wait_world_rank_);
  for (const ProgressSource* source : progress_sources_) source->waited_ranks(&waited, &any);
  std::sort(waited.begin(), waited.end());
  waited.erase(std::unique(waited.begin(), waited.end()), waited.end());
  if (!waited.empty() || any) {
    std::string summary = "waiting on world ranks:";
    for (int r : waited) summary += " " + std::to_string(r);
    if (any) summary += " any";
    lines.push_back(summary);
  }
  for (const std::string& line : lines) text += prefix + "  " + line + "\n";
  // One write: the report stays in one piece between other ranks' output.
  (void)!::write(STDERR_FILENO, text.data(), text.size());
}

void Runtime::yield_once(std::chrono::steady_clock::duration idle_time, bool (*ready)(const void*),
                         const void* ready_arg) {
  if (idle_time >= hang_watch_from_) watch_for_hang(idle_time);
  if (needs_api_lock()) {
    // Let other application threads into the library while this one waits.
    api_lock_.unlock();
    sched_yield();
    api_lock_.lock();
    return;
  }
  if (yields_instead_of_sleeping(idle_time)) {
    // Every 4th yield is timed, for slow yields: the clock reads on the others would be a tenth of an
    // oversubscribed pass (np=4 on 2 cores, 8 B ping-pong: 5.5 % of all time in clock_gettime).
    if (!oversubscribed_ || (++oversubscribed_yields_ & 3) != 0) {
      sched_yield();
      return;
    }
    const auto before = std::chrono::steady_clock::now();
    const auto before_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(before.time_since_epoch()).count());
    if (pt2pt_) pt2pt_->note_idle_yield(before_ns);
    sched_yield();
    // A slow yield means another job holds the core only if no rank of ours was busy meanwhile (a rank
    // computing a large reduction or copy also takes the core for milliseconds; measured: treating that
    // as outside load put 8 B collectives after an 8 MiB one into sleeping spells, 3 -> 20-35 us).
    // And only if more threads are runnable on the machine than this job's ranks that are awake: our
    // own yielding ranks alone make yields slow too, as CFS evens out their run times (measured, np=4
    // on 2 cores, nothing else running: spells after such yields put 8 B allreduce at 11-46 us instead
    // of 3, the 8 B cells after an 8 MiB one each time).
    const auto yield_time = std::chrono::steady_clock::now() - before;
    if (yield_time > kSlowYield && (!pt2pt_ || pt2pt_->local_peers_idle_since(before_ns)) &&
        outside_work_runnable()) {
      const bool persisting = before - sleep_spell_until_ < kSpellMemory;
      sleep_spell_ = persisting ? std::min<std::chrono::steady_clock::duration>(2 * sleep_spell_, kLongestSleepSpell)
                                : std::chrono::steady_clock::duration(kFirstSleepSpell);
      sleep_spell_until_ = before + sleep_spell_;
      FABMPI_LOG(debug, runtime, "slow yield (%lld us): sleeping for %lld ms",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(yield_time).count()),
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(sleep_spell_).count()));
    }
    return;
  }
  if (!pt2pt_ || !pt2pt_->sleep_until_event(kSleepMicros, ready, ready_arg)) sched_yield();
}

void Runtime::wait(Request& request) { (void)wait_for(request, std::numeric_limits<double>::infinity()); }

// Spin briefly (the answer is often microseconds away), then give the core away on every empty pass;
// with more ranks than cores, spinning only delays the peer we are waiting for. An infinite timeout
// never looks at the clock.
namespace {
constexpr int kPassesBeforeIdleSpin = 32;
}  // namespace

// Co-scheduling on an oversubscribed node: a wait for one local rank (Request::wait_peer) keeps its
// core while that rank beats (it keeps its own core, waiting or working in MPI), and yields after
// kStalePasses passes without a beat: the peer is then descheduled or busy outside MPI, and needs a
// core. Ranks waiting on each other run at full speed while both are scheduled, and a rank waiting on
// one that waits on a third, descheduled one yields too, since that middle rank stopped beating when it
// started yielding.
class Runtime::PeerWatch {
 public:
  PeerWatch(Runtime& rt, int world_rank) noexcept
      : rt_(rt),
        engine_(rt.oversubscribed_ && !rt.needs_api_lock() && rt.pt2pt_ && world_rank >= 0 &&
                        rt.pt2pt_->heartbeat_of(world_rank, &last_)
                    ? rt.pt2pt_.get()
                    : nullptr),
        peer_(world_rank) {}
  // After a pass that made progress (the CPU is read afresh) / after running() said yes (its reading).
  void beat() noexcept {
    if (engine_) engine_->beat(sched_getcpu());
  }
  void beat_again() noexcept {
    if (engine_) engine_->beat(cpu_);
  }
  // Whether the peer beat within the last kStalePasses calls on another CPU than ours (one that last
  // ran on ours is not running now: it waits for this core).
  bool running() noexcept {
    if (!engine_) return false;
    ++passes_;
    std::uint64_t now = 0;
    engine_->heartbeat_of(peer_, &now);
    const int cpu = cpu_ = sched_getcpu();
    if ((now & 0xffff) == (static_cast<std::uint64_t>(cpu) & 0xffff)) {
      // The kernel balances load, not pairs: two ranks that talk may share a core for good while another
      // pair shares the other. Settle on this rank's own CPU, once the peer was seen here a few times.
      if (++rt_.peer_on_my_cpu_ >= kSameCpuBeforeMove) rt_.settle_on_home_cpu(cpu);
      return false;
    }
    rt_.peer_on_my_cpu_ = 0;
    if (now != last_) {
      last_ = now;
      stale_ = 0;
      return true;
    }
    return ++stale_ < kStalePasses;
  }
  unsigned passes() const noexcept { return passes_; }

 private:
  static constexpr unsigned kStalePasses = 16;
  static constexpr unsigned kSameCpuBeforeMove = 8;  // observations in a row, over waits
  Runtime& rt_;
  pt2pt::Engine* engine_;
  int peer_;
  std::uint64_t last_ = 0;
  int cpu_ = -1;  // this rank's CPU at the last running()
  unsigned stale_ = 0;
  unsigned passes_ = 0;
};

void Runtime::settle_on_home_cpu(int cpu) noexcept {
  if (home_cpu_ < 0 || cpu == home_cpu_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - home_moved_at_ < kHomeMoveInterval) return;
  home_moved_at_ = now;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(home_cpu_, &allowed)) return;
  cpu_set_t home;
  CPU_ZERO(&home);
  CPU_SET(home_cpu_, &home);
  // The kernel moves the thread before the first call returns; the second gives the scheduler its
  // freedom back (nothing pulls the rank away from a balanced layout).
  if (sched_setaffinity(0, sizeof home, &home) == 0) {
    (void)sched_setaffinity(0, sizeof allowed, &allowed);
    FABMPI_LOG(debug, runtime, "waited for a rank on this CPU (%d): moved to CPU %d", cpu, home_cpu_);
  }
}

bool Runtime::wait_for(Request& request, double timeout_seconds) {
  const bool bounded = std::isfinite(timeout_seconds);
  const auto deadline = bounded ? std::chrono::steady_clock::now() +
                                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                          std::chrono::duration<double>(timeout_seconds))
                                : std::chrono::steady_clock::time_point::max();
  // Most waits end within a few passes (a ping-pong's reply is a fraction of a microsecond away):
  // poll before starting the idle accounting, whose first step reads the clock (as costly as a
  // few polls, and it would delay noticing an arrival).
  for (int pass = 0; pass < kPassesBeforeIdleSpin && !oversubscribed_; ++pass) {
    if (request.is_complete()) return true;
    progress_toward(request);
  }
  return idle_wait([&] { return request.is_complete(); }, [&] { return progress_toward(request); },
                   request.wait_peer, bounded, deadline);
}

void Runtime::wait_until(const std::function<bool()>& done, int wait_peer) {
  (void)idle_wait(done, [&] { return progress(); }, wait_peer, false, std::chrono::steady_clock::time_point::max());
}

template <class Done, class Pass>
bool Runtime::idle_wait(const Done& done, const Pass& pass, int wait_peer, bool bounded,
                        std::chrono::steady_clock::time_point deadline) {
  IdleSpin spin(*this);
  PeerWatch peer(*this, wait_peer);
  while (!done()) {
    if (pass() > 0) {
      spin.reset();
      peer.beat();
      continue;
    }
    if (spin.spin()) continue;
    if (peer.running()) {
      // Both ranks hold a core: the answer is a fraction of a microsecond away, and yielding would hand
      // the core to a rank of another pair for a scheduler slice (see PeerWatch).
      peer.beat_again();
      if ((peer.passes() & 1023) == 0) {
        const auto idle = spin.idle_time();
        if (idle >= hang_watch_from_) watch_for_hang(idle);
        if (bounded && std::chrono::steady_clock::now() > deadline) return false;
      }
      continue;
    }
    yield_once(spin.idle_time());
    if (bounded && std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

}  // namespace fabmpi
