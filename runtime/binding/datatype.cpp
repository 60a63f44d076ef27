// Datatypes: constructors, queries, pack/unpack, and the status element counts (MPI_Get_count & co).
// MPI_Get_address, MPI_Aint_add and MPI_Aint_diff are pure address arithmetic and work at any time;
// everything else requires MPI to be initialized.
#include <climits>
#include <cstring>
#include <vector>

#include "runtime/binding/attributes.hpp"
#include "runtime/binding/library.hpp"
#include "runtime/external32.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

Rc check_array(const void* array, int count, const char* what) {
  if (count > 0 && array == nullptr) return fail(MPI_ERR_ARG, "NULL %s with count %d", what, count);
  return Rc();
}

Rc check_blocklength(int blocklength) {
  if (blocklength < 0) return fail(MPI_ERR_ARG, "negative block length %d", blocklength);
  return Rc();
}

Rc check_blocklengths(const int* lengths, int count) {
  for (int i = 0; i < count; ++i)
    if (lengths[i] < 0) return fail(MPI_ERR_ARG, "negative block length %d at index %d", lengths[i], i);
  return Rc();
}

// The old type of a constructor: any valid type, committed or not.
Rc old_type(MPI_Datatype handle, DatatypeRef* out) { return to_datatype(handle, out, false); }

Rc publish(const DatatypeRef& type, MPI_Datatype* newtype) {
  *newtype = new_datatype_handle(type);
  return Rc();
}

// The byte count an MPI_Status carries (see Request::fill_status).
MPI_Count status_bytes(const MPI_Status* status) {
  const auto lo = static_cast<unsigned long long>(static_cast<unsigned>(status->count_lo));
  const auto hi = static_cast<unsigned long long>(static_cast<unsigned>(status->count_hi_and_cancelled) >> 1);
  return static_cast<MPI_Count>(lo | (hi << 32));
}

void set_status_bytes(MPI_Status* status, MPI_Count bytes) {
  const auto count = static_cast<unsigned long long>(bytes);
  status->count_lo = static_cast<int>(count & 0xffffffffu);
  status->count_hi_and_cancelled =
      static_cast<int>(((count >> 32) << 1) | (static_cast<unsigned>(status->count_hi_and_cancelled) & 1u));
}

Rc check_status(const MPI_Status* status) {
  if (status == nullptr || status == MPI_STATUS_IGNORE)
    return fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  return Rc();
}

// Basic elements in the bytes of a status; MPI_UNDEFINED when they end inside a basic element.
MPI_Count elements_of(const MPI_Status* status, const Datatype& type) {
  const MPI_Count bytes = status_bytes(status);
  if (type.size() == 0) return 0;
  bool exact = true;
  const std::size_t n = type.count_basic_elements(static_cast<std::size_t>(bytes), &exact);
  return exact ? static_cast<MPI_Count>(n) : MPI_UNDEFINED;
}

}  // namespace

// MPI_Type_get_extent, MPI_Type_get_true_extent and their _x twins differ only in the integer type and
// which pair of bounds they report.
template <class Int>
Rc query_bounds(ApiCall& call, MPI_Datatype datatype, Int* lb, Int* extent, bool true_bounds) {
  FABMPI_TRY(call.require_initialized());
  DatatypeRef type;
  FABMPI_TRY(old_type(datatype, &type));
  FABMPI_TRY(check_out_ptr(lb, true_bounds ? "true_lb" : "lb"));
  FABMPI_TRY(check_out_ptr(extent, true_bounds ? "true_extent" : "extent"));
  *lb = true_bounds ? type->true_lb() : type->lb();
  *extent = true_bounds ? type->true_extent() : type->extent();
  return Rc();
}

