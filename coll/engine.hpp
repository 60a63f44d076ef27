// The collective engine: one per Runtime (in Runtime::collectives), a progress source that advances
// every collective in flight. It owns the selection table and the forced algorithm names (both checked
// when MPI starts), chooses an algorithm per call, and runs its schedule over the pt2pt engine.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "coll/registry.hpp"
#include "coll/selection.hpp"
#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/op.hpp"
#include "runtime/request.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::coll {

// A collective in flight: its schedule and everything the schedule points into (transport, reducer,
// staging buffers), plus the unpacking to do once it completes.
class CollRequest final : public Request {
 public:
  explicit CollRequest(CommRef c) : Request(Kind::collective), comm(std::move(c)) {}
  CommRef communicator() const override { return comm; }

  // Storage for the call's packed copies; the pointer stays valid for the request's life.
  std::byte* scratch(std::size_t bytes);

  CommRef comm;
  std::vector<DatatypeRef> types;  // keep the call's datatypes alive
  OpRef op;
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Reducer> reducer;
  std::vector<Bytes> buffers;                      // from the scratch cache
  std::vector<std::function<void()>> on_complete;  // e.g. unpack a staged result into the user's buffer
  const Algorithm* algorithm = nullptr;            // set by Engine::start (hang reports)
  const char* label = nullptr;                     // what runs when no algorithm does (start_schedule)
  int tag = 0;                                     // the collective-channel tag of this instance
  std::weak_ptr<Request> completes_also;            // a persistent collective whose round this is
  ScheduleRef schedule;                             // last: destroyed first, it points into the above
};

class Engine final : public ProgressSource {
 public:
  // Reads the table (FABMPI_COLL_TABLE or the built-in one) and the FABMPI_<COLL>_ALGORITHM names.
  // Fails with a message naming the valid choices when one is unknown.
  static Rc create(Runtime& runtime, std::unique_ptr<Engine>* out);

  // Inline test first: every wait of a point-to-point call passes here with no collective in flight.
  int progress() override {
    if (progressing_ || active_.empty()) return 0;  // re-entered from below a schedule: nothing to do
    return progress_active();
  }
  // Every collective in flight: which, which algorithm, on which communicator.
  void describe_waiting(std::vector<std::string>* lines) const override;

  // Selects an algorithm for `key`, builds its schedule on `request` and starts it. `args` is in
  // packed form (see algorithms.hpp); the request's reducer/transport are set here when needed.
  Rc start(const std::shared_ptr<CollRequest>& request, const SelectionKey& key, const CollArgs& args);

  // Runs a schedule that is not chosen from the table (one way to do it: the neighbourhood
  // collectives); `label` names it in hang reports.
  Rc start_schedule(const std::shared_ptr<CollRequest>& request, const char* label,
                    const std::function<ScheduleRef(const Context&)>& make);

  // The algorithm (and its parameters, when `params` is set) for `key`: the forced one, the table's, or
  // the default; decisions are cached. Used by start() and by the shared-memory fast path.
  const Algorithm* choose(const SelectionKey& key, AlgorithmParams* params);

  const SelectionTable& table() const { return table_; }

 private:
  explicit Engine(Runtime& runtime) : runtime_(runtime) {}
  // The transport and a fresh collective tag for the request's next schedule.
  Context context_for(CollRequest& request);
  // Progresses a new schedule once; finished, or tracked until it is.
  void launch(const std::shared_ptr<CollRequest>& request);
  void finish(CollRequest& request);

  Runtime& runtime_;
  SelectionTable table_;
  std::array<const Algorithm*, kCollectiveCount> forced_{};
  std::array<bool, kCollectiveCount> warned_{};
  // The last few decisions per collective (a selection walks the whole table and builds the reason
  // string; a loop of same-size calls pays that on every call otherwise). Only warning-free decisions,
  // and only used while coll info logging is off, so every logged decision still says why.
  struct CachedDecision {
    SelectionKey key;
    const Algorithm* algorithm = nullptr;
    AlgorithmParams params;
  };
  static constexpr std::size_t kDecisionCacheWays = 4;
  std::array<std::array<CachedDecision, kDecisionCacheWays>, kCollectiveCount> decisions_{};
  std::array<std::size_t, kCollectiveCount> next_way_{};
  int progress_active();

  std::vector<std::shared_ptr<CollRequest>> active_;
  bool progressing_ = false;
};

// Creates the runtime's collective engine and registers it as a progress source (Runtime::create).
Rc attach(Runtime& runtime);
// The runtime's collective engine (attach() must have run).
Engine& engine_of(Runtime& runtime);

// Reduces packed elements of `type` with `op` (predefined kernels straight on the packed stream;
// user functions and pair types through the type's memory layout). Holds plain references: the op
// and the type must outlive it (the request keeps them, or the blocking call's frame does).
class OpReducer final : public Reducer {
 public:
  OpReducer(const Op& op, const Datatype& type);
  void reduce(const void* in, void* inout, std::size_t count) const override;
  bool commutative() const override { return op_.commutative(); }

 private:
  const Op& op_;
  const Datatype& type_;
  ReduceKernel kernel_ = nullptr;
  std::size_t elements_per_item_ = 0;
};
// The same on the heap, for a request that holds `op` and `type` (CollRequest::op and ::types).
std::unique_ptr<Reducer> make_op_reducer(const OpRef& op, const DatatypeRef& type);

}  // namespace fabmpi::coll
