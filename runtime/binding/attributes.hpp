// Attributes: keyvals (shared by communicators, windows and datatypes: under the MPICH ABI their handles
// are all int, so the callback types coincide), and copy/delete on duplication and free.
#pragma once

#include "runtime/comm.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::binding {

// MPI_Comm/Win/Type_create_keyval, and their free_keyval (a keyval lives on while
// attributes use it).
Rc create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, void* extra_state,
                 int* keyval);
Rc free_keyval(int* keyval);
// A user keyval by handle; MPI_ERR_KEYVAL when unknown or freed.
Rc to_keyval(int handle, KeyvalRef* out);
// The attribute's delete callback, if any, for the object with handle `object` (a communicator or window).
Rc run_delete_callback(int object, int keyval, const Comm::Attribute& attr);

// Runs every keyval's copy callback from the object `from_handle` onto `to` (MPI_Comm_dup, MPI_Type_dup).
Rc copy_attributes(int from_handle, const AttributeMap& from, AttributeMap& to);
// Runs every delete callback and empties the attribute list (MPI_Comm_free, MPI_Type_free, MPI_Finalize on
// SELF/WORLD), in reverse order of keyval creation.
Rc delete_attributes(int handle, AttributeMap& attributes);

inline Rc copy_comm_attributes(const Comm& from, Comm& to) { return copy_attributes(from.handle, from.attributes, to.attributes); }
inline Rc delete_comm_attributes(Comm& comm) { return delete_attributes(comm.handle, comm.attributes); }

}  // namespace fabmpi::binding
