// Allgather(v) by recursive doubling (power-of-two P only).
// Cost: log2 P * alpha + (P-1)/P * n * beta. Fewest messages; for small and medium totals.
// Pattern: at step k rank r swaps the 2^k blocks it holds (the aligned group containing r) with rank
// r ^ 2^k, doubling what it holds.
//   P=4, k=0: 0<->1 2<->3 (one block each);  k=1: 0<->2 1<->3 (two blocks each)
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AllgatherRecursiveDoubling final : public Schedule {
 public:
  AllgatherRecursiveDoubling(const Context& ctx, std::byte* buf, std::vector<std::size_t> offsets,
                             const std::byte* own)
      : Schedule(ctx), buf_(buf), offsets_(std::move(offsets)), own_(own) {}

 protected:
  bool step() override {
    const int mask = 1 << step_;
    if (mask >= size()) return true;
    const int v = vrank(), partner = v ^ mask;
    const int mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
    // Step 0 sends just our block: from the caller's send buffer when we have it (see algorithms.hpp).
    const std::byte* from = (mask == 1 && own_) ? own_ : buf_ + offsets_[mine];
    send(from, offsets_[mine + mask] - offsets_[mine], partner);
    recv(buf_ + offsets_[theirs], offsets_[theirs + mask] - offsets_[theirs], partner);
    ++step_;
    return false;
  }

 private:
  std::byte* buf_;
  std::vector<std::size_t> offsets_;
  const std::byte* own_;
  int step_ = 0;
};

}  // namespace

ScheduleRef make_allgather_recursive_doubling(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AllgatherRecursiveDoubling>(ctx, args.recv, args.recv_offset, args.send);
}

}  // namespace fabmpi::coll
