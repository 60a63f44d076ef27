// The state of one MPI library instance: bootstrap, tunables, the two predefined communicators, the
// point-to-point engine and the progress loop. The C binding layer owns the one process-wide instance;
// the core itself never reaches for a global.
#pragma once

#include <chrono>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/tunables.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/comm.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"

namespace fabmpi {

namespace pt2pt { class Engine; }

// Removes the fatal-signal handlers libinfinipath (pulled in by Debian's libfabric) installs when it is
// loaded, so a crashing rank dies of its signal. Called by MPI_Init and after libfabric is loaded.
void drop_infinipath_fault_handlers() noexcept;

// Something the progress loop advances: the pt2pt engine, the collective scheduler, ...
class ProgressSource {
 public:
  virtual ~ProgressSource() = default;
  // Makes what progress it can without blocking. Returns the number of events handled.
  virtual int progress() = 0;
  // One line per operation still in flight, for hang reports (Runtime::report_hang).
  virtual void describe_waiting(std::vector<std::string>* lines) const { (void)lines; }
  // The world ranks those operations wait for (a receive's source, a send's receiver); *any when a
  // receive takes any source. mpirun joins every rank's list into a wait-for graph (deadlock cycles).
  virtual void waited_ranks(std::vector<int>* world_ranks, bool* any) const { (void)world_ranks; (void)any; }
};

// User-defined error classes, codes and strings (MPI_Add_error_*).
class ErrorRegistry {
 public:
  int add_class();
  // MPI_ERR_ARG if the class is unknown.
  Rc add_code(int error_class, int* code);
  Rc set_string(int code, const std::string& text);
  // The class of a code (a predefined class is its own class); -1 when unknown.
  int class_of(int code) const;
  const std::string* string_of(int code) const;
  int last_used() const noexcept { return last_used_; }

 private:
  // User classes and codes start above MPI_ERR_LASTCODE, as MPICH's do (mpi4py's tests rely on it).
  int last_used_ = MPI_ERR_LASTCODE;
  std::map<int, int> class_of_code_;
  std::map<int, std::string> strings_;

 public:
  static constexpr int MPI_ERR_LASTCODE_PREDEFINED = 78;
};

class Runtime {
 public:
  struct Options {
    int required_thread_level = MPI_THREAD_SINGLE;
    // When set, used instead of the one the environment names (PMI or singleton).
    std::unique_ptr<Bootstrap> bootstrap;
  };

  // Bootstraps, brings the transports up and builds MPI_COMM_WORLD / MPI_COMM_SELF.
  static Rc create(Options options, std::unique_ptr<Runtime>* out);
  ~Runtime();

  // Collective over MPI_COMM_WORLD: drains pending traffic, tears the transports down.
  Rc finalize();

  // This process's index among every process of the mpirun (its universe index: pt2pt addresses
  // peers by it, groups list it) and the size of MPI_COMM_WORLD. The first job's indices are its world
  // ranks; a spawned job's start at world_base() (launcher/pmi_server.hpp), so its rank in
  // MPI_COMM_WORLD is world_rank() - world_base().
  int world_rank() const noexcept { return world_rank_; }
  int world_size() const noexcept { return world_size_; }
  int world_base() const noexcept { return world_base_; }
  // Processes of other jobs become known (MPI_Comm_spawn and its children): the node map grows to
  // cover them (as another node: they are reached over the network) and pt2pt can address them.
  Rc add_processes(const std::vector<int>& world_ranks);
  int thread_level() const noexcept { return thread_level_; }
  bool is_main_thread() const noexcept { return std::this_thread::get_id() == main_thread_; }
  const Tunables& tunables() const noexcept { return tunables_; }
  Bootstrap& bootstrap() noexcept { return *bootstrap_; }
  const std::vector<int>& node_of_rank() const noexcept { return node_of_rank_; }
  const std::string& processor_name() const noexcept { return processor_name_; }
  const CommRef& world() const noexcept { return world_; }
  const CommRef& self() const noexcept { return self_; }
  pt2pt::Engine& pt2pt() noexcept { return *pt2pt_; }
  ErrorRegistry& errors() noexcept { return errors_; }
  // True when more ranks run on this node than it has cores: waiting ranks yield at once.
  bool oversubscribed() const noexcept { return oversubscribed_; }
  int local_ranks() const noexcept { return local_ranks_; }  // ranks of this job on this node
  int cores() const noexcept { return cores_; }              // CPUs this node's ranks may run on

  // One pass over every progress source.
  int progress();
  // The same, ending early once `request` is complete: its waiter returns next, and the rest of the
  // pass would only delay that (a ping-pong's reply is on this path).
  int progress_toward(const Request& request);
  // Progresses until the request completes, spinning briefly and then yielding the core.
  void wait(Request& request);
  // Same, but gives up after `timeout_seconds` (for the torch backend); returns false on timeout.
  bool wait_for(Request& request, double timeout_seconds);
  // Progresses (every source) until done(), with the same idle policy; `wait_peer` as Request::wait_peer
  // (the binding layer's Waitall/Waitany/Waitsome pass the first pending request's).
  void wait_until(const std::function<bool()>& done, int wait_peer = -1);
  void add_progress_source(ProgressSource* source);
  void remove_progress_source(ProgressSource* source);

