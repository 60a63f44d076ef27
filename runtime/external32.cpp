#include "runtime/external32.hpp"

#include <cstring>
#include <limits>
#include <optional>

namespace fabmpi::external32 {
namespace {

// One part of a basic element: how it is stored here and in external32.
struct Part {
  enum class Kind : std::uint8_t { bytes, signed_int, unsigned_int, real, long_double } kind;
  std::uint8_t native;    // bytes in memory here
  std::uint8_t external;  // bytes in external32
  std::uint8_t offset;    // within the element
};

struct Basic {
  Part parts[2];
  int count;
};

using K = Part::Kind;

constexpr Basic one(K kind, std::uint8_t native, std::uint8_t external) { return {{{kind, native, external, 0}, {}}, 1}; }
constexpr Basic two(Part a, Part b) { return {{a, b}, 2}; }

std::optional<Basic> basic_of(MPI_Datatype h) {
  switch (h) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED: case MPI_C_BOOL:
    case MPI_CXX_BOOL: case MPI_INT8_T: case MPI_UINT8_T: case MPI_CHARACTER: case MPI_INTEGER1:
      return one(K::bytes, 1, 1);
    case MPI_WCHAR: return one(K::unsigned_int, sizeof(wchar_t), 2);
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: return one(K::signed_int, 2, 2);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return one(K::unsigned_int, 2, 2);
    case MPIX_C_FLOAT16: case MPIX_BFLOAT16: return one(K::real, 2, 2);
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL:
      return one(K::signed_int, 4, 4);
    case MPI_UNSIGNED: case MPI_UINT32_T: return one(K::unsigned_int, 4, 4);
    case MPI_LONG: return one(K::signed_int, sizeof(long), 4);
    case MPI_UNSIGNED_LONG: return one(K::unsigned_int, sizeof(long), 4);
    case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_INTEGER8: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return one(K::signed_int, 8, 8);
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return one(K::unsigned_int, 8, 8);
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return one(K::real, 4, 4);
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return one(K::real, 8, 8);
    case MPI_LONG_DOUBLE: return one(K::long_double, sizeof(long double), 16);
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_2REAL:
      return two({K::real, 4, 4, 0}, {K::real, 4, 4, 4});
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16:
    case MPI_2DOUBLE_PRECISION:
      return two({K::real, 8, 8, 0}, {K::real, 8, 8, 8});
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return two({K::long_double, sizeof(long double), 16, 0},
                 {K::long_double, sizeof(long double), 16, static_cast<std::uint8_t>(sizeof(long double))});
    case MPI_2INT: case MPI_2INTEGER: return two({K::signed_int, 4, 4, 0}, {K::signed_int, 4, 4, 4});
    case MPI_FLOAT_INT: return two({K::real, 4, 4, 0}, {K::signed_int, 4, 4, 4});
    case MPI_DOUBLE_INT: return two({K::real, 8, 8, 0}, {K::signed_int, 4, 4, 8});
    case MPI_LONG_INT: return two({K::signed_int, sizeof(long), 4, 0}, {K::signed_int, 4, 4, sizeof(long)});
    case MPI_SHORT_INT: return two({K::signed_int, 2, 2, 0}, {K::signed_int, 4, 4, 4});
    case MPI_LONG_DOUBLE_INT:
      return two({K::long_double, sizeof(long double), 16, 0},
                 {K::signed_int, 4, 4, static_cast<std::uint8_t>(sizeof(long double))});
    default: return std::nullopt;
  }
}

// Calls fn(part, address offset) for every basic part of `count` elements at byte offset `disp`, in
// type-map order. Named types are leaves (the Fortran 90 parameterized ones have a segment: followed).
template <class Fn>
Rc walk(const Datatype& type, std::int64_t disp, std::size_t count, Fn& fn) {
  if (type.size() == 0 || count == 0) return Rc();  // MPI_LB / MPI_UB markers, empty types
  if (type.segments().empty()) {
    const std::optional<Basic> basic = basic_of(type.handle);
    if (!basic) return fail(MPI_ERR_TYPE, "%s has no external32 representation", type.name.c_str());
    for (std::size_t i = 0; i < count; ++i)
      for (int p = 0; p < basic->count; ++p)
        FABMPI_TRY(fn(basic->parts[p], disp + static_cast<std::int64_t>(i) * type.extent() + basic->parts[p].offset));
    return Rc();
  }
  for (std::size_t i = 0; i < count; ++i)
    for (const Segment& s : type.segments())
      FABMPI_TRY(walk(*s.type, disp + static_cast<std::int64_t>(i) * type.extent() + s.disp, s.count, fn));
  return Rc();
}

// Big-endian bytes of an integer value, and back (two's complement).
void put_big_endian(std::uint64_t v, unsigned char* out, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) out[i] = static_cast<unsigned char>(v & 0xff);
}
std::uint64_t get_big_endian(const unsigned char* in, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | in[i];
  return v;
}

