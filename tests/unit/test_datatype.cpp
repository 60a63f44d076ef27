// Datatype engine: predefined types, flattening of every constructor, bounds, pack/unpack (whole and
// chunked), contents, basic-element counting. Runs without MPI_Init (core APIs only).
#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/datatype.hpp"

using namespace fabmpi;

namespace {

DatatypeRef T(MPI_Datatype h) {
  auto t = builtin_datatype(h);
  REQUIRE(t);
  return t;
}

std::vector<std::pair<std::int64_t, std::size_t>> blocks_of(const DatatypeRef& t) {
  std::vector<std::pair<std::int64_t, std::size_t>> out;
  for (const Block& b : t->blocks()) out.emplace_back(b.offset, b.length);
  return out;
}
using Blocks = std::vector<std::pair<std::int64_t, std::size_t>>;

// Reference packer: walks the type's segment tree (independent of the flattened blocks).
void reference_pack(const Datatype& t, const char* base, std::vector<char>& out) {
  if (t.builtin()) {
    for (const Block& b : t.blocks()) out.insert(out.end(), base + b.offset, base + b.offset + b.length);
    return;
  }
  for (const Segment& s : t.segments())
    for (std::size_t k = 0; k < s.count; ++k) reference_pack(*s.type, base + s.disp + static_cast<std::int64_t>(k) * s.type->extent(), out);
}

// A buffer big enough for `count` elements of `t`, with the origin placed so that lb/true_lb may be negative.
struct Buffer {
  std::vector<char> bytes;
  std::ptrdiff_t origin;
  Buffer(const Datatype& t, std::size_t count, bool fill) {
    const std::ptrdiff_t lo = std::min<std::ptrdiff_t>(0, std::min(t.lb(), t.true_lb()) + std::min<std::ptrdiff_t>(0, (static_cast<std::ptrdiff_t>(count) - 1) * t.extent()));
    const std::ptrdiff_t hi = std::max<std::ptrdiff_t>(t.ub(), t.true_lb() + t.true_extent()) +
                              std::max<std::ptrdiff_t>(0, (static_cast<std::ptrdiff_t>(count) - 1) * t.extent());
    origin = -lo + 16;
    bytes.assign(static_cast<std::size_t>(hi - lo + 32), 0);
    if (fill)
      for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 3);
  }
  char* at() { return bytes.data() + origin; }
};

// Checks pack against the reference, chunked pack against whole pack, and unpack as the inverse.
void check_round_trip(const DatatypeRef& t, std::size_t count) {
  Buffer src(*t, count, true);
  std::vector<char> expected;
  for (std::size_t i = 0; i < count; ++i)
    reference_pack(*t, src.at() + static_cast<std::ptrdiff_t>(i) * t->extent(), expected);
  REQUIRE(expected.size() == count * t->size());

  std::vector<char> packed(expected.size() + 8, 0);
  REQUIRE(t->pack(src.at(), count, 0, packed.data(), packed.size()) == expected.size());
  REQUIRE(std::memcmp(packed.data(), expected.data(), expected.size()) == 0);

  for (std::size_t chunk : {1u, 3u, 7u, 64u}) {
    std::vector<char> chunked(expected.size(), 0);
    std::size_t off = 0;
    while (off < expected.size()) {
      const std::size_t n = t->pack(src.at(), count, off, chunked.data() + off, chunk);
      REQUIRE(n > 0);
      off += n;
    }
    REQUIRE(chunked == expected);
    // Chunked unpack into a zeroed buffer, then re-pack: must give the same stream.
    Buffer dst(*t, count, false);
    off = 0;
    while (off < expected.size()) {
      const std::size_t n = std::min(chunk, expected.size() - off);
      REQUIRE(t->unpack(expected.data() + off, n, off, dst.at(), count) == n);
      off += n;
    }
    std::vector<char> repacked;
    for (std::size_t i = 0; i < count; ++i)
      reference_pack(*t, dst.at() + static_cast<std::ptrdiff_t>(i) * t->extent(), repacked);
    REQUIRE(repacked == expected);
  }
  // Past the end of the stream nothing moves.
  REQUIRE(t->pack(src.at(), count, expected.size(), packed.data(), 8) == 0);
}

}  // namespace

