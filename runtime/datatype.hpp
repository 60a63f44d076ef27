// Datatypes: the predefined ones and derived ones, with a flattened layout for fast pack/unpack.
//
// CONTRACT used by pt2pt/ and coll/ (keep these signatures; add freely):
//   size(), extent(), lb(), true_lb(), true_extent(), is_contiguous(), element_type(),
//   pack(), unpack(), builtin().
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fabmpi {

// The predefined element types that reduction kernels know. `none` for MPI_BYTE/MPI_PACKED-like
// types that have no arithmetic, and for mixed derived types.
enum class ElementType : std::uint8_t {
  none, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, f80 /* long double */,
  c_float, c_double, c_long_double, boolean, byte,
  // pair types for MAXLOC/MINLOC
  float_int, double_int, long_int, short_int, int_int, long_double_int,
};

// One contiguous run of bytes within one element of the type, relative to the element's origin.
struct Block {
  std::int64_t offset;
  std::size_t length;
};

class Datatype;
using DatatypeRef = std::shared_ptr<const Datatype>;

class Datatype {
 public:
  // Bytes of data in one element (sum of block lengths).
  std::size_t size() const noexcept { return size_; }
  MPI_Aint lb() const noexcept { return lb_; }
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

  std::string name;
  int handle = MPI_DATATYPE_NULL;  // set by the binding layer / builtin table

 protected:
  std::size_t size_ = 0;
  MPI_Aint lb_ = 0, extent_ = 0, true_lb_ = 0, true_extent_ = 0;
  bool contiguous_ = true;
  bool builtin_ = false;
  bool committed_ = false;
  ElementType element_type_ = ElementType::none;
  std::vector<Block> blocks_;
  friend class DatatypeBuilder;
};

// The predefined datatype for an MPICH-ABI handle value, or nullptr when the handle is not predefined.
DatatypeRef builtin_datatype(MPI_Datatype handle) noexcept;

}  // namespace fabmpi
