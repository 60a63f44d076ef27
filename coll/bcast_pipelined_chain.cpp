// Broadcast along a chain, pipelined in chunks (parameter `chunk`, default 64 KiB).
// Cost: (P - 2 + n/c) * (alpha + c*beta) for chunk size c: near n*beta for long messages on few ranks,
// and each rank talks to two neighbours only.
// Pattern (vranks relative to the root): 0 -> 1 -> 2 -> ... -> P-1; a rank forwards chunk i while
// receiving chunk i+1.
#include <algorithm>

#include "coll/algorithms.hpp"

namespace fabmpi::coll {
namespace {

constexpr std::size_t kDefaultChunk = 64 * 1024;

class BcastPipelinedChain final : public Schedule {
 public:
  BcastPipelinedChain(const Context& ctx, std::byte* buf, std::size_t bytes, std::size_t chunk)
      : Schedule(ctx), buf_(buf), bytes_(bytes), chunk_(chunk),
        chunks_(bytes == 0 ? 1 : (bytes + chunk - 1) / chunk) {}

 protected:
  // Step i: chunk i is here (received in step i-1, or we are the root); forward it and receive i+1.
  bool step() override {
    const int v = vrank();
    const bool first = v == 0, last = v == size() - 1;
    if (i_ == 0 && !first && !primed_) {
      primed_ = true;
      recv_chunk(0);
      return false;
    }
    if (i_ == chunks_) return true;
    if (!last) send(buf_ + offset(i_), length(i_), v + 1);
    if (!first && i_ + 1 < chunks_) recv_chunk(i_ + 1);
    ++i_;
    return false;
  }

 private:
  std::size_t offset(std::size_t i) const { return std::min(bytes_, i * chunk_); }
  std::size_t length(std::size_t i) const { return std::min(bytes_, (i + 1) * chunk_) - offset(i); }
  void recv_chunk(std::size_t i) { recv(buf_ + offset(i), length(i), vrank() - 1); }

  std::byte* buf_;
  std::size_t bytes_, chunk_, chunks_;
  std::size_t i_ = 0;
  bool primed_ = false;
};

}  // namespace

ScheduleRef make_bcast_pipelined_chain(const Context& ctx, const CollArgs& args, const AlgorithmParams& params) {
  Context c = ctx;
  c.shift = args.root;
  const std::size_t chunk = params.chunk_bytes ? params.chunk_bytes : kDefaultChunk;
  return std::make_unique<BcastPipelinedChain>(c, args.recv, args.count, chunk);
}

}  // namespace fabmpi::coll