TEST_CASE("predefined types: sizes, extents, names, layouts", "[datatype]") {
  CHECK(T(MPI_INT)->size() == 4);
  CHECK(T(MPI_INT)->name == "MPI_INT");
  CHECK(T(MPI_LONG_LONG)->name == "MPI_LONG_LONG_INT");
  CHECK(T(MPI_DOUBLE)->element_type() == ElementType::f64);
  CHECK(T(MPI_CHAR)->element_type() == ElementType::none);
  CHECK(T(MPIX_C_FLOAT16)->size() == 2);
  CHECK(T(MPIX_BFLOAT16)->size() == 2);
  CHECK(T(MPI_C_LONG_DOUBLE_COMPLEX)->size() == sizeof(long double) * 2);
  CHECK(T(MPI_COUNT)->size() == 8);
  CHECK(T(MPI_C_BOOL)->element_type() == ElementType::boolean);
  for (MPI_Datatype h : {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
                         MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_FLOAT,
                         MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_PACKED,
                         MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
                         MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                         MPI_C_LONG_DOUBLE_COMPLEX, MPIX_C_FLOAT16, MPIX_BFLOAT16, MPI_AINT, MPI_OFFSET,
                         MPI_COUNT, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
                         MPI_CXX_LONG_DOUBLE_COMPLEX}) {
    auto t = T(h);
    CHECK(t->builtin());
    CHECK(t->is_contiguous());
    CHECK(t->handle == h);
    // MPICH-ABI handles carry the size in bits 8..15.
    CHECK(t->size() == ((static_cast<unsigned>(h) >> 8) & 0xffu));
    CHECK(t->name.rfind("MPI", 0) == 0);
  }
  CHECK_FALSE(builtin_datatype(MPI_DATATYPE_NULL));
  CHECK_FALSE(builtin_datatype(static_cast<MPI_Datatype>(0x4c0004ff)));
  CHECK_FALSE(builtin_datatype(static_cast<MPI_Datatype>(0x8c000007)));
}

TEST_CASE("pair types have their C struct layout", "[datatype]") {
  auto ldi = T(MPI_LONG_DOUBLE_INT);
  CHECK(ldi->size() == sizeof(long double) + 4);
  CHECK(ldi->extent() == 32);
  CHECK(blocks_of(ldi) == Blocks{{0, sizeof(long double) + 4}});
  auto si = T(MPI_SHORT_INT);
  CHECK(si->size() == 6);
  CHECK(si->extent() == 8);
  CHECK(blocks_of(si) == Blocks{{0, 2}, {4, 4}});
  CHECK_FALSE(si->is_contiguous());
  auto di = T(MPI_DOUBLE_INT);
  CHECK(di->size() == 12);
  CHECK(di->extent() == 16);
  CHECK_FALSE(di->is_contiguous());
  CHECK(T(MPI_FLOAT_INT)->is_contiguous());
  CHECK(T(MPI_2INT)->element_type() == ElementType::int_int);
  check_round_trip(si, 5);
  check_round_trip(di, 3);
}

TEST_CASE("contiguous merges into one block", "[datatype]") {
  auto t = make_contiguous(4, T(MPI_INT));
  CHECK(t->size() == 16);
  CHECK(t->extent() == 16);
  CHECK(t->is_contiguous());
  CHECK(blocks_of(t) == Blocks{{0, 16}});
  CHECK(t->element_type() == ElementType::i32);
  CHECK_FALSE(t->committed());
  t->mark_committed();
  CHECK(t->committed());
  check_round_trip(t, 3);
  // Large counts: 2^32 bytes per element, no overflow and no per-byte work.
  auto big = make_contiguous(1u << 20, make_contiguous(1u << 12, T(MPI_BYTE)));
  CHECK(big->size() == (std::size_t{1} << 32));
  CHECK(big->extent() == (MPI_Aint{1} << 32));
  CHECK(big->blocks().size() == 1);
}

