// Reduce as a reduce-scatter (recursive halving of the vector) followed by a binomial gather of the
// pieces to new rank 0 and, when that is not the root, one send of the result to the root.
// Cost: 2*log2 pof2 * alpha + 2*(pof2-1)/pof2 * n*beta + (pof2-1)/pof2 * n*gamma (+ n*beta to a root
// other than the gathering rank). The large-vector choice; the core is shared with
// allreduce_rabenseifner.cpp (see the pattern there), only the second half differs: at step k
// (descending) new ranks with bit k set hand their range to n ^ 2^k and stop.
#include "coll/algorithms.hpp"

namespace fabmpi::coll {

ScheduleRef make_reduce_rabenseifner(const Context& ctx, const CollArgs& args, const AlgorithmParams&) {
  return make_rabenseifner(ctx, args, args.root);
}

}  // namespace fabmpi::coll
