// Reduction operations: every op × type class against a scalar reference, invalid pairs, MAXLOC/MINLOC
// ties, fp16/bf16 conversions, derived layouts, user functions (order, chunking). No MPI_Init needed.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/op.hpp"

using namespace fabmpi;

namespace {

const Datatype& T(MPI_Datatype h) {
  static std::vector<DatatypeRef> keep;
  keep.push_back(builtin_datatype(h));
  REQUIRE(keep.back());
  return *keep.back();
}
const Op& O(MPI_Op h) {
  auto op = builtin_op(h);
  REQUIRE(op);
  return *op;
}

constexpr MPI_Op kAllOps[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                              MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};

template <class I>
I reference(MPI_Op op, I a, I b) {
  using W = std::make_unsigned_t<decltype(+a)>;
  switch (op) {
    case MPI_MAX: return a > b ? a : b;
    case MPI_MIN: return a < b ? a : b;
    case MPI_SUM: return static_cast<I>(static_cast<W>(a) + static_cast<W>(b));
    case MPI_PROD: return static_cast<I>(static_cast<W>(a) * static_cast<W>(b));
    case MPI_LAND: return static_cast<I>(a && b);
    case MPI_LOR: return static_cast<I>(a || b);
    case MPI_LXOR: return static_cast<I>(!a != !b);
    case MPI_BAND: return static_cast<I>(a & b);
    case MPI_BOR: return static_cast<I>(a | b);
    case MPI_BXOR: return static_cast<I>(a ^ b);
    case MPI_REPLACE: return a;
    case MPI_NO_OP: return b;
  }
  return 0;
}

template <class I>
void check_integer_type(MPI_Datatype handle) {
  const Datatype& type = T(handle);
  std::mt19937_64 rng(handle);
  constexpr std::size_t n = 1027;  // not a multiple of any vector width
  for (MPI_Op op : kAllOps) {
    INFO("op " << O(op).name() << " type " << type.name);
    if (op == MPI_MAXLOC || op == MPI_MINLOC) {
      CHECK(O(op).check(type).code() == MPI_ERR_OP);
      continue;
    }
    REQUIRE(O(op).check(type).ok());
    std::vector<I> in(n), inout(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<I>(rng() % 5 == 0 ? 0 : rng());
      inout[i] = static_cast<I>(rng() % 7 == 0 ? 0 : rng());
      expected[i] = reference(op, in[i], inout[i]);
    }
    O(op).apply(in.data(), inout.data(), n, type);
    CHECK(inout == expected);
  }
}

template <class F>
void check_float_type(MPI_Datatype handle) {
  const Datatype& type = T(handle);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-100, 100);
  constexpr std::size_t n = 515;
  for (MPI_Op op : kAllOps) {
    INFO("op " << O(op).name() << " type " << type.name);
    const bool valid = op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD || op == MPI_REPLACE ||
                       op == MPI_NO_OP;
    if (!valid) {
      Rc rc = O(op).check(type);
      CHECK(rc.code() == MPI_ERR_OP);
      CHECK(last_failure_reason().find(O(op).name()) != std::string::npos);
      CHECK(last_failure_reason().find(type.name) != std::string::npos);
      continue;
    }
    REQUIRE(O(op).check(type).ok());
    std::vector<F> in(n), inout(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<F>(dist(rng));
      inout[i] = i % 9 == 0 ? in[i] : static_cast<F>(dist(rng));
      switch (op) {
        case MPI_MAX: expected[i] = std::max(in[i], inout[i]); break;
        case MPI_MIN: expected[i] = std::min(in[i], inout[i]); break;
        case MPI_SUM: expected[i] = in[i] + inout[i]; break;
        case MPI_PROD: expected[i] = in[i] * inout[i]; break;
        case MPI_REPLACE: expected[i] = in[i]; break;
        default: expected[i] = inout[i];
      }
    }
    O(op).apply(in.data(), inout.data(), n, type);
    CHECK(inout == expected);
  }
}

}  // namespace

