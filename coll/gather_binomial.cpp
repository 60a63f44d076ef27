// Gather up a binomial tree (equal block sizes: MPI_Gather only).
// Cost: ceil(log2 P) * alpha + (P-1)/P * n*beta for n total bytes at the root.
// Pattern (vranks relative to the root): vrank v receives the blocks of its children's subtrees
// (child v+m brings vranks [v+m, v+2m)) into one buffer in vrank order, then sends [v, v+subtree) to its
// parent; the root rotates the vrank-ordered blocks into rank order.
//   P=8: 1->0 3->2 5->4 7->6 (1 block), 2->0 6->4 (2 blocks), 4->0 (4 blocks)
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class GatherBinomial final : public Schedule {
 public:
  GatherBinomial(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {
    const int v = vrank();
    const std::size_t blocks = static_cast<std::size_t>(pattern::binomial_subtree_size(v, size()));
    leaf_ = v != 0 && blocks == 1;
    if (v == 0 && ctx.shift == 0) {
      buf_ = args_.recv;
    } else if (!leaf_) {
      temp_.resize(blocks * args_.count);
      buf_ = temp_.data();
    }
  }

 protected:
  bool step() override {
    const int v = vrank(), p = size();
    const std::size_t b = args_.count;
    switch (phase_) {
      case Phase::children:
        phase_ = Phase::up;
        if (leaf_) {
          send(args_.send, b, pattern::binomial_parent(v));
          phase_ = Phase::done;
          return false;
        }
        copy_bytes(buf_, args_.send, b);
        for (int i = 0; i < pattern::binomial_num_children(v, p); ++i) {
          const int child = pattern::binomial_child(v, p, i);
          recv(buf_ + static_cast<std::size_t>(child - v) * b,
               static_cast<std::size_t>(pattern::binomial_subtree_size(child, p)) * b, child);
        }
        return false;
      case Phase::up:
        phase_ = Phase::done;
        if (v != 0) {
          send(buf_, static_cast<std::size_t>(pattern::binomial_subtree_size(v, p)) * b, pattern::binomial_parent(v));
          return false;
        }
        if (buf_ != args_.recv)
          for (int i = 0; i < p; ++i)
            copy_bytes(args_.recv + static_cast<std::size_t>(real_rank(i)) * b, buf_ + static_cast<std::size_t>(i) * b, b);
        return true;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { children, up, done };
  Phase phase_ = Phase::children;
  CollArgs args_;
  Bytes temp_;
  std::byte* buf_ = nullptr;
  bool leaf_ = false;
};

}  // namespace

ScheduleRef make_gather_binomial(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  Context c = ctx;
  c.shift = args.root;
  return std::make_unique<GatherBinomial>(c, args);
}

}  // namespace fabmpi::coll
