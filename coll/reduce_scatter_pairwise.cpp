// Reduce-scatter by pairwise exchange (commutative ops).
// Cost: (P-1) * alpha + (P-1)/P * n*beta + (P-1)/P * n*gamma. For long vectors: each step moves one block.
// Pattern: at step s (1..P-1) rank r sends its contribution to block r+s to rank r+s and reduces the
// contribution to its own block arriving from r-s.
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class ReduceScatterPairwise final : public Schedule {
 public:
  ReduceScatterPairwise(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {
    offset_.push_back(0);
    for (std::size_t c : args.counts) offset_.push_back(offset_.back() + c);
    if (ctx.size > 2) temp_.resize(args.counts[static_cast<std::size_t>(ctx.rank)] * args.elem_size);
  }

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const std::size_t es = args_.elem_size, mine = args_.counts[r];
    if (step_ == 0 && p == 1) copy_bytes(args_.recv, args_.send + offset_[r] * es, mine * es);
    // First arrival: received straight into recv (commutative op: the algorithm's restriction), then
    // recv = ours (op) it, one pass over three streams instead of a receive into temp_, a copy and a reduce.
    if (step_ == 1) args_.reducer->reduce(args_.send + offset_[r] * es, args_.recv, mine);
    if (step_ > 1) args_.reducer->reduce(temp_.data(), args_.recv, mine);
    if (++step_ == p) return true;
    const int to = pattern::pairwise_to(r, p, step_);
    send(args_.send + offset_[to] * es, args_.counts[to] * es, to);
    recv(step_ == 1 ? args_.recv : temp_.data(), mine * es, pattern::pairwise_from(r, p, step_));
    return false;
  }

 private:
  CollArgs args_;
  std::vector<std::size_t> offset_;
  Bytes temp_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_reduce_scatter_pairwise(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ReduceScatterPairwise>(ctx, args);
}

}  // namespace fabmpi::coll
