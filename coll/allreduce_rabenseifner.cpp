// Allreduce by Rabenseifner's algorithm: reduce-scatter by recursive halving of the vector (distance
// doubling), then allgather by recursive doubling; the same core with a gather to a root is
// reduce_rabenseifner.
// Cost: 2*log2 pof2 * alpha + 2*(pof2-1)/pof2 * n*beta + (pof2-1)/pof2 * n*gamma (plus one full-vector
// exchange each way when P is not a power of two). The large-vector choice.
// Pattern: the fold of recursive doubling; then at step k (mask 2^k ascending) new rank n keeps half of
// its current block range (the lower half if bit k of n is 0) and swaps the other half with n ^ 2^k,
// reducing what it receives (partner's data on the left when the partner is the lower rank, so
// non-commutative ops stay in rank order: a rank's partial always covers a contiguous range of ranks).
// The allgather retraces the steps in reverse, doubling the range held.
//   pof2=4, vector blocks b0..b3: k=0: 0,2 keep b0b1, 1,3 keep b2b3; k=1: 0:b0 2:b1 1:b2 3:b3
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class Rabenseifner final : public Schedule {
 public:
  Rabenseifner(const Context& ctx, const CollArgs& args, int root)
      : Schedule(ctx), args_(args), root_(root), bytes_(args.count * args.elem_size), temp_(bytes_) {
    const int pof2 = pattern::fold_pof2(ctx.size);
    for (int b = 0; b <= pof2; ++b) block_offset_.push_back(pattern::split_offset(args.count, pof2, b));
    // The rank that ends up with the whole result accumulates in the result buffer when it is the root
    // (no final copy); other ranks of a reduce have no result buffer.
    if (root_ < 0 || (ctx.rank == root_ && ctx.rank == pattern::fold_oldrank(0, ctx.size))) {
      acc_ = args_.recv;
    } else {
      work_.resize(bytes_);
      acc_ = work_.data();
    }
  }

 protected:
  bool step() override {
    const int r = vrank(), p = size();
    const int newrank = pattern::fold_newrank(r, p);
    const int pof2 = pattern::fold_pof2(p);
    const int steps = pattern::ceil_log2(pof2);
    const bool in_fold = r < 2 * pattern::fold_rem(p);
    const int final_holder = pattern::fold_oldrank(0, p);
    switch (phase_) {
      case Phase::fold_in:
        // acc_ is not filled with our contribution upfront: the first reduction writes
        // ours (op) peer straight into it (reduce_ordered_into), and until then sends read args_.send.
        phase_ = Phase::reduce_scatter;
        if (p == 1) copy_bytes(acc_, args_.send, bytes_);
        if (newrank < 0) {
          send(args_.send, bytes_, pattern::fold_partner(r, p));
          phase_ = Phase::finish;
          return false;
        }
        if (in_fold) {
          const bool direct = receive_direct(true);
          recv(direct ? acc_ : temp_.data(), bytes_, pattern::fold_partner(r, p));
          pending_reduce_ = {0, pof2, true, direct};
          return false;
        }
        [[fallthrough]];
      case Phase::reduce_scatter:
        if (pending_reduce_.hi > pending_reduce_.lo) {
          const std::size_t first = block_offset_[pending_reduce_.lo];
          const std::size_t n = block_offset_[pending_reduce_.hi] - first;
          const std::byte* ours = (acc_filled_ ? acc_ : args_.send) + first * args_.elem_size;
          if (pending_reduce_.direct)  // the peer's part is already in acc_: acc_ = ours (op) peer
            args_.reducer->reduce(ours, acc_ + first * args_.elem_size, n);
          else
            reduce_ordered_into(*args_.reducer, temp_.data(), ours, acc_ + first * args_.elem_size, n,
                                args_.elem_size, pending_reduce_.peer_is_lower);
          acc_filled_ = true;  // from here on only the kept range is sent or reduced again
          pending_reduce_ = {};
        }
        if (k_ < steps) {
          const int mask = 1 << k_;
          const int partner = newrank ^ mask;
          const int mid = (lo_ + hi_) / 2;
          levels_.push_back({lo_, hi_});
          const bool lower = (newrank & mask) == 0;
          const int send_lo = lower ? mid : lo_, send_hi = lower ? hi_ : mid;
          lo_ = lower ? lo_ : mid;
          hi_ = lower ? mid : hi_;
          const std::byte* from = acc_filled_ ? acc_ : args_.send;
          send(from + elems(send_lo) * args_.elem_size, (elems(send_hi) - elems(send_lo)) * args_.elem_size,
               pattern::fold_oldrank(partner, p));
          const bool direct = receive_direct(partner < newrank);
          recv(direct ? acc_ + elems(lo_) * args_.elem_size : temp_.data(), (elems(hi_) - elems(lo_)) * args_.elem_size,
               pattern::fold_oldrank(partner, p));
          pending_reduce_ = {lo_, hi_, partner < newrank, direct};
          ++k_;
          return false;
        }
        phase_ = Phase::gather;
        k_ = steps - 1;
        [[fallthrough]];
      case Phase::gather:
        while (k_ >= 0) {
          const int mask = 1 << k_;
          const int partner = newrank ^ mask;
          const Range whole = levels_[static_cast<std::size_t>(k_)];
          const Range theirs = (lo_ == whole.lo) ? Range{hi_, whole.hi} : Range{whole.lo, lo_};
          --k_;
          if (root_ < 0) {  // allgather: swap halves
            send(acc_ + elems(lo_) * args_.elem_size, (elems(hi_) - elems(lo_)) * args_.elem_size,
                 pattern::fold_oldrank(partner, p));
          } else if (newrank >= 2 * mask) {
            continue;  // already handed our part on at a higher step
          } else if (newrank & mask) {  // gather towards new rank 0: hand our range over
            send(acc_ + elems(lo_) * args_.elem_size, (elems(hi_) - elems(lo_)) * args_.elem_size,
                 pattern::fold_oldrank(partner, p));
            lo_ = hi_ = 0;
            return false;
          }
          recv(acc_ + elems(theirs.lo) * args_.elem_size, (elems(theirs.hi) - elems(theirs.lo)) * args_.elem_size,
               pattern::fold_oldrank(partner, p));
          lo_ = whole.lo;
          hi_ = whole.hi;
          return false;
        }
        phase_ = Phase::finish;
        if (root_ < 0) {
          if (in_fold) send(acc_, bytes_, pattern::fold_partner(r, p));
          return false;
        }
        if (r == final_holder) {
          if (r == root_) copy_bytes(args_.recv, acc_, bytes_);
          else send(acc_, bytes_, root_);
        }
        return false;
      case Phase::finish:
        phase_ = Phase::done;
        if (root_ < 0 && newrank < 0) {
          recv(args_.recv, bytes_, pattern::fold_partner(r, p));
          return false;
        }
        if (root_ >= 0 && r == root_ && r != final_holder) {
          recv(args_.recv, bytes_, final_holder);
          return false;
        }
        return true;
      case Phase::done: return true;
    }
    return true;
  }

 private:
  struct Range { int lo = 0, hi = 0; };
  struct PendingReduce { int lo = 0, hi = 0; bool peer_is_lower = false, direct = false; };
  // Whether the first reduction may receive the peer's data straight into acc_ and reduce ours into it
  // (one pass over three streams instead of a receive into temp_, a copy and a reduce): only while acc_
  // does not hold our partial yet, is not our input (in place), and the op allows ours (op) peer.
  bool receive_direct(bool peer_is_lower) const {
    return !acc_filled_ && acc_ != args_.send && (!peer_is_lower || args_.reducer->commutative());
  }
  enum class Phase { fold_in, reduce_scatter, gather, finish, done };
  std::size_t elems(int block) const { return block_offset_[static_cast<std::size_t>(block)]; }

  Phase phase_ = Phase::fold_in;
  CollArgs args_;
  int root_;
  std::size_t bytes_;
  Bytes temp_, work_;
  std::byte* acc_ = nullptr;
  bool acc_filled_ = false;  // acc_ holds our data (for the range still in play), else read args_.send
  std::vector<std::size_t> block_offset_;
  std::vector<Range> levels_;
  PendingReduce pending_reduce_;
  int lo_ = 0, hi_ = pattern::fold_pof2(ctx_.size);
  int k_ = 0;
};

}  // namespace

ScheduleRef make_rabenseifner(const Context& ctx, const CollArgs& args, int root) {
  return std::make_unique<Rabenseifner>(ctx, args, root);
}

ScheduleRef make_allreduce_rabenseifner(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return make_rabenseifner(ctx, args, -1);
}

}  // namespace fabmpi::coll
