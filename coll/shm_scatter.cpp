// scatter, shm: the root packs all P blocks into its slot and publishes; rank r copies block r out.
// Cost: P blocks in, one block out per rank; the root returns at once.
//   root --write P blocks--> slot[root][s%4] --block r--> rank r
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {

Rc shm_scatter(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
               int recvcount, const DatatypeRef& recvtype, int root, bool* done) {
  const bool is_root = comm->rank() == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  const auto p = static_cast<std::size_t>(comm->size());
  const std::size_t block = is_root ? static_cast<std::size_t>(sendcount) * sendtype->size()
                                    : static_cast<std::size_t>(recvcount) * recvtype->size();
  ShmRegion* region = shm_region_for(comm, call_key(Collective::scatter, *comm, block * p, nullptr, false), block * p);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  if (is_root) {
    const std::size_t sn = static_cast<std::size_t>(sendcount);
    const MPI_Aint stride = static_cast<MPI_Aint>(sn) * sendtype->extent();
    const auto* in = static_cast<const std::byte*>(sendbuf);
    std::byte* slot = region->slot(root, seq);
    region->claim_slot(seq);
    for (std::size_t r = 0; r < p; ++r)
      if (static_cast<int>(r) != root) pack_to(slot + r * block, in + static_cast<MPI_Aint>(r) * stride, sn, *sendtype);
    region->publish(seq);
    if (!in_place) {  // the root's own block: buffer to buffer
      if (sendtype->is_contiguous()) {
        unpack_from(in + root * stride + sendtype->true_lb(), recvbuf, static_cast<std::size_t>(recvcount), *recvtype);
      } else {
        std::byte* staged = region->scratch(block);
        pack_to(staged, in + root * stride, sn, *sendtype);
        unpack_from(staged, recvbuf, static_cast<std::size_t>(recvcount), *recvtype);
      }
    }
  } else {
    region->wait_arrived(root, seq);
    unpack_from(region->slot(root, seq) + static_cast<std::size_t>(comm->rank()) * block, recvbuf,
                static_cast<std::size_t>(recvcount), *recvtype);
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