extern "C" {

// ---------------------------------------------------------------- constructors
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_contiguous");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_contiguous(static_cast<std::size_t>(count), old), newtype);
  }());
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_vector");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_blocklength(blocklength));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_vector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength), stride, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_hvector");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_blocklength(blocklength));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_hvector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength), stride, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_indexed");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_array(array_of_blocklengths, count, "array_of_blocklengths"));
    FABMPI_TRY(check_array(array_of_displacements, count, "array_of_displacements"));
    FABMPI_TRY(check_blocklengths(array_of_blocklengths, count));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    const auto n = static_cast<std::size_t>(count);
    return publish(make_indexed({array_of_blocklengths, n}, {array_of_displacements, n}, old), newtype);
  }());
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_hindexed");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_array(array_of_blocklengths, count, "array_of_blocklengths"));
    FABMPI_TRY(check_array(array_of_displacements, count, "array_of_displacements"));
    FABMPI_TRY(check_blocklengths(array_of_blocklengths, count));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    const auto n = static_cast<std::size_t>(count);
    return publish(make_hindexed({array_of_blocklengths, n}, {array_of_displacements, n}, old), newtype);
  }());
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_indexed_block");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_blocklength(blocklength));
    FABMPI_TRY(check_array(array_of_displacements, count, "array_of_displacements"));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_indexed_block(blocklength, {array_of_displacements, static_cast<std::size_t>(count)}, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_hindexed_block");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_blocklength(blocklength));
    FABMPI_TRY(check_array(array_of_displacements, count, "array_of_displacements"));
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_hindexed_block(blocklength, {array_of_displacements, static_cast<std::size_t>(count)}, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_struct");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(check_array(array_of_blocklengths, count, "array_of_blocklengths"));
    FABMPI_TRY(check_array(array_of_displacements, count, "array_of_displacements"));
    FABMPI_TRY(check_array(array_of_types, count, "array_of_types"));
    FABMPI_TRY(check_blocklengths(array_of_blocklengths, count));
    std::vector<DatatypeRef> types(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) FABMPI_TRY(old_type(array_of_types[i], &types[static_cast<std::size_t>(i)]));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    const auto n = static_cast<std::size_t>(count);
    return publish(make_struct({array_of_blocklengths, n}, {array_of_displacements, n}, types), newtype);
  }());
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_resized");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    return publish(make_resized(old, lb, extent), newtype);
  }());
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_subarray");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (ndims <= 0) return fail(MPI_ERR_DIMS, "ndims must be positive (got %d)", ndims);
    FABMPI_TRY(check_array(array_of_sizes, ndims, "array_of_sizes"));
    FABMPI_TRY(check_array(array_of_subsizes, ndims, "array_of_subsizes"));
    FABMPI_TRY(check_array(array_of_starts, ndims, "array_of_starts"));
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
      return fail(MPI_ERR_ARG, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN (got %d)", order);
    for (int d = 0; d < ndims; ++d) {
      const int size = array_of_sizes[d], sub = array_of_subsizes[d], start = array_of_starts[d];
      if (size <= 0) return fail(MPI_ERR_ARG, "array_of_sizes[%d] = %d must be positive", d, size);
      if (sub <= 0 || sub > size)
        return fail(MPI_ERR_ARG, "array_of_subsizes[%d] = %d must be in 1..%d", d, sub, size);
      if (start < 0 || start > size - sub)
        return fail(MPI_ERR_ARG, "array_of_starts[%d] = %d must be in 0..%d", d, start, size - sub);
    }
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    const auto n = static_cast<std::size_t>(ndims);
    return publish(make_subarray({array_of_sizes, n}, {array_of_subsizes, n}, {array_of_starts, n}, order, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                            const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_create_darray");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (size <= 0) return fail(MPI_ERR_ARG, "size must be positive (got %d)", size);
    if (rank < 0 || rank >= size) return fail(MPI_ERR_RANK, "rank %d is not in 0..%d", rank, size - 1);
    if (ndims <= 0) return fail(MPI_ERR_DIMS, "ndims must be positive (got %d)", ndims);
    FABMPI_TRY(check_array(array_of_gsizes, ndims, "array_of_gsizes"));
    FABMPI_TRY(check_array(array_of_distribs, ndims, "array_of_distribs"));
    FABMPI_TRY(check_array(array_of_dargs, ndims, "array_of_dargs"));
    FABMPI_TRY(check_array(array_of_psizes, ndims, "array_of_psizes"));
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
      return fail(MPI_ERR_ARG, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN (got %d)", order);
    long processes = 1;
    for (int d = 0; d < ndims; ++d) {
      const int gsize = array_of_gsizes[d], distrib = array_of_distribs[d], darg = array_of_dargs[d];
      const int psize = array_of_psizes[d];
      if (gsize <= 0) return fail(MPI_ERR_ARG, "array_of_gsizes[%d] = %d must be positive", d, gsize);
      if (psize <= 0) return fail(MPI_ERR_ARG, "array_of_psizes[%d] = %d must be positive", d, psize);
      if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
        return fail(MPI_ERR_ARG, "array_of_dargs[%d] = %d must be positive or MPI_DISTRIBUTE_DFLT_DARG", d, darg);
      switch (distrib) {
        case MPI_DISTRIBUTE_NONE:
          if (psize != 1)
            return fail(MPI_ERR_ARG, "dimension %d is MPI_DISTRIBUTE_NONE but array_of_psizes[%d] = %d (must be 1)",
                        d, d, psize);
          break;
        case MPI_DISTRIBUTE_BLOCK:
          if (darg != MPI_DISTRIBUTE_DFLT_DARG && static_cast<long>(darg) * psize < gsize)
            return fail(MPI_ERR_ARG, "dimension %d: block %d x %d processes does not cover %d elements", d, darg,
                        psize, gsize);
          break;
        case MPI_DISTRIBUTE_CYCLIC: break;
        default:
          return fail(MPI_ERR_ARG, "array_of_distribs[%d] = %d is not an MPI_DISTRIBUTE_ value", d, distrib);
      }
      processes *= psize;
    }
    if (processes != size)
      return fail(MPI_ERR_ARG, "the process grid has %ld processes, not size %d", processes, size);
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    const auto n = static_cast<std::size_t>(ndims);
    return publish(make_darray(size, rank, {array_of_gsizes, n}, {array_of_distribs, n}, {array_of_dargs, n},
                               {array_of_psizes, n}, order, old),
                   newtype);
  }());
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  ApiCall call("MPI_Type_match_size");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(datatype, "datatype"));
    // fabmpi has no Fortran types: the C type of each size stands in (as MPICH does without Fortran).
    struct Candidate { int typeclass; MPI_Datatype type; };
    static const Candidate kCandidates[] = {
        {MPI_TYPECLASS_REAL, MPI_FLOAT}, {MPI_TYPECLASS_REAL, MPI_DOUBLE}, {MPI_TYPECLASS_REAL, MPI_LONG_DOUBLE},
        {MPI_TYPECLASS_INTEGER, MPI_INT8_T}, {MPI_TYPECLASS_INTEGER, MPI_INT16_T},
        {MPI_TYPECLASS_INTEGER, MPI_INT32_T}, {MPI_TYPECLASS_INTEGER, MPI_INT64_T},
        {MPI_TYPECLASS_COMPLEX, MPI_C_FLOAT_COMPLEX}, {MPI_TYPECLASS_COMPLEX, MPI_C_DOUBLE_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX},
    };
    if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_COMPLEX)
      return fail(MPI_ERR_ARG, "invalid typeclass %d", typeclass);
    for (const Candidate& c : kCandidates) {
      if (c.typeclass != typeclass) continue;
      DatatypeRef t = builtin_datatype(c.type);
      if (t && t->size() == static_cast<std::size_t>(size)) {
        *datatype = c.type;
        return Rc();
      }
    }
    return fail(MPI_ERR_ARG, "no predefined type of typeclass %d has size %d", typeclass, size);
  }());
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ApiCall call("MPI_Type_dup");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef old;
    FABMPI_TRY(old_type(oldtype, &old));
    FABMPI_TRY(check_out_ptr(newtype, "newtype"));
    DatatypeRef dup = make_dup(old);
    if (Rc rc = copy_attributes(old->handle, old->attributes, dup->attributes); !rc.ok()) {
      (void)delete_attributes(MPI_DATATYPE_NULL, dup->attributes);  // those copied before the failure
      return rc;
    }
    return publish(dup, newtype);
  }());
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype* datatype) {
  ApiCall call("MPI_Type_commit");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(datatype, "datatype"));
    DatatypeRef type;
    FABMPI_TRY(old_type(*datatype, &type));
    type->mark_committed();
    return Rc();
  }());
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype* datatype) {
  ApiCall call("MPI_Type_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(datatype, "datatype"));
    DatatypeRef type;
    FABMPI_TRY(old_type(*datatype, &type));
    if (type->builtin()) return fail(MPI_ERR_TYPE, "cannot free predefined datatype %s", type->name.c_str());
    FABMPI_TRY(delete_attributes(*datatype, type->attributes));
    // Pending operations hold their own reference: the object outlives the handle.
    library().datatypes.erase(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return Rc();
  }());
}

