// Scatter(v) straight from the root.
// Cost: (P-1) * alpha + n*beta at the root, all sends posted at once. Works for any block sizes; the
// only choice for MPI_Scatterv.
// Pattern: the root sends block i to rank i and copies its own.
#include "coll/algorithms.hpp"

namespace fabmpi::coll {
namespace {

class ScatterLinear final : public Schedule {
 public:
  ScatterLinear(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {}

 protected:
  bool step() override {
    if (posted_) return true;
    posted_ = true;
    const int root = args_.root;
    if (ctx_.rank != root) {
      recv(args_.recv, args_.count, root);
      return false;
    }
    for (int i = 0; i < size(); ++i) {
      if (i == root) continue;
      send(args_.send + args_.send_offset[i], args_.send_length[i], i);
    }
    copy_bytes(args_.recv, args_.send + args_.send_offset[root], args_.send_length[root]);
    return false;
  }

 private:
  CollArgs args_;
  bool posted_ = false;
};

}  // namespace

ScheduleRef make_scatter_linear(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ScatterLinear>(ctx, args);
}

}  // namespace fabmpi::coll
