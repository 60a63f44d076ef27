// Scan and exscan along a chain.
// Cost: (P-1) * (alpha + n*beta + n*gamma) end to end. Simple and order-preserving; the fallback.
// Pattern: rank r receives the inclusive prefix of ranks 0..r-1 from r-1, reduces its own vector on the
// right, and passes the new prefix to r+1.
//   0 -> 1 -> 2 -> ... -> P-1
#include "coll/algorithms.hpp"

namespace fabmpi::coll {
namespace {

class ScanLinear final : public Schedule {
 public:
  ScanLinear(const Context& ctx, const CollArgs& args, bool exclusive)
      : Schedule(ctx), args_(args), exclusive_(exclusive), bytes_(args.count * args.elem_size), prefix_(bytes_) {}

 protected:
  bool step() override {
    const int r = ctx_.rank, p = size();
    switch (phase_) {
      case Phase::receive:
        phase_ = Phase::forward;
        if (r > 0) {
          recv(prefix_.data(), bytes_, r - 1);
          return false;
        }
        [[fallthrough]];
      case Phase::forward: {
        phase_ = Phase::done;
        // prefix_ := prefix(0..r-1) op mine = the inclusive prefix of rank r.
        Bytes inclusive(bytes_);
        copy_bytes(inclusive.data(), args_.send, bytes_);
        if (r > 0) {
          if (exclusive_) copy_bytes(args_.recv, prefix_.data(), bytes_);
          args_.reducer->reduce(prefix_.data(), inclusive.data(), args_.count);
        }
        if (!exclusive_) copy_bytes(args_.recv, inclusive.data(), bytes_);
        prefix_.swap(inclusive);
        if (r + 1 < p) {
          send(prefix_.data(), bytes_, r + 1);
          return false;
        }
        return true;
      }
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { receive, forward, done };
  Phase phase_ = Phase::receive;
  CollArgs args_;
  bool exclusive_;
  std::size_t bytes_;
  Bytes prefix_;
};

}  // namespace

ScheduleRef make_scan_linear(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ScanLinear>(ctx, args, false);
}

ScheduleRef make_exscan_linear(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ScanLinear>(ctx, args, true);
}

}  // namespace fabmpi::coll
