// Broadcast down a binomial tree rooted at the root.
// Cost: ceil(log2 P) * (alpha + n*beta). Best for small messages or few ranks.
// Pattern (vranks relative to the root): each rank receives from its parent (vrank with the lowest set
// bit cleared) and forwards to vrank + m for the powers of two m below that bit, largest subtree first.
//   P=8: 0->4, 0->2 4->6, 0->1 2->3 4->5 6->7
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class BcastBinomial final : public Schedule {
 public:
  BcastBinomial(const Context& ctx, std::byte* buf, std::size_t bytes) : Schedule(ctx), buf_(buf), bytes_(bytes) {}

 protected:
  bool step() override {
    switch (phase_) {
      case Phase::receive:
        phase_ = Phase::forward;
        if (vrank() != 0) {
          recv(buf_, bytes_, pattern::binomial_parent(vrank()));
          return false;
        }
        [[fallthrough]];
      case Phase::forward:
        for (int i = pattern::binomial_num_children(vrank(), size()) - 1; i >= 0; --i)
          send(buf_, bytes_, pattern::binomial_child(vrank(), size(), i));
        phase_ = Phase::done;
        return false;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { receive, forward, done };
  Phase phase_ = Phase::receive;
  std::byte* buf_;
  std::size_t bytes_;
};

}  // namespace

ScheduleRef make_bcast_binomial(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  Context c = ctx;
  c.shift = args.root;
  return std::make_unique<BcastBinomial>(c, args.recv, args.count);
}

}  // namespace fabmpi::coll
