// Allreduce by recursive doubling, with the non-power-of-two fold.
// Cost: (log2 pof2 + 2*[P != pof2]) * (alpha + n*beta + n*gamma). Best for small vectors and the only
// choice that keeps any op (non-commutative included) cheap for few elements.
// Pattern: even ranks among the first 2*rem hand their vector to the odd rank above; the pof2 carriers
// exchange full vectors with new rank ^ 2^k at step k and reduce (lower ranks' data on the left); the
// carriers hand the result back to their even partners.
//   P=6: 0->1 2->3 | 1<->3 4<->5 | 1<->4 3<->5 | 1->0 3->2
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AllreduceRecursiveDoubling final : public Schedule {
 public:
  AllreduceRecursiveDoubling(const Context& ctx, const CollArgs& args)
      : Schedule(ctx), args_(args), bytes_(args.count * args.elem_size), temp_(bytes_) {}

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const int newrank = pattern::fold_newrank(r, p);
    const bool in_fold = r < 2 * pattern::fold_rem(p);
    switch (phase_) {
      case Phase::fold_in:
        copy_bytes(args_.recv, args_.send, bytes_);
        phase_ = Phase::exchange;
        if (newrank < 0) {  // hand our vector over, then wait for the result
          send(args_.recv, bytes_, pattern::fold_partner(r, p));
          recv(args_.recv, bytes_, pattern::fold_partner(r, p));
          phase_ = Phase::done;
          return false;
        }
        if (in_fold) {
          recv(temp_.data(), bytes_, pattern::fold_partner(r, p));
          step_ = -1;  // reduce the partner's vector before the first exchange
          return false;
        }
        [[fallthrough]];
      case Phase::exchange:
        if (step_ == -1) {
          reduce_ordered(*args_.reducer, temp_.data(), args_.recv, args_.count, args_.elem_size, true);
          step_ = 0;
        } else if (step_ > 0) {
          const int partner = pattern::rd_partner(newrank, step_ - 1);
          reduce_ordered(*args_.reducer, temp_.data(), args_.recv, args_.count, args_.elem_size, partner < newrank);
        }
        if ((1 << step_) < pattern::fold_pof2(p)) {
          const int partner = pattern::fold_oldrank(pattern::rd_partner(newrank, step_), p);
          send(args_.recv, bytes_, partner);
          recv(temp_.data(), bytes_, partner);
          ++step_;
          return false;
        }
        phase_ = Phase::done;
        if (in_fold) {
          send(args_.recv, bytes_, pattern::fold_partner(r, p));
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
  CollArgs args_;
  std::size_t bytes_;
  Bytes temp_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_allreduce_recursive_doubling(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AllreduceRecursiveDoubling>(ctx, args);
}

}  // namespace fabmpi::coll
