// Reduction operations: user-defined ops and MPI_Reduce_local.
#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

extern "C" {

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  ApiCall call("MPI_Op_create");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (user_fn == nullptr) return fail(MPI_ERR_ARG, "NULL user function");
    FABMPI_TRY(check_out_ptr(op, "op"));
    std::shared_ptr<Op> created = make_user_op(user_fn, commute != 0);
    created->handle = library().ops.insert(created);
    *op = created->handle;
    return Rc();
  }());
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op* op) {
  ApiCall call("MPI_Op_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(op, "op"));
    OpRef found;
    FABMPI_TRY(to_op(*op, &found));
    if (found->builtin()) return fail(MPI_ERR_OP, "cannot free predefined operation %s", found->name());
    // Pending operations hold their own reference: the object outlives the handle.
    library().ops.erase(*op);
    *op = MPI_OP_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int* commute) {
  ApiCall call("MPI_Op_commutative");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    OpRef found;
    FABMPI_TRY(to_op(op, &found));
    FABMPI_TRY(check_out_ptr(commute, "commute"));
    *commute = found->commutative() ? 1 : 0;
    return Rc();
  }());
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  ApiCall call("MPI_Reduce_local");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    OpRef found;
    FABMPI_TRY(to_op(op, &found));
    FABMPI_TRY(found->check(*type));
    if (count == 0) return Rc();
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
      return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
    FABMPI_TRY(check_buffer(inbuf, count, *type));
    FABMPI_TRY(check_buffer(inoutbuf, count, *type));
    found->apply(inbuf, inoutbuf, static_cast<std::size_t>(count), *type);
    return Rc();
  }());
}

}  // extern "C"
