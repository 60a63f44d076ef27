// The collectives' core entry points, called by coll/binding.cpp once arguments are checked. Each
// packs derived datatypes into contiguous staging where needed, fills the algorithm arguments, and
// starts the selected schedule; *out is the request (complete when the collective is).
// Counts and displacements follow the MPI call; `sendbuf == MPI_IN_PLACE` where MPI allows it.
#pragma once

#include <span>

#include "coll/engine.hpp"

namespace fabmpi::coll {

using Counts = std::span<const int>;

Rc start_barrier(const CommRef& comm, RequestRef* out);
Rc start_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, RequestRef* out);
// kind: reduce (root used), allreduce, scan or exscan.
Rc start_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                   const DatatypeRef& type, const OpRef& op, int root, RequestRef* out);
// kind: reduce_scatter (recvcounts per rank) or reduce_scatter_block (recvcounts[0] for every rank).
Rc start_reduce_scatter(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, Counts recvcounts,
                        const DatatypeRef& type, const OpRef& op, RequestRef* out);
// kind: allgather (recvcounts/displs empty: recvcount at i*recvcount) or allgatherv.
Rc start_allgather(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                   void* recvbuf, int recvcount, Counts recvcounts, Counts displs, const DatatypeRef& recvtype,
                   RequestRef* out);
// kind: gather or gatherv (recvcounts/displs significant at the root only).
Rc start_gather(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                void* recvbuf, int recvcount, Counts recvcounts, Counts displs, const DatatypeRef& recvtype, int root,
                RequestRef* out);
// kind: scatter or scatterv (sendcounts/displs significant at the root only).
Rc start_scatter(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, Counts sendcounts,
                 Counts displs, const DatatypeRef& sendtype, void* recvbuf, int recvcount, const DatatypeRef& recvtype,
                 int root, RequestRef* out);

// One side of an alltoall(v,w): per peer a count, a byte displacement and a datatype.
struct PeerBlocks {
  std::vector<int> counts;
  std::vector<MPI_Aint> byte_displs;
  std::vector<DatatypeRef> types;
};
// kind: alltoall, alltoallv or alltoallw; sendbuf == MPI_IN_PLACE: the data comes from recvbuf with
// the receive layout.
Rc start_alltoall(Collective kind, const CommRef& comm, const void* sendbuf, const PeerBlocks& send, void* recvbuf,
                  const PeerBlocks& recv, RequestRef* out);

// One block of a neighbourhood collective (MPI_Neighbor_*): `count` elements of `type` at byte
// displacement `byte_displ` from the buffer, to or from `peer` (MPI_PROC_NULL: nothing moves).
struct NeighborBlock {
  int peer = MPI_PROC_NULL;
  int count = 0;
  MPI_Aint byte_displ = 0;
  DatatypeRef type;
};
// Every receive, then every send, all in flight at once, each list posted in its order: messages
// between one pair match in that order (coll/neighbor.cpp). `what` names the call in hang reports.
Rc start_neighbor_exchange(const CommRef& comm, const char* what, const void* sendbuf,
                           const std::vector<NeighborBlock>& sends, void* recvbuf,
                           const std::vector<NeighborBlock>& recvs, RequestRef* out);

// Intercommunicator reductions (coll/intercomm.cpp). `root` (reduce): MPI_ROOT at the root, MPI_PROC_NULL
// in the rest of its group, the root's remote rank in the other group. reduce_scatter: recvcounts per
// local rank; reduce_scatter_block: recvcounts[0].
Rc start_inter_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                         const DatatypeRef& type, const OpRef& op, int root, RequestRef* out);
Rc start_inter_reduce_scatter(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf,
                              Counts recvcounts, const DatatypeRef& type, const OpRef& op, RequestRef* out);

// Blocking forms for the library's own collective steps (dynamic processes, MPI-IO): start, then wait; a
// failure names `what`. reduction: kind allreduce, exscan or scan (no root).
Rc run_barrier(const CommRef& comm, const char* what);
Rc run_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, const char* what);
Rc run_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                 const DatatypeRef& type, const OpRef& op, const char* what);

}  // namespace fabmpi::coll
