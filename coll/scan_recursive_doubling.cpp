// Scan and exscan by recursive doubling.
// Cost: ceil(log2 P) * (alpha + n*beta + 2*n*gamma). Keeps rank order, so any op works.
// Pattern: at step k rank r swaps its partial (the reduction of its aligned group of 2^k ranks) with
// r ^ 2^k when that rank exists. A partial from a lower group is reduced on the left of both the partial
// and the result; one from a higher group only on the right of the partial. Exscan starts its result
// with the first lower partial it receives (rank 0's result is left untouched, as MPI says).
//   P=4, k=0: 0<->1 2<->3;  k=1: 0<->2 1<->3
#include "coll/algorithms.hpp"

namespace fabmpi::coll {
namespace {

class ScanRecursiveDoubling final : public Schedule {
 public:
  ScanRecursiveDoubling(const Context& ctx, const CollArgs& args, bool exclusive)
      : Schedule(ctx), args_(args), exclusive_(exclusive), bytes_(args.count * args.elem_size),
        partial_(bytes_), temp_(bytes_) {}

 protected:
  bool step() override {
    const int r = ctx_.rank, p = size();
    const std::size_t n = args_.count, es = args_.elem_size;
    if (mask_ == 0) {
      copy_bytes(partial_.data(), args_.send, bytes_);
      if (!exclusive_) copy_bytes(args_.recv, args_.send, bytes_);
      mask_ = 1;
    } else {  // the exchange with r ^ (mask/2) completed
      const int partner = r ^ (mask_ / 2);
      if (partner < r) {
        if (!exclusive_ || have_result_) {
          args_.reducer->reduce(temp_.data(), args_.recv, n);
        } else {
          copy_bytes(args_.recv, temp_.data(), bytes_);
          have_result_ = true;
        }
        args_.reducer->reduce(temp_.data(), partial_.data(), n);
      } else {
        reduce_ordered(*args_.reducer, temp_.data(), partial_.data(), n, es, false);
      }
    }
    while (mask_ < p) {
      const int partner = r ^ mask_;
      mask_ *= 2;
      if (partner < p) {
        send(partial_.data(), bytes_, partner);
        recv(temp_.data(), bytes_, partner);
        return false;
      }
    }
    return true;
  }

 private:
  CollArgs args_;
  bool exclusive_;
  std::size_t bytes_;
  Bytes partial_, temp_;
  int mask_ = 0;
  bool have_result_ = false;
};

}  // namespace

ScheduleRef make_scan_recursive_doubling(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ScanRecursiveDoubling>(ctx, args, false);
}

ScheduleRef make_exscan_recursive_doubling(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ScanRecursiveDoubling>(ctx, args, true);
}

}  // namespace fabmpi::coll
