#include "coll/persistent.hpp"

namespace fabmpi::coll {

Rc PersistentCollective::start() {
  if (active_) return fail(MPI_ERR_REQUEST, "MPI_Start on a persistent collective request that is already active");
  reset_for_restart();
  active_ = true;
  RequestRef round;
  const Rc rc = start_(&round);
  if (!rc.ok()) {
    error = rc.code();
    mark_complete();
    return rc;
  }
  if (round->is_complete()) {  // finished inside the start (one rank, nothing to move)
    error = round->error;
    mark_complete();
    return Rc();
  }
  static_cast<CollRequest&>(*round).completes_also = weak_from_this();
  return Rc();
}

}  // namespace fabmpi::coll