TEST_CASE("vector and hvector", "[datatype]") {
  auto v = make_vector(3, 2, 4, T(MPI_INT));
  CHECK(blocks_of(v) == Blocks{{0, 8}, {16, 8}, {32, 8}});
  CHECK(v->size() == 24);
  CHECK(v->lb() == 0);
  CHECK(v->extent() == 40);
  CHECK(v->true_extent() == 40);
  CHECK_FALSE(v->is_contiguous());
  CHECK(v->element_type() == ElementType::i32);
  check_round_trip(v, 4);

  auto dense = make_vector(5, 2, 2, T(MPI_DOUBLE));
  CHECK(blocks_of(dense) == Blocks{{0, 80}});
  CHECK(dense->is_contiguous());

  auto neg = make_vector(3, 1, -2, T(MPI_INT));
  CHECK(blocks_of(neg) == Blocks{{0, 4}, {-8, 4}, {-16, 4}});
  CHECK(neg->lb() == -16);
  CHECK(neg->extent() == 20);
  CHECK(neg->true_lb() == -16);
  check_round_trip(neg, 3);

  auto hv = make_hvector(2, 3, 13, T(MPI_CHAR));
  CHECK(blocks_of(hv) == Blocks{{0, 3}, {13, 3}});
  CHECK(hv->extent() == 16);
  check_round_trip(hv, 5);

  auto nested = make_vector(2, 1, 3, v);  // vector of vectors
  CHECK(nested->size() == 48);
  CHECK(nested->blocks().size() == 6);
  check_round_trip(nested, 2);
}

TEST_CASE("indexed, hindexed, indexed_block, hindexed_block", "[datatype]") {
  const int lens[] = {2, 1};
  const int displs[] = {3, 0};
  auto ix = make_indexed(lens, displs, T(MPI_INT));
  CHECK(blocks_of(ix) == Blocks{{12, 8}, {0, 4}});  // type-map order is kept
  CHECK(ix->lb() == 0);
  CHECK(ix->extent() == 20);
  check_round_trip(ix, 3);

  const MPI_Aint hdispls[] = {-8, 4};
  auto hix = make_hindexed(lens, hdispls, T(MPI_INT));
  CHECK(blocks_of(hix) == Blocks{{-8, 8}, {4, 4}});
  CHECK(hix->lb() == -8);
  CHECK(hix->extent() == 16);
  check_round_trip(hix, 2);

  const int bd[] = {0, 1, 4};
  auto ib = make_indexed_block(1, bd, T(MPI_DOUBLE));
  CHECK(blocks_of(ib) == Blocks{{0, 16}, {32, 8}});
  CHECK(ib->extent() == 40);
  check_round_trip(ib, 3);

  const MPI_Aint hbd[] = {100, 0};
  auto hib = make_hindexed_block(2, hbd, T(MPI_SHORT));
  CHECK(blocks_of(hib) == Blocks{{100, 4}, {0, 4}});
  CHECK(hib->extent() == 104);
  check_round_trip(hib, 2);
}

