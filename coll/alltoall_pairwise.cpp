// Alltoall(v,w) by pairwise exchange.
// Cost: (P-1) * (alpha + b*beta) for b bytes per pair. For long blocks: one peer at a time, no
// contention, and every block goes straight from the send to the receive buffer.
// Pattern: at step s (1..P-1) rank r sends its block for r+s and receives the block from r-s; step 0
// copies the block for itself.
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AlltoallPairwise final : public Schedule {
 public:
  AlltoallPairwise(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {}

 protected:
  bool step() override {
    const int r = ctx_.rank, p = size();
    if (step_ == 0) copy_bytes(args_.recv + args_.recv_offset[r], args_.send + args_.send_offset[r], args_.recv_length[r]);
    if (++step_ == p) return true;
    const int to = pattern::pairwise_to(r, p, step_), from = pattern::pairwise_from(r, p, step_);
    send(args_.send + args_.send_offset[to], args_.send_length[to], to);
    recv(args_.recv + args_.recv_offset[from], args_.recv_length[from], from);
    return false;
  }

 private:
  CollArgs args_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_alltoall_pairwise(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AlltoallPairwise>(ctx, args);
}

}  // namespace fabmpi::coll