TEST_CASE("integer types: every op", "[op]") {
  check_integer_type<std::int8_t>(MPI_SIGNED_CHAR);
  check_integer_type<std::uint8_t>(MPI_UNSIGNED_CHAR);
  check_integer_type<short>(MPI_SHORT);
  check_integer_type<unsigned short>(MPI_UNSIGNED_SHORT);
  check_integer_type<int>(MPI_INT);
  check_integer_type<unsigned>(MPI_UNSIGNED);
  check_integer_type<long>(MPI_LONG);
  check_integer_type<unsigned long>(MPI_UNSIGNED_LONG);
  check_integer_type<long long>(MPI_LONG_LONG_INT);
  check_integer_type<unsigned long long>(MPI_UNSIGNED_LONG_LONG);
  check_integer_type<std::int8_t>(MPI_INT8_T);
  check_integer_type<std::int16_t>(MPI_INT16_T);
  check_integer_type<std::int32_t>(MPI_INT32_T);
  check_integer_type<std::int64_t>(MPI_INT64_T);
  check_integer_type<std::uint8_t>(MPI_UINT8_T);
  check_integer_type<std::uint16_t>(MPI_UINT16_T);
  check_integer_type<std::uint32_t>(MPI_UINT32_T);
  check_integer_type<std::uint64_t>(MPI_UINT64_T);
  check_integer_type<MPI_Aint>(MPI_AINT);
  check_integer_type<MPI_Offset>(MPI_OFFSET);
  check_integer_type<MPI_Count>(MPI_COUNT);
}

TEST_CASE("floating types: MAX MIN SUM PROD only", "[op]") {
  check_float_type<float>(MPI_FLOAT);
  check_float_type<double>(MPI_DOUBLE);
  check_float_type<long double>(MPI_LONG_DOUBLE);
}

TEST_CASE("floating MAX/MIN propagate NaN from either side", "[op]") {
  const double nan = std::nan("");
  double in[] = {nan, 1.0, 2.0};
  double io[] = {1.0, nan, 3.0};
  O(MPI_MAX).apply(in, io, 3, T(MPI_DOUBLE));
  CHECK(std::isnan(io[0]));
  CHECK(std::isnan(io[1]));
  CHECK(io[2] == 3.0);
}

TEST_CASE("complex, bool, byte, char: allowed and refused ops", "[op]") {
  std::complex<double> a[] = {{1, 2}, {3, -1}}, b[] = {{2, 0.5}, {-1, 4}};
  auto sum = std::vector<std::complex<double>>(b, b + 2);
  O(MPI_SUM).apply(a, sum.data(), 2, T(MPI_C_DOUBLE_COMPLEX));
  CHECK(sum[0] == a[0] + b[0]);
  CHECK(sum[1] == a[1] + b[1]);
  auto prod = std::vector<std::complex<double>>(b, b + 2);
  O(MPI_PROD).apply(a, prod.data(), 2, T(MPI_C_DOUBLE_COMPLEX));
  CHECK(prod[0] == a[0] * b[0]);
  std::complex<float> fa[] = {{1, 1}}, fb[] = {{2, 3}};
  O(MPI_PROD).apply(fa, fb, 1, T(MPI_C_FLOAT_COMPLEX));
  CHECK(fb[0] == std::complex<float>(1, 1) * std::complex<float>(2, 3));
  for (MPI_Datatype h : {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX,
                         MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX})
    for (MPI_Op op : kAllOps) {
      const bool valid = op == MPI_SUM || op == MPI_PROD || op == MPI_REPLACE || op == MPI_NO_OP;
      CHECK(O(op).check(T(h)).ok() == valid);
    }

  bool x[] = {true, true, false, false}, y[] = {true, false, true, false};
  bool land[4], lor[4], lxor[4];
  std::memcpy(land, y, 4), std::memcpy(lor, y, 4), std::memcpy(lxor, y, 4);
  O(MPI_LAND).apply(x, land, 4, T(MPI_C_BOOL));
  O(MPI_LOR).apply(x, lor, 4, T(MPI_C_BOOL));
  O(MPI_LXOR).apply(x, lxor, 4, T(MPI_CXX_BOOL));
  CHECK((land[0] && !land[1] && !land[2] && !land[3]));
  CHECK((lor[0] && lor[1] && lor[2] && !lor[3]));
  CHECK((!lxor[0] && lxor[1] && lxor[2] && !lxor[3]));
  for (MPI_Op op : kAllOps) {
    const bool valid = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR || op == MPI_REPLACE || op == MPI_NO_OP;
    CHECK(O(op).check(T(MPI_C_BOOL)).ok() == valid);
  }

  unsigned char p[] = {0xf0, 0x0f}, q[] = {0x3c, 0xff};
  O(MPI_BXOR).apply(p, q, 2, T(MPI_BYTE));
  CHECK(q[0] == 0xcc);
  CHECK(q[1] == 0xf0);
  for (MPI_Op op : kAllOps) {
    const bool valid = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR || op == MPI_REPLACE || op == MPI_NO_OP;
    CHECK(O(op).check(T(MPI_BYTE)).ok() == valid);
  }
  // Fortran LOGICAL: 4-byte integers, nonzero is .TRUE., results 1 or 0; only the logical ops.
  std::int32_t lx[] = {7, 7, 0, 0}, ly[] = {-1, 0, 3, 0};
  std::int32_t fland[4], flor[4];
  std::memcpy(fland, ly, sizeof ly), std::memcpy(flor, ly, sizeof ly);
  O(MPI_LAND).apply(lx, fland, 4, T(MPI_LOGICAL));
  O(MPI_LOR).apply(lx, flor, 4, T(MPI_LOGICAL));
  CHECK((fland[0] == 1 && fland[1] == 0 && fland[2] == 0 && fland[3] == 0));
  CHECK((flor[0] == 1 && flor[1] == 1 && flor[2] == 1 && flor[3] == 0));
  for (MPI_Op op : kAllOps) {
    const bool valid = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR || op == MPI_REPLACE || op == MPI_NO_OP;
    CHECK(O(op).check(T(MPI_LOGICAL)).ok() == valid);
  }
  // Fortran's numeric types take the ops of their class.
  CHECK(O(MPI_BAND).check(T(MPI_INTEGER)).ok());
  CHECK(O(MPI_SUM).check(T(MPI_DOUBLE_COMPLEX)).ok());
  CHECK(O(MPI_MAX).check(T(MPI_DOUBLE_COMPLEX)).code() == MPI_ERR_OP);
  CHECK(O(MPI_BAND).check(T(MPI_REAL8)).code() == MPI_ERR_OP);
  // MPI_CHAR, MPI_WCHAR, MPI_PACKED and Fortran's MPI_CHARACTER are not numeric in MPI.
  for (MPI_Datatype h : {MPI_CHAR, MPI_WCHAR, MPI_PACKED, MPI_CHARACTER})
    for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_BAND, MPI_LAND}) CHECK(O(op).check(T(h)).code() == MPI_ERR_OP);
}

