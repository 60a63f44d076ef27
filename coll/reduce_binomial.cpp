// Reduce up a binomial tree.
// Cost: ceil(log2 P) * (alpha + n*beta + n*gamma). For small vectors and any op.
// Pattern: vrank v receives from its children v+1, v+2, v+4, ... (ascending, each covering the ranks
// just above what v has accumulated), reducing each on the right, then sends to its parent. For a
// commutative op the tree is rooted at the root (vrank = rank - root); otherwise at rank 0, so every
// partial covers a contiguous range of ranks in order, and rank 0 sends the result to the root.
//   P=8: 1->0 3->2 5->4 7->6, 2->0 6->4, 4->0
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class ReduceBinomial final : public Schedule {
 public:
  ReduceBinomial(const Context& ctx, const CollArgs& args)
      : Schedule(ctx), args_(args), bytes_(args.count * args.elem_size) {
    const bool result_here = vrank() == 0 && ctx.rank == args.root;
    const bool has_children = pattern::binomial_num_children(vrank(), size()) > 0;
    if (result_here) {
      acc_ = args_.recv;
    } else if (has_children) {
      work_.resize(bytes_);
      acc_ = work_.data();
    } else {
      acc_ = const_cast<std::byte*>(args_.send);  // a leaf sends its contribution as it is (never written)
    }
    if (has_children) temp_.resize(bytes_);
  }

 protected:
  bool step() override {
    const int v = vrank(), p = size();
    switch (phase_) {
      case Phase::start:
        // Only a lone root copies upfront; otherwise the first child's partial is reduced with our
        // contribution straight into acc_ (one pass instead of a copy then a reduce).
        if (pattern::binomial_num_children(v, p) == 0 && acc_ != args_.send) copy_bytes(acc_, args_.send, bytes_);
        phase_ = Phase::children;
        [[fallthrough]];
      case Phase::children:
        if (child_ == 1)  // the first child's partial arrived: it covers ranks above ours
          reduce_ordered_into(*args_.reducer, temp_.data(), args_.send, acc_, args_.count, args_.elem_size, false);
        else if (child_ > 1)
          reduce_ordered(*args_.reducer, temp_.data(), acc_, args_.count, args_.elem_size, false);
        if (child_ < pattern::binomial_num_children(v, p)) {
          recv(temp_.data(), bytes_, pattern::binomial_child(v, p, child_));
          ++child_;
          return false;
        }
        phase_ = Phase::to_root;
        if (v != 0) {
          send(acc_, bytes_, pattern::binomial_parent(v));
          return false;
        }
        if (ctx_.rank != args_.root) {  // rooted at rank 0 for a non-commutative op
          send(acc_, bytes_, args_.root);
          return false;
        }
        return true;
      case Phase::to_root:
        phase_ = Phase::done;
        if (ctx_.rank == args_.root && v != 0) {
          recv(args_.recv, bytes_, 0);  // from rank 0 (this tree is not rotated)
          return false;
        }
        return true;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { start, children, to_root, done };
  Phase phase_ = Phase::start;
  CollArgs args_;
  std::size_t bytes_;
  Bytes work_, temp_;
  std::byte* acc_ = nullptr;
  int child_ = 0;
};

}  // namespace

ScheduleRef make_reduce_binomial(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  Context c = ctx;
  c.shift = args.reducer->commutative() ? args.root : 0;
  return std::make_unique<ReduceBinomial>(c, args);
}

}  // namespace fabmpi::coll
