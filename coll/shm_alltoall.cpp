// alltoall, shm: every rank packs its P outgoing blocks into its slot (block j for rank j) and
// publishes; rank r then copies block r out of every slot. Cost: P blocks in, P blocks out per rank,
// no messages. MPI_IN_PLACE is safe as is: the whole outgoing data is in the slot before any block of
// the receive buffer is overwritten.
//   slot[j][s%4] = [b0 b1 ... bP-1]   rank r reads b_r of every slot j
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {

Rc shm_alltoall(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                int recvcount, const DatatypeRef& recvtype, bool* done) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto p = static_cast<std::size_t>(comm->size());
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  const std::size_t sn = in_place ? rn : static_cast<std::size_t>(sendcount);
  const Datatype& st = in_place ? *recvtype : *sendtype;
  const std::size_t block = sn * st.size();
  ShmRegion* staged = nullptr;
  ShmRegion* region =
      shm_region_for(comm, call_key(Collective::alltoall, *comm, block, nullptr, in_place), block * p, p, &staged);
  if (staged) return shm_staged_alltoall(*staged, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  const int me = region->rank();
  const MPI_Aint sstride = static_cast<MPI_Aint>(sn) * st.extent();
  const MPI_Aint rstride = static_cast<MPI_Aint>(rn) * recvtype->extent();
  const auto* in = static_cast<const std::byte*>(in_place ? recvbuf : sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  std::byte* mine = region->slot(me, seq);
  region->claim_slot(seq);
  for (std::size_t j = 0; j < p; ++j) pack_to(mine + j * block, in + static_cast<MPI_Aint>(j) * sstride, sn, st);
  region->publish(seq);
  for (int k = 0; k < static_cast<int>(p); ++k) {
    const int r = (me + k) % static_cast<int>(p);
    if (r != me) region->wait_arrived(r, seq);
    unpack_from(region->slot(r, seq) + static_cast<std::size_t>(me) * block, out + r * rstride, rn, *recvtype);
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