  // The lock every MPI call holds under MPI_THREAD_MULTIPLE (released while a wait yields).
  std::recursive_mutex& api_lock() noexcept { return api_lock_; }
  bool needs_api_lock() const noexcept { return thread_level_ == MPI_THREAD_MULTIPLE; }
  // How long a waiting loop keeps spinning before it yields: FABMPI_SPIN_COUNT empty polls and at least
  // FABMPI_SPIN_US microseconds (a poll of native shared memory takes nanoseconds, so a count alone
  // would give the core away after microseconds); neither when oversubscribed.
  class IdleSpin {
   public:
    explicit IdleSpin(const Runtime& rt)
        : limit_(rt.oversubscribed_ ? 0 : static_cast<long long>(rt.tunables_.spin_count)),
          budget_(rt.oversubscribed_ ? 0 : static_cast<long long>(rt.tunables_.spin_us)) {}
    void reset() noexcept { idle_ = 0; }
    // How long the loop has been idle, read from the clock at most every 8th idle pass while under a
    // millisecond (a clock read costs ~25 ns on a VM, a fair part of an oversubscribed pass; the callers
    // compare it with milliseconds): between reads, the last reading. From a millisecond on, every pass
    // reads it (passes are yields and sleeps by then), so that the hang watch, which knows an idle
    // stretch by its start (now - idle_time), sees one start, not a drifting one.
    // An oversubscribed loop (no spin budget) starts its clock at its first reading, not at its first
    // idle pass: most of its waits end before that.
    std::chrono::steady_clock::duration idle_time() noexcept {
      if (idle_ - idle_at_reading_ >= 8 || reading_ >= std::chrono::milliseconds(1)) {
        idle_at_reading_ = idle_;
        const auto now = std::chrono::steady_clock::now();
        if (!started_) {
          since_ = now;
          started_ = true;
        }
        reading_ = now - since_;
      }
      return reading_;
    }
    // Counts an empty progress pass; true while the loop should keep spinning.
    bool spin() noexcept {
      if (++idle_ == 1) {
        started_ = spinning_ = budget_ > 0;
        if (started_) since_ = std::chrono::steady_clock::now();
        idle_at_reading_ = 1;
        reading_ = {};
      }
      if (idle_ <= limit_) return true;
      if (spinning_ && (idle_ & 255) == 0)
        spinning_ = std::chrono::steady_clock::now() - since_ < std::chrono::microseconds(budget_);
      return spinning_;
    }

   private:
    long long limit_;
    long long budget_;
    long long idle_ = 0;  // 64 bits: a thread-multiple rank yields ~10^6 times a second for as long as it waits
    bool spinning_ = false;
    std::chrono::steady_clock::time_point since_;
    bool started_ = false;  // since_ is set
    long long idle_at_reading_ = 0;
    std::chrono::steady_clock::duration reading_{};
  };

  // One idle step of a waiting loop that has been idle for `idle_time` (past its spin): yields the
  // core, or sleeps until a peer's message when the rank has waited long or yielding has turned out
  // slow on an oversubscribed node (native shm only; see pt2pt::Engine::sleep_until_event and
  // yields_instead_of_sleeping).
  // `ready` (may be null) is checked once more before sleeping (a shared-memory flag whose writer wakes
  // us; coll/shm_region.cpp).
  void yield_once(std::chrono::steady_clock::duration idle_time = {}, bool (*ready)(const void*) = nullptr,
                  const void* ready_arg = nullptr);
  // Whether yield_once(idle_time) will only yield, not sleep (a waiter announces itself to the rank
  // that must wake it only before a step that may sleep).
  bool yields_instead_of_sleeping(std::chrono::steady_clock::duration idle_time) const noexcept;

  // Hang reports (docs/debugging.md): the binding layer's record of the MPI function the application
  // is in (read only for the report).
  void set_current_call_source(const std::atomic<const char*>* source) noexcept { current_call_ = source; }
  // Prints to stderr what this rank waits for: the MPI function, and every operation in flight as the
  // progress sources describe it. `why` opens the report ("no progress for 10.0 s").
  void report_hang(const std::string& why) const;
  // Application polling loops are idle waits too: a nonblocking completion call (MPI_Test*,
  // MPI_Request_get_status, MPI_Iprobe) reports what it found after its progress pass (`events`: what
  // that pass handled). Every 1024th fruitless call in a row looks at the hang watch.
  void note_poll(bool found, int events) {
    if (found || events > 0) {
      fruitless_polls_ = 0;
    } else if ((++fruitless_polls_ & 1023) == 0 && hang_watch_from_ != std::chrono::steady_clock::duration::max()) {
      watch_polling();
    }
  }
  // A blocking shared-memory collective's idle step says whom it waits for (coll/shm_region.cpp); null: none.
  void note_shared_memory_wait(const std::string* comm_text, int rank, int world_rank = -1) noexcept {
    shm_wait_comm_ = comm_text;
    shm_wait_rank_ = rank;
    shm_wait_world_rank_ = world_rank;
  }

