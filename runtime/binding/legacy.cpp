// Small corners of the API that programs call routinely: MPI_Pcontrol (profiling control: pauses and
// resumes FABMPI_TRACE's timeline, else a no-op, as the standard allows), the MPI-1 attribute names
// (MPI_Attr_get & co., deprecated but not removed in MPI-3.1, and still the way many codes read
// MPI_TAG_UB), and the MPI-1 functions MPI-3.0 removed (MPI_Address, MPI_Type_extent/lb/ub,
// MPI_Type_hvector/hindexed/struct, MPI_Errhandler_create/set/get), which MPICH still provides and legacy
// codes (and MPICH's own test suite) still call. The MPI-1 names forward to the MPI-2 functions, whose
// names appear in error messages.
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

#pragma weak MPI_Address = PMPI_Address
int PMPI_Address(void* location, MPI_Aint* address) { return PMPI_Get_address(location, address); }

#pragma weak MPI_Type_extent = PMPI_Type_extent
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}

// MPI-1's bounds are MPI-2's lb and lb + extent (markers and resizing included).
#pragma weak MPI_Type_lb = PMPI_Type_lb
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}

#pragma weak MPI_Type_ub = PMPI_Type_ub
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0;
  const int rc = PMPI_Type_get_extent(datatype, &lb, displacement);  // reports a null pointer itself
  if (rc == MPI_SUCCESS) *displacement += lb;
  return rc;
}

#pragma weak MPI_Type_hvector = PMPI_Type_hvector
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
int PMPI_Type_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}

#pragma weak MPI_Type_struct = PMPI_Type_struct
int PMPI_Type_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                     const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}

#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}

#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) { return PMPI_Comm_set_errhandler(comm, errhandler); }

#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) { return PMPI_Comm_get_errhandler(comm, errhandler); }

}  // extern "C"