TEST_CASE("struct: blocks, alignment padding, LB/UB markers", "[datatype]") {
  {
    const int lens[] = {1, 1};
    const MPI_Aint displs[] = {0, 8};
    const DatatypeRef types[] = {T(MPI_CHAR), T(MPI_DOUBLE)};
    auto s = make_struct(lens, displs, types);
    CHECK(blocks_of(s) == Blocks{{0, 1}, {8, 8}});
    CHECK(s->size() == 9);
    CHECK(s->extent() == 16);
    CHECK(s->element_type() == ElementType::none);
    check_round_trip(s, 3);
  }
  {
    const int lens[] = {1, 1};
    const MPI_Aint displs[] = {0, 8};
    const DatatypeRef types[] = {T(MPI_DOUBLE), T(MPI_CHAR)};
    auto s = make_struct(lens, displs, types);
    CHECK(s->extent() == 16);  // 9 rounded up to the double's alignment
    CHECK(s->true_extent() == 9);
    auto d = make_dup(s);
    CHECK(d->extent() == 16);
    CHECK(d->contents().combiner == MPI_COMBINER_DUP);
  }
  {
    const int lens[] = {1, 1};
    const MPI_Aint displs[] = {0, 4};
    const DatatypeRef types[] = {T(MPI_INT), T(MPI_INT)};
    auto s = make_struct(lens, displs, types);
    CHECK(s->is_contiguous());  // no gaps, extent == size
    CHECK(s->element_type() == ElementType::i32);
  }
  {
    // MPI-1 markers: explicit bounds win, and no padding is added after an explicit upper bound.
    const int lens[] = {1, 1, 1};
    const MPI_Aint displs[] = {-4, 0, 20};
    const DatatypeRef types[] = {T(MPI_LB), T(MPI_DOUBLE), T(MPI_UB)};
    auto s = make_struct(lens, displs, types);
    CHECK(s->lb() == -4);
    CHECK(s->extent() == 24);
    CHECK(s->true_lb() == 0);
    CHECK(s->true_extent() == 8);
    CHECK(s->size() == 8);
    CHECK(s->sticky_lb());
    check_round_trip(s, 3);
  }
  {
    // Real C struct { int a; char b; double c[2]; }.
    struct S { int a; char b; double c[2]; };
    const int lens[] = {1, 1, 2};
    const MPI_Aint displs[] = {offsetof(S, a), offsetof(S, b), offsetof(S, c)};
    const DatatypeRef types[] = {T(MPI_INT), T(MPI_CHAR), T(MPI_DOUBLE)};
    auto s = make_struct(lens, displs, types);
    CHECK(s->extent() == static_cast<MPI_Aint>(sizeof(S)));
    CHECK(s->size() == 21);
    CHECK(blocks_of(s) == Blocks{{0, 5}, {8, 16}});
    check_round_trip(s, 4);
  }
}

TEST_CASE("resized types", "[datatype]") {
  auto r = make_resized(T(MPI_INT), -4, 12);
  CHECK(r->lb() == -4);
  CHECK(r->extent() == 12);
  CHECK(r->true_lb() == 0);
  CHECK(r->true_extent() == 4);
  CHECK_FALSE(r->is_contiguous());
  auto c = make_contiguous(2, r);
  CHECK(blocks_of(c) == Blocks{{0, 4}, {12, 4}});
  CHECK(c->lb() == -4);
  CHECK(c->extent() == 24);
  CHECK(c->true_extent() == 16);
  check_round_trip(c, 3);
  // Resizing a struct to its exact size makes it tile memory.
  auto tight = make_resized(T(MPI_FLOAT_INT), 0, 8);
  CHECK(tight->is_contiguous());
  // Shrinking the extent below the size makes elements overlap: still packs in type-map order.
  auto overlap = make_resized(make_contiguous(2, T(MPI_INT)), 0, 4);
  CHECK(blocks_of(make_contiguous(3, overlap)) == Blocks{{0, 8}, {4, 8}, {8, 8}});
}

