// Broadcast as a binomial scatter followed by a recursive-doubling allgather (power-of-two P only).
// Cost: 2 * log2 P * alpha + 2 * (P-1)/P * n * beta. For medium messages on power-of-two communicators.
// Pattern (vranks relative to the root): the binomial scatter of bcast_scatter_ring_allgather, then at
// step k vrank v swaps the 2^k chunks it holds with vrank v ^ 2^k.
#include "coll/algorithms.hpp"

namespace fabmpi::coll {

std::vector<std::size_t> bcast_chunk_offsets(std::size_t bytes, int size);

ScheduleRef make_bcast_scatter_recursive_doubling_allgather(const Context& ctx, const CollArgs& args,
                                                            const AlgorithmParams& params) {
  auto sequence = std::make_unique<Sequence>(ctx);
  std::vector<std::size_t> offsets = bcast_chunk_offsets(args.count, ctx.size);
  sequence->add(make_bcast_binomial_scatter(ctx, args.recv, offsets, args.root));
  Context rotated = ctx;
  rotated.shift = args.root;
  CollArgs gather;
  gather.recv = args.recv;
  gather.recv_offset = std::move(offsets);
  sequence->add(make_allgather_recursive_doubling(rotated, gather, params));
  return sequence;
}

}  // namespace fabmpi::coll
