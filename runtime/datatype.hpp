// Datatypes: the predefined ones and derived ones, with a flattened layout for fast pack/unpack.
//
// CONTRACT used by pt2pt/ and coll/ (keep these signatures; add freely):
//   size(), extent(), lb(), true_lb(), true_extent(), is_contiguous(), element_type(),
//   pack(), unpack(), builtin().
//
// Representation. A derived type is a list of Segments: `count` consecutive copies of a child type placed
// at `disp`, `disp + extent(child)`, ... (every MPI constructor is such a list). From it the constructor
// computes, once, the MPI bounds (lb/ub with MPI-1 "sticky" LB/UB markers, which MPI_Type_create_resized
// also sets), the true bounds, and the flattened layout: the byte blocks of one element in type-map order,
// adjacent blocks merged. pack/unpack walk the flattened blocks; a type whose elements tile memory without
// gaps is `is_contiguous()` and moves with one memcpy.
//
// MPI_LB / MPI_UB are supported as the MPI-1 markers (in MPI_Type_create_struct only): they set a sticky
// lower/upper bound and carry no data. A struct without a sticky upper bound gets its extent rounded up
// to the alignment of its most-aligned member (MPICH's rule).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/attributes.hpp"

namespace fabmpi {

// The predefined element types that reduction kernels know. `none` for types that have no arithmetic in
// MPI (MPI_CHAR, MPI_WCHAR, MPI_PACKED, markers), and for mixed derived types.
enum class ElementType : std::uint8_t {
  none, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, f80 /* long double */,
  c_float, c_double, c_long_double, boolean, byte,
  logical,  // Fortran LOGICAL (4 bytes, nonzero is .TRUE.; the logical operations give 1 or 0)
  // pair types for MAXLOC/MINLOC: C's { value; int index } and Fortran's MPI_2REAL / MPI_2DOUBLE_PRECISION
  // (the index has the value's type)
  float_int, double_int, long_int, short_int, int_int, long_double_int, float_float, double_double,
};
constexpr int kElementTypeCount = static_cast<int>(ElementType::double_double) + 1;
// Bytes of one element of `e` as laid out in memory (a pair type: its C struct's sizeof); 0 for none.
std::size_t element_type_extent(ElementType e) noexcept;
bool is_pair_element(ElementType e) noexcept;

// One contiguous run of bytes within one element of the type, relative to the element's origin.
struct Block {
  std::int64_t offset;
  std::size_t length;
};

class Datatype;
using DatatypeRef = std::shared_ptr<const Datatype>;

// `count` copies of `type`, the k-th at byte displacement disp + k * type->extent().
struct Segment {
  std::int64_t disp;
  std::size_t count;
  DatatypeRef type;
};

// What MPI_Type_get_envelope / MPI_Type_get_contents report: the constructor and its arguments.
struct TypeContents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<DatatypeRef> types;
};

class Datatype {
 public:
  // Bytes of data in one element (sum of block lengths).
  std::size_t size() const noexcept { return size_; }
  MPI_Aint lb() const noexcept { return lb_; }
  MPI_Aint ub() const noexcept { return lb_ + extent_; }
  MPI_Aint extent() const noexcept { return extent_; }
  MPI_Aint true_lb() const noexcept { return true_lb_; }
  MPI_Aint true_extent() const noexcept { return true_extent_; }
  // True when `count` elements occupy size()*count contiguous bytes starting at buf + true_lb().
  bool is_contiguous() const noexcept { return contiguous_; }
  // The single predefined element type this type is made of (for reductions), or none when mixed.
  ElementType element_type() const noexcept { return element_type_; }
  // Predefined (named) types are never freed.
  bool builtin() const noexcept { return builtin_; }
  bool committed() const noexcept { return committed_ || builtin_; }
  const std::vector<Block>& blocks() const noexcept { return blocks_; }

  // Packs the bytes [offset, offset + max_bytes) of the packed stream of `count` elements at `src` into
  // `dst`. Returns the number of bytes written (less than max_bytes at the end of the stream).
  std::size_t pack(const void* src, std::size_t count, std::size_t offset, void* dst,
                   std::size_t max_bytes) const noexcept;
  // The reverse: writes `bytes` bytes of packed stream starting at stream offset `offset` into the
  // `count` elements at `dst`. Returns bytes consumed.
  std::size_t unpack(const void* src, std::size_t bytes, std::size_t offset, void* dst,
                     std::size_t count) const noexcept;

  // Number of basic (predefined, non-marker) elements in one element; a pair type counts 2.
  std::size_t basic_count() const noexcept { return basic_count_; }
  // Alignment of the most-aligned basic member (used for the struct extent padding).
  std::size_t alignment() const noexcept { return alignment_; }
  bool sticky_lb() const noexcept { return sticky_lb_; }
  bool sticky_ub() const noexcept { return sticky_ub_; }
  const TypeContents& contents() const noexcept { return contents_; }
  const std::vector<Segment>& segments() const noexcept { return segments_; }
  // Basic elements in the first `bytes` bytes of a packed stream of this type (MPI_Get_elements).
  // Sets *exact to false when `bytes` ends inside a basic element.
  std::size_t count_basic_elements(std::size_t bytes, bool* exact) const noexcept;
  // MPI_Type_commit: the layout is computed at construction, so this only records the fact.
  void mark_committed() const noexcept { committed_ = true; }

