// The predefined datatypes, pack/unpack over the flattened layout, and basic-element counting.
#include "runtime/datatype.hpp"
#include "common/memory_copy.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstring>
#include <cwchar>

namespace fabmpi {

namespace {

template <class V>
struct PairOf {
  V value;
  int index;
};

}  // namespace

std::size_t element_type_extent(ElementType e) noexcept {
  switch (e) {
    case ElementType::none: return 0;
    case ElementType::i8: case ElementType::u8: case ElementType::boolean: case ElementType::byte: return 1;
    case ElementType::i16: case ElementType::u16: case ElementType::f16: case ElementType::bf16: return 2;
    case ElementType::i32: case ElementType::u32: case ElementType::f32: case ElementType::logical: return 4;
    case ElementType::i64: case ElementType::u64: case ElementType::f64: return 8;
    case ElementType::f80: return sizeof(long double);
    case ElementType::c_float: return sizeof(std::complex<float>);
    case ElementType::c_double: return sizeof(std::complex<double>);
    case ElementType::c_long_double: return sizeof(std::complex<long double>);
    case ElementType::float_int: return sizeof(PairOf<float>);
    case ElementType::double_int: return sizeof(PairOf<double>);
    case ElementType::long_int: return sizeof(PairOf<long>);
    case ElementType::short_int: return sizeof(PairOf<short>);
    case ElementType::int_int: return sizeof(PairOf<int>);
    case ElementType::long_double_int: return sizeof(PairOf<long double>);
    case ElementType::float_float: return 2 * sizeof(float);
    case ElementType::double_double: return 2 * sizeof(double);
  }
  return 0;
}

bool is_pair_element(ElementType e) noexcept { return e >= ElementType::float_int; }

// ---------------------------------------------------------------- predefined types
std::array<const Datatype*, 256> detail::predefined_by_low_byte{};

struct BuiltinTable {
  // 0x4c00xxxx handles, indexed by the low byte; the pair types 0x8c00000x separately.
  std::array<std::shared_ptr<Datatype>, 256> by_low_byte;
  std::array<std::shared_ptr<Datatype>, 5> pairs;

  static std::shared_ptr<Datatype> scalar(int handle, const char* name, std::size_t size, std::size_t align,
                                          ElementType element) {
    auto t = std::make_shared<Datatype>();
    t->name = name;
    t->handle = handle;
    t->builtin_ = true;
    t->size_ = size;
    t->extent_ = static_cast<MPI_Aint>(size);
    t->true_extent_ = static_cast<MPI_Aint>(size);
    t->alignment_ = align;
    t->element_type_ = element;
    t->basic_count_ = 1;
    t->contents_.combiner = MPI_COMBINER_NAMED;
    t->blocks_ = {Block{0, size}};
    t->block_end_ = {size};
    t->uniform_length_ = size;
    t->contiguous_ = true;
    return t;
  }

  // struct { V value; int index; } with its real C layout.
  template <class V>
  static std::shared_ptr<Datatype> pair(int handle, const char* name, ElementType element) {
    using P = PairOf<V>;
    auto t = scalar(handle, name, sizeof(V) + sizeof(int), alignof(P), element);
    t->extent_ = sizeof(P);
    t->true_extent_ = static_cast<MPI_Aint>(offsetof(P, index) + sizeof(int));
    t->basic_count_ = 2;
    t->pair_value_size_ = sizeof(V);
    if (offsetof(P, index) == sizeof(V)) {
      t->blocks_ = {Block{0, sizeof(V) + sizeof(int)}};
      t->block_end_ = {sizeof(V) + sizeof(int)};
      t->uniform_length_ = sizeof(V) + sizeof(int);
    } else {
      t->blocks_ = {Block{0, sizeof(V)}, Block{static_cast<std::int64_t>(offsetof(P, index)), sizeof(int)}};
      t->block_end_ = {sizeof(V), sizeof(V) + sizeof(int)};
      t->uniform_length_ = sizeof(V) == sizeof(int) ? sizeof(int) : 0;
    }
    t->contiguous_ = t->blocks_.size() == 1 && t->extent_ == static_cast<MPI_Aint>(t->size_);
    return t;
  }

