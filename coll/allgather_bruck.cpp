// Allgather(v) by Bruck's concatenation algorithm.
// Cost: ceil(log2 P) * alpha + (P-1)/P * n * beta, plus one local rotation. Few messages for any P.
// Pattern: rank r keeps a buffer that starts with its own block; at step k (d = 2^k) it sends its first
// min(d, P-d) blocks to r - d and appends as many from r + d. The buffer then holds blocks r, r+1, ...,
// r+P-1, which are copied to their places.
//   P=5, k=0: r -> r-1 (1 block);  k=1: r -> r-2 (2 blocks);  k=2: r -> r-4 (1 block)
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AllgatherBruck final : public Schedule {
 public:
  AllgatherBruck(const Context& ctx, std::byte* buf, std::vector<std::size_t> offsets)
      : Schedule(ctx), buf_(buf), offsets_(std::move(offsets)), temp_(offsets_.back() - offsets_.front()) {}

 protected:
  bool step() override {
    const int v = vrank(), p = size();
    if (step_ == 0 && held_ == 0) {
      copy_bytes(temp_.data(), buf_ + offsets_[v], block(v));
      held_ = 1;
      held_bytes_ = block(v);
    }
    if (step_ > 0) {  // the previous step's blocks arrived
      held_ += incoming_;
      held_bytes_ += incoming_bytes_;
    }
    if (step_ == pattern::bruck_steps(p)) {
      std::size_t at = 0;
      for (int i = 0; i < p; ++i) {
        const int owner = (v + i) % p;
        copy_bytes(buf_ + offsets_[owner], temp_.data() + at, block(owner));
        at += block(owner);
      }
      return true;
    }
    const int count = pattern::bruck_ag_blocks(p, step_);
    const int from = pattern::bruck_ag_from(v, p, step_);
    std::size_t out_bytes = 0;
    for (int i = 0; i < count; ++i) out_bytes += block((v + i) % p);
    incoming_bytes_ = 0;
    for (int i = 0; i < count; ++i) incoming_bytes_ += block((from + i) % p);
    incoming_ = count;
    send(temp_.data(), out_bytes, pattern::bruck_ag_to(v, p, step_));
    recv(temp_.data() + held_bytes_, incoming_bytes_, from);
    ++step_;
    return false;
  }

 private:
  std::size_t block(int i) const { return offsets_[i + 1] - offsets_[i]; }

  std::byte* buf_;
  std::vector<std::size_t> offsets_;
  Bytes temp_;
  int step_ = 0;
  int held_ = 0, incoming_ = 0;
  std::size_t held_bytes_ = 0, incoming_bytes_ = 0;
};

}  // namespace

ScheduleRef make_allgather_bruck(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AllgatherBruck>(ctx, args.recv, args.recv_offset);
}

}  // namespace fabmpi::coll
