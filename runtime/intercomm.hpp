// Intercommunicators (MPI-3.1 6.6): creating them, and creating communicators from them.
//
// An intercommunicator is a Comm with a remote group (point-to-point ranks name remote processes) and a
// companion intracommunicator over its local group (Comm::local_comm), on which the local steps below
// run. Its context id is agreed over both groups: each group reduces its free-id masks to its leader,
// the leaders trade their results, and each leader broadcasts the combination
// (comm_create::agree_bridged), so the id is free on every member of either group.
//
// Every call here is blocking and collective over both groups. Messages between the groups travel on
// the collective channel: MPI_Intercomm_create's leaders use peer_comm with tag
// comm_create::kTagIntercommLeaders | tag; the others use the intercommunicator's creation sequence
// (kTagParentCollective | sequence), which every member of both groups advances alike.
#pragma once

#include "runtime/comm.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::intercomm {

// MPI_Intercomm_create. `peer_comm` matters at the local leader only (may be null elsewhere); argument
// ranges are the binding's business. Fails with MPI_ERR_COMM on every member when the two groups
// overlap.
Rc create(const CommRef& local_comm, int local_leader, const CommRef& peer_comm, int remote_leader, int tag,
          CommRef* out);

// MPI_Intercomm_merge: an intracommunicator over both groups, the group that passed high = false first
// (both the same: the group whose leader has the lower world rank first).
Rc merge(const CommRef& inter, bool high, CommRef* out);

// MPI_Comm_dup of an intercommunicator (the binding copies attributes and info).
Rc dup(const CommRef& inter, CommRef* out);
// MPI_Comm_idup of an intercommunicator: `on_complete` runs with the new one inside progress.
Rc start_dup(const CommRef& inter, comm_create::CompletionFn on_complete, RequestRef* out);

// MPI_Comm_split of an intercommunicator (MPI-3.1 6.4.2): an intercommunicator between this group's
// processes with `color` (ordered by key, then rank) and the remote group's processes with the same
// color; *out is null for MPI_UNDEFINED or when either side has no such process. MPI_Comm_create of an
// intercommunicator is the split with color 0 for the members of the group, key = rank in it.
Rc split(const CommRef& inter, int color, int key, CommRef* out);

}  // namespace fabmpi::intercomm
