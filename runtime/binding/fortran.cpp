// Fortran interoperability for C programs and language bindings (MPI-3.1 section 17.2): status and file
// handle conversion, and the Fortran 90 parameterized types MPI_Type_create_f90_{real,complex,integer}.
// The other handle conversions are identity macros in mpi.h (every handle but MPI_File is an int).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/binding/library.hpp"

namespace {
// What MPI_F_STATUS_IGNORE / MPI_F_STATUSES_IGNORE point at: addresses no status can have.
MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE];
MPI_Fint f_statuses_ignore[MPI_F_STATUS_SIZE];
}  // namespace

FABMPI_PUBLIC MPI_Fint* MPI_F_STATUS_IGNORE = f_status_ignore;
FABMPI_PUBLIC MPI_Fint* MPI_F_STATUSES_IGNORE = f_statuses_ignore;

namespace fabmpi::binding {
namespace {

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "a Fortran status mirrors MPI_Status");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint));
static_assert(offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint));

// One predefined type per (combiner, p, r): found in the cache, or built over `basis` and registered.
Rc f90_type(int combiner, int p, int r, MPI_Datatype basis, const char* name, MPI_Datatype* out) {
  const std::array<int, 3> key{combiner, p, r};
  Library& lib = library();
  if (auto it = lib.f90_types.find(key); it != lib.f90_types.end()) {
    *out = it->second;
    return Rc();
  }
  std::vector<int> params = combiner == MPI_COMBINER_F90_INTEGER ? std::vector<int>{r} : std::vector<int>{p, r};
  const MPI_Datatype handle = new_datatype_handle(make_f90(combiner, std::move(params), builtin_datatype(basis), name));
  lib.f90_types.emplace(key, handle);
  *out = handle;
  return Rc();
}

// Fortran's SELECTED_REAL_KIND on x86-64 with gfortran's kinds: 4 (p 6, r 37), 8 (p 15, r 307),
// 10 (p 18, r 4931; C long double). MPI_UNDEFINED leaves a bound free.
Rc real_kind(int p, int r, int* kind) {
  const bool any_p = p == MPI_UNDEFINED, any_r = r == MPI_UNDEFINED;
  if ((!any_p && p < 0) || (!any_r && r < 0)) return fail(MPI_ERR_ARG, "negative precision %d or range %d", p, r);
  struct Kind { int kind, precision, range; };
  for (const Kind k : {Kind{4, 6, 37}, Kind{8, 15, 307}, Kind{10, 18, 4931}}) {
    if ((any_p || p <= k.precision) && (any_r || r <= k.range)) {
      *kind = k.kind;
      return Rc();
    }
  }
  return fail(MPI_ERR_ARG, "no real type has precision %d and range %d (at most 18 digits, 10^4931)", p, r);
}

Rc create_f90_real(bool complex, int p, int r, MPI_Datatype* newtype) {
  FABMPI_TRY(check_out_ptr(newtype, "newtype"));
  *newtype = MPI_DATATYPE_NULL;  // what a caller holds when there is no such type (as Open MPI does)
  int kind = 0;
  FABMPI_TRY(real_kind(p, r, &kind));
  const int combiner = complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL;
  switch (kind) {
    case 4: return complex ? f90_type(combiner, p, r, MPI_C_FLOAT_COMPLEX, "MPI_COMPLEX8", newtype)
                           : f90_type(combiner, p, r, MPI_FLOAT, "MPI_REAL4", newtype);
    case 8: return complex ? f90_type(combiner, p, r, MPI_C_DOUBLE_COMPLEX, "MPI_COMPLEX16", newtype)
                           : f90_type(combiner, p, r, MPI_DOUBLE, "MPI_REAL8", newtype);
    default: return complex ? f90_type(combiner, p, r, MPI_C_LONG_DOUBLE_COMPLEX, "MPI_COMPLEX20", newtype)
                            : f90_type(combiner, p, r, MPI_LONG_DOUBLE, "MPI_REAL10", newtype);
  }
}

}  // namespace
}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  ApiCall call("MPI_Status_c2f");
  return call.finish([&]() -> Rc {
    if (c_status == MPI_STATUS_IGNORE || c_status == MPI_STATUSES_IGNORE)
      return fail(MPI_ERR_ARG, "MPI_STATUS_IGNORE has no contents to convert");
    FABMPI_TRY(check_out_ptr(f_status, "f_status"));
    std::memcpy(f_status, c_status, sizeof(MPI_Status));
    return Rc();
  }());
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  ApiCall call("MPI_Status_f2c");
  return call.finish([&]() -> Rc {
    if (f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
      return fail(MPI_ERR_ARG, "MPI_F_STATUS_IGNORE has no contents to convert");
    FABMPI_TRY(check_out_ptr(f_status, "f_status"));
    if (c_status == MPI_STATUS_IGNORE || c_status == MPI_STATUSES_IGNORE)
      return fail(MPI_ERR_ARG, "cannot convert into MPI_STATUS_IGNORE");
    std::memcpy(c_status, f_status, sizeof(MPI_Status));
    return Rc();
  }());
}

