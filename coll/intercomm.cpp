// The reductions of intercommunicator collectives (MPI-3.1 5.2.2): MPI_(I)reduce, allreduce,
// reduce_scatter and reduce_scatter_block where the result in one group reduces the other group's data.
// Linear: each process sends its (sliced) input straight to the remote processes that need it and reduces
// what the remote processes sent it, in their rank order (so non-commutative ops see rank order). One
// round, p * q messages for the all-to-all forms: right for the small groups intercommunicators join in
// practice; a leader-based form over the companion communicator (Comm::local_comm) is the step up for
// large groups. The data-moving intercommunicator collectives need no arithmetic and run as a plain
// exchange of blocks (start_neighbor_exchange; coll/binding.cpp builds the block lists).
#include "coll/collectives.hpp"

#include <numeric>

namespace fabmpi::coll {
namespace {

class InterReduction final : public Schedule {
 public:
  struct Plan {
    const std::byte* send = nullptr;  // packed input
    // Either the whole input to each of `whole_to` (remote ranks), or (sliced) consecutive slices of
    // send_counts[r] elements to every remote rank r.
    std::vector<int> whole_to;
    std::vector<std::size_t> send_counts;
    bool sliced = false;
    // reduce_scatter: learn send_counts first (each process sends the remote group its own count).
    bool exchange_counts = false;
    std::size_t input_count = 0;  // elements in `send` (checked against the counts learnt)
    bool receive = false;         // receive `recv_count` elements from every remote process and reduce
    std::size_t recv_count = 0;
    std::size_t elem_size = 0;
    std::byte* result = nullptr;
    std::byte* scratch = nullptr;  // remote size * recv_count * elem_size
    const Reducer* reducer = nullptr;
  };

  InterReduction(const Context& ctx, Plan plan) : Schedule(ctx), p_(std::move(plan)) {}

 protected:
  bool step() override {
    const int q = size();  // the remote group
    if (phase_ == Phase::counts) {
      phase_ = Phase::data;
      if (p_.exchange_counts) {
        my_count_ = static_cast<std::uint64_t>(p_.recv_count);
        remote_counts_.assign(static_cast<std::size_t>(q), 0);
        for (int r = 0; r < q; ++r) recv(&remote_counts_[static_cast<std::size_t>(r)], sizeof(std::uint64_t), r);
        for (int r = 0; r < q; ++r) send(&my_count_, sizeof my_count_, r);
        return false;
      }
    }
    if (phase_ == Phase::data) {
      phase_ = Phase::reduce;
      if (p_.exchange_counts) {
        p_.send_counts.assign(remote_counts_.begin(), remote_counts_.end());
        const std::size_t wanted = std::accumulate(p_.send_counts.begin(), p_.send_counts.end(), std::size_t{0});
        // Both groups see both sums, so both fail here.
        if (wanted != p_.input_count)
          return fail_with(fail(MPI_ERR_COUNT,
                                "the remote group's recvcounts add up to %zu elements, this group's to %zu "
                                "(both groups reduce vectors of one length)",
                                wanted, p_.input_count));
      }
      if (p_.receive)
        for (int r = 0; r < q; ++r)
          recv(p_.scratch + static_cast<std::size_t>(r) * p_.recv_count * p_.elem_size, p_.recv_count * p_.elem_size,
               r);
      for (int r : p_.whole_to) send(p_.send, p_.input_count * p_.elem_size, r);
      std::size_t offset = 0;
      for (std::size_t r = 0; p_.sliced && r < p_.send_counts.size(); ++r) {
        send(p_.send + offset * p_.elem_size, p_.send_counts[r] * p_.elem_size, static_cast<int>(r));
        offset += p_.send_counts[r];
      }
      return false;
    }
    if (p_.receive) reduce_received(q);
    return true;
  }

 private:
  // result = b_0 op b_1 op ... op b_{q-1}, folded from the right so each step is in := in op inout.
  void reduce_received(int q) {
    const std::size_t block = p_.recv_count * p_.elem_size;
    if (block == 0) return;
    std::byte* acc = p_.scratch + static_cast<std::size_t>(q - 1) * block;
    for (int r = q - 2; r >= 0; --r) p_.reducer->reduce(p_.scratch + static_cast<std::size_t>(r) * block, acc, p_.recv_count);
    copy_bytes(p_.result, acc, block);
  }

