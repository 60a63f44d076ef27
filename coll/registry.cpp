#include "coll/registry.hpp"

namespace fabmpi::coll {
namespace {

using C = Collective;
namespace R = restriction;

constexpr const char* kCollectiveNames[kCollectiveCount] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "allgatherv", "gather", "gatherv", "scatter",
    "scatterv", "reduce_scatter", "reduce_scatter_block", "alltoall", "alltoallv", "alltoallw", "scan", "exscan",
};

// The first entry of each collective is its always-valid default.
const Algorithm kAlgorithms[] = {
    {C::barrier, "dissemination", "log2(P) rounds of zero-byte messages to rank + 2^k", 0, make_barrier_dissemination},
    {C::barrier, "recursive_doubling", "pairwise exchanges with rank ^ 2^k, non-power-of-two ranks folded", 0,
     make_barrier_recursive_doubling},
    {C::barrier, "shm", "flat: every rank publishes its arrival in shared memory and reads everyone's; blocking", R::shm, make_barrier_dissemination},

    {C::bcast, "binomial", "binomial tree from the root; small messages", 0, make_bcast_binomial},
    {C::bcast, "scatter_recursive_doubling_allgather", "binomial scatter then recursive-doubling allgather; medium messages",
     R::pow2, make_bcast_scatter_recursive_doubling_allgather},
    {C::bcast, "scatter_ring_allgather", "binomial scatter then ring allgather; large messages", 0,
     make_bcast_scatter_ring_allgather},
    {C::bcast, "pipelined_chain", "chain from the root, pipelined in chunks (param chunk)", 0, make_bcast_pipelined_chain},
    {C::bcast, "shm", "the root writes its slot, the others copy out; blocking, bytes within one slot", R::shm, make_bcast_binomial},
    {C::bcast, "shm_staged", "the root stages the data in shared memory chunk by chunk, the others copy each chunk out; blocking", R::shm_staged, make_bcast_binomial},

    {C::reduce, "binomial", "binomial tree to the root (rank-ordered tree for non-commutative ops; param segment)", 0, make_reduce_binomial},
    {C::reduce, "rabenseifner", "reduce-scatter by recursive halving then gather; large vectors", 0,
     make_reduce_rabenseifner},
    {C::reduce, "shm", "contributions in shared memory, the root reduces them in rank order; blocking, within one slot", R::shm, make_reduce_binomial},
    {C::reduce, "shm_staged", "chunks of the vectors staged in shared memory, each rank reduces a 1/P slice of every chunk, the root copies the slices out; blocking", R::shm_staged, make_reduce_binomial},

    {C::allreduce, "recursive_doubling", "full-vector exchanges with rank ^ 2^k; small vectors, any op", 0,
     make_allreduce_recursive_doubling},
    {C::allreduce, "rabenseifner", "reduce-scatter by recursive halving then recursive-doubling allgather; large vectors", 0,
     make_allreduce_rabenseifner},
    {C::allreduce, "ring", "ring reduce-scatter then ring allgather; large vectors, bandwidth-optimal", R::commutative,
     make_allreduce_ring},
    {C::allreduce, "shm", "contributions in shared memory, every rank reduces them in rank order; blocking, within one slot", R::shm, make_allreduce_recursive_doubling},
    {C::allreduce, "shm_staged", "chunks of the vectors staged in shared memory, each rank reduces a 1/P slice of every chunk, every rank copies the slices out; blocking", R::shm_staged, make_allreduce_recursive_doubling},

    {C::allgather, "ring", "P-1 steps around a ring; large totals", 0, make_allgather_ring},
    {C::allgather, "recursive_doubling", "log2(P) exchanges of doubling size", R::pow2, make_allgather_recursive_doubling},
    {C::allgather, "bruck", "Bruck's log-step concatenation; small totals, any P", 0, make_allgather_bruck},
    {C::allgather, "shm", "every rank writes its block to shared memory and copies the others'; blocking, block within one slot", R::shm, make_allgather_ring},
    {C::allgather, "shm_staged", "every rank stages its block in shared memory chunk by chunk, everyone copies each chunk out; blocking", R::shm_staged, make_allgather_ring},

    {C::allgatherv, "ring", "P-1 steps around a ring; large totals", 0, make_allgather_ring},
    {C::allgatherv, "recursive_doubling", "log2(P) exchanges of doubling size", R::pow2, make_allgather_recursive_doubling},
    {C::allgatherv, "bruck", "Bruck's log-step concatenation; small totals, any P", 0, make_allgather_bruck},

    {C::gather, "binomial", "binomial tree to the root", 0, make_gather_binomial},
    {C::gather, "linear", "every rank sends to the root", 0, make_gather_linear},
    {C::gather, "shm", "blocks in shared memory, the root copies them out; blocking, block within one slot", R::shm, make_gather_binomial},
    {C::gather, "shm_staged", "blocks staged in shared memory chunk by chunk, the root copies them out; blocking", R::shm_staged, make_gather_binomial},
    {C::gatherv, "linear", "every rank sends to the root", 0, make_gather_linear},

    {C::scatter, "binomial", "binomial tree from the root", 0, make_scatter_binomial},
    {C::scatter, "linear", "the root sends to every rank", 0, make_scatter_linear},
    {C::scatter, "shm", "the root writes all blocks to shared memory; blocking, all blocks within one slot", R::shm, make_scatter_binomial},
    {C::scatterv, "linear", "the root sends to every rank", 0, make_scatter_linear},

    {C::reduce_scatter, "noncommutative", "rank-ordered binomial reduce to rank 0 then scatterv; any op", 0,
     make_reduce_scatter_noncommutative},
    {C::reduce_scatter, "recursive_halving", "recursive halving of the vector; short and medium vectors",
     R::commutative, make_reduce_scatter_recursive_halving},
    {C::reduce_scatter, "pairwise", "P-1 pairwise exchanges of one block; long vectors", R::commutative,
     make_reduce_scatter_pairwise},
    {C::reduce_scatter, "ring", "P-1 steps around a ring", R::commutative, make_reduce_scatter_ring},

    {C::reduce_scatter_block, "noncommutative", "rank-ordered binomial reduce to rank 0 then scatter; any op", 0,
     make_reduce_scatter_noncommutative},
    {C::reduce_scatter_block, "recursive_halving", "recursive halving of the vector; short and medium vectors",
     R::commutative, make_reduce_scatter_recursive_halving},
    {C::reduce_scatter_block, "pairwise", "P-1 pairwise exchanges of one block; long vectors", R::commutative,
     make_reduce_scatter_pairwise},
    {C::reduce_scatter_block, "ring", "P-1 steps around a ring", R::commutative, make_reduce_scatter_ring},
    {C::reduce_scatter_block, "shm", "vectors in shared memory, each rank reduces its block in rank order; blocking, vector within one slot", R::shm, make_reduce_scatter_noncommutative},
    {C::reduce_scatter_block, "shm_staged", "chunks of every block staged in shared memory, each rank reduces its own block's chunks; blocking", R::shm_staged, make_reduce_scatter_noncommutative},

    {C::alltoall, "pairwise", "P-1 pairwise exchanges; large blocks", 0, make_alltoall_pairwise},
    {C::alltoall, "bruck", "Bruck's log-step algorithm; small blocks, many ranks", 0, make_alltoall_bruck},
    {C::alltoall, "scattered", "nonblocking exchanges, a window of peers at a time (param window)", 0,
     make_alltoall_scattered},
    {C::alltoall, "shm", "every rank writes its blocks to shared memory, each copies its own out; blocking, all blocks within one slot", R::shm, make_alltoall_pairwise},
    {C::alltoall, "shm_staged", "every rank stages chunks of its P blocks in shared memory, each copies its own pieces out; blocking", R::shm_staged, make_alltoall_pairwise},
    {C::alltoallv, "pairwise", "P-1 pairwise exchanges", 0, make_alltoall_pairwise},
    {C::alltoallv, "scattered", "nonblocking exchanges, a window of peers at a time (param window)", 0,
     make_alltoall_scattered},
    {C::alltoallw, "pairwise", "P-1 pairwise exchanges", 0, make_alltoall_pairwise},
    {C::alltoallw, "scattered", "nonblocking exchanges, a window of peers at a time (param window)", 0,
     make_alltoall_scattered},

    {C::scan, "linear", "prefix passed along a chain", 0, make_scan_linear},
    {C::scan, "recursive_doubling", "log2(P) exchanges of partial prefixes", 0, make_scan_recursive_doubling},
    {C::exscan, "linear", "prefix passed along a chain", 0, make_exscan_linear},
    {C::exscan, "recursive_doubling", "log2(P) exchanges of partial prefixes", 0, make_exscan_recursive_doubling},
};

}  // namespace

