// Reduction operations: predefined ones with vectorizable kernels, and user functions.
//
// CONTRACT used by coll/ (keep these signatures; add freely): commutative(), builtin(), check(), apply().
//
// Predefined ops are defined on the type classes of MPI-3.1 §5.9.2 (see op.cpp for the table); MPI_CHAR
// and MPI_WCHAR are not integers there and get no reduction. MPIX_C_FLOAT16 / MPIX_BFLOAT16 are reduced by
// converting to float and rounding back to nearest-even. A derived type reduces element-wise when it is
// made of a single predefined element type (Datatype::element_type()).
#pragma once

#include <mpi.h>

#include <cstdint>
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
  // "MPI_SUM", ... or "user-defined operation".
  const char* name() const noexcept;
  MPI_Op predefined() const noexcept { return predefined_; }

  int handle = MPI_OP_NULL;

 protected:
  bool commutative_ = true;
  bool builtin_ = true;
  MPI_Op predefined_ = MPI_OP_NULL;       // for builtins
  MPI_User_function* user_fn_ = nullptr;  // for user ops
  friend std::shared_ptr<Op> make_user_op(MPI_User_function*, bool);
  friend struct OpTable;
};

using OpRef = std::shared_ptr<const Op>;

OpRef builtin_op(MPI_Op handle) noexcept;
std::shared_ptr<Op> make_user_op(MPI_User_function* fn, bool commutative);

// ---- kernels (runtime/op_kernels.cpp): inout[i] = in[i] op inout[i] over n contiguous elements of the
// element type (a pair type: n C structs). nullptr when the op is not defined on the element type.
using ReduceKernel = void (*)(const void* in, void* inout, std::size_t n);
ReduceKernel reduce_kernel(MPI_Op op, ElementType element) noexcept;

// IEEE binary16 / bfloat16 conversions (round to nearest even, NaN kept NaN).
float half_to_float(std::uint16_t h) noexcept;
std::uint16_t float_to_half(float f) noexcept;
float bfloat16_to_float(std::uint16_t b) noexcept;
std::uint16_t float_to_bfloat16(float f) noexcept;

}  // namespace fabmpi