  enum class Phase { counts, data, reduce };
  Plan p_;
  Phase phase_ = Phase::counts;
  std::uint64_t my_count_ = 0;
  std::vector<std::uint64_t> remote_counts_;
};

std::byte* at(void* buf, MPI_Aint offset) { return static_cast<std::byte*>(buf) + offset; }

// The input as packed bytes (the user's memory when contiguous).
const std::byte* packed_input(CollRequest& r, const void* buf, std::size_t count, const Datatype& t) {
  if (count == 0 || t.is_contiguous()) return static_cast<const std::byte*>(buf) + t.true_lb();
  std::byte* staged = r.scratch(count * t.size());
  t.pack(buf, count, 0, staged, count * t.size());
  return staged;
}

// Where the result goes as packed bytes (unpacked into the user's buffer when the call completes).
std::byte* packed_result(CollRequest& r, void* buf, std::size_t count, const DatatypeRef& t) {
  if (count == 0 || t->is_contiguous()) return at(buf, t->true_lb());
  std::byte* staged = r.scratch(count * t->size());
  r.on_complete.push_back([staged, buf, count, t] { t->unpack(staged, count * t->size(), 0, buf, count); });
  return staged;
}

Rc run(const std::shared_ptr<CollRequest>& request, const char* what, InterReduction::Plan plan, RequestRef* out) {
  FABMPI_TRY(engine_of(request->comm->runtime()).start_schedule(request, what, [&](const Context& ctx) -> ScheduleRef {
    return std::make_unique<InterReduction>(ctx, std::move(plan));
  }));
  *out = request;
  return Rc();
}

}  // namespace

Rc start_inter_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                         const DatatypeRef& type, const OpRef& op, int root, RequestRef* out) {
  auto request = std::make_shared<CollRequest>(comm);
  request->types.push_back(type);
  request->op = op;
  request->reducer = make_op_reducer(op, type);
  const int q = comm->peer_size();
  const auto n = static_cast<std::size_t>(count);
  InterReduction::Plan plan;
  plan.elem_size = type->size();
  plan.reducer = request->reducer.get();
  plan.input_count = n;
  const bool sends = kind == Collective::allreduce || root >= 0;  // reduce: the group without the root
  const bool receives = kind == Collective::allreduce || root == MPI_ROOT;
  if (sends) {
    plan.send = packed_input(*request, sendbuf, n, *type);
    if (kind == Collective::reduce) plan.whole_to.push_back(root);
    else
      for (int r = 0; r < q; ++r) plan.whole_to.push_back(r);
  }
  if (receives) {
    plan.receive = true;
    plan.recv_count = n;
    plan.scratch = request->scratch(static_cast<std::size_t>(q) * n * type->size());
    plan.result = packed_result(*request, recvbuf, n, type);
  }
  return run(request, kind == Collective::reduce ? "MPI_Reduce on an intercommunicator" : "MPI_Allreduce on an intercommunicator",
             std::move(plan), out);
}

Rc start_inter_reduce_scatter(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf,
                              Counts recvcounts, const DatatypeRef& type, const OpRef& op, RequestRef* out) {
  auto request = std::make_shared<CollRequest>(comm);
  request->types.push_back(type);
  request->op = op;
  request->reducer = make_op_reducer(op, type);
  const int p = comm->size();
  const int q = comm->peer_size();
  const bool block = kind == Collective::reduce_scatter_block;
  const std::size_t mine = static_cast<std::size_t>(block ? recvcounts[0] : recvcounts[static_cast<std::size_t>(comm->rank())]);
  const std::size_t total = block ? static_cast<std::size_t>(p) * mine
                                  : std::accumulate(recvcounts.begin(), recvcounts.end(), std::size_t{0});
  InterReduction::Plan plan;
  plan.elem_size = type->size();
  plan.reducer = request->reducer.get();
  plan.input_count = total;
  plan.send = packed_input(*request, sendbuf, total, *type);
  plan.sliced = true;
  if (block) {
    // Both groups reduce vectors of one length: the remote group's blocks are total / q elements.
    if (total % static_cast<std::size_t>(q) != 0)
      return fail(MPI_ERR_COUNT,
                  "%zu elements (this group's size times recvcount) do not split into %d equal blocks for the "
                  "remote group",
                  total, q);
    plan.send_counts.assign(static_cast<std::size_t>(q), total / static_cast<std::size_t>(q));
  } else {
    plan.exchange_counts = true;
  }
  plan.receive = true;
  plan.recv_count = mine;
  plan.scratch = request->scratch(static_cast<std::size_t>(q) * mine * type->size());
  plan.result = packed_result(*request, recvbuf, mine, type);
  return run(request,
             block ? "MPI_Reduce_scatter_block on an intercommunicator" : "MPI_Reduce_scatter on an intercommunicator",
             std::move(plan), out);
}

}  // namespace fabmpi::coll