// ---------------------------------------------------------------- queries
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  ApiCall call("MPI_Type_get_extent");
  return call.finish(query_bounds(call, datatype, lb, extent, /*true_bounds=*/false));
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  ApiCall call("MPI_Type_get_extent_x");
  return call.finish(query_bounds(call, datatype, lb, extent, /*true_bounds=*/false));
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  ApiCall call("MPI_Type_get_true_extent");
  return call.finish(query_bounds(call, datatype, true_lb, true_extent, /*true_bounds=*/true));
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  ApiCall call("MPI_Type_get_true_extent_x");
  return call.finish(query_bounds(call, datatype, true_lb, true_extent, /*true_bounds=*/true));
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  ApiCall call("MPI_Type_size");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    FABMPI_TRY(check_out_ptr(size, "size"));
    *size = type->size() > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(type->size());
    return Rc();
  }());
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  ApiCall call("MPI_Type_size_x");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    FABMPI_TRY(check_out_ptr(size, "size"));
    *size = static_cast<MPI_Count>(type->size());
    return Rc();
  }());
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  ApiCall call("MPI_Type_get_envelope");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    FABMPI_TRY(check_out_ptr(num_integers, "num_integers"));
    FABMPI_TRY(check_out_ptr(num_addresses, "num_addresses"));
    FABMPI_TRY(check_out_ptr(num_datatypes, "num_datatypes"));
    FABMPI_TRY(check_out_ptr(combiner, "combiner"));
    const TypeContents& c = type->contents();
    *num_integers = static_cast<int>(c.ints.size());
    *num_addresses = static_cast<int>(c.aints.size());
    *num_datatypes = static_cast<int>(c.types.size());
    *combiner = c.combiner;
    return Rc();
  }());
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  ApiCall call("MPI_Type_get_contents");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    const TypeContents& c = type->contents();
    if (c.combiner == MPI_COMBINER_NAMED)
      return fail(MPI_ERR_TYPE, "MPI_Type_get_contents on predefined datatype %s", type->name.c_str());
    if (max_integers < static_cast<int>(c.ints.size()) || max_addresses < static_cast<int>(c.aints.size()) ||
        max_datatypes < static_cast<int>(c.types.size()))
      return fail(MPI_ERR_ARG, "arrays too small: the envelope has %zu integers, %zu addresses, %zu datatypes",
                  c.ints.size(), c.aints.size(), c.types.size());
    FABMPI_TRY(check_array(array_of_integers, static_cast<int>(c.ints.size()), "array_of_integers"));
    FABMPI_TRY(check_array(array_of_addresses, static_cast<int>(c.aints.size()), "array_of_addresses"));
    FABMPI_TRY(check_array(array_of_datatypes, static_cast<int>(c.types.size()), "array_of_datatypes"));
    std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
    std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
    // Predefined types come back as themselves; derived ones as new handles the caller frees.
    for (std::size_t i = 0; i < c.types.size(); ++i)
      array_of_datatypes[i] = c.types[i]->builtin() ? c.types[i]->handle : new_datatype_handle(copy_datatype(*c.types[i]));
    return Rc();
  }());
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  ApiCall call("MPI_Type_get_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    return copy_object_name(type->name, type_name, resultlen, "type_name");
  }());
}

