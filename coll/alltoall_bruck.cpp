// Alltoall by Bruck's algorithm (equal block sizes: MPI_Alltoall only).
// Cost: ceil(log2 P) * alpha + ceil(log2 P) * (n/2) * beta for n = P*b bytes, plus local copies.
// The choice for small blocks on many ranks: log P messages instead of P-1.
// Pattern: rotate locally so position i holds the block for rank r+i; at step k send the positions with
// bit k set to rank r + 2^k (packed into one message) and receive the same positions from r - 2^k;
// finally position i holds the block from rank r-i.
//   P=4: k=0 sends positions 1,3 to r+1; k=1 sends positions 2,3 to r+2
#include "coll/algorithms.hpp"
#include "coll/patterns.hpp"

namespace fabmpi::coll {
namespace {

class AlltoallBruck final : public Schedule {
 public:
  AlltoallBruck(const Context& ctx, const CollArgs& args)
      : Schedule(ctx), args_(args), b_(args.count), buf_(static_cast<std::size_t>(ctx.size) * b_),
        pack_(buf_.size()), unpack_(buf_.size()) {}

 protected:
  bool step() override {
    const int r = ctx_.rank, p = size();
    if (step_ == 0 && !rotated_) {
      rotated_ = true;
      for (int i = 0; i < p; ++i) copy_bytes(at(i), args_.send + args_.send_offset[(r + i) % p], b_);
    }
    if (step_ > 0) {  // the previous step's positions arrived
      std::size_t n = 0;
      for (int i = 1; i < p; ++i)
        if (pattern::bruck_a2a_moves(i, step_ - 1)) copy_bytes(at(i), unpack_.data() + (n++) * b_, b_);
    }
    if ((1 << step_) >= p) {
      for (int i = 0; i < p; ++i)
        copy_bytes(args_.recv + args_.recv_offset[pattern::bruck_a2a_source_of_position(r, p, i)], at(i), b_);
      return true;
    }
    std::size_t n = 0;
    for (int i = 1; i < p; ++i)
      if (pattern::bruck_a2a_moves(i, step_)) copy_bytes(pack_.data() + (n++) * b_, at(i), b_);
    send(pack_.data(), n * b_, pattern::bruck_a2a_to(r, p, step_));
    recv(unpack_.data(), n * b_, pattern::bruck_a2a_from(r, p, step_));
    ++step_;
    return false;
  }

 private:
  std::byte* at(int position) { return buf_.data() + static_cast<std::size_t>(position) * b_; }

  CollArgs args_;
  std::size_t b_;
  Bytes buf_, pack_, unpack_;
  int step_ = 0;
  bool rotated_ = false;
};

}  // namespace

ScheduleRef make_alltoall_bruck(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return std::make_unique<AlltoallBruck>(ctx, args);
}

}  // namespace fabmpi::coll
