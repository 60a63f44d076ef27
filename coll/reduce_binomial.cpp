// Reduce up a binomial tree, optionally in segments (parameter `segment`; default: the whole vector).
// Cost: ceil(log2 P) * (alpha + n*beta + n*gamma) unsegmented; segmented, a parent reduces segment s of
// a child while segment s+1 arrives, each segment staged in a cache-sized slot instead of a full-vector
// temporary (one pass less over memory: the received data is reduced while it is still in cache).
// For any op.
// Pattern: vrank v receives from its children v+1, v+2, v+4, ... (ascending, each covering the ranks
// just above what v has accumulated), reducing each on the right, then sends to its parent, each as
// ceil(n / segment) messages in order. For a commutative op the tree is rooted at the root
// (vrank = rank - root); otherwise at rank 0, so every partial covers a contiguous range of ranks in
// order, and rank 0 sends the result to the root (one message).
//   P=8: 1->0 3->2 5->4 7->6, 2->0 6->4, 4->0
#include <algorithm>

#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

constexpr std::size_t kWholeVector = ~std::size_t{0};

class ReduceBinomial final : public Schedule {
 public:
  ReduceBinomial(const Context& ctx, const CollArgs& args, std::size_t segment_bytes)
      : Schedule(ctx), args_(args), bytes_(args.count * args.elem_size) {
    const std::size_t es = std::max<std::size_t>(args.elem_size, 1);
    segment_ = std::max<std::size_t>(1, segment_bytes / es);
    if (args.count == 0 || segment_ >= args.count) segment_ = std::max<std::size_t>(args.count, 1);
    segments_ = args.count == 0 ? 1 : (args.count + segment_ - 1) / segment_;
    const bool result_here = vrank() == 0 && ctx.rank == args.root;
    const int children = pattern::binomial_num_children(vrank(), size());
    if (result_here) {
      acc_ = args_.recv;
    } else if (children > 0) {
      work_.resize(bytes_);
      acc_ = work_.data();
    } else {
      acc_ = const_cast<std::byte*>(args_.send);  // a leaf sends its contribution as it is (never written)
    }
    // The first child's partial is received straight into acc_ (it is not written before) and ours
    // reduced into it: ours (op) child is the rank order, and one pass over three streams replaces a
    // receive into a slot, a copy and a reduce. Not when acc_ is our input (the root reducing in place).
    items_ = static_cast<std::size_t>(children) * segments_;
    direct_ = items_ > 0 && acc_ != args_.send;
    // Two slots for the rest: one segment being reduced while the next one arrives.
    slot_bytes_ = std::min(segment_, std::max<std::size_t>(args.count, 1)) * args.elem_size;
    const std::size_t staged = direct_ ? items_ - segments_ : items_;
    if (staged > 0) slots_.resize(std::min<std::size_t>(staged, 2) * slot_bytes_);
  }

 protected:
  bool step() override {
    const int v = vrank();
    switch (phase_) {
      case Phase::start:
        // Only a lone root copies upfront; otherwise the first child's partial is reduced with our
        // contribution straight into acc_ (one pass instead of a copy then a reduce).
        if (items_ == 0 && acc_ != args_.send) copy_bytes(acc_, args_.send, bytes_);
        phase_ = Phase::children;
        [[fallthrough]];
      case Phase::children:
        // Everything posted so far has arrived. Post the next segment first, then reduce the one in hand.
        {
          const std::size_t arrived = posted_;
          if (posted_ < items_) post(posted_++);
          if (reduced_ < arrived) reduce(reduced_++);
        }
        if (reduced_ < items_) return false;
        phase_ = Phase::to_root;
        if (v != 0) {
          for (std::size_t s = 0; s < segments_; ++s) send(acc_ + offset(s), length(s), pattern::binomial_parent(v));
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
  // Item i: segment i % segments_ of child i / segments_; the first child's straight into acc_ when
  // direct_, the others staged in two alternating slots.
  std::size_t offset(std::size_t s) const { return s * segment_ * args_.elem_size; }
  std::size_t length(std::size_t s) const {
    return (std::min(args_.count, (s + 1) * segment_) - std::min(args_.count, s * segment_)) * args_.elem_size;
  }
  std::byte* slot(std::size_t item) {
    const std::size_t staged = direct_ ? item - segments_ : item;  // items staged in slots, in order
    return slots_.data() + (staged % 2) * slot_bytes_;
  }
  void post(std::size_t item) {
    const int child = pattern::binomial_child(vrank(), size(), static_cast<int>(item / segments_));
    const std::size_t s = item % segments_;
    recv(direct_ && item < segments_ ? acc_ + offset(s) : slot(item), length(s), child);
  }
  void reduce(std::size_t item) {
    const std::size_t s = item % segments_;
    const std::size_t n = length(s) / std::max<std::size_t>(args_.elem_size, 1);
    if (direct_ && item < segments_)  // acc_ holds the first child's partial: acc_ = ours (op) it
      args_.reducer->reduce(args_.send + offset(s), acc_ + offset(s), n);
    else if (item < segments_)  // the first child's partial: covers the ranks just above ours
      reduce_ordered_into(*args_.reducer, slot(item), args_.send + offset(s), acc_ + offset(s), n, args_.elem_size,
                          false);
    else
      reduce_ordered(*args_.reducer, slot(item), acc_ + offset(s), n, args_.elem_size, false);
  }

  Phase phase_ = Phase::start;
  CollArgs args_;
  std::size_t bytes_;
  std::size_t segment_ = 1, segments_ = 1;  // elements per segment, segments per vector
  std::size_t items_ = 0, slot_bytes_ = 0;
  std::size_t posted_ = 0, reduced_ = 0;
  bool direct_ = false;
  Bytes work_, slots_;
  std::byte* acc_ = nullptr;
};

}  // namespace

ScheduleRef make_reduce_binomial(const Context& ctx, const CollArgs& args, const AlgorithmParams& params) {
  Context c = ctx;
  c.shift = args.reducer->commutative() ? args.root : 0;
  return std::make_unique<ReduceBinomial>(c, args, params.segment_bytes ? params.segment_bytes : kWholeVector);
}

}  // namespace fabmpi::coll
