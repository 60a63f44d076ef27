// Reduction kernels: one template loop per (op, element type), over __restrict pointers so GCC
// vectorizes them. This file is built with -O3 (see runtime/meson.build): O3's vectorizer cost model
// handles the narrow integer and the fp16/bf16 conversion loops that O2's "very cheap" model skips.
#include <complex>
#include <cstring>
#include <type_traits>

#include "runtime/op.hpp"

namespace fabmpi {

namespace {

// ---------------------------------------------------------------- fp16 / bf16 conversions
inline std::uint32_t float_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(std::uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float half_to_float_inline(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return bits_float(float_bits(v) | sign);
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf, or NaN keeping its payload
  return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

inline std::uint16_t float_to_half_inline(float f) noexcept {
  const std::uint32_t x = float_bits(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x1ffu));  // quiet NaN
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {
    // Below the smallest normal: scale to units of 2^-24 and round to nearest even (exact scaling).
    const float scaled = bits_float(a) * 16777216.0f;
    auto m = static_cast<std::uint32_t>(scaled);
    const float rest = scaled - static_cast<float>(m);
    if (rest > 0.5f || (rest == 0.5f && (m & 1u))) ++m;
    return static_cast<std::uint16_t>(sign | m);  // m == 0x400 is the smallest normal, correctly encoded
  }
  a += 0xfffu + ((a >> 13) & 1u);  // round to nearest even on the 13 dropped bits
  return static_cast<std::uint16_t>(sign | ((a >> 13) - (112u << 10)));
}

inline float bfloat16_to_float_inline(std::uint16_t b) noexcept {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

inline std::uint16_t float_to_bfloat16_inline(float f) noexcept {
  std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

// ---------------------------------------------------------------- element operations
template <class T>
using Wide = std::make_unsigned_t<decltype(+T())>;  // wrap-around arithmetic without signed overflow

struct Sum {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    else return a + b;
  }
};
struct Prod {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    else return a * b;
  }
};
// Floating MAX/MIN propagate a NaN from either side.
struct Max {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_floating_point_v<T>) return (a > b || a != a) ? a : b;
    else return a > b ? a : b;
  }
};
struct Min {
  template <class T>
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_floating_point_v<T>) return (a < b || a != a) ? a : b;
    else return a < b ? a : b;
  }
};
struct Land {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>((a != T()) & (b != T())); }
};
struct Lor {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>((a != T()) | (b != T())); }
};
struct Lxor {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>((a != T()) ^ (b != T())); }
};
struct Band {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a & b); }
};
struct Bor {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a | b); }
};
struct Bxor {
  template <class T>
  static T apply(T a, T b) noexcept { return static_cast<T>(a ^ b); }
};

template <class T, class Operation>
void loop(const void* in, void* inout, std::size_t n) {
  const T* __restrict a = static_cast<const T*>(in);
  T* __restrict b = static_cast<T*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = Operation::apply(a[i], b[i]);
}

template <class Operation, float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void loop16(const void* in, void* inout, std::size_t n) {
  const auto* __restrict a = static_cast<const std::uint16_t*>(in);
  auto* __restrict b = static_cast<std::uint16_t*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = FromFloat(Operation::apply(ToFloat(a[i]), ToFloat(b[i])));
}

template <class V, class Index = int>
struct PairOf {
  V value;
  Index index;
};

// MAXLOC / MINLOC: the better value wins; equal values keep the smaller index.
template <class V, bool Greater, class Index = int>
void loc_loop(const void* in, void* inout, std::size_t n) {
  const auto* __restrict a = static_cast<const PairOf<V, Index>*>(in);
  auto* __restrict b = static_cast<PairOf<V, Index>*>(inout);
  for (std::size_t i = 0; i < n; ++i) {
    const bool better = Greater ? a[i].value > b[i].value : a[i].value < b[i].value;
    // Field by field: a whole-struct copy would also write the trailing padding, which lies past the
    // true extent of the last element (scratch sized to the true extent, or the end of a user buffer).
    if (better) b[i].value = a[i].value, b[i].index = a[i].index;
    else if (a[i].value == b[i].value && a[i].index < b[i].index) b[i].index = a[i].index;
  }
}

