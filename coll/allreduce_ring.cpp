// Allreduce around a ring: a ring reduce-scatter of P blocks followed by a ring allgather.
// Cost: 2*(P-1) * alpha + 2*(P-1)/P * n*beta + (P-1)/P * n*gamma. Bandwidth-optimal for large vectors;
// commutative ops only (block b is reduced in the order b+1, b+2, ..., b).
// Pattern: at reduce-scatter step s rank r sends its partial of block r-s-1 to r+1 and reduces block
// r-s-2 arriving from r-1 into its own; after P-1 steps rank r holds block r, which then travels the ring.
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AllreduceRing final : public Schedule {
 public:
  AllreduceRing(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {
    for (int b = 0; b <= ctx.size; ++b) offset_.push_back(pattern::split_offset(args.count, ctx.size, b));
    // Not in place: each partial is received straight into its block of recv (still unwritten there:
    // every block arrives once per rank) and our contribution reduced into it, one pass over three
    // streams instead of a receive into temp_, a copy and a reduce.
    direct_ = args.recv != args.send;
    if (!direct_) temp_.resize(pattern::split_count(args.count, ctx.size, 0) * args.elem_size);
  }

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const std::size_t es = args_.elem_size;
    if (p == 1 && step_ == 0) copy_bytes(args_.recv, args_.send, args_.count * es);
    if (step_ > 0 && step_ <= p - 1) {  // reduce the block that arrived in the previous step
      // Each block arrives once per rank during the reduce-scatter, so the result is always
      // our contribution (op) the partial that arrived: no upfront copy of the vector into recv.
      const int b = pattern::ring_rs_recv_block(r, p, step_ - 1);
      if (direct_)  // recv[b] = ours (op) partial; the op is commutative (the algorithm's restriction)
        args_.reducer->reduce(args_.send + offset_[b] * es, args_.recv + offset_[b] * es, offset_[b + 1] - offset_[b]);
      else
        reduce_into(*args_.reducer, args_.send + offset_[b] * es, temp_.data(), args_.recv + offset_[b] * es,
                    offset_[b + 1] - offset_[b], es);
    }
    if (step_ < p - 1) {
      const int out = pattern::ring_rs_send_block(r, p, step_), in = pattern::ring_rs_recv_block(r, p, step_);
      // Step 0 forwards our own contribution; later steps the partial reduced in the previous one.
      const std::byte* from = step_ == 0 ? args_.send : args_.recv;
      send(from + offset_[out] * es, (offset_[out + 1] - offset_[out]) * es, pattern::ring_right(r, p));
      recv(direct_ ? args_.recv + offset_[in] * es : temp_.data(), (offset_[in + 1] - offset_[in]) * es,
           pattern::ring_left(r, p));
    } else if (step_ < 2 * (p - 1)) {
      const int s = step_ - (p - 1);
      const int out = pattern::ring_ag_send_block(r, p, s), in = pattern::ring_ag_recv_block(r, p, s);
      send(args_.recv + offset_[out] * es, (offset_[out + 1] - offset_[out]) * es, pattern::ring_right(r, p));
      recv(args_.recv + offset_[in] * es, (offset_[in + 1] - offset_[in]) * es, pattern::ring_left(r, p));
    } else {
      return true;
    }
    ++step_;
    return false;
  }

 private:
  CollArgs args_;
  std::vector<std::size_t> offset_;
  Bytes temp_;
  bool direct_ = false;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_allreduce_ring(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AllreduceRing>(ctx, args);
}

}  // namespace fabmpi::coll