// ---------------------------------------------------------------- attributes (MPI-3.1 6.7.4)
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                            MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval, void* extra_state) {
  ApiCall call("MPI_Type_create_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    // Under the MPICH ABI MPI_Datatype and MPI_Comm are both int: the callback types coincide.
    return create_keyval(type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval);
  }());
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int* type_keyval) {
  ApiCall call("MPI_Type_free_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return free_keyval(type_keyval);
  }());
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  ApiCall call("MPI_Type_set_attr");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    KeyvalRef kv;
    FABMPI_TRY(to_keyval(type_keyval, &kv));
    auto it = type->attributes.find(type_keyval);
    if (it != type->attributes.end()) {
      const Attribute old = it->second;
      FABMPI_TRY(run_delete_callback(datatype, type_keyval, old));
    }
    type->attributes[type_keyval] = Attribute{kv, attribute_val};
    return Rc();
  }());
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  ApiCall call("MPI_Type_get_attr");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    FABMPI_TRY(check_out_ptr(attribute_val, "attribute_val"));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    // A keyval freed while attributes use it still names them (MPI-3.1 6.7.2).
    auto it = type->attributes.find(type_keyval);
    KeyvalRef kv;
    if (it == type->attributes.end()) FABMPI_TRY(to_keyval(type_keyval, &kv));
    *flag = it != type->attributes.end() ? 1 : 0;
    if (*flag) std::memcpy(attribute_val, &it->second.value, sizeof(void*));
    return Rc();
  }());
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  ApiCall call("MPI_Type_delete_attr");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    auto it = type->attributes.find(type_keyval);  // a freed keyval still names its attributes
    if (it == type->attributes.end()) {
      KeyvalRef kv;
      FABMPI_TRY(to_keyval(type_keyval, &kv));
      return fail(MPI_ERR_KEYVAL, "no attribute for keyval %d on this datatype", type_keyval);
    }
    const Attribute attr = it->second;
    // The callback runs first: when it fails the attribute stays (MPI-3.1 6.7.4).
    FABMPI_TRY(run_delete_callback(datatype, type_keyval, attr));
    type->attributes.erase(type_keyval);
    return Rc();
  }());
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  ApiCall call("MPI_Type_set_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    FABMPI_TRY(old_type(datatype, &type));
    FABMPI_TRY(check_out_ptr(type_name, "type_name"));
    if (std::strlen(type_name) > MPI_MAX_OBJECT_NAME - 1)
      return fail(MPI_ERR_ARG, "type name longer than MPI_MAX_OBJECT_NAME-1 (%d)", MPI_MAX_OBJECT_NAME - 1);
    // The name is the one mutable attribute of a datatype object (predefined ones included).
    const_cast<Datatype&>(*type).name = type_name;
    return Rc();
  }());
}