// ---------------------------------------------------------------- type classes (MPI-3.1 §5.9.2)
template <class Operation>
ReduceKernel integer(ElementType e) {
  switch (e) {
    case ElementType::i8: return loop<std::int8_t, Operation>;
    case ElementType::u8: return loop<std::uint8_t, Operation>;
    case ElementType::i16: return loop<std::int16_t, Operation>;
    case ElementType::u16: return loop<std::uint16_t, Operation>;
    case ElementType::i32: return loop<std::int32_t, Operation>;
    case ElementType::u32: return loop<std::uint32_t, Operation>;
    case ElementType::i64: return loop<std::int64_t, Operation>;
    case ElementType::u64: return loop<std::uint64_t, Operation>;
    default: return nullptr;
  }
}

template <class Operation>
ReduceKernel floating(ElementType e) {
  switch (e) {
    case ElementType::f16: return loop16<Operation, half_to_float_inline, float_to_half_inline>;
    case ElementType::bf16: return loop16<Operation, bfloat16_to_float_inline, float_to_bfloat16_inline>;
    case ElementType::f32: return loop<float, Operation>;
    case ElementType::f64: return loop<double, Operation>;
    case ElementType::f80: return loop<long double, Operation>;
    default: return nullptr;
  }
}

template <class Operation>
ReduceKernel complex(ElementType e) {
  switch (e) {
    case ElementType::c_float: return loop<std::complex<float>, Operation>;
    case ElementType::c_double: return loop<std::complex<double>, Operation>;
    case ElementType::c_long_double: return loop<std::complex<long double>, Operation>;
    default: return nullptr;
  }
}

// C's bool and Fortran's LOGICAL (a 4-byte integer whose nonzero values are .TRUE.).
template <class Operation>
ReduceKernel logical(ElementType e) {
  switch (e) {
    case ElementType::boolean: return loop<bool, Operation>;
    case ElementType::logical: return loop<std::int32_t, Operation>;
    default: return nullptr;
  }
}

template <bool Greater>
ReduceKernel pair(ElementType e) {
  switch (e) {
    case ElementType::float_int: return loc_loop<float, Greater>;
    case ElementType::double_int: return loc_loop<double, Greater>;
    case ElementType::long_int: return loc_loop<long, Greater>;
    case ElementType::short_int: return loc_loop<short, Greater>;
    case ElementType::int_int: return loc_loop<int, Greater>;
    case ElementType::long_double_int: return loc_loop<long double, Greater>;
    case ElementType::float_float: return loc_loop<float, Greater, float>;
    case ElementType::double_double: return loc_loop<double, Greater, double>;
    default: return nullptr;
  }
}

template <class... Kernels>
ReduceKernel first_of(Kernels... k) {
  ReduceKernel found = nullptr;
  ((found = found ? found : k), ...);
  return found;
}

}  // namespace

ReduceKernel reduce_kernel(MPI_Op op, ElementType e) noexcept {
  switch (op) {
    case MPI_MAX: return first_of(integer<Max>(e), floating<Max>(e));
    case MPI_MIN: return first_of(integer<Min>(e), floating<Min>(e));
    case MPI_SUM: return first_of(integer<Sum>(e), floating<Sum>(e), complex<Sum>(e));
    case MPI_PROD: return first_of(integer<Prod>(e), floating<Prod>(e), complex<Prod>(e));
    case MPI_LAND: return first_of(logical<Land>(e), integer<Land>(e));
    case MPI_LOR: return first_of(logical<Lor>(e), integer<Lor>(e));
    case MPI_LXOR: return first_of(logical<Lxor>(e), integer<Lxor>(e));
    case MPI_BAND: return e == ElementType::byte ? loop<std::uint8_t, Band> : integer<Band>(e);
    case MPI_BOR: return e == ElementType::byte ? loop<std::uint8_t, Bor> : integer<Bor>(e);
    case MPI_BXOR: return e == ElementType::byte ? loop<std::uint8_t, Bxor> : integer<Bxor>(e);
    case MPI_MAXLOC: return pair<true>(e);
    case MPI_MINLOC: return pair<false>(e);
    default: return nullptr;
  }
}

float half_to_float(std::uint16_t h) noexcept { return half_to_float_inline(h); }
std::uint16_t float_to_half(float f) noexcept { return float_to_half_inline(f); }
float bfloat16_to_float(std::uint16_t b) noexcept { return bfloat16_to_float_inline(b); }
std::uint16_t float_to_bfloat16(float f) noexcept { return float_to_bfloat16_inline(f); }

}  // namespace fabmpi
