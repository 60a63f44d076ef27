// barrier, shm: flat. Every rank publishes "arrived at #s" in its own cache line of the region and
// waits for everyone else's. Cost: one store and P-1 remote line reads per rank; no data moves.
//   rank:      0    1    2    3
//   arrived:  [s]  [s]  [s]  [s]   each reads the other P-1 lines
// (A release/gather tree would cut the P-1 reads per rank for large P; up to the 8 ranks measured the
// flat one is not the bottleneck.)
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

namespace fabmpi::coll {

Rc shm_barrier(const CommRef& comm, bool* done) {
  ShmRegion* region = shm_region_for(comm, call_key(Collective::barrier, *comm, 0, nullptr, false), 0);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  region->publish(seq);
  region->wait_all_arrived(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
