// Reduce-scatter for any op (non-commutative included): a rank-ordered binomial reduce of the whole
// vector to rank 0, then a linear scatterv of the blocks.
// Cost: ceil(log2 P) * (alpha + n*beta + n*gamma) + (P-1) * alpha + n*beta. Correct for every op; the
// fallback when the op is not commutative.
// Pattern: reduce_binomial rooted at rank 0 (partials cover contiguous rank ranges), then
// scatter_linear from rank 0.
#include "coll/algorithms.hpp"

namespace fabmpi::coll {

ScheduleRef make_reduce_scatter_noncommutative(const Context& ctx, const CollArgs& args, const AlgorithmParams& params) {
  auto sequence = std::make_unique<Sequence>(ctx);
  std::size_t total = 0;
  for (std::size_t c : args.counts) total += c;
  if (ctx.rank == 0) sequence->storage.resize(total * args.elem_size);

  CollArgs reduce;
  reduce.send = args.send;
  reduce.recv = sequence->storage.data();
  reduce.count = total;
  reduce.elem_size = args.elem_size;
  reduce.reducer = args.reducer;
  reduce.root = 0;
  sequence->add(make_reduce_binomial(ctx, reduce, params));

  CollArgs scatter;
  scatter.send = sequence->storage.data();
  scatter.recv = args.recv;
  scatter.count = args.counts[static_cast<std::size_t>(ctx.rank)] * args.elem_size;
  scatter.root = 0;
  std::size_t at = 0;
  for (std::size_t c : args.counts) {
    scatter.send_offset.push_back(at * args.elem_size);
    scatter.send_length.push_back(c * args.elem_size);
    at += c;
  }
  sequence->add(make_scatter_linear(ctx, scatter, params));
  return sequence;
}

}  // namespace fabmpi::coll
