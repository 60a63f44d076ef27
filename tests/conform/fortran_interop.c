/* MPI-3.1 section 17.2 from C: status conversion (MPI_Status_c2f / MPI_Status_f2c, MPI_F_SOURCE / MPI_F_TAG /
 * MPI_F_ERROR indices, MPI_F_STATUS_IGNORE), handle conversion round trips for every handle kind (windows,
 * files and sessions included), and the Fortran 90 parameterized types:
 *   MPI_Type_create_f90_real / _complex / _integer pick the smallest type with the requested precision and
 *   range (sizes 4 / 8 real, 8 / 16 complex, 1 / 2 / 4 / 8 integer), return the same handle for the same
 *   arguments, report their combiner and parameters through MPI_Type_get_envelope / _get_contents, cannot be
 *   freed (MPI_ERR_TYPE), carry data and reductions, and refuse what no type can hold (MPI_ERR_ARG).
 * Any number of ranks. Self-contained: builds with any MPI-3.1 mpicc (MPI_Session needs MPI-4); validated on
 * MPICH 4.0.2 and Open MPI 4.1.4 (checks marked FABMPI or MPICH_VERSION are where the standard leaves the
 * behaviour to the implementation). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank = -1, size = 0;

#define CHECK(cond, ...)                                                                                        \
  do {                                                                                                          \
    if (!(cond)) {                                                                                              \
      fprintf(stderr, "fortran_interop: rank %d: %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                                             \
      fprintf(stderr, "\n");                                                                                    \
      fflush(stderr);                                                                                           \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                             \
    }                                                                                                           \
  } while (0)

#define MPI_OK(call)                                         \
  do {                                                       \
    int rc_ = (call);                                        \
    CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
  } while (0)

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static void statuses(void) {
  int value = rank, got = -1;
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(&value, 1, MPI_INT, 0, 17, &got, 1, MPI_INT, 0, 17, MPI_COMM_SELF, &st));
  MPI_Fint f[16];  /* at least MPI_F_STATUS_SIZE */
  MPI_OK(MPI_Status_c2f(&st, f));
#ifdef MPI_F_SOURCE  /* Open MPI 4.1's C header lacks the MPI-3.1 index constants */
  CHECK(MPI_F_STATUS_SIZE <= 16, "MPI_F_STATUS_SIZE %d", MPI_F_STATUS_SIZE);
  CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 17 && f[MPI_F_ERROR] == st.MPI_ERROR, "fortran status %d %d %d",
        (int)f[MPI_F_SOURCE], (int)f[MPI_F_TAG], (int)f[MPI_F_ERROR]);
#endif
  MPI_Status back;
  memset(&back, 0x5a, sizeof back);
  MPI_OK(MPI_Status_f2c(f, &back));
  int count = -1;
  MPI_OK(MPI_Get_count(&back, MPI_INT, &count));
  CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 17 && count == 1, "round trip: source %d tag %d count %d",
        back.MPI_SOURCE, back.MPI_TAG, count);
#ifdef FABMPI  /* the values are the implementation's (MPICH's are null); converting an ignore is erroneous */
  CHECK(MPI_F_STATUS_IGNORE != NULL && MPI_F_STATUSES_IGNORE != NULL && MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE,
        "MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE are distinct addresses");
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f)) == MPI_ERR_ARG, "converting MPI_STATUS_IGNORE");
  CHECK(error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back)) == MPI_ERR_ARG, "converting MPI_F_STATUS_IGNORE");
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#endif
}

static void handles(void) {
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(comm)) == comm, "communicator");
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Win win;
  int cell = 0;
  MPI_OK(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, comm, &win));
  CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "window");
  CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL");
  MPI_OK(MPI_Win_free(&win));
  MPI_File file;
  MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_RDONLY, MPI_INFO_NULL, &file));
  const MPI_Fint f = MPI_File_c2f(file);
  CHECK(MPI_File_f2c(f) == file, "file");
  MPI_Offset bytes = -1;
  MPI_OK(MPI_File_get_size(MPI_File_f2c(f), &bytes));  /* the converted handle works */
  CHECK(bytes == 0, "size of /dev/null %lld", (long long)bytes);
  MPI_OK(MPI_File_close(&file));
  CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL");
#if MPI_VERSION >= 4 || defined(FABMPI)
  MPI_Session session;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  CHECK(MPI_Session_f2c(MPI_Session_c2f(session)) == session, "session");
  MPI_OK(MPI_Session_finalize(&session));
#endif
  MPI_Request req;
  MPI_OK(MPI_Recv_init(&cell, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &req));
  CHECK(MPI_Request_f2c(MPI_Request_c2f(req)) == req, "request");
  MPI_OK(MPI_Request_free(&req));
  MPI_OK(MPI_Comm_free(&comm));
}