  // The context ids this process has in use (runtime/context_ids.hpp); communicator creation
  // (runtime/comm_create.cpp) agrees on a new one with the other members. Shared with the
  // communicators, which return their id when destroyed, even after the runtime is gone.
  const std::shared_ptr<ContextIdPool>& context_ids() const noexcept { return context_ids_; }

  // Extension slot for the collective engine (coll/engine.hpp): created by Runtime::create through
  // coll::attach(), which also registers it as a progress source. Owned here so its lifetime is the
  // runtime's; only coll/ looks inside.
  std::unique_ptr<ProgressSource> collectives;
  // The same for partitioned point-to-point (pt2pt/partitioned.cpp): created on first use, dropped at
  // finalize.
  std::unique_ptr<ProgressSource> partitioned;
  // MPI_Finalize has run (Runtime::finalize).
  bool finalized() const noexcept { return finalized_; }

 private:
  Runtime() = default;

  int world_rank_ = 0;
  int world_size_ = 1;
  int world_base_ = 0;
  int thread_level_ = MPI_THREAD_SINGLE;
  std::thread::id main_thread_;
  Tunables tunables_;
  std::unique_ptr<Bootstrap> bootstrap_;
  std::vector<int> node_of_rank_;
  std::string processor_name_;
  std::shared_ptr<ContextIdPool> context_ids_ = std::make_shared<ContextIdPool>();
  CommRef world_, self_;
  std::unique_ptr<pt2pt::Engine> pt2pt_;
  std::vector<ProgressSource*> progress_sources_;
  ErrorRegistry errors_;
  std::recursive_mutex api_lock_;
  bool oversubscribed_ = false;
  class PeerWatch;  // runtime.cpp: co-scheduling of waits on an oversubscribed node
  // wait_for's and wait_until's loop: pass() until done(), spinning, co-scheduling or yielding when idle.
  template <class Done, class Pass>
  bool idle_wait(const Done& done, const Pass& pass, int wait_peer, bool bounded,
                 std::chrono::steady_clock::time_point deadline);
  // Moves this rank to home_cpu_ (round robin over its CPUs by node index; -1: none) when it is not
  // there, at most once per kHomeMoveInterval: a wait found the rank it waits for on this rank's CPU.
  void settle_on_home_cpu(int cpu) noexcept;
  static constexpr std::chrono::milliseconds kHomeMoveInterval{20};
  int home_cpu_ = -1;
  std::chrono::steady_clock::time_point home_moved_at_{};
  unsigned peer_on_my_cpu_ = 0;  // PeerWatch: the waited-for rank last beat on this CPU, times in a row
  int local_ranks_ = 1;  // ranks of this job on this node
  int cores_ = 1;        // FABMPI_NODE_CPUS (mpirun --bind-to core), else this process's affinity mask
  // Whether threads outside this job's awake ranks are runnable on the machine now (a slow yield then
  // means another job holds the core).
  bool outside_work_runnable() const noexcept;
  // Oversubscribed: until then, waiting ranks sleep rather than yield (a recent yield was slow).
  std::chrono::steady_clock::time_point sleep_spell_until_{};
  unsigned oversubscribed_yields_ = 0;  // every 4th is timed (yield_once)
  std::chrono::steady_clock::duration sleep_spell_{};
  // Hang watch, looked at from yield_once (every idle wait passes there) and note_poll (polling loops):
  // report after this long
  // without progress (FABMPI_HANG_REPORT; max(): off) and/or at mpirun's --timeout minus a margin
  // (FABMPI_HANG_DEADLINE, Unix ms; 0: none). One report per idle stretch.
  void watch_for_hang(std::chrono::steady_clock::duration idle_time);
  void watch_polling();
  std::uint64_t fruitless_polls_ = 0;
  std::chrono::steady_clock::time_point polling_since_{};  // when the current fruitless run reached 1024
  std::chrono::steady_clock::duration hang_report_after_ = std::chrono::steady_clock::duration::max();
  long long hang_deadline_unix_ms_ = 0;
  std::chrono::steady_clock::duration hang_watch_from_ = std::chrono::steady_clock::duration::max();
  std::chrono::steady_clock::time_point hang_stretch_start_{};
  std::chrono::steady_clock::time_point hang_next_clock_check_{};
  bool hang_reported_ = false;
  const std::atomic<const char*>* current_call_ = nullptr;
  const std::string* shm_wait_comm_ = nullptr;
  int shm_wait_rank_ = -1;
  int shm_wait_world_rank_ = -1;
  bool finalized_ = false;
};

}  // namespace fabmpi
