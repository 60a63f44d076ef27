// Alltoall(v,w) with a window of nonblocking exchanges (parameter `window`, default 8 peers).
// Cost: about ceil((P-1)/w) * alpha + (P-1) * b*beta, overlapping up to w exchanges. For medium blocks.
// Pattern: in round k rank r posts receives from r-i and sends to r+i for the w values of i in
// [1 + k*w, 1 + (k+1)*w), then waits for all of them; the own block is copied first.
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

constexpr int kDefaultWindow = 8;

class AlltoallScattered final : public Schedule {
 public:
  AlltoallScattered(const Context& ctx, const CollArgs& args, int window)
      : Schedule(ctx), args_(args), window_(window) {}

 protected:
  bool step() override {
    const int r = ctx_.rank, p = size();
    if (next_ == 1) copy_bytes(args_.recv + args_.recv_offset[r], args_.send + args_.send_offset[r], args_.recv_length[r]);
    if (next_ >= p) return true;
    const int end = std::min(p, next_ + window_);
    for (int i = next_; i < end; ++i) {
      const int from = pattern::pairwise_from(r, p, i);
      recv(args_.recv + args_.recv_offset[from], args_.recv_length[from], from);
    }
    for (int i = next_; i < end; ++i) {
      const int to = pattern::pairwise_to(r, p, i);
      send(args_.send + args_.send_offset[to], args_.send_length[to], to);
    }
    next_ = end;
    return false;
  }

 private:
  CollArgs args_;
  int window_;
  int next_ = 1;
};

}  // namespace

ScheduleRef make_alltoall_scattered(const Context& ctx, const CollArgs& args, const AlgorithmParams& params) {
  return std::make_unique<AlltoallScattered>(ctx, args, params.window > 0 ? params.window : kDefaultWindow);
}

}  // namespace fabmpi::coll