  // Fortran's MPI_2REAL / MPI_2DOUBLE_PRECISION / MPI_2INTEGER: two values of one type, back to back.
  template <class V>
  static std::shared_ptr<Datatype> twin(int handle, const char* name, ElementType element) {
    auto t = scalar(handle, name, 2 * sizeof(V), alignof(V), element);
    t->basic_count_ = 2;
    t->pair_value_size_ = sizeof(V);
    return t;
  }

  // An MPI-1 bound marker: no data, a sticky lower (MPI_LB) or upper (MPI_UB) bound at 0.
  static std::shared_ptr<Datatype> marker(int handle, const char* name, bool lower) {
    auto t = scalar(handle, name, 0, 1, ElementType::none);
    t->basic_count_ = 0;
    t->blocks_.clear();
    t->block_end_.clear();
    t->uniform_length_ = 0;
    t->true_extent_ = 0;
    (lower ? t->sticky_lb_ : t->sticky_ub_) = true;
    return t;
  }

  void add(std::shared_ptr<Datatype> t) {
    const auto h = static_cast<unsigned>(t->handle);
    if ((h & 0xff000000u) == 0x8c000000u)
      pairs[h & 0xffu] = std::move(t);
    else {
      detail::predefined_by_low_byte[h & 0xffu] = t.get();
      by_low_byte[h & 0xffu] = std::move(t);
    }
  }

