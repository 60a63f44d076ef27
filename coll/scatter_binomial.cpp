// Scatter down a binomial tree (equal block sizes: MPI_Scatter only).
// Cost: ceil(log2 P) * alpha + (P-1)/P * n*beta for n total bytes at the root.
// Pattern (vranks relative to the root): the mirror of gather_binomial: vrank v receives the blocks of
// vranks [v, v+subtree) from its parent in one message and hands each child its subtree's part,
// largest first.
//   P=8: 0->4 (4 blocks), 0->2 4->6 (2 blocks), 0->1 2->3 4->5 6->7 (1 block)
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class ScatterBinomial final : public Schedule {
 public:
  ScatterBinomial(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {}

 protected:
  bool step() override {
    const int v = vrank(), p = size();
    const std::size_t b = args_.count;
    const int children = pattern::binomial_num_children(v, p);
    switch (phase_) {
      case Phase::receive:
        phase_ = Phase::forward;
        if (v == 0) {
          if (ctx_.shift == 0) {
            buf_ = args_.send;
          } else {  // blocks in vrank order
            temp_.resize(static_cast<std::size_t>(p) * b);
            for (int i = 0; i < p; ++i)
              copy_bytes(temp_.data() + static_cast<std::size_t>(i) * b,
                         args_.send + static_cast<std::size_t>(real_rank(i)) * b, b);
            buf_ = temp_.data();
          }
        } else if (children == 0) {
          recv(args_.recv, b, pattern::binomial_parent(v));
          phase_ = Phase::done;
          return false;
        } else {
          temp_.resize(static_cast<std::size_t>(pattern::binomial_subtree_size(v, p)) * b);
          buf_ = temp_.data();
          recv(temp_.data(), temp_.size(), pattern::binomial_parent(v));
          return false;
        }
        [[fallthrough]];
      case Phase::forward:
        for (int i = children - 1; i >= 0; --i) {
          const int child = pattern::binomial_child(v, p, i);
          send(buf_ + static_cast<std::size_t>(child - v) * b,
               static_cast<std::size_t>(pattern::binomial_subtree_size(child, p)) * b, child);
        }
        copy_bytes(args_.recv, buf_, b);
        phase_ = Phase::done;
        return false;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { receive, forward, done };
  Phase phase_ = Phase::receive;
  CollArgs args_;
  Bytes temp_;
  const std::byte* buf_ = nullptr;
};

}  // namespace

ScheduleRef make_scatter_binomial(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  Context c = ctx;
  c.shift = args.root;
  return std::make_unique<ScatterBinomial>(c, args);
}

}  // namespace fabmpi::coll