// ---------------------------------------------------------------- pack / unpack
#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  ApiCall call("MPI_Pack");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_count(incount));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(position, "position"));
    if (outsize < 0) return fail(MPI_ERR_ARG, "negative outsize %d", outsize);
    if (*position < 0) return fail(MPI_ERR_ARG, "negative position %d", *position);
    const std::size_t bytes = static_cast<std::size_t>(incount) * type->size();
    if (static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(outsize))
      return fail(MPI_ERR_TRUNCATE, "output buffer too small: %zu bytes to pack at position %d, outsize %d", bytes,
                  *position, outsize);
    if (bytes == 0) return Rc();
    FABMPI_TRY(check_buffer(inbuf, incount, *type));
    FABMPI_TRY(check_out_ptr(outbuf, "outbuf"));
    type->pack(inbuf, static_cast<std::size_t>(incount), 0, static_cast<char*>(outbuf) + *position, bytes);
    *position += static_cast<int>(bytes);
    return Rc();
  }());
}

// ---- MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size: the portable "external32"
// representation (runtime/external32.hpp); positions and sizes are MPI_Aint.
namespace {

Rc check_datarep(const char* datarep) {
  if (!datarep) return fail(MPI_ERR_ARG, "NULL pointer passed for datarep");
  if (std::strcmp(datarep, "external32") != 0)
    return fail(MPI_ERR_ARG, "data representation '%.64s' (the external functions take \"external32\")", datarep);
  return Rc();
}

// What MPI_Pack_external and MPI_Unpack_external check alike: the representation, the count and type, and
// that `count` elements fit the packed buffer of `limit` bytes from *position. *bytes: their external size.
Rc check_external_access(const char* datarep, int count, MPI_Datatype datatype, const MPI_Aint* position,
                         MPI_Aint limit, const char* limit_name, DatatypeRef* type, std::size_t* bytes) {
  FABMPI_TRY(check_datarep(datarep));
  FABMPI_TRY(check_count(count));
  FABMPI_TRY(to_datatype(datatype, type));
  FABMPI_TRY(check_out_ptr(position, "position"));
  if (limit < 0) return fail(MPI_ERR_ARG, "negative %s %lld", limit_name, static_cast<long long>(limit));
  if (*position < 0) return fail(MPI_ERR_ARG, "negative position %lld", static_cast<long long>(*position));
  FABMPI_TRY(external32::packed_size(**type, static_cast<std::size_t>(count), bytes));
  if (static_cast<std::size_t>(*position) + *bytes > static_cast<std::size_t>(limit))
    return fail(MPI_ERR_TRUNCATE, "the packed buffer is too small: %zu bytes at position %lld, %s %lld", *bytes,
                static_cast<long long>(*position), limit_name, static_cast<long long>(limit));
  return Rc();
}

}  // namespace

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  ApiCall call("MPI_Pack_external_size");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_datarep(datarep));
    FABMPI_TRY(check_count(incount));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(size, "size"));
    std::size_t bytes = 0;
    FABMPI_TRY(external32::packed_size(*type, static_cast<std::size_t>(incount), &bytes));
    *size = static_cast<MPI_Aint>(bytes);
    return Rc();
  }());
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  ApiCall call("MPI_Pack_external");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    std::size_t bytes = 0;
    FABMPI_TRY(check_external_access(datarep, incount, datatype, position, outsize, "outsize", &type, &bytes));
    if (bytes == 0) return Rc();
    FABMPI_TRY(check_buffer(inbuf, incount, *type));
    FABMPI_TRY(check_out_ptr(outbuf, "outbuf"));
    FABMPI_TRY(external32::pack(*type, inbuf, static_cast<std::size_t>(incount),
                                static_cast<unsigned char*>(outbuf) + *position));
    *position += static_cast<MPI_Aint>(bytes);
    return Rc();
  }());
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
  ApiCall call("MPI_Unpack_external");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    DatatypeRef type;
    std::size_t bytes = 0;
    FABMPI_TRY(check_external_access(datarep, outcount, datatype, position, insize, "insize", &type, &bytes));
    if (bytes == 0) return Rc();
    FABMPI_TRY(check_out_ptr(inbuf, "inbuf"));
    FABMPI_TRY(check_buffer(outbuf, outcount, *type));
    FABMPI_TRY(external32::unpack(*type, static_cast<const unsigned char*>(inbuf) + *position,
                                  static_cast<std::size_t>(outcount), outbuf));
    *position += static_cast<MPI_Aint>(bytes);
    return Rc();
  }());
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
  ApiCall call("MPI_Unpack");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_count(outcount));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(position, "position"));
    if (insize < 0) return fail(MPI_ERR_ARG, "negative insize %d", insize);
    if (*position < 0) return fail(MPI_ERR_ARG, "negative position %d", *position);
    const std::size_t bytes = static_cast<std::size_t>(outcount) * type->size();
    if (static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(insize))
      return fail(MPI_ERR_TRUNCATE, "input buffer too short: %zu bytes to unpack at position %d, insize %d", bytes,
                  *position, insize);
    if (bytes == 0) return Rc();
    FABMPI_TRY(check_out_ptr(inbuf, "inbuf"));
    FABMPI_TRY(check_buffer(outbuf, outcount, *type));
    type->unpack(static_cast<const char*>(inbuf) + *position, bytes, 0, outbuf, static_cast<std::size_t>(outcount));
    *position += static_cast<int>(bytes);
    return Rc();
  }());
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  ApiCall call("MPI_Pack_size");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_count(incount));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(size, "size"));
    const std::size_t bytes = static_cast<std::size_t>(incount) * type->size();
    if (bytes > static_cast<std::size_t>(INT_MAX))
      return fail(MPI_ERR_COUNT, "packed size %zu does not fit in an int", bytes);
    *size = static_cast<int>(bytes);
    return Rc();
  }());
}

