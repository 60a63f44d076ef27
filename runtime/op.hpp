// Reduction operations: predefined ones with vectorizable kernels, and user functions.
//
// CONTRACT used by coll/ (keep these signatures; add freely): commutative(), builtin(), check(), apply().
#pragma once

#include <mpi.h>

#include <memory>

#include "runtime/datatype.hpp"
#include "runtime/rc.hpp"

namespace fabmpi {

class Op {
 public:
  bool commutative() const noexcept { return commutative_; }
  bool builtin() const noexcept { return builtin_; }
  // MPI_ERR_OP when this op is not defined on `type` (e.g. MPI_SUM on MPI_DOUBLE_INT, BAND on float).
  Rc check(const Datatype& type) const;
  // inout[i] = in[i] (op) inout[i] for `count` elements of `type` (MPI's order for user functions).
  void apply(const void* in, void* inout, std::size_t count, const Datatype& type) const;

  int handle = MPI_OP_NULL;

 protected:
  bool commutative_ = true;
  bool builtin_ = true;
  MPI_Op predefined_ = MPI_OP_NULL;       // for builtins
  MPI_User_function* user_fn_ = nullptr;  // for user ops
  friend std::shared_ptr<Op> make_user_op(MPI_User_function*, bool);
};

using OpRef = std::shared_ptr<const Op>;

OpRef builtin_op(MPI_Op handle) noexcept;
std::shared_ptr<Op> make_user_op(MPI_User_function* fn, bool commutative);

}  // namespace fabmpi