TEST_CASE("MAXLOC and MINLOC on the pair types, with the tie rule", "[op]") {
  struct DI { double v; int i; };
  DI in[] = {{5.0, 3}, {1.0, 9}, {2.0, 4}, {2.0, 1}};
  DI io[] = {{4.0, 0}, {7.0, 2}, {2.0, 6}, {2.0, 0}};
  DI mx[4], mn[4];
  std::memcpy(mx, io, sizeof io);
  std::memcpy(mn, io, sizeof io);
  O(MPI_MAXLOC).apply(in, mx, 4, T(MPI_DOUBLE_INT));
  O(MPI_MINLOC).apply(in, mn, 4, T(MPI_DOUBLE_INT));
  CHECK((mx[0].v == 5.0 && mx[0].i == 3));
  CHECK((mx[1].v == 7.0 && mx[1].i == 2));
  CHECK((mx[2].v == 2.0 && mx[2].i == 4));  // tie: smaller index
  CHECK((mx[3].v == 2.0 && mx[3].i == 0));
  CHECK((mn[0].v == 4.0 && mn[0].i == 0));
  CHECK((mn[1].v == 1.0 && mn[1].i == 9));
  CHECK((mn[2].v == 2.0 && mn[2].i == 4));

  struct SI { short v; int i; };
  SI s_in[] = {{3, 1}, {-2, 5}}, s_io[] = {{3, 0}, {-1, 2}};
  O(MPI_MINLOC).apply(s_in, s_io, 2, T(MPI_SHORT_INT));
  CHECK((s_io[0].v == 3 && s_io[0].i == 0));
  CHECK((s_io[1].v == -2 && s_io[1].i == 5));

  struct LDI { long double v; int i; };
  LDI l_in[] = {{1.5L, 7}}, l_io[] = {{1.5L, 8}};
  O(MPI_MAXLOC).apply(l_in, l_io, 1, T(MPI_LONG_DOUBLE_INT));
  CHECK(l_io[0].i == 7);

  int two_in[] = {4, 1, 9, 2}, two_io[] = {4, 0, 3, 3};
  O(MPI_MAXLOC).apply(two_in, two_io, 2, T(MPI_2INT));
  CHECK((two_io[0] == 4 && two_io[1] == 0 && two_io[2] == 9 && two_io[3] == 2));

  // Fortran's pairs: the index has the value's type.
  float r2_in[] = {3.0f, 5.0f, 1.0f, 2.0f}, r2_io[] = {3.0f, 4.0f, 0.5f, 7.0f};
  O(MPI_MAXLOC).apply(r2_in, r2_io, 2, T(MPI_2REAL));
  CHECK((r2_io[0] == 3.0f && r2_io[1] == 4.0f && r2_io[2] == 1.0f && r2_io[3] == 2.0f));
  double d2_in[] = {-1.0, 8.0}, d2_io[] = {0.0, 1.0};
  O(MPI_MINLOC).apply(d2_in, d2_io, 1, T(MPI_2DOUBLE_PRECISION));
  CHECK((d2_io[0] == -1.0 && d2_io[1] == 8.0));

  // Only the value and the index are written, never the padding after them: the last element of a
  // reduction's scratch ends at its true extent (regression: MPICH's opminloc corrupted the heap).
  LDI pad_in[2] = {{9.0L, 1}, {9.0L, 1}}, pad_io[2] = {{1.0L, 2}, {1.0L, 2}};
  unsigned char* tail = reinterpret_cast<unsigned char*>(&pad_io[1]) + offsetof(LDI, i) + sizeof(int);
  const std::size_t tail_bytes = sizeof(LDI) - offsetof(LDI, i) - sizeof(int);
  std::memset(tail, 0xa5, tail_bytes);
  O(MPI_MAXLOC).apply(pad_in, pad_io, 2, T(MPI_LONG_DOUBLE_INT));
  CHECK((pad_io[1].v == 9.0L && pad_io[1].i == 1));
  for (std::size_t k = 0; k < tail_bytes; ++k) CHECK(tail[k] == 0xa5);

  for (MPI_Datatype h : {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_2INT, MPI_LONG_DOUBLE_INT,
                         MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION})
    for (MPI_Op op : kAllOps) {
      const bool valid = op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_REPLACE || op == MPI_NO_OP;
      CHECK(O(op).check(T(h)).ok() == valid);
    }
}