// ---------------------------------------------------------------- status counts
#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  ApiCall call("MPI_Get_count");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_status(status));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(count, "count"));
    const MPI_Count bytes = status_bytes(status);
    const auto size = static_cast<MPI_Count>(type->size());
    if (size == 0) {
      *count = 0;
    } else if (bytes % size != 0 || bytes / size > INT_MAX) {
      *count = MPI_UNDEFINED;
    } else {
      *count = static_cast<int>(bytes / size);
    }
    return Rc();
  }());
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  ApiCall call("MPI_Get_elements");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_status(status));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(count, "count"));
    const MPI_Count n = elements_of(status, *type);
    *count = n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
    return Rc();
  }());
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  ApiCall call("MPI_Get_elements_x");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_status(status));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_out_ptr(count, "count"));
    *count = elements_of(status, *type);
    return Rc();
  }());
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  ApiCall call("MPI_Status_set_elements_x");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_status(status));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    if (count < 0) return fail(MPI_ERR_COUNT, "negative count %lld", count);
    set_status_bytes(status, count * static_cast<MPI_Count>(type->size()));
    return Rc();
  }());
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  ApiCall call("MPI_Status_set_elements");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_status(status));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_count(count));
    set_status_bytes(status, static_cast<MPI_Count>(count) * static_cast<MPI_Count>(type->size()));
    return Rc();
  }());
}

// ---------------------------------------------------------------- addresses (no initialization needed)
#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void* location, MPI_Aint* address) {
  ApiCall call("MPI_Get_address");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(address, "address"));
    *address = reinterpret_cast<MPI_Aint>(location);
    return Rc();
  }());
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<unsigned long>(base) + static_cast<unsigned long>(disp));
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<unsigned long>(addr1) - static_cast<unsigned long>(addr2));
}

}  // extern "C"
