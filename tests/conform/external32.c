/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size (MPI-3.1 4.3, 13.5.2): the exact bytes of
 * "external32" for each kind of basic element (big-endian; MPI_LONG in 4 bytes, MPI_LONG_DOUBLE as an
 * IEEE binary128 of 16), pair and complex types as two parts, derived types walked in type-map order
 * (vector with gaps, struct with padding, resized), round trips, positions that accumulate across calls,
 * and errors under MPI_ERRORS_RETURN: an unknown data representation (MPI_ERR_ARG), an output buffer too
 * small (MPI_ERR_TRUNCATE), an MPI_LONG value beyond 32 bits (MPI_ERR_CONVERSION). Any number of ranks
 * (each checks alone). The exact bytes were validated on MPICH 4.0.2, which otherwise accepts any datarep
 * string, has no external32 form for the pair types and dies (SIGILL) in MPI_Pack_external_size of the
 * vector of structs below. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int rank = -1;

#define CHECK(cond, ...)                                                                              \
  do {                                                                                                \
    if (!(cond)) {                                                                                    \
      fprintf(stderr, "external32: rank %d: %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                                   \
      fprintf(stderr, "\n");                                                                          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                   \
    }                                                                                                 \
  } while (0)

#define MPI_OK(call)                                         \
  do {                                                       \
    int rc_ = (call);                                        \
    CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
  } while (0)

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Packs one element of `type` from `in` and compares with the expected bytes. */
static void expect_bytes(const void* in, MPI_Datatype type, const unsigned char* want, int n, const char* what) {
  unsigned char out[64];
  MPI_Aint size = -1, position = 0;
  memset(out, 0xee, sizeof out);
  MPI_OK(MPI_Pack_external_size("external32", 1, type, &size));
  CHECK(size == n, "%s: external size %ld, expected %d", what, (long)size, n);
  MPI_OK(MPI_Pack_external("external32", in, 1, type, out, sizeof out, &position));
  CHECK(position == n, "%s: position %ld", what, (long)position);
  for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "%s: byte %d is 0x%02x, expected 0x%02x", what, i, out[i], want[i]);
  CHECK(out[n] == 0xee, "%s: wrote past its size", what);
}

static void basic_bytes(void) {
  int i = 0x01020304;
  const unsigned char wi[] = {1, 2, 3, 4};
  expect_bytes(&i, MPI_INT, wi, 4, "MPI_INT");
  short s = -2;
  const unsigned char ws[] = {0xff, 0xfe};
  expect_bytes(&s, MPI_SHORT, ws, 2, "MPI_SHORT");
  long l = -3;
  const unsigned char wl[] = {0xff, 0xff, 0xff, 0xfd};
  expect_bytes(&l, MPI_LONG, wl, 4, "MPI_LONG");
  unsigned long ul = 0x89abcdefUL;
  const unsigned char wul[] = {0x89, 0xab, 0xcd, 0xef};
  expect_bytes(&ul, MPI_UNSIGNED_LONG, wul, 4, "MPI_UNSIGNED_LONG");
  long long ll = 0x0102030405060708LL;
  const unsigned char wll[] = {1, 2, 3, 4, 5, 6, 7, 8};
  expect_bytes(&ll, MPI_LONG_LONG, wll, 8, "MPI_LONG_LONG");
  double d = 1.0;
  const unsigned char wd[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
  expect_bytes(&d, MPI_DOUBLE, wd, 8, "MPI_DOUBLE");
  float f = -2.0f;
  const unsigned char wf[] = {0xc0, 0, 0, 0};
  expect_bytes(&f, MPI_FLOAT, wf, 4, "MPI_FLOAT");
  long double ld = 1.0L;
  const unsigned char wld[16] = {0x3f, 0xff};
  expect_bytes(&ld, MPI_LONG_DOUBLE, wld, 16, "MPI_LONG_DOUBLE 1.0");
  ld = -1.5L;
  const unsigned char wld2[16] = {0xbf, 0xff, 0x80};
  expect_bytes(&ld, MPI_LONG_DOUBLE, wld2, 16, "MPI_LONG_DOUBLE -1.5");
  char c = 'x';
  const unsigned char wc[] = {'x'};
  expect_bytes(&c, MPI_CHAR, wc, 1, "MPI_CHAR");
#ifdef FABMPI /* MPICH 4.0 gives the pair types no external32 size */
  struct { double v; int i; } di = {0.5, 7};
  const unsigned char wdi[] = {0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  expect_bytes(&di, MPI_DOUBLE_INT, wdi, 12, "MPI_DOUBLE_INT");
#endif
  float cx[2] = {1.0f, -1.0f};
  const unsigned char wcx[] = {0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0};
  expect_bytes(cx, MPI_C_FLOAT_COMPLEX, wcx, 8, "MPI_C_FLOAT_COMPLEX");
}

/* A struct with padding inside a vector with gaps, resized: packed size, exact round trip, gaps kept. */
static void derived_round_trip(void) {
  struct rec { char tag; double value; long count; short small; };
  int bl[4] = {1, 1, 1, 1};
  MPI_Aint disp[4] = {offsetof(struct rec, tag), offsetof(struct rec, value), offsetof(struct rec, count),
                      offsetof(struct rec, small)};
  MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT}, rec_type, every_other;
  MPI_OK(MPI_Type_create_struct(4, bl, disp, types, &rec_type));
  MPI_OK(MPI_Type_vector(3, 1, 2, rec_type, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  MPI_Aint size = -1;
  MPI_OK(MPI_Pack_external_size("external32", 2, every_other, &size));
  CHECK(size == 2 * 3 * (1 + 8 + 4 + 2), "vector of struct: external size %ld", (long)size);

  struct rec in[12], out[12];
  memset(in, 0, sizeof in);
  for (int i = 0; i < 12; ++i) {
    in[i].tag = (char)('a' + i);
    in[i].value = i * 1.25 - 3;
    in[i].count = -100000 * i;
    in[i].small = (short)(i - 6);
  }
  unsigned char buf[256];
  MPI_Aint position = 0;
  MPI_OK(MPI_Pack_external("external32", in, 1, every_other, buf, sizeof buf, &position));
  /* The second element follows the first: the vector's extent is 5 records. */
  MPI_OK(MPI_Pack_external("external32", in + 5, 1, every_other, buf, sizeof buf, &position));
  CHECK(position == size, "two packs: position %ld", (long)position);
  memset(out, 0x5a, sizeof out);
  MPI_Aint read = 0;
  MPI_OK(MPI_Unpack_external("external32", buf, position, &read, out, 2, every_other));
  CHECK(read == position, "unpack position %ld", (long)read);
  for (int i = 0; i < 10; ++i) {
    const int covered = i < 5 ? i % 2 == 0 : (i - 5) % 2 == 0;  /* records 0 2 4, then 5 7 9 */
    if (covered) {
      CHECK(out[i].tag == in[i].tag && out[i].value == in[i].value && out[i].count == in[i].count &&
            out[i].small == in[i].small, "record %d differs after the round trip", i);
    } else {
      CHECK(out[i].tag == 0x5a, "record %d (a gap) was written", i);
    }
  }
  /* long double and pairs survive the round trip. */
  long double lds[3] = {3.14159265358979323846L, -0.0L, 1e-4000L};
  long double ldback[3] = {0};
  position = 0;
  MPI_OK(MPI_Pack_external("external32", lds, 3, MPI_LONG_DOUBLE, buf, sizeof buf, &position));
  read = 0;
  MPI_OK(MPI_Unpack_external("external32", buf, position, &read, ldback, 3, MPI_LONG_DOUBLE));
  for (int i = 0; i < 3; ++i) CHECK(ldback[i] == lds[i], "long double %d: %Lg vs %Lg", i, ldback[i], lds[i]);
  MPI_OK(MPI_Type_free(&every_other));
  MPI_OK(MPI_Type_free(&rec_type));
}

static void errors(void) {
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int v[4] = {1, 2, 3, 4};
  unsigned char buf[16];
  MPI_Aint position = 0, size = 0;
  int rc = MPI_Pack_external("native", v, 1, MPI_INT, buf, sizeof buf, &position);
  CHECK(error_class(rc) == MPI_ERR_ARG, "datarep \"native\": class %d", error_class(rc));
  rc = MPI_Pack_external_size("external64", 1, MPI_INT, &size);
  CHECK(error_class(rc) == MPI_ERR_ARG, "datarep \"external64\": class %d", error_class(rc));
  position = 10;
  rc = MPI_Pack_external("external32", v, 2, MPI_INT, buf, sizeof buf, &position);
  CHECK(error_class(rc) == MPI_ERR_TRUNCATE && position == 10, "too small: class %d position %ld", error_class(rc),
        (long)position);
  position = 0;
  rc = MPI_Unpack_external("external32", buf, 4, &position, v, 2, MPI_INT);
  CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "unpack past insize: class %d", error_class(rc));
#ifdef FABMPI /* MPICH truncates silently */
  if (sizeof(long) > 4) {
    long big = 1L << 40;
    position = 0;
    rc = MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, sizeof buf, &position);
    CHECK(error_class(rc) == MPI_ERR_CONVERSION, "MPI_LONG 2^40: class %d", error_class(rc));
  }
#endif
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  basic_bytes();
  derived_round_trip();
  errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("external32: OK\n");
  MPI_Finalize();
  return 0;
}
