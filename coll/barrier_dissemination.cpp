// Barrier by dissemination (Hensgen, Finkel, Manber).
// Cost: ceil(log2 P) * alpha; no data.
// Pattern: at step k every rank sends a zero-byte message to rank + 2^k and receives from rank - 2^k;
// after the last step every rank has (transitively) heard from every other.
//   P=5, k=0: 0->1 1->2 2->3 3->4 4->0;  k=1: 0->2 1->3 ...;  k=2: 0->4 1->0 ...
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class BarrierDissemination final : public Schedule {
 public:
  using Schedule::Schedule;

 protected:
  bool step() override {
    if (step_ == pattern::dissemination_steps(size())) return true;
    send(nullptr, 0, pattern::dissemination_to(vrank(), size(), step_));
    recv(nullptr, 0, pattern::dissemination_from(vrank(), size(), step_));
    ++step_;
    return false;
  }

 private:
  int step_ = 0;
};

}  // namespace

ScheduleRef make_barrier_dissemination(const Context& ctx, const CollArgs&, const AlgorithmParams&) {
  return std::make_unique<BarrierDissemination>(ctx);
}

}  // namespace fabmpi::coll
