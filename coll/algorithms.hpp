// The arguments every algorithm receives, already in packed (contiguous byte) form, and the entry
// point of each algorithm (one file per algorithm: coll/<collective>_<name>.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "coll/schedule.hpp"

namespace fabmpi::coll {

// What each collective's algorithms read (the collective layer fills the fields of its kind):
//   barrier                  nothing
//   bcast                    recv = the buffer (root: data; others: destination), count = bytes, root
//   reduce                   send, recv (root only), count elements of elem_size bytes, reducer, root;
//                            send == recv when the root reduces in place
//   allreduce, scan, exscan  send, recv, count, elem_size, reducer; send == recv when in place
//   reduce_scatter(_block)   send = the full vector (sum of counts elements), recv = this rank's block,
//                            counts = elements per rank, elem_size, reducer; send and recv never
//                            overlap (the collective layer copies the input of an in-place call)
//   allgather(v)             recv = the whole result, recv_offset = P+1 packed offsets in rank order
//                            (block i is [recv_offset[i], recv_offset[i+1])); this rank's block is
//                            already in place; send = the same bytes in the caller's send buffer when
//                            that is contiguous (else null): the first send of our block reads it there
//                            (clean lines, not the copy just written into recv)
//   gather(v)                send/count = this rank's block (bytes); root: recv, recv_offset/recv_length
//                            per rank (binomial: packed in rank order); in place at the root: send ==
//                            recv + recv_offset[root]
//   scatter(v)               root: send, send_offset/send_length per rank; recv/count = this rank's
//                            block (bytes); in place at the root: recv == send + send_offset[root]
//   alltoall(v,w)            send, send_offset/length and recv, recv_offset/length per rank (bytes);
//                            send and recv never overlap; count = bytes per block when uniform (alltoall)
struct CollArgs {
  const std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::size_t count = 0;
  std::size_t elem_size = 1;
  const Reducer* reducer = nullptr;
  int root = 0;
  std::vector<std::size_t> send_offset, send_length;
  std::vector<std::size_t> recv_offset, recv_length;
  std::vector<std::size_t> counts;
};

using ScheduleRef = std::unique_ptr<Schedule>;
using Factory = ScheduleRef (*)(const Context&, const CollArgs&, const AlgorithmParams&);

// ---- barrier
ScheduleRef make_barrier_dissemination(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_barrier_recursive_doubling(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- bcast
ScheduleRef make_bcast_binomial(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_bcast_scatter_recursive_doubling_allgather(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_bcast_scatter_ring_allgather(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_bcast_pipelined_chain(const Context&, const CollArgs&, const AlgorithmParams&);
// The scatter half of the scatter+allgather broadcasts: vrank v ends up with bytes
// [offsets[v], offsets[v+1]) of the root's buffer (in place, same positions); ranks rotated by root.
ScheduleRef make_bcast_binomial_scatter(const Context&, std::byte* buf, std::vector<std::size_t> offsets, int root);
// ---- reduce
ScheduleRef make_reduce_binomial(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_reduce_rabenseifner(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- allreduce
ScheduleRef make_allreduce_recursive_doubling(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_allreduce_rabenseifner(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_allreduce_ring(const Context&, const CollArgs&, const AlgorithmParams&);
// Reduce-scatter by recursive doubling then allgather (root < 0) or gather to `root`.
ScheduleRef make_rabenseifner(const Context&, const CollArgs&, int root);
// ---- allgather, allgatherv (the block layout is in the arguments; the ranks may be rotated by ctx.shift)
ScheduleRef make_allgather_recursive_doubling(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_allgather_bruck(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_allgather_ring(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- gather(v), scatter(v)
ScheduleRef make_gather_binomial(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_gather_linear(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_scatter_binomial(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_scatter_linear(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- reduce_scatter, reduce_scatter_block
ScheduleRef make_reduce_scatter_recursive_halving(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_reduce_scatter_pairwise(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_reduce_scatter_ring(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_reduce_scatter_noncommutative(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- alltoall(v,w)
ScheduleRef make_alltoall_bruck(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_alltoall_pairwise(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_alltoall_scattered(const Context&, const CollArgs&, const AlgorithmParams&);
// ---- scan, exscan
ScheduleRef make_scan_recursive_doubling(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_scan_linear(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_exscan_recursive_doubling(const Context&, const CollArgs&, const AlgorithmParams&);
ScheduleRef make_exscan_linear(const Context&, const CollArgs&, const AlgorithmParams&);

}  // namespace fabmpi::coll
