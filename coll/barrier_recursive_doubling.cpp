// Barrier by recursive doubling, with the non-power-of-two fold.
// Cost: (log2 pof2 + 2) * alpha when P is not a power of two, log2 P * alpha otherwise; no data.
// Pattern: the first 2*rem ranks (rem = P - pof2) pair up: each even rank signals the odd rank above it
// and waits; the pof2 remaining ranks exchange with new rank ^ 2^k at step k; finally each odd carrier
// releases its even partner.
//   P=6: 0->1, 2->3 | new ranks {1,3,4,5}: 1<->3 4<->5, then 1<->4 3<->5 | 1->0, 3->2
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class BarrierRecursiveDoubling final : public Schedule {
 public:
  using Schedule::Schedule;

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const int newrank = pattern::fold_newrank(r, p);
    const int pof2 = pattern::fold_pof2(p);
    const bool in_fold = r < 2 * pattern::fold_rem(p);
    switch (phase_) {
      case Phase::fold_in:
        phase_ = Phase::exchange;
        if (newrank < 0) {
          send(nullptr, 0, pattern::fold_partner(r, p));
          recv(nullptr, 0, pattern::fold_partner(r, p));
          phase_ = Phase::done;
          return false;
        }
        if (in_fold) {
          recv(nullptr, 0, pattern::fold_partner(r, p));
          return false;
        }
        [[fallthrough]];
      case Phase::exchange:
        if ((1 << step_) < pof2) {
          const int partner = pattern::fold_oldrank(pattern::rd_partner(newrank, step_), p);
          send(nullptr, 0, partner);
          recv(nullptr, 0, partner);
          ++step_;
          return false;
        }
        phase_ = Phase::done;
        if (in_fold) {
          send(nullptr, 0, pattern::fold_partner(r, p));
          return false;
        }
        return true;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  enum class Phase { fold_in, exchange, done };
  Phase phase_ = Phase::fold_in;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_barrier_recursive_doubling(const Context& ctx, const CollArgs&, const AlgorithmParams&) {
  return std::make_unique<BarrierRecursiveDoubling>(ctx);
}

}  // namespace fabmpi::coll