static void check_f90(MPI_Datatype t, int combiner, int p, int r, int nints, int expect_size) {
  int size_bytes = -1;
  MPI_OK(MPI_Type_size(t, &size_bytes));
  CHECK(size_bytes == expect_size, "combiner %d (%d, %d): size %d, expected %d", combiner, p, r, size_bytes, expect_size);
  int ni, na, nd, c;
  MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &c));
  CHECK(c == combiner && ni == nints && na == 0 && nd == 0, "envelope %d %d %d %d", ni, na, nd, c);
  int ints[2] = {-9, -9};
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
  if (nints == 2) CHECK(ints[0] == p && ints[1] == r, "contents %d %d", ints[0], ints[1]);
  else CHECK(ints[0] == r, "contents %d", ints[0]);
}

static void f90_types(void) {
  MPI_Datatype single, single2, dbl, csingle, cdbl, any_range, ints[4];
  MPI_OK(MPI_Type_create_f90_real(6, 30, &single));
  MPI_OK(MPI_Type_create_f90_real(6, 30, &single2));
  CHECK(single == single2, "the same (p, r) gives the same handle");
  MPI_OK(MPI_Type_create_f90_real(15, 300, &dbl));
  MPI_OK(MPI_Type_create_f90_complex(6, 30, &csingle));
  MPI_OK(MPI_Type_create_f90_complex(15, 300, &cdbl));
  MPI_OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &any_range));
  check_f90(single, MPI_COMBINER_F90_REAL, 6, 30, 2, 4);
  check_f90(dbl, MPI_COMBINER_F90_REAL, 15, 300, 2, 8);
  check_f90(csingle, MPI_COMBINER_F90_COMPLEX, 6, 30, 2, 8);
  check_f90(cdbl, MPI_COMBINER_F90_COMPLEX, 15, 300, 2, 16);
  check_f90(any_range, MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 300, 2, 8);
  const int ranges[4] = {2, 4, 9, 18}, sizes[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; ++i) {
    MPI_OK(MPI_Type_create_f90_integer(ranges[i], &ints[i]));
    check_f90(ints[i], MPI_COMBINER_F90_INTEGER, 0, ranges[i], 1, sizes[i]);
  }

  /* Data and a reduction through them. */
  double in[3] = {1.5 * rank, 2.0, -1.0}, out[3] = {0, 0, 0};
  MPI_OK(MPI_Allreduce(in, out, 3, dbl, MPI_SUM, MPI_COMM_WORLD));
  const double n = size;
  CHECK(out[0] == 1.5 * n * (n - 1) / 2 && out[1] == 2.0 * n && out[2] == -n, "allreduce over MPI_REAL8: %g %g %g",
        out[0], out[1], out[2]);
  long long big = (long long)rank << 40, big_out = 0;
  MPI_OK(MPI_Allreduce(&big, &big_out, 1, ints[3], MPI_MAX, MPI_COMM_WORLD));
  CHECK(big_out == (long long)(size - 1) << 40, "allreduce over MPI_INTEGER8: %lld", big_out);
  float f = 0.25f * rank, got = -1;
  MPI_OK(MPI_Sendrecv(&f, 1, single, 0, 0, &got, 1, single, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK(got == f, "MPI_REAL4 round trip %g", got);

  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype t = single;
#ifdef FABMPI  /* freeing one is erroneous (MPI-3.1 17.2.5); MPICH does not notice */
  CHECK(error_class(MPI_Type_free(&t)) == MPI_ERR_TYPE && t == single, "an f90 type cannot be freed");
#endif
  /* No such type: an invalid argument, and no type (Open MPI agrees; MPICH 4.0.2 says MPI_ERR_OTHER). */
#ifdef MPICH_VERSION
#define NO_SUCH_TYPE(cls) ((cls) == MPI_ERR_ARG || (cls) == MPI_ERR_OTHER)
#else
#define NO_SUCH_TYPE(cls) ((cls) == MPI_ERR_ARG)
#endif
  CHECK(NO_SUCH_TYPE(error_class(MPI_Type_create_f90_real(40, 30, &t))), "precision 40");
  CHECK(NO_SUCH_TYPE(error_class(MPI_Type_create_f90_real(6, 5000, &t))), "range 5000");
  CHECK(NO_SUCH_TYPE(error_class(MPI_Type_create_f90_integer(19, &t))), "integer range 19");
#ifdef FABMPI
  CHECK(t == MPI_DATATYPE_NULL, "a failed MPI_Type_create_f90_* returns MPI_DATATYPE_NULL");
#endif
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Fortran's named types from C: sizes and names, data, and the reductions the standard defines on them
 * (MPI-3.1 5.9.2: integer, floating point, complex, logical; MAXLOC / MINLOC on MPI_2REAL,
 * MPI_2DOUBLE_PRECISION, MPI_2INTEGER, whose index has the value's type). */
static void named_fortran_types(void) {
  struct { MPI_Datatype t; int size; const char* name; } named[] = {
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},       {MPI_INTEGER, 4, "MPI_INTEGER"},
      {MPI_REAL, 4, "MPI_REAL"},                 {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"}, {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"}, {MPI_2INTEGER, 8, "MPI_2INTEGER"},
      {MPI_2REAL, 8, "MPI_2REAL"},               {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"},
      {MPI_INTEGER1, 1, "MPI_INTEGER1"},         {MPI_INTEGER2, 2, "MPI_INTEGER2"},
      {MPI_INTEGER4, 4, "MPI_INTEGER4"},         {MPI_INTEGER8, 8, "MPI_INTEGER8"},
      {MPI_REAL4, 4, "MPI_REAL4"},               {MPI_REAL8, 8, "MPI_REAL8"},
      {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},         {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
  };
  for (size_t i = 0; i < sizeof named / sizeof named[0]; ++i) {
    int sz = -1, len = 0, ni, na, nt, comb;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_OK(MPI_Type_size(named[i].t, &sz));
    MPI_OK(MPI_Type_get_name(named[i].t, name, &len));
    MPI_OK(MPI_Type_get_envelope(named[i].t, &ni, &na, &nt, &comb));
    CHECK(sz == named[i].size, "%s size %d", named[i].name, sz);
    CHECK(strcmp(name, named[i].name) == 0, "name '%s', expected %s", name, named[i].name);
    CHECK(comb == MPI_COMBINER_NAMED, "%s combiner %d", named[i].name, comb);
  }

  int ints[3] = {rank + 1, 2 * rank, -rank}, isum[3];
  MPI_OK(MPI_Allreduce(ints, isum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
  CHECK(isum[0] == size * (size + 1) / 2 && isum[1] == size * (size - 1) && isum[2] == -size * (size - 1) / 2,
        "MPI_INTEGER sum %d %d %d", isum[0], isum[1], isum[2]);
  double dp = 0.5 * rank, dmax = -1;
  MPI_OK(MPI_Allreduce(&dp, &dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD));
  CHECK(dmax == 0.5 * (size - 1), "MPI_DOUBLE_PRECISION max %g", dmax);
  float cx[2] = {1.0f, (float)rank}, csum[2];  /* COMPLEX (re, im) */
  MPI_OK(MPI_Allreduce(cx, csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK(csum[0] == (float)size && csum[1] == (float)(size * (size - 1) / 2), "MPI_COMPLEX sum (%g, %g)", csum[0],
        csum[1]);

  /* LOGICAL: .TRUE. is any nonzero value (one rank's input comes back as it is, so compare truth values).
   * Rank 0 alone is .TRUE. in l[0]; all are in l[1]. */
  int l[3] = {rank == 0 ? 7 : 0, 5, 0}, land[3], lor[3];
  MPI_OK(MPI_Allreduce(l, land, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
  MPI_OK(MPI_Allreduce(l, lor, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
  CHECK(!!land[0] == (size == 1) && land[1] && !land[2], "LOGICAL land %d %d %d", land[0], land[1], land[2]);
  CHECK(lor[0] && lor[1] && !lor[2], "LOGICAL lor %d %d %d", lor[0], lor[1], lor[2]);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rc = MPI_Allreduce(l, land, 3, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD);
  CHECK(error_class(rc) == MPI_ERR_OP, "MPI_SUM on MPI_LOGICAL: class %d", error_class(rc));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* MAXLOC / MINLOC on the Fortran pairs: value and index of the value's type; ties keep the lower index.
   * Values: rank % 2 (so ranks 0 and 1 hold the minimum and maximum first). */
  float r2[2] = {(float)(rank % 2), (float)rank}, r2max[2];
  MPI_OK(MPI_Allreduce(r2, r2max, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(r2max[0] == (size > 1 ? 1.0f : 0.0f) && r2max[1] == (size > 1 ? 1.0f : 0.0f), "MPI_2REAL maxloc (%g, %g)",
        r2max[0], r2max[1]);
  double d2[2] = {(double)(rank % 2), (double)rank}, d2min[2];
  MPI_OK(MPI_Allreduce(d2, d2min, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(d2min[0] == 0.0 && d2min[1] == 0.0, "MPI_2DOUBLE_PRECISION minloc (%g, %g)", d2min[0], d2min[1]);
  int i2[2] = {size - rank, rank}, i2max[2];
  MPI_OK(MPI_Allreduce(i2, i2max, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(i2max[0] == size && i2max[1] == 0, "MPI_2INTEGER maxloc (%d, %d)", i2max[0], i2max[1]);

  /* CHARACTER data around a ring. */
  char text[8] = "abcdefg", got[8] = "";
  text[0] = (char)('A' + rank % 26);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_OK(MPI_Sendrecv(text, 8, MPI_CHARACTER, right, 9, got, 8, MPI_CHARACTER, left, 9, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
  CHECK(got[0] == (char)('A' + left % 26) && strcmp(got + 1, "bcdefg") == 0, "CHARACTER ring '%s'", got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  statuses();
  handles();
  f90_types();
  named_fortran_types();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("fortran_interop: OK (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
