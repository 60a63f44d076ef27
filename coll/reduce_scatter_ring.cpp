// Reduce-scatter around a ring (commutative ops).
// Cost: (P-1) * alpha + (P-1)/P * n*beta + (P-1)/P * n*gamma, neighbours only.
// Pattern: at step s rank r sends its partial of block r-s-1 to r+1 and reduces block r-s-2 arriving
// from r-1 into its own copy; after P-1 steps block r is complete at rank r.
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class ReduceScatterRing final : public Schedule {
 public:
  ReduceScatterRing(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {
    offset_.push_back(0);
    std::size_t largest = 0;
    for (std::size_t c : args.counts) {
      offset_.push_back(offset_.back() + c);
      largest = c > largest ? c : largest;
    }
    work_.resize(offset_.back() * args.elem_size);
    temp_.resize(largest * args.elem_size);
  }

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const std::size_t es = args_.elem_size;
    if (step_ == 0) copy_bytes(work_.data(), args_.send, work_.size());
    if (step_ > 0) {
      const int b = pattern::ring_rs_recv_block(r, p, step_ - 1);
      args_.reducer->reduce(temp_.data(), work_.data() + offset_[b] * es, args_.counts[b]);
    }
    if (step_ == p - 1) {
      copy_bytes(args_.recv, work_.data() + offset_[r] * es, args_.counts[r] * es);
      return true;
    }
    const int out = pattern::ring_rs_send_block(r, p, step_), in = pattern::ring_rs_recv_block(r, p, step_);
    send(work_.data() + offset_[out] * es, args_.counts[out] * es, pattern::ring_right(r, p));
    recv(temp_.data(), args_.counts[in] * es, pattern::ring_left(r, p));
    ++step_;
    return false;
  }

 private:
  CollArgs args_;
  std::vector<std::size_t> offset_;
  Bytes work_, temp_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_reduce_scatter_ring(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ReduceScatterRing>(ctx, args);
}

}  // namespace fabmpi::coll