TEST_CASE("fp16 and bf16 conversions", "[op]") {
  // Every non-NaN binary16 value survives the round trip exactly; NaNs stay NaN.
  for (unsigned h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
      CHECK(std::isnan(f));
      CHECK((float_to_half(f) & 0x7fff) > 0x7c00);
    } else if (float_to_half(f) != h) {
      FAIL("binary16 round trip of 0x" << std::hex << h);
    }
    const float b = bfloat16_to_float(static_cast<std::uint16_t>(h));
    if ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) CHECK(std::isnan(b));
    else if (float_to_bfloat16(b) != h) FAIL("bfloat16 round trip of 0x" << std::hex << h);
  }
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x7bff) == 65504.0f);
  // Round to nearest even.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(float_to_half(65520.0f) == 0x7c00);
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);       // halfway to the smallest subnormal: even
  CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);       // 1.5 ulp: up to even
  CHECK(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  CHECK(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);

  std::uint16_t a[] = {0x3c00, 0x4000, 0xc000}, b[] = {0x4000, 0x4000, 0x3c00};  // {1,2,-2} op {2,2,1}
  O(MPI_SUM).apply(a, b, 3, T(MPIX_C_FLOAT16));
  CHECK(half_to_float(b[0]) == 3.0f);
  CHECK(half_to_float(b[1]) == 4.0f);
  CHECK(half_to_float(b[2]) == -1.0f);
  std::uint16_t c[] = {0x3f80, 0x4040}, d[] = {0x4000, 0x4000};  // bf16 {1,3} * {2,2}
  O(MPI_PROD).apply(c, d, 2, T(MPIX_BFLOAT16));
  CHECK(bfloat16_to_float(d[0]) == 2.0f);
  CHECK(bfloat16_to_float(d[1]) == 6.0f);
  std::uint16_t m[] = {0x7e00, 0x3c00}, k[] = {0x3c00, 0x4000};
  O(MPI_MAX).apply(m, k, 2, T(MPIX_C_FLOAT16));
  CHECK(std::isnan(half_to_float(k[0])));
  CHECK(half_to_float(k[1]) == 2.0f);
  for (MPI_Datatype h : {MPIX_C_FLOAT16, MPIX_BFLOAT16}) {
    CHECK(O(MPI_MIN).check(T(h)).ok());
    CHECK(O(MPI_BAND).check(T(h)).code() == MPI_ERR_OP);
  }
}

