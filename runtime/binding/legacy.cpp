// Small corners of the API that programs call routinely: MPI_Pcontrol (profiling control: pauses and
// resumes FABMPI_TRACE's timeline, else a no-op, as the standard allows), and the MPI-1 attribute names (MPI_Attr_get & co., deprecated but not removed in
// MPI-3.1, and still the way many codes read MPI_TAG_UB). The MPI-1 names forward to the MPI-2 functions,
// whose names appear in error messages.
#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

extern "C" {

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...) {
  // FABMPI_TRACE's recording (runtime/call_trace.hpp): 0 pauses it, any other level resumes it.
  if (CallTrace* trace = library().trace) trace->set_paused(level == 0);
  return MPI_SUCCESS;
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }

}  // extern "C"