// x86's 80-bit extended (64-bit significand with its integer bit) <-> IEEE binary128 (112-bit
// fraction): the same 15-bit exponent and bias, so only the significand moves.
void extended_to_quad(const unsigned char* in, unsigned char* out) {
  std::uint64_t significand;
  std::uint16_t sign_exponent;
  std::memcpy(&significand, in, 8);
  std::memcpy(&sign_exponent, in + 8, 2);
  const std::uint64_t fraction = significand & 0x7fffffffffffffffull;  // drop the explicit integer bit
  const std::uint64_t high = static_cast<std::uint64_t>(sign_exponent) << 48 | fraction >> 15;
  const std::uint64_t low = fraction << 49;
  put_big_endian(high, out, 8);
  put_big_endian(low, out + 8, 8);
}
void quad_to_extended(const unsigned char* in, unsigned char* out) {
  const std::uint64_t high = get_big_endian(in, 8), low = get_big_endian(in + 8, 8);
  const auto sign_exponent = static_cast<std::uint16_t>(high >> 48);
  const std::uint64_t fraction = (high & 0xffffffffffffull) << 15 | low >> 49;  // the top 63 of 112 bits
  const bool normal_or_special = (sign_exponent & 0x7fff) != 0;
  const std::uint64_t significand = fraction | (normal_or_special ? 0x8000000000000000ull : 0);
  std::memset(out, 0, sizeof(long double));
  std::memcpy(out, &significand, 8);
  std::memcpy(out + 8, &sign_exponent, 2);
}

Rc to_external(const Part& p, const unsigned char* in, unsigned char* out) {
  switch (p.kind) {
    case K::bytes: std::memcpy(out, in, p.native); return Rc();
    case K::real:
      for (int i = 0; i < p.native; ++i) out[i] = in[p.native - 1 - i];  // this build is little-endian
      return Rc();
    case K::long_double:
      if constexpr (sizeof(long double) >= 10 && std::numeric_limits<long double>::digits == 64) {
        extended_to_quad(in, out);
        return Rc();
      }
      return fail(MPI_ERR_TYPE, "MPI_LONG_DOUBLE has no external32 conversion on this platform");
    case K::signed_int: case K::unsigned_int: {
      std::uint64_t v = 0;
      std::memcpy(&v, in, p.native);
      if (p.kind == K::signed_int && p.native < 8 && (in[p.native - 1] & 0x80))
        v |= ~std::uint64_t{0} << (8 * p.native);  // sign-extend
      if (p.external < p.native) {
        const int bits = 8 * p.external;
        const bool fits = p.kind == K::signed_int
                              ? static_cast<std::int64_t>(v) >= -(std::int64_t{1} << (bits - 1)) &&
                                    static_cast<std::int64_t>(v) < (std::int64_t{1} << (bits - 1))
                              : v < (std::uint64_t{1} << bits);
        if (!fits)
          return fail(MPI_ERR_CONVERSION, "a %d-byte integer value does not fit its %d-byte external32 form",
                      p.native, p.external);
      }
      put_big_endian(v, out, p.external);
      return Rc();
    }
  }
  return Rc();
}

void from_external(const Part& p, const unsigned char* in, unsigned char* out) {
  switch (p.kind) {
    case K::bytes: std::memcpy(out, in, p.native); return;
    case K::real:
      for (int i = 0; i < p.native; ++i) out[i] = in[p.native - 1 - i];
      return;
    case K::long_double: quad_to_extended(in, out); return;
    case K::signed_int: case K::unsigned_int: {
      std::uint64_t v = get_big_endian(in, p.external);
      if (p.kind == K::signed_int && p.external < 8 && (in[0] & 0x80)) v |= ~std::uint64_t{0} << (8 * p.external);
      std::memcpy(out, &v, p.native);  // little-endian: the low bytes
      return;
    }
  }
}

}  // namespace

Rc packed_size(const Datatype& type, std::size_t count, std::size_t* bytes) {
  std::size_t one = 0;
  auto add = [&](const Part& p, std::int64_t) {
    one += p.external;
    return Rc();
  };
  FABMPI_TRY(walk(type, 0, 1, add));
  *bytes = one * count;
  return Rc();
}

Rc pack(const Datatype& type, const void* in, std::size_t count, unsigned char* out) {
  const auto* base = static_cast<const unsigned char*>(in);
  auto convert = [&](const Part& p, std::int64_t at) {
    FABMPI_TRY(to_external(p, base + at, out));
    out += p.external;
    return Rc();
  };
  return walk(type, 0, count, convert);
}

Rc unpack(const Datatype& type, const unsigned char* in, std::size_t count, void* out) {
  auto* base = static_cast<unsigned char*>(out);
  auto convert = [&](const Part& p, std::int64_t at) {
    from_external(p, in, base + at);
    in += p.external;
    return Rc();
  };
  return walk(type, 0, count, convert);
}

}  // namespace fabmpi::external32