TEST_CASE("derived types reduce element-wise over their layout", "[op]") {
  // vector of doubles: only the blocks change.
  auto v = make_vector(3, 2, 3, builtin_datatype(MPI_DOUBLE));
  CHECK(v->element_type() == ElementType::f64);
  REQUIRE(O(MPI_SUM).check(*v).ok());
  std::vector<double> in(18), io(18);
  for (int i = 0; i < 18; ++i) in[i] = i, io[i] = 100;
  O(MPI_SUM).apply(in.data(), io.data(), 2, *v);
  // extent of v = (2*3+2)*8 = 64 bytes = 8 doubles: blocks at 0,1 / 3,4 / 6,7 of each 8.
  for (int i = 0; i < 16; ++i) {
    const int w = i % 8;
    const bool in_block = w == 0 || w == 1 || w == 3 || w == 4 || w == 6 || w == 7;
    CHECK(io[i] == (in_block ? 100 + i : 100));
  }

  auto c = make_contiguous(4, builtin_datatype(MPI_INT));
  CHECK(c->element_type() == ElementType::i32);
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  O(MPI_PROD).apply(a, b, 2, *c);
  CHECK(b[7] == 8);

  // Pairs inside derived types keep their struct layout.
  struct DI { double v; int i; };
  auto pairs = make_contiguous(2, builtin_datatype(MPI_DOUBLE_INT));
  DI pin[] = {{1, 0}, {9, 5}}, pio[] = {{2, 1}, {9, 3}};
  REQUIRE(O(MPI_MAXLOC).check(*pairs).ok());
  O(MPI_MAXLOC).apply(pin, pio, 1, *pairs);
  CHECK((pio[0].v == 2 && pio[0].i == 1));
  CHECK((pio[1].v == 9 && pio[1].i == 3));
  auto spread = make_resized(builtin_datatype(MPI_DOUBLE_INT), 0, 32);
  DI sin[] = {{3, 0}, {0, 0}, {4, 1}, {0, 0}}, sio[] = {{1, 2}, {7, 7}, {5, 2}, {7, 7}};
  O(MPI_MINLOC).apply(sin, sio, 2, *spread);
  CHECK((sio[0].v == 1 && sio[2].v == 4 && sio[2].i == 1 && sio[1].v == 7 && sio[3].i == 7));

  // A mixed struct has no element type: only REPLACE and NO_OP apply.
  const int lens[] = {1, 1};
  const MPI_Aint displs[] = {0, 8};
  const DatatypeRef types[] = {builtin_datatype(MPI_INT), builtin_datatype(MPI_DOUBLE)};
  auto s = make_struct(lens, displs, types);
  CHECK(O(MPI_SUM).check(*s).code() == MPI_ERR_OP);
  CHECK(O(MPI_REPLACE).check(*s).ok());
  struct ID { int i; double d; };
  ID rin[] = {{1, 2.5}}, rio[] = {{0, 0}};
  std::memset(rio, 0x55, sizeof rio);
  rio[0].i = 0;
  rio[0].d = 0;
  O(MPI_REPLACE).apply(rin, rio, 1, *s);
  CHECK((rio[0].i == 1 && rio[0].d == 2.5));
  O(MPI_NO_OP).apply(rio, rin, 1, *s);
  CHECK(rin[0].i == 1);
}

namespace {

int g_calls = 0;
MPI_Datatype g_seen_type = MPI_DATATYPE_NULL;
// Non-commutative: inout = in * 10 + inout (order matters).
void shift_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  ++g_calls;
  g_seen_type = *type;
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] * 10 + b[i];
}

}  // namespace

TEST_CASE("user-defined operations", "[op]") {
  auto op = make_user_op(shift_op, false);
  CHECK_FALSE(op->commutative());
  CHECK_FALSE(op->builtin());
  auto c = make_contiguous(2, builtin_datatype(MPI_INT));
  CHECK(op->check(*c).ok());  // user ops accept any type
  int in[] = {1, 2, 3}, io[] = {4, 5, 6};
  op->apply(in, io, 3, *builtin_datatype(MPI_INT));
  CHECK(g_calls == 1);
  CHECK(g_seen_type == MPI_INT);
  CHECK((io[0] == 14 && io[1] == 25 && io[2] == 36));
  CHECK(make_user_op(shift_op, true)->commutative());
  for (MPI_Op h : kAllOps) CHECK(builtin_op(h)->commutative());
  CHECK_FALSE(builtin_op(MPI_OP_NULL));
  CHECK_FALSE(builtin_op(static_cast<MPI_Op>(0x5800000f)));
  CHECK(std::string(builtin_op(MPI_BXOR)->name()) == "MPI_BXOR");
}
