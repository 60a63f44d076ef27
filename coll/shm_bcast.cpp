// bcast, shm: the root packs the data into its slot and publishes; every other rank waits for that
// flag and unpacks from the root's slot. Cost: one copy in, one copy out per rank, no round trip: the
// root returns at once and may run up to 31 broadcasts ahead (32 slots, by sequence).
//   root --write--> slot[root][s%4] --read--> ranks != root
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {

Rc shm_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, bool* done) {
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t bytes = n * type->size();
  ShmRegion* staged = nullptr;
  ShmRegion* region = shm_region_for(comm, call_key(Collective::bcast, *comm, bytes, nullptr, false), bytes, 1, &staged);
  if (staged) return shm_staged_bcast(*staged, buf, count, type, root, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  if (region->rank() == root) {
    region->claim_slot(seq);
    pack_to(region->slot(root, seq), buf, n, *type);
    region->publish(seq);
  } else {
    region->wait_arrived(root, seq);
    unpack_from(region->slot(root, seq), buf, n, *type);
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
