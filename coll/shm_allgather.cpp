// allgather, shm: every rank packs its block into its slot and publishes, then copies every other
// rank's block out as its flag appears. Cost: one block in, P-1 blocks out per rank, no messages.
//   rank r --write--> slot[r][s%4] --read--> every rank
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {

Rc shm_allgather(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                 int recvcount, const DatatypeRef& recvtype, bool* done) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto p = static_cast<std::size_t>(comm->size());
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  const std::size_t block = in_place ? rn * recvtype->size() : static_cast<std::size_t>(sendcount) * sendtype->size();
  ShmRegion* staged = nullptr;
  ShmRegion* region =
      shm_region_for(comm, call_key(Collective::allgather, *comm, block * p, nullptr, in_place), block, 1, &staged);
  if (staged) return shm_staged_allgather(*staged, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  const int me = region->rank();
  const MPI_Aint stride = static_cast<MPI_Aint>(rn) * recvtype->extent();
  auto* out = static_cast<std::byte*>(recvbuf);
  region->claim_slot(seq);
  if (in_place) pack_to(region->slot(me, seq), out + me * stride, rn, *recvtype);
  else pack_to(region->slot(me, seq), sendbuf, static_cast<std::size_t>(sendcount), *sendtype);
  region->publish(seq);
  if (!in_place) unpack_from(region->slot(me, seq), out + me * stride, rn, *recvtype);
  for (int k = 1; k < static_cast<int>(p); ++k) {  // start after our own rank: not everyone reads rank 0 first
    const int r = (me + k) % static_cast<int>(p);
    region->wait_arrived(r, seq);
    unpack_from(region->slot(r, seq), out + r * stride, rn, *recvtype);
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
