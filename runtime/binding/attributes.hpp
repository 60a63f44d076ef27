// Attribute copy and delete on communicator duplication and free (used by MPI_Comm_dup / MPI_Comm_free).
#pragma once

#include "runtime/comm.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::binding {

// Runs every keyval's copy callback from `from` onto `to` (MPI_Comm_dup, MPI_Comm_idup).
Rc copy_comm_attributes(const Comm& from, Comm& to);
// Runs every delete callback and empties the attribute list (MPI_Comm_free, MPI_Finalize on SELF/WORLD).
Rc delete_comm_attributes(Comm& comm);

}  // namespace fabmpi::binding
