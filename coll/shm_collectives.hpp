// The blocking collectives' shared-memory fast path (one file per collective: coll/shm_<collective>.cpp,
// over the region of coll/shm_region.hpp). coll/binding.cpp calls these after its argument checks, for
// blocking calls only; each runs the collective and sets *done when selection picks its `shm` algorithm
// for the call and the communicator has a region, and otherwise leaves *done false without side effects
// visible to MPI (the caller then starts the engine's schedule). Arguments as in coll/collectives.hpp.
#pragma once

#include "coll/collectives.hpp"

namespace fabmpi::coll {

Rc shm_barrier(const CommRef& comm, bool* done);
Rc shm_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, bool* done);
// kind: reduce or allreduce.
Rc shm_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                 const DatatypeRef& type, const OpRef& op, int root, bool* done);
Rc shm_reduce_scatter_block(const CommRef& comm, const void* sendbuf, void* recvbuf, int recvcount,
                            const DatatypeRef& type, const OpRef& op, bool* done);
Rc shm_allgather(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                 int recvcount, const DatatypeRef& recvtype, bool* done);
Rc shm_gather(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
              int recvcount, const DatatypeRef& recvtype, int root, bool* done);
Rc shm_scatter(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
               int recvcount, const DatatypeRef& recvtype, int root, bool* done);
// sendbuf == MPI_IN_PLACE: the data comes from recvbuf (recvcount, recvtype).
Rc shm_alltoall(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                int recvcount, const DatatypeRef& recvtype, bool* done);

// The selection key of a call, without the locality fields: coll/collectives.cpp adds single_node,
// shm_region_for sets shm (a call that reaches the region is on one node by construction).
SelectionKey call_key(Collective kind, const Comm& comm, std::size_t bytes, const Op* op, bool in_place);

}  // namespace fabmpi::coll