  BuiltinTable() {
    using E = ElementType;
    auto s = [](int h, const char* n, std::size_t size, std::size_t align, E e) { return scalar(h, n, size, align, e); };
#define FABMPI_SCALAR(handle, ctype, element) add(s(handle, #handle, sizeof(ctype), alignof(ctype), element))
    // MPI_CHAR and MPI_WCHAR are characters, not integers: MPI defines no reduction on them.
    FABMPI_SCALAR(MPI_CHAR, char, E::none);
    FABMPI_SCALAR(MPI_SIGNED_CHAR, signed char, E::i8);
    FABMPI_SCALAR(MPI_UNSIGNED_CHAR, unsigned char, E::u8);
    FABMPI_SCALAR(MPI_BYTE, unsigned char, E::byte);
    FABMPI_SCALAR(MPI_WCHAR, wchar_t, E::none);
    FABMPI_SCALAR(MPI_SHORT, short, E::i16);
    FABMPI_SCALAR(MPI_UNSIGNED_SHORT, unsigned short, E::u16);
    FABMPI_SCALAR(MPI_INT, int, E::i32);
    FABMPI_SCALAR(MPI_UNSIGNED, unsigned, E::u32);
    FABMPI_SCALAR(MPI_LONG, long, sizeof(long) == 8 ? E::i64 : E::i32);
    FABMPI_SCALAR(MPI_UNSIGNED_LONG, unsigned long, sizeof(long) == 8 ? E::u64 : E::u32);
    FABMPI_SCALAR(MPI_FLOAT, float, E::f32);
    FABMPI_SCALAR(MPI_DOUBLE, double, E::f64);
    FABMPI_SCALAR(MPI_LONG_DOUBLE, long double, E::f80);
    FABMPI_SCALAR(MPI_LONG_LONG_INT, long long, E::i64);
    FABMPI_SCALAR(MPI_UNSIGNED_LONG_LONG, unsigned long long, E::u64);
    FABMPI_SCALAR(MPI_PACKED, unsigned char, E::none);
    FABMPI_SCALAR(MPI_INT8_T, std::int8_t, E::i8);
    FABMPI_SCALAR(MPI_INT16_T, std::int16_t, E::i16);
    FABMPI_SCALAR(MPI_INT32_T, std::int32_t, E::i32);
    FABMPI_SCALAR(MPI_INT64_T, std::int64_t, E::i64);
    FABMPI_SCALAR(MPI_UINT8_T, std::uint8_t, E::u8);
    FABMPI_SCALAR(MPI_UINT16_T, std::uint16_t, E::u16);
    FABMPI_SCALAR(MPI_UINT32_T, std::uint32_t, E::u32);
    FABMPI_SCALAR(MPI_UINT64_T, std::uint64_t, E::u64);
    FABMPI_SCALAR(MPI_C_BOOL, bool, E::boolean);
    FABMPI_SCALAR(MPI_CXX_BOOL, bool, E::boolean);
    FABMPI_SCALAR(MPI_C_FLOAT_COMPLEX, std::complex<float>, E::c_float);
    FABMPI_SCALAR(MPI_C_DOUBLE_COMPLEX, std::complex<double>, E::c_double);
    FABMPI_SCALAR(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>, E::c_long_double);
    FABMPI_SCALAR(MPI_CXX_FLOAT_COMPLEX, std::complex<float>, E::c_float);
    FABMPI_SCALAR(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>, E::c_double);
    FABMPI_SCALAR(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>, E::c_long_double);
    FABMPI_SCALAR(MPIX_C_FLOAT16, std::uint16_t, E::f16);
    FABMPI_SCALAR(MPIX_BFLOAT16, std::uint16_t, E::bf16);
    FABMPI_SCALAR(MPI_AINT, MPI_Aint, E::i64);
    FABMPI_SCALAR(MPI_OFFSET, MPI_Offset, E::i64);
    FABMPI_SCALAR(MPI_COUNT, MPI_Count, E::i64);
    // Fortran's named types, available from C (MPI-3.1 A.1.1; gfortran's default kinds, as MPICH's).
    FABMPI_SCALAR(MPI_CHARACTER, char, E::none);
    FABMPI_SCALAR(MPI_INTEGER, std::int32_t, E::i32);
    FABMPI_SCALAR(MPI_REAL, float, E::f32);
    FABMPI_SCALAR(MPI_LOGICAL, std::int32_t, E::logical);
    FABMPI_SCALAR(MPI_DOUBLE_PRECISION, double, E::f64);
    FABMPI_SCALAR(MPI_COMPLEX, std::complex<float>, E::c_float);
    FABMPI_SCALAR(MPI_DOUBLE_COMPLEX, std::complex<double>, E::c_double);
    FABMPI_SCALAR(MPI_INTEGER1, std::int8_t, E::i8);
    FABMPI_SCALAR(MPI_INTEGER2, std::int16_t, E::i16);
    FABMPI_SCALAR(MPI_INTEGER4, std::int32_t, E::i32);
    FABMPI_SCALAR(MPI_INTEGER8, std::int64_t, E::i64);
    FABMPI_SCALAR(MPI_REAL4, float, E::f32);
    FABMPI_SCALAR(MPI_REAL8, double, E::f64);
    FABMPI_SCALAR(MPI_COMPLEX8, std::complex<float>, E::c_float);
    FABMPI_SCALAR(MPI_COMPLEX16, std::complex<double>, E::c_double);
#undef FABMPI_SCALAR
    add(twin<std::int32_t>(MPI_2INTEGER, "MPI_2INTEGER", E::int_int));
    add(twin<float>(MPI_2REAL, "MPI_2REAL", E::float_float));
    add(twin<double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", E::double_double));
    add(marker(MPI_LB, "MPI_LB", true));
    add(marker(MPI_UB, "MPI_UB", false));
    add(pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT", E::float_int));
    add(pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", E::double_int));
    add(pair<long>(MPI_LONG_INT, "MPI_LONG_INT", E::long_int));
    add(pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT", E::short_int));
    add(pair<int>(MPI_2INT, "MPI_2INT", E::int_int));
    add(pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", E::long_double_int));
  }

  static const BuiltinTable& get() {
    // Leaked: predefined types stay valid in static destructors and atexit handlers, and the references
    // builtin_datatype() hands out own nothing.
    static const BuiltinTable* table = new BuiltinTable;
    return *table;
  }
};

namespace {
// Built at library load, so predefined_datatype() finds them from the first MPI call on.
[[maybe_unused]] const bool predefined_types_built = (BuiltinTable::get(), true);
}  // namespace

DatatypeRef builtin_datatype(MPI_Datatype handle) noexcept {
  const BuiltinTable& table = BuiltinTable::get();
  const auto h = static_cast<unsigned>(handle);
  const std::shared_ptr<Datatype>* slot = nullptr;
  if ((h & 0xffff0000u) == 0x4c000000u)
    slot = &table.by_low_byte[h & 0xffu];
  else if ((h & 0xfffffff8u) == 0x8c000000u && (h & 7u) < table.pairs.size())
    slot = &table.pairs[h & 7u];
  if (!slot || !*slot || (*slot)->handle != handle) return nullptr;
  // A reference that owns nothing (the aliasing constructor over an empty owner): predefined types live
  // as long as the process, and copies of such a reference (every request, schedule and receive that
  // names MPI_INT) then cost no atomic reference-count updates.
  return DatatypeRef(DatatypeRef(), slot->get());
}


// ---------------------------------------------------------------- pack / unpack
namespace {

// Small fixed sizes become single moves; the rest goes to memcpy.
inline void copy_run(char* __restrict dst, const char* __restrict src, std::size_t n) noexcept {
  switch (n) {
    case 1: std::memcpy(dst, src, 1); return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    default: copy_memory(dst, src, n); return;
  }
}

}  // namespace

template <bool ToStream>
std::size_t Datatype::move_stream(char* user, std::size_t count, std::size_t offset, char* stream,
                                  std::size_t max_bytes) const noexcept {
  if (size_ == 0 || count == 0) return 0;
  const std::size_t total = count * size_;
  if (offset >= total) return 0;
  const std::size_t moved = std::min(max_bytes, total - offset);
  if (contiguous_) {
    char* at = user + true_lb_ + static_cast<std::ptrdiff_t>(offset);
    if constexpr (ToStream) copy_memory(stream, at, moved);
    else copy_memory(at, stream, moved);
    return moved;
  }
  const std::size_t element = offset / size_;
  const std::size_t within = offset % size_;
  std::size_t b, into;
  if (uniform_length_ != 0) {
    b = within / uniform_length_;
    into = within % uniform_length_;
  } else {
    b = static_cast<std::size_t>(std::upper_bound(block_end_.begin(), block_end_.end(), within) - block_end_.begin());
    into = within - (b == 0 ? 0 : block_end_[b - 1]);
  }
  const std::size_t nblocks = blocks_.size();
  const Block* blocks = blocks_.data();
  char* origin = user + static_cast<std::ptrdiff_t>(element) * extent_;
  std::size_t remaining = moved;
  while (remaining > 0) {
    const Block& blk = blocks[b];
    const std::size_t n = std::min(blk.length - into, remaining);
    char* at = origin + blk.offset + static_cast<std::ptrdiff_t>(into);
    if constexpr (ToStream) copy_run(stream, at, n);
    else copy_run(at, stream, n);
    stream += n;
    remaining -= n;
    into = 0;
    if (++b == nblocks) {
      b = 0;
      origin += extent_;
    }
  }
  return moved;
}

std::size_t Datatype::pack(const void* src, std::size_t count, std::size_t offset, void* dst,
                           std::size_t max_bytes) const noexcept {
  return move_stream<true>(const_cast<char*>(static_cast<const char*>(src)), count, offset,
                           static_cast<char*>(dst), max_bytes);
}

std::size_t Datatype::unpack(const void* src, std::size_t bytes, std::size_t offset, void* dst,
                             std::size_t count) const noexcept {
  return move_stream<false>(static_cast<char*>(dst), count, offset,
                            const_cast<char*>(static_cast<const char*>(src)), bytes);
}

// ---------------------------------------------------------------- basic elements
std::size_t Datatype::count_basic_elements(std::size_t bytes, bool* exact) const noexcept {
  if (builtin_) {
    if (size_ == 0) return 0;
    const std::size_t whole = bytes / size_;
    std::size_t rest = bytes % size_;
    std::size_t n = whole * basic_count_;
    if (rest != 0 && pair_value_size_ != 0 && rest >= pair_value_size_) {
      n += 1;
      rest -= pair_value_size_;
    }
    if (rest != 0) *exact = false;
    return n;
  }
  std::size_t n = 0;
  if (size_ > 0) {
    n = (bytes / size_) * basic_count_;
    bytes %= size_;
  }
  for (const Segment& s : segments_) {
    if (bytes == 0) break;
    const Datatype& c = *s.type;
    if (c.size_ == 0 || s.count == 0) continue;
    const std::size_t full = std::min(s.count, bytes / c.size_);
    n += full * c.basic_count_;
    bytes -= full * c.size_;
    if (full < s.count && bytes > 0) {
      n += c.count_basic_elements(bytes, exact);
      bytes = 0;
    }
  }
  if (bytes != 0) *exact = false;
  return n;
}

}  // namespace fabmpi
