// gather, shm: every non-root packs its block into its slot and publishes; the root copies each block
// out as its flag appears (its own straight from its send buffer). Cost: one copy in, one copy out per
// block; non-roots return at once (they wait only to reuse a slot two calls later).
//   ranks != root --write--> slot[r][s%4] --read--> root
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {
namespace {

// `scount` elements of `stype` at `src` to `rcount` of `rtype` at `dst` (same signature).
void shm_copy_typed(ShmRegion& region, const void* src, std::size_t scount, const Datatype& stype, void* dst,
                    std::size_t rcount, const Datatype& rtype) {
  const std::size_t bytes = scount * stype.size();
  if (bytes == 0) return;
  if (stype.is_contiguous()) {
    unpack_from(static_cast<const std::byte*>(src) + stype.true_lb(), dst, rcount, rtype);
    return;
  }
  std::byte* staged = region.scratch(bytes);
  pack_to(staged, src, scount, stype);
  unpack_from(staged, dst, rcount, rtype);
}

}  // namespace

Rc shm_gather(const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
              int recvcount, const DatatypeRef& recvtype, int root, bool* done) {
  const bool is_root = comm->rank() == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  const auto p = static_cast<std::size_t>(comm->size());
  const std::size_t block = is_root ? static_cast<std::size_t>(recvcount) * recvtype->size()
                                    : static_cast<std::size_t>(sendcount) * sendtype->size();
  ShmRegion* staged = nullptr;
  ShmRegion* region =
      shm_region_for(comm, call_key(Collective::gather, *comm, block * p, nullptr, false), block, 1, &staged);
  if (staged) return shm_staged_gather(*staged, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  if (!is_root) {
    region->claim_slot(seq);
    pack_to(region->slot(region->rank(), seq), sendbuf, static_cast<std::size_t>(sendcount), *sendtype);
    region->publish(seq);
  } else {
    const std::size_t rn = static_cast<std::size_t>(recvcount);
    const MPI_Aint stride = static_cast<MPI_Aint>(rn) * recvtype->extent();
    auto* out = static_cast<std::byte*>(recvbuf);
    if (!in_place)
      shm_copy_typed(*region, sendbuf, static_cast<std::size_t>(sendcount), *sendtype, out + root * stride, rn, *recvtype);
    for (int r = 0; r < static_cast<int>(p); ++r) {
      if (r == root) continue;
      region->wait_arrived(r, seq);
      unpack_from(region->slot(r, seq), out + r * stride, rn, *recvtype);
    }
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
