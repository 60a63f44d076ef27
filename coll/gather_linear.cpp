// Gather(v) straight to the root.
// Cost: (P-1) * alpha + n*beta at the root, all receives posted at once. Works for any block sizes;
// the only choice for MPI_Gatherv, whose non-roots do not know the other ranks' counts.
// Pattern: every rank sends its block to the root; the root copies its own.
#include "coll/algorithms.hpp"

namespace fabmpi::coll {
namespace {

class GatherLinear final : public Schedule {
 public:
  GatherLinear(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {}

 protected:
  bool step() override {
    if (posted_) return true;
    posted_ = true;
    const int root = args_.root;
    if (ctx_.rank != root) {
      send(args_.send, args_.count, root);
      return false;
    }
    for (int i = 0; i < size(); ++i) {
      if (i == root) continue;
      recv(args_.recv + args_.recv_offset[i], args_.recv_length[i], i);
    }
    copy_bytes(args_.recv + args_.recv_offset[root], args_.send, args_.recv_length[root]);
    return false;
  }

 private:
  CollArgs args_;
  bool posted_ = false;
};

}  // namespace

ScheduleRef make_gather_linear(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<GatherLinear>(ctx, args);
}

}  // namespace fabmpi::coll
