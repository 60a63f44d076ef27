// Attributes: keyvals (shared by communicators and windows: under the MPICH ABI both handles are int, so
// the callback types coincide), and copy/delete on communicator duplication and free.
#pragma once

#include "runtime/comm.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::binding {

// MPI_Comm_create_keyval / MPI_Win_create_keyval, and their free_keyval (a keyval lives on while
// attributes use it).
Rc create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, void* extra_state,
                 int* keyval);
Rc free_keyval(int* keyval);
// The attribute's delete callback, if any, for the object with handle `object` (a communicator or window).
Rc run_delete_callback(int object, int keyval, const Comm::Attribute& attr);

// Runs every keyval's copy callback from `from` onto `to` (MPI_Comm_dup, MPI_Comm_idup).
Rc copy_comm_attributes(const Comm& from, Comm& to);
// Runs every delete callback and empties the attribute list (MPI_Comm_free, MPI_Finalize on SELF/WORLD).
Rc delete_comm_attributes(Comm& comm);

}  // namespace fabmpi::binding
