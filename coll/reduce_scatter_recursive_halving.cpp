// Reduce-scatter by recursive halving (commutative ops), with the non-power-of-two fold.
// Cost: log2 pof2 * alpha + (pof2-1)/pof2 * n*beta + (pof2-1)/pof2 * n*gamma (+ a full-vector exchange
// and a block return when P is not a power of two). For short and medium vectors.
// Pattern: even ranks among the first 2*rem give their whole vector to the odd rank above; new rank n
// stands for the blocks of the old ranks it carries. At step k (mask pof2/2, pof2/4, ..., 1) new rank n
// keeps the lower half of its block range if bit k is 0 (else the upper) and exchanges the other half
// with n ^ mask; after the last step n holds its own blocks reduced, and returns its partner's.
//   pof2=4: 0<->2 1<->3 (halves), 0<->1 2<->3 (quarters)
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class ReduceScatterRecursiveHalving final : public Schedule {
 public:
  ReduceScatterRecursiveHalving(const Context& ctx, const CollArgs& args) : Schedule(ctx), args_(args) {
    offset_.push_back(0);
    for (std::size_t c : args.counts) offset_.push_back(offset_.back() + c);
    work_.resize(offset_.back() * args.elem_size);
    temp_.resize(work_.size());
    hi_ = pattern::fold_pof2(ctx.size);
    mask_ = hi_ / 2;
  }

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const int newrank = pattern::fold_newrank(r, p);
    const bool in_fold = r < 2 * pattern::fold_rem(p);
    const std::size_t es = args_.elem_size;
    switch (phase_) {
      case Phase::fold_in:
        copy_bytes(work_.data(), args_.send, work_.size());
        phase_ = Phase::halving;
        if (newrank < 0) {
          send(work_.data(), work_.size(), pattern::fold_partner(r, p));
          recv(args_.recv, args_.counts[r] * es, pattern::fold_partner(r, p));
          phase_ = Phase::done;
          return false;
        }
        if (in_fold) {
          recv(temp_.data(), work_.size(), pattern::fold_partner(r, p));
          reduce_pending_ = {0, hi_};
          return false;
        }
        [[fallthrough]];
      case Phase::halving:
        if (reduce_pending_.hi > reduce_pending_.lo) {
          const std::size_t first = begin(reduce_pending_.lo);
          args_.reducer->reduce(temp_.data(), work_.data() + first * es, begin(reduce_pending_.hi) - first);
          reduce_pending_ = {};
        }
        if (mask_ >= 1) {
          const int partner = newrank ^ mask_;
          const bool lower = (newrank & mask_) == 0;
          const int mid = lo_ + mask_;
          const int send_lo = lower ? mid : lo_, send_hi = lower ? hi_ : mid;
          lo_ = lower ? lo_ : mid;
          hi_ = lower ? mid : hi_;
          send(work_.data() + begin(send_lo) * es, (begin(send_hi) - begin(send_lo)) * es,
               pattern::fold_oldrank(partner, p));
          recv(temp_.data(), (begin(hi_) - begin(lo_)) * es, pattern::fold_oldrank(partner, p));
          reduce_pending_ = {lo_, hi_};
          mask_ /= 2;
          return false;
        }
        copy_bytes(args_.recv, work_.data() + offset_[r] * es, args_.counts[r] * es);
        phase_ = Phase::done;
        if (in_fold) {
          const int partner = pattern::fold_partner(r, p);
          send(work_.data() + offset_[partner] * es, args_.counts[partner] * es, partner);
          return false;
        }
        return true;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  struct Range { int lo = 0, hi = 0; };
  enum class Phase { fold_in, halving, done };
  // First element of new block n (the blocks of the old ranks new rank n carries).
  std::size_t begin(int newblock) const {
    if (newblock >= pattern::fold_pof2(size())) return offset_.back();
    return offset_[pattern::fold_first_oldrank(newblock, size())];
  }

  Phase phase_ = Phase::fold_in;
  CollArgs args_;
  std::vector<std::size_t> offset_;
  Bytes work_, temp_;
  Range reduce_pending_;
  int lo_ = 0, hi_ = 1, mask_ = 0;
};

}  // namespace

ScheduleRef make_reduce_scatter_recursive_halving(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<ReduceScatterRecursiveHalving>(ctx, args);
}

}  // namespace fabmpi::coll
