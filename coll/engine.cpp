#include "coll/engine.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "common/log.hpp"
#include "pt2pt/engine.hpp"

namespace fabmpi::coll {
namespace {

// The schedule's point-to-point: bytes over the pt2pt engine's collective channel.
class EngineTransport final : public Transport {
 public:
  EngineTransport(Runtime& runtime, CommRef comm)
      : runtime_(runtime), comm_(std::move(comm)), byte_(builtin_datatype(MPI_BYTE)) {}
  Rc isend(const void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) override {
    return runtime_.pt2pt().isend(buf, bytes, byte_, peer, tag, comm_, pt2pt::Channel::collective,
                                  pt2pt::SendMode::standard, out);
  }
  Rc irecv(void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) override {
    return runtime_.pt2pt().irecv(buf, bytes, byte_, peer, tag, comm_, pt2pt::Channel::collective, out);
  }

 private:
  Runtime& runtime_;
  CommRef comm_;
  DatatypeRef byte_;
};

const std::string& forced_name(const Tunables& t, Collective c) {
  switch (c) {
    case Collective::barrier: return t.barrier_algorithm;
    case Collective::bcast: return t.bcast_algorithm;
    case Collective::reduce: return t.reduce_algorithm;
    case Collective::allreduce: return t.allreduce_algorithm;
    case Collective::allgather: return t.allgather_algorithm;
    case Collective::allgatherv: return t.allgatherv_algorithm;
    case Collective::gather: return t.gather_algorithm;
    case Collective::gatherv: return t.gatherv_algorithm;
    case Collective::scatter: return t.scatter_algorithm;
    case Collective::scatterv: return t.scatterv_algorithm;
    case Collective::reduce_scatter: return t.reduce_scatter_algorithm;
    case Collective::reduce_scatter_block: return t.reduce_scatter_block_algorithm;
    case Collective::alltoall: return t.alltoall_algorithm;
    case Collective::alltoallv: return t.alltoallv_algorithm;
    case Collective::alltoallw: return t.alltoallw_algorithm;
    case Collective::scan: return t.scan_algorithm;
    case Collective::exscan: return t.exscan_algorithm;
  }
  return t.barrier_algorithm;
}

bool same_key(const SelectionKey& a, const SelectionKey& b) {
  return a.collective == b.collective && a.comm_size == b.comm_size && a.bytes == b.bytes &&
         a.commutative == b.commutative && a.builtin_op == b.builtin_op && a.in_place == b.in_place &&
         a.single_node == b.single_node && a.shm == b.shm && a.shm_staged == b.shm_staged;
}

std::string env_name(Collective c) {
  std::string name = std::string("FABMPI_") + collective_name(c) + "_ALGORITHM";
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

}  // namespace

OpReducer::OpReducer(const Op& op, const Datatype& type) : op_(op), type_(type) {
  const ElementType e = type_.element_type();
  if (op_.builtin() && e != ElementType::none && !is_pair_element(e) && element_type_extent(e) != 0) {
    kernel_ = reduce_kernel(op_.predefined(), e);
    elements_per_item_ = type_.size() / element_type_extent(e);
  }
}

void OpReducer::reduce(const void* in, void* inout, std::size_t count) const {
  if (count == 0) return;
  if (kernel_) {  // a predefined op on a single element type: the packed stream is an array of them
    kernel_(in, inout, count * elements_per_item_);
    return;
  }
  const Datatype& t = type_;
  if (t.is_contiguous()) {  // packed == memory layout, shifted by true_lb
    op_.apply(static_cast<const std::byte*>(in) - t.true_lb(), static_cast<std::byte*>(inout) - t.true_lb(),
               count, t);
    return;
  }
  // Through the memory layout: unpack both operands, apply, pack the result back.
  const std::size_t span = static_cast<std::size_t>((static_cast<MPI_Aint>(count) - 1) * t.extent() + t.true_extent());
  std::vector<std::byte> a(span), b(span);
  std::byte* a_origin = a.data() - t.true_lb();
  std::byte* b_origin = b.data() - t.true_lb();
  const std::size_t bytes = count * t.size();
  t.unpack(in, bytes, 0, a_origin, count);
  t.unpack(inout, bytes, 0, b_origin, count);
  op_.apply(a_origin, b_origin, count, t);
  t.pack(b_origin, count, 0, inout, bytes);
}

std::byte* CollRequest::scratch(std::size_t bytes) {
  buffers.emplace_back(bytes == 0 ? 1 : bytes);  // uninitialized (no zero fill), from the scratch cache
  return buffers.back().data();
}

std::unique_ptr<Reducer> make_op_reducer(const OpRef& op, const DatatypeRef& type) {
  return std::make_unique<OpReducer>(*op, *type);
}

Rc Engine::create(Runtime& runtime, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> engine(new Engine(runtime));
  const Tunables& t = runtime.tunables();
  std::string error;
  if (!t.coll_table.empty()) {
    std::ifstream in(t.coll_table);
    if (!in) return fail(MPI_ERR_OTHER, "FABMPI_COLL_TABLE=%s: cannot open the file", t.coll_table.c_str());
    std::stringstream text;
    text << in.rdbuf();
    if (!SelectionTable::parse(text.str(), t.coll_table, &engine->table_, &error))
      return fail(MPI_ERR_OTHER, "FABMPI_COLL_TABLE: %s", error.c_str());
  } else if (!SelectionTable::parse(kBuiltinSelectionTable, "built-in table", &engine->table_, &error)) {
    return fail(MPI_ERR_INTERN, "%s", error.c_str());
  }
  const std::string& writes = t.shm_coll_stage_writes;
  if (writes != "auto" && writes != "plain" && writes != "non_temporal")
    return fail(MPI_ERR_OTHER, "FABMPI_SHM_COLL_STAGE_WRITES=%s: expected auto, plain or non_temporal", writes.c_str());
  if (t.shm_coll_prefetch < 0 || t.shm_coll_prefetch > 31)
    return fail(MPI_ERR_OTHER, "FABMPI_SHM_COLL_PREFETCH=%d: expected 0 (off) to 31", static_cast<int>(t.shm_coll_prefetch));
  for (int i = 0; i < kCollectiveCount; ++i) {
    const auto c = static_cast<Collective>(i);
    const std::string& name = forced_name(t, c);
    if (name.empty()) continue;
    engine->forced_[static_cast<std::size_t>(i)] = find_algorithm(c, name);
    if (!engine->forced_[static_cast<std::size_t>(i)])
      return fail(MPI_ERR_OTHER, "%s=%s: no such %s algorithm (valid: %s)", env_name(c).c_str(), name.c_str(),
                  collective_name(c), algorithm_names(c).c_str());
  }
  scratch::prepare();  // before the first collective: its malloc side effect matters from the start
  FABMPI_LOG(debug, coll, "collective engine: %zu selection rules from %s", engine->table_.rules.size(),
             engine->table_.source.c_str());
  *out = std::move(engine);
  return Rc();
}

const Algorithm* Engine::choose(const SelectionKey& key, AlgorithmParams* out_params) {
  const auto index = static_cast<std::size_t>(key.collective);
  const Algorithm* algorithm = nullptr;
  AlgorithmParams params;
  const bool logging = log::enabled(log::Level::info, log::Subsys::coll);
  if (!logging) {
    for (const CachedDecision& c : decisions_[index])
      if (c.algorithm && same_key(c.key, key)) {
        algorithm = c.algorithm;
        params = c.params;
        break;
      }
  }
  if (!algorithm) {
    Decision d = select_algorithm(table_, key, forced_[index]);
    for (const std::string& w : d.warnings) {
      if (!warned_[index]) FABMPI_LOG(warn, coll, "%s", w.c_str());
      else FABMPI_LOG(info, coll, "%s", w.c_str());
    }
    if (!d.warnings.empty()) warned_[index] = true;
    FABMPI_LOG(info, coll, "%s: %s (ranks %d, bytes %zu%s%s%s) by %s", collective_name(key.collective),
               d.algorithm->name, key.comm_size, key.bytes, key.commutative ? "" : ", non-commutative",
               key.builtin_op ? "" : ", user op", key.in_place ? ", in place" : "", d.reason.c_str());
    algorithm = d.algorithm;
    params = d.params;
    if (d.warnings.empty()) {
      decisions_[index][next_way_[index]] = CachedDecision{key, algorithm, params};
      next_way_[index] = (next_way_[index] + 1) % kDecisionCacheWays;
    }
  }
  if (out_params) *out_params = params;
  return algorithm;
}

Rc Engine::start(const std::shared_ptr<CollRequest>& request, const SelectionKey& key, const CollArgs& args) {
  AlgorithmParams params;
  const Algorithm* algorithm = choose(key, &params);

  const Context ctx = context_for(*request);
  request->algorithm = algorithm;
  request->schedule = algorithm->make(ctx, args, params);
  launch(request);
  return Rc();
}

Rc Engine::start_schedule(const std::shared_ptr<CollRequest>& request, const char* label,
                          const std::function<ScheduleRef(const Context&)>& make) {
  const Context ctx = context_for(*request);
  request->label = label;
  request->schedule = make(ctx);
  launch(request);
  return Rc();
}

Context Engine::context_for(CollRequest& request) {
  Comm& comm = *request.comm;
  if (!request.transport) request.transport = std::make_unique<EngineTransport>(runtime_, request.comm);
  Context ctx;
  ctx.transport = request.transport.get();
  ctx.rank = comm.rank();
  ctx.size = comm.peer_size();  // an intercommunicator's schedules address the remote group
  // Tags at and above 0x40000000 belong to communicator creation (runtime/comm_create.cpp).
  ctx.tag = static_cast<int>(comm.next_collective_sequence() & 0x3fffffffu);
  request.tag = ctx.tag;
  return ctx;
}

void Engine::launch(const std::shared_ptr<CollRequest>& request) {
  if (request->schedule->progress()) {
    finish(*request);
  } else {
    active_.push_back(request);
  }
}

void Engine::finish(CollRequest& request) {
  const Rc rc = request.schedule->error();
  if (rc.ok()) {
    for (auto& step : request.on_complete) step();
  } else {
    request.error = rc.code();
  }
  request.mark_complete();
  if (RequestRef outer = request.completes_also.lock()) {
    outer->error = request.error;
    outer->mark_complete();
  }
}

void Engine::describe_waiting(std::vector<std::string>* lines) const {
  for (const auto& request : active_) {
    const Comm& comm = *request->comm;
    const std::string what = request->algorithm ? std::string(collective_name(request->algorithm->collective)) +
                                                      " (" + request->algorithm->name + ")"
                                                : std::string(request->label ? request->label : "operation");
    lines->push_back(std::string("collective ") + what + " on " + comm.display_name() + ", rank " +
                     std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) + ": in progress, its messages "
                     "are the collective traffic with tag " + std::to_string(request->tag));
  }
}

int Engine::progress_active() {
  progressing_ = true;
  int events = 0;
  // Index loop: finishing a collective may not start another, but keep it robust anyway.
  for (std::size_t i = 0; i < active_.size();) {
    std::shared_ptr<CollRequest> request = active_[i];
    if (request->schedule->progress()) {
      finish(*request);
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      ++events;
    } else {
      ++i;
    }
  }
  progressing_ = false;
  return events;
}

Rc attach(Runtime& runtime) {
  std::unique_ptr<Engine> engine;
  FABMPI_TRY(Engine::create(runtime, &engine));
  runtime.add_progress_source(engine.get());
  runtime.collectives = std::move(engine);
  return Rc();
}

Engine& engine_of(Runtime& runtime) { return static_cast<Engine&>(*runtime.collectives); }

}  // namespace fabmpi::coll