TEST_CASE("subarray in C and Fortran order", "[datatype]") {
  const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  auto c = make_subarray(sizes, subsizes, starts, MPI_ORDER_C, T(MPI_INT));
  CHECK(blocks_of(c) == Blocks{{28, 12}, {48, 12}});
  CHECK(c->lb() == 0);
  CHECK(c->extent() == 80);
  CHECK(c->true_lb() == 28);
  CHECK(c->true_extent() == 32);
  CHECK(c->size() == 24);
  check_round_trip(c, 2);

  auto f = make_subarray(sizes, subsizes, starts, MPI_ORDER_FORTRAN, T(MPI_INT));
  CHECK(blocks_of(f) == Blocks{{36, 8}, {52, 8}, {68, 8}});
  CHECK(f->extent() == 80);
  check_round_trip(f, 2);

  const int s3[] = {3, 4, 5}, sub3[] = {2, 2, 2}, st3[] = {1, 1, 3};
  auto c3 = make_subarray(s3, sub3, st3, MPI_ORDER_C, T(MPI_DOUBLE));
  CHECK(c3->size() == 64);
  CHECK(c3->extent() == 60 * 8);
  CHECK(c3->blocks().size() == 4);
  CHECK(c3->blocks()[0].offset == (1 * 20 + 1 * 5 + 3) * 8);
  check_round_trip(c3, 2);
  CHECK(c3->contents().combiner == MPI_COMBINER_SUBARRAY);
  CHECK(c3->contents().ints == std::vector<int>{3, 3, 4, 5, 2, 2, 2, 1, 1, 3, MPI_ORDER_C});
}

TEST_CASE("contents for get_envelope / get_contents", "[datatype]") {
  auto v = make_vector(3, 2, 4, T(MPI_INT));
  CHECK(v->contents().combiner == MPI_COMBINER_VECTOR);
  CHECK(v->contents().ints == std::vector<int>{3, 2, 4});
  CHECK(v->contents().aints.empty());
  REQUIRE(v->contents().types.size() == 1);
  CHECK(v->contents().types[0]->handle == MPI_INT);

  auto hv = make_hvector(3, 2, 40, T(MPI_INT));
  CHECK(hv->contents().ints == std::vector<int>{3, 2});
  CHECK(hv->contents().aints == std::vector<MPI_Aint>{40});

  const int lens[] = {1, 2};
  const MPI_Aint displs[] = {0, 8};
  const DatatypeRef types[] = {T(MPI_INT), v};
  auto s = make_struct(lens, displs, types);
  CHECK(s->contents().combiner == MPI_COMBINER_STRUCT);
  CHECK(s->contents().ints == std::vector<int>{2, 1, 2});
  CHECK(s->contents().aints == std::vector<MPI_Aint>{0, 8});
  CHECK(s->contents().types.size() == 2);

  auto r = make_resized(v, -8, 100);
  CHECK(r->contents().combiner == MPI_COMBINER_RESIZED);
  CHECK(r->contents().aints == std::vector<MPI_Aint>{-8, 100});
  CHECK(T(MPI_INT)->contents().combiner == MPI_COMBINER_NAMED);

  const int ib[] = {1, 3};
  auto ibt = make_indexed_block(2, ib, T(MPI_INT));
  CHECK(ibt->contents().ints == std::vector<int>{2, 2, 1, 3});
  auto copy = copy_datatype(*ibt);
  CHECK(copy.get() != ibt.get());
  CHECK(blocks_of(copy) == blocks_of(ibt));
}

TEST_CASE("basic element counting (MPI_Get_elements)", "[datatype]") {
  bool exact = true;
  const int lens[] = {1, 1};
  const MPI_Aint displs[] = {0, 8};
  const DatatypeRef types[] = {T(MPI_INT), T(MPI_DOUBLE)};
  auto s = make_struct(lens, displs, types);
  CHECK(s->basic_count() == 2);
  CHECK(s->count_basic_elements(12 * 3, &exact) == 6);
  CHECK(exact);
  CHECK(s->count_basic_elements(12 + 4, &exact) == 3);
  CHECK(exact);
  CHECK(s->count_basic_elements(6, &exact) == 1);
  CHECK_FALSE(exact);

  exact = true;
  auto pairs = make_contiguous(2, T(MPI_DOUBLE_INT));
  CHECK(pairs->basic_count() == 4);
  CHECK(pairs->count_basic_elements(12 + 8, &exact) == 3);
  CHECK(exact);
  CHECK(T(MPI_INT)->count_basic_elements(12, &exact) == 3);
  auto v = make_vector(2, 3, 5, T(MPI_SHORT));
  CHECK(v->count_basic_elements(12 + 4, &exact) == 8);
  CHECK(exact);
}
