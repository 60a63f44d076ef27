// Reduction operations: the predefined table, the type check, and applying an op over a datatype's layout.
//
// Which predefined op is defined on which element type (MPI-3.1 §5.9.2):
//   MAX, MIN           integers, floating (incl. fp16/bf16, long double)
//   SUM, PROD          integers, floating, complex
//   LAND, LOR, LXOR    integers, C_BOOL/CXX_BOOL
//   BAND, BOR, BXOR    integers, MPI_BYTE
//   MAXLOC, MINLOC     the pair types (FLOAT_INT, DOUBLE_INT, LONG_INT, SHORT_INT, 2INT, LONG_DOUBLE_INT)
//   REPLACE, NO_OP     every type
// "Integers" are the C integer and multi-language types (AINT, OFFSET, COUNT); not MPI_CHAR/MPI_WCHAR.
#include "runtime/op.hpp"

#include <array>
#include <climits>
#include <cstdio>
#include <cstring>

namespace fabmpi {

namespace {

const char* const kOpNames[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",    "MPI_SUM",    "MPI_PROD",
                                "MPI_LAND",    "MPI_BAND", "MPI_LOR",    "MPI_BOR",    "MPI_LXOR",
                                "MPI_BXOR",    "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
constexpr unsigned kOpCount = sizeof kOpNames / sizeof kOpNames[0];

std::string describe(const Datatype& type) {
  if (!type.name.empty()) return type.name;
  char buf[64];
  std::snprintf(buf, sizeof buf, "derived datatype 0x%x", static_cast<unsigned>(type.handle));
  return buf;
}

// Copies the data of `count` elements of `type` from `in` to `inout` (MPI_REPLACE).
void copy_layout(const char* in, char* inout, std::size_t count, const Datatype& type) {
  if (type.is_contiguous()) {
    std::memmove(inout + type.true_lb(), in + type.true_lb(), count * type.size());
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::ptrdiff_t origin = static_cast<std::ptrdiff_t>(i) * type.extent();
    for (const Block& b : type.blocks()) std::memmove(inout + origin + b.offset, in + origin + b.offset, b.length);
  }
}

// Pair types keep their C struct layout (with padding) inside a derived type, so walk the type's segments
// down to the predefined pair type instead of the merged blocks.
void apply_pairs(ReduceKernel kernel, const char* in, char* inout, std::size_t count, const Datatype& type) {
  if (type.builtin()) {
    kernel(in, inout, count);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::ptrdiff_t origin = static_cast<std::ptrdiff_t>(i) * type.extent();
    for (const Segment& s : type.segments())
      if (s.type->size() > 0)
        apply_pairs(kernel, in + origin + s.disp, inout + origin + s.disp, s.count, *s.type);
  }
}

}  // namespace

struct OpTable {
  std::array<std::shared_ptr<Op>, kOpCount> ops;
  OpTable() {
    for (unsigned i = 1; i < kOpCount; ++i) {
      auto op = std::make_shared<Op>();
      op->predefined_ = static_cast<MPI_Op>(0x58000000u | i);
      op->handle = op->predefined_;
      op->builtin_ = true;
      op->commutative_ = true;  // as MPICH reports for every predefined op
      ops[i] = std::move(op);
    }
  }
  static const OpTable& get() {
    static const OpTable table;
    return table;
  }
};

OpRef builtin_op(MPI_Op handle) noexcept {
  const auto h = static_cast<unsigned>(handle);
  if ((h & 0xffffff00u) != 0x58000000u) return nullptr;
  const unsigned index = h & 0xffu;
  if (index == 0 || index >= kOpCount) return nullptr;
  // Owns nothing (the table lives as long as the process): no reference count on each reduction call.
  return OpRef(OpRef(), OpTable::get().ops[index].get());
}

std::shared_ptr<Op> make_user_op(MPI_User_function* fn, bool commutative) {
  auto op = std::make_shared<Op>();
  op->builtin_ = false;
  op->commutative_ = commutative;
  op->user_fn_ = fn;
  return op;
}

const char* Op::name() const noexcept {
  if (!builtin_) return "user-defined operation";
  const unsigned index = static_cast<unsigned>(predefined_) & 0xffu;
  return index < kOpCount ? kOpNames[index] : "MPI_OP_NULL";
}

Rc Op::check(const Datatype& type) const {
  if (!builtin_ || predefined_ == MPI_REPLACE || predefined_ == MPI_NO_OP) return Rc();
  const ElementType e = type.element_type();
  if (type.size() == 0) return Rc();  // nothing to combine
  if (e == ElementType::none)
    return fail(MPI_ERR_OP, "%s is not defined on %s (not made of a single predefined type that %s accepts)",
                name(), describe(type).c_str(), name());
  if (reduce_kernel(predefined_, e) == nullptr)
    return fail(MPI_ERR_OP, "%s is not defined on datatype %s", name(), describe(type).c_str());
  return Rc();
}

void Op::apply(const void* in_ptr, void* inout_ptr, std::size_t count, const Datatype& type) const {
  const char* in = static_cast<const char*>(in_ptr);
  char* inout = static_cast<char*>(inout_ptr);
  if (count == 0) return;
  if (!builtin_) {
    // User functions take an int count: split larger reductions.
    MPI_Datatype handle = type.handle;
    while (count > 0) {
      int len = count > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(count);
      user_fn_(const_cast<char*>(in), inout, &len, &handle);
      const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(len) * type.extent();
      in += step;
      inout += step;
      count -= static_cast<std::size_t>(len);
    }
    return;
  }
  if (predefined_ == MPI_NO_OP || type.size() == 0) return;
  if (predefined_ == MPI_REPLACE) {
    copy_layout(in, inout, count, type);
    return;
  }
  const ElementType e = type.element_type();
  const ReduceKernel kernel = reduce_kernel(predefined_, e);
  if (kernel == nullptr) return;  // check() rejects these pairs before any data moves
  if (is_pair_element(e)) {
    apply_pairs(kernel, in, inout, count, type);
    return;
  }
  const std::size_t element_size = element_type_extent(e);
  if (type.is_contiguous()) {
    kernel(in + type.true_lb(), inout + type.true_lb(), count * type.size() / element_size);
    return;
  }
  // Every block of a single-element-type layout holds whole elements.
  for (std::size_t i = 0; i < count; ++i) {
    const std::ptrdiff_t origin = static_cast<std::ptrdiff_t>(i) * type.extent();
    for (const Block& b : type.blocks())
      kernel(in + origin + b.offset, inout + origin + b.offset, b.length / element_size);
  }
}

}  // namespace fabmpi