const char* collective_name(Collective collective) { return kCollectiveNames[static_cast<int>(collective)]; }

bool collective_from_name(std::string_view name, Collective* out) {
  for (int i = 0; i < kCollectiveCount; ++i) {
    if (name == kCollectiveNames[i]) {
      *out = static_cast<Collective>(i);
      return true;
    }
  }
  return false;
}

std::span<const Algorithm> algorithm_registry() { return kAlgorithms; }

const Algorithm* find_algorithm(Collective collective, std::string_view name) {
  for (const Algorithm& a : kAlgorithms)
    if (a.collective == collective && name == a.name) return &a;
  return nullptr;
}

const Algorithm& default_algorithm(Collective collective) {
  for (const Algorithm& a : kAlgorithms)
    if (a.collective == collective) return a;
  return kAlgorithms[0];  // unreachable: every collective has an entry
}

std::string algorithm_names(Collective collective) {
  std::string names;
  for (const Algorithm& a : kAlgorithms) {
    if (a.collective != collective) continue;
    if (!names.empty()) names += ", ";
    names += a.name;
  }
  return names;
}

std::string describe_restrictions(unsigned restrictions) {
  std::string text;
  auto add = [&](unsigned bit, const char* what) {
    if (!(restrictions & bit)) return;
    if (!text.empty()) text += ", ";
    text += what;
  };
  add(restriction::pow2, "power-of-two communicator size");
  add(restriction::commutative, "commutative op");
  add(restriction::builtin_op, "predefined op");
  add(restriction::no_in_place, "no MPI_IN_PLACE");
  add(restriction::shm, "blocking, one node's native shared memory, data within one slot");
  add(restriction::shm_staged, "blocking, one node's native shared memory");
  return text;
}

}  // namespace fabmpi::coll