// An MPI_File is its table handle (an int) carried in a pointer (io/file.hpp), so both directions are casts.
// The integer handles are the same in both languages: each conversion is the identity (mpi.h also
// writes them as macros; these are the functions behind PMPI_ names and parenthesized calls).
#define FABMPI_HANDLE_CONVERSION(Kind, Handle)                       \
  _Pragma(FABMPI_STRINGIFY(weak MPI_##Kind##_c2f = PMPI_##Kind##_c2f)) \
  MPI_Fint PMPI_##Kind##_c2f(Handle h) { return static_cast<MPI_Fint>(h); } \
  _Pragma(FABMPI_STRINGIFY(weak MPI_##Kind##_f2c = PMPI_##Kind##_f2c)) \
  Handle PMPI_##Kind##_f2c(MPI_Fint h) { return static_cast<Handle>(h); }
#define FABMPI_STRINGIFY(x) #x
FABMPI_HANDLE_CONVERSION(Comm, MPI_Comm)
FABMPI_HANDLE_CONVERSION(Type, MPI_Datatype)
FABMPI_HANDLE_CONVERSION(Group, MPI_Group)
FABMPI_HANDLE_CONVERSION(Info, MPI_Info)
FABMPI_HANDLE_CONVERSION(Request, MPI_Request)
FABMPI_HANDLE_CONVERSION(Op, MPI_Op)
FABMPI_HANDLE_CONVERSION(Errhandler, MPI_Errhandler)
FABMPI_HANDLE_CONVERSION(Message, MPI_Message)
FABMPI_HANDLE_CONVERSION(Win, MPI_Win)
FABMPI_HANDLE_CONVERSION(Session, MPI_Session)
#undef FABMPI_HANDLE_CONVERSION
#undef FABMPI_STRINGIFY

#pragma weak MPI_File_c2f = PMPI_File_c2f
MPI_Fint PMPI_File_c2f(MPI_File file) { return static_cast<MPI_Fint>(reinterpret_cast<std::uintptr_t>(file)); }

#pragma weak MPI_File_f2c = PMPI_File_f2c
MPI_File PMPI_File_f2c(MPI_Fint file) {
  return reinterpret_cast<MPI_File>(static_cast<std::uintptr_t>(static_cast<unsigned>(file)));
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_f90_real");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return create_f90_real(false, p, r, newtype);
  }());
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_f90_complex");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return create_f90_real(true, p, r, newtype);
  }());
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_f90_integer");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    *newtype = MPI_DATATYPE_NULL;
    // SELECTED_INT_KIND: the smallest integer holding every value of magnitude below 10^r.
    if (r != MPI_UNDEFINED && r < 0) return fail(MPI_ERR_ARG, "negative range %d", r);
    const int range = r == MPI_UNDEFINED ? 0 : r;
    if (range <= 2) return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, MPI_INT8_T, "MPI_INTEGER1", newtype);
    if (range <= 4) return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, MPI_INT16_T, "MPI_INTEGER2", newtype);
    if (range <= 9) return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, MPI_INT32_T, "MPI_INTEGER4", newtype);
    if (range <= 18) return f90_type(MPI_COMBINER_F90_INTEGER, 0, r, MPI_INT64_T, "MPI_INTEGER8", newtype);
    return fail(MPI_ERR_ARG, "no integer type has a decimal range of %d digits (at most 18)", r);
  }());
}
