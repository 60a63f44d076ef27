// Allgather(v) around a ring.
// Cost: (P-1) * alpha + (P-1)/P * n * beta for n total bytes. Bandwidth-optimal; latency grows with P.
// Pattern: at step s rank r forwards block r - s to r + 1 and receives block r - s - 1 from r - 1.
//   P=4, s=0: 0->1 (b0) 1->2 (b1) 2->3 (b2) 3->0 (b3);  s=1: 0->1 (b3) ...;  s=2: 0->1 (b2) ...
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AllgatherRing final : public Schedule {
 public:
  AllgatherRing(const Context& ctx, std::byte* buf, std::vector<std::size_t> offsets, const std::byte* own)
      : Schedule(ctx), buf_(buf), offsets_(std::move(offsets)), own_(own) {}

 protected:
  bool step() override {
    if (step_ == size() - 1) return true;
    const int v = vrank(), p = size();
    const int out = pattern::ring_ag_send_block(v, p, step_), in = pattern::ring_ag_recv_block(v, p, step_);
    // Step 0 sends our own block: from the caller's send buffer when we have it (see algorithms.hpp).
    const std::byte* from = (step_ == 0 && own_) ? own_ : buf_ + offsets_[out];
    send(from, offsets_[out + 1] - offsets_[out], pattern::ring_right(v, p));
    recv(buf_ + offsets_[in], offsets_[in + 1] - offsets_[in], pattern::ring_left(v, p));
    ++step_;
    return false;
  }

 private:
  std::byte* buf_;
  std::vector<std::size_t> offsets_;
  const std::byte* own_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_allgather_ring(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AllgatherRing>(ctx, args.recv, args.recv_offset, args.send);
}

}  // namespace fabmpi::coll
