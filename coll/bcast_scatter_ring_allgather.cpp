// Broadcast as a binomial scatter followed by a ring allgather (van de Geijn).
// Cost: (log2 P + P - 1) * alpha + 2 * (P-1)/P * n * beta. Bandwidth-optimal for large messages.
// Pattern (vranks relative to the root): the buffer is cut into P nearly equal chunks; the root
// scatters chunk v to vrank v down a binomial tree (a subtree receives its chunks in one message), then
// chunk v travels the ring v -> v+1 -> ... until every rank has all of them.
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

// Binomial scatter in place: vrank v receives the bytes of chunks [v, v + subtree) at their own
// position in the buffer, then hands each child its part, largest subtree first.
class BcastBinomialScatter final : public Schedule {
 public:
  BcastBinomialScatter(const Context& ctx, std::byte* buf, std::vector<std::size_t> offsets)
      : Schedule(ctx), buf_(buf), offsets_(std::move(offsets)) {}

 protected:
  bool step() override {
    const int v = vrank(), p = size();
    switch (phase_) {
      case Phase::receive:
        phase_ = Phase::forward;
        if (v != 0) {
          const int end = v + pattern::binomial_subtree_size(v, p);
          recv(buf_ + offsets_[v], offsets_[end] - offsets_[v], pattern::binomial_parent(v));
          return false;
        }
        [[fallthrough]];
      case Phase::forward:
        for (int i = pattern::binomial_num_children(v, p) - 1; i >= 0; --i) {
          const int child = pattern::binomial_child(v, p, i);
          const int end = child + pattern::binomial_subtree_size(child, p);
          send(buf_ + offsets_[child], offsets_[end] - offsets_[child], child);
        }
        phase_ = Phase::done;
        return false;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { receive, forward, done };
  Phase phase_ = Phase::receive;
  std::byte* buf_;
  std::vector<std::size_t> offsets_;
};

}  // namespace

ScheduleRef make_bcast_binomial_scatter(const Context& ctx, std::byte* buf, std::vector<std::size_t> offsets,
                                        int root) {
  Context c = ctx;
  c.shift = root;
  return std::make_unique<BcastBinomialScatter>(c, buf, std::move(offsets));
}

// Chunk offsets for P chunks of a broadcast of `bytes` bytes (vrank order).
std::vector<std::size_t> bcast_chunk_offsets(std::size_t bytes, int size) {
  std::vector<std::size_t> offsets(static_cast<std::size_t>(size) + 1);
  for (int i = 0; i <= size; ++i) offsets[static_cast<std::size_t>(i)] = pattern::split_offset(bytes, size, i);
  offsets[static_cast<std::size_t>(size)] = bytes;
  return offsets;
}

ScheduleRef make_bcast_scatter_ring_allgather(const Context& ctx, const CollArgs& args, const AlgorithmParams& params) {
  auto sequence = std::make_unique<Sequence>(ctx);
  std::vector<std::size_t> offsets = bcast_chunk_offsets(args.count, ctx.size);
  sequence->add(make_bcast_binomial_scatter(ctx, args.recv, offsets, args.root));
  Context rotated = ctx;
  rotated.shift = args.root;
  CollArgs gather;
  gather.recv = args.recv;
  gather.recv_offset = std::move(offsets);
  sequence->add(make_allgather_ring(rotated, gather, params));
  return sequence;
}

}  // namespace fabmpi::coll