  std::string name;
  int handle = MPI_DATATYPE_NULL;  // set by the binding layer / builtin table
  // User attributes (MPI_Type_set_attr): cached by the user on the handle, not part of the type's value,
  // so they may change on a type shared as const (predefined types included).
  mutable AttributeMap attributes;

 protected:
  template <bool ToStream>
  std::size_t move_stream(char* user, std::size_t count, std::size_t offset, char* stream,
                          std::size_t max_bytes) const noexcept;

  std::size_t size_ = 0;
  MPI_Aint lb_ = 0, extent_ = 0, true_lb_ = 0, true_extent_ = 0;
  bool contiguous_ = true;
  bool builtin_ = false;
  mutable bool committed_ = false;
  bool sticky_lb_ = false, sticky_ub_ = false;
  ElementType element_type_ = ElementType::none;
  std::size_t basic_count_ = 0;
  std::size_t alignment_ = 1;
  std::size_t pair_value_size_ = 0;  // builtin pair types: bytes of the value before the int
  std::vector<Block> blocks_;
  // Prefix sums of block lengths (block_end_[i] = bytes of blocks 0..i), for locating a stream offset.
  std::vector<std::size_t> block_end_;
  // Nonzero when every block has this length (a vector-like layout): stream offsets map by division.
  std::size_t uniform_length_ = 0;
  std::vector<Segment> segments_;
  TypeContents contents_;
  friend class DatatypeBuilder;
  friend struct BuiltinTable;
};

// The predefined datatype for an MPICH-ABI handle value, or nullptr when the handle is not predefined.
DatatypeRef builtin_datatype(MPI_Datatype handle) noexcept;

namespace detail {
// The predefined types with 0x4c00xxyy handles by low byte, filled when they are built (at library
// load, or by the first builtin_datatype() call if that comes earlier).
extern std::array<const Datatype*, 256> predefined_by_low_byte;
}  // namespace detail

// The same lookup inline, for the conversions on every send and receive: nullptr for what it does not
// know (the pair types such as MPI_FLOAT_INT, derived types, tables not built yet), which then go
// through builtin_datatype() and the handle table.
inline const Datatype* predefined_datatype(MPI_Datatype handle) noexcept {
  const auto h = static_cast<unsigned>(handle);
  if ((h & 0xffff0000u) != 0x4c000000u) return nullptr;
  const Datatype* type = detail::predefined_by_low_byte[h & 0xffu];
  return type && type->handle == handle ? type : nullptr;
}

// ---- constructors (the core of MPI_Type_*; arguments are assumed checked by the caller).
// All return uncommitted types; `stride`/`displs` in elements of `old` unless the name says h (bytes).
DatatypeRef make_contiguous(std::size_t count, const DatatypeRef& old);
DatatypeRef make_vector(std::size_t count, std::size_t blocklength, std::int64_t stride, const DatatypeRef& old);
DatatypeRef make_hvector(std::size_t count, std::size_t blocklength, MPI_Aint stride, const DatatypeRef& old);
DatatypeRef make_indexed(std::span<const int> blocklengths, std::span<const int> displs, const DatatypeRef& old);
DatatypeRef make_hindexed(std::span<const int> blocklengths, std::span<const MPI_Aint> displs,
                          const DatatypeRef& old);
DatatypeRef make_indexed_block(int blocklength, std::span<const int> displs, const DatatypeRef& old);
DatatypeRef make_hindexed_block(int blocklength, std::span<const MPI_Aint> displs, const DatatypeRef& old);
DatatypeRef make_struct(std::span<const int> blocklengths, std::span<const MPI_Aint> displs,
                        std::span<const DatatypeRef> types);
DatatypeRef make_resized(const DatatypeRef& old, MPI_Aint lb, MPI_Aint extent);
// order: MPI_ORDER_C or MPI_ORDER_FORTRAN.
DatatypeRef make_subarray(std::span<const int> sizes, std::span<const int> subsizes, std::span<const int> starts,
                          int order, const DatatypeRef& old);
// MPI_Type_create_darray: the part of a global array that process `rank` of a `size`-process grid owns;
// distribs are MPI_DISTRIBUTE_{BLOCK,CYCLIC,NONE}, dargs may be MPI_DISTRIBUTE_DFLT_DARG.
DatatypeRef make_darray(int size, int rank, std::span<const int> gsizes, std::span<const int> distribs,
                        std::span<const int> dargs, std::span<const int> psizes, int order, const DatatypeRef& old);
DatatypeRef make_dup(const DatatypeRef& old);
// MPI_Type_create_f90_{real,complex,integer}: the layout of `basis` (a predefined type), reported with
// `combiner` (MPI_COMBINER_F90_*) and `params` ((p, r) or (r)); predefined and committed (never freed).
DatatypeRef make_f90(int combiner, std::vector<int> params, const DatatypeRef& basis, std::string name);
// A new object with the same layout and contents (MPI_Type_get_contents hands these out).
DatatypeRef copy_datatype(const Datatype& type);

}  // namespace fabmpi
