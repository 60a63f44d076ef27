/* The MPI-1 functions MPI-3.0 removed, as MPICH still provides them and legacy codes (MPICH's own test
 * suite among them) call them: MPI_Address, MPI_Type_extent / _lb / _ub (bounds including MPI_LB / MPI_UB
 * markers and resized types), MPI_Type_hvector / _hindexed / _struct (same type maps as their
 * MPI_Type_create_* replacements, data carried between ranks), MPI_Errhandler_create / _set / _get (a user
 * handler called with the error code). Also the handle conversions as functions (PMPI_Comm_c2f & co.; the
 * MPI_ names may be macros) and MPI_Comm_idup_with_info (the new communicator carries the given hints).
 * Any number of ranks. Self-contained; validated on MPICH 4.0.2 (Open MPI 4.1 drops the removed
 * functions unless built with --enable-mpi1-compatibility). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank = -1, size = 0;

#define CHECK(cond, ...)                                                                                 \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      fprintf(stderr, "legacy: rank %d: %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                                                      \
      fprintf(stderr, "\n");                                                                             \
      fflush(stderr);                                                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                      \
    }                                                                                                    \
  } while (0)

#define MPI_OK(call)                                         \
  do {                                                       \
    int rc_ = (call);                                        \
    CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
  } while (0)

static void bounds(void) {
  double d[4];
  MPI_Aint a0 = 0, a1 = 0, ext = -1, lb = -1, ub = -1;
  MPI_OK(MPI_Address(&d[0], &a0));
  MPI_OK(MPI_Address(&d[3], &a1));
  CHECK(a1 - a0 == 3 * (MPI_Aint)sizeof(double), "MPI_Address difference %ld", (long)(a1 - a0));

  MPI_OK(MPI_Type_extent(MPI_DOUBLE, &ext));
  MPI_OK(MPI_Type_lb(MPI_DOUBLE, &lb));
  MPI_OK(MPI_Type_ub(MPI_DOUBLE, &ub));
  CHECK(ext == 8 && lb == 0 && ub == 8, "MPI_DOUBLE extent %ld lb %ld ub %ld", (long)ext, (long)lb, (long)ub);

  /* A resized type: lb -4, extent 20 -> ub 16. */
  MPI_Datatype resized;
  MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 20, &resized));
  MPI_OK(MPI_Type_extent(resized, &ext));
  MPI_OK(MPI_Type_lb(resized, &lb));
  MPI_OK(MPI_Type_ub(resized, &ub));
  CHECK(ext == 20 && lb == -4 && ub == 16, "resized extent %ld lb %ld ub %ld", (long)ext, (long)lb, (long)ub);
  MPI_OK(MPI_Type_free(&resized));

  /* MPI_Type_struct with the MPI-1 markers: { LB at -8, int at 0, UB at 24 }. */
  int blocklens[3] = {1, 1, 1};
  MPI_Aint displs[3] = {-8, 0, 24};
  MPI_Datatype types[3] = {MPI_LB, MPI_INT, MPI_UB}, marked;
  MPI_OK(MPI_Type_struct(3, blocklens, displs, types, &marked));
  MPI_OK(MPI_Type_extent(marked, &ext));
  MPI_OK(MPI_Type_lb(marked, &lb));
  MPI_OK(MPI_Type_ub(marked, &ub));
  CHECK(ext == 32 && lb == -8 && ub == 24, "marked struct extent %ld lb %ld ub %ld", (long)ext, (long)lb, (long)ub);
  int tsize = -1;
  MPI_OK(MPI_Type_size(marked, &tsize));
  CHECK(tsize == (int)sizeof(int), "marked struct size %d", tsize);
  MPI_OK(MPI_Type_free(&marked));

  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Type_extent(MPI_DATATYPE_NULL, &ext);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TYPE, "MPI_Type_extent(MPI_DATATYPE_NULL) class %d", cls);
  rc = MPI_Type_ub(MPI_INT, NULL);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "MPI_Type_ub(MPI_INT, NULL) rc %d class %d", rc, cls);
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Same type maps as the MPI-2 constructors: compare envelopes and move data around a ring. */
static void constructors(void) {
  enum { N = 6 };
  MPI_Datatype hv, hv2, hi, hi2, st, st2;
  MPI_OK(MPI_Type_hvector(3, 2, 4 * sizeof(int), MPI_INT, &hv));
  MPI_OK(MPI_Type_create_hvector(3, 2, 4 * sizeof(int), MPI_INT, &hv2));
  int bl[3] = {1, 2, 1};
  MPI_Aint hd[3] = {0, 3 * sizeof(int), 8 * sizeof(int)};
  MPI_OK(MPI_Type_hindexed(3, bl, hd, MPI_INT, &hi));
  MPI_OK(MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &hi2));
  struct item { int a; double b; char c; } it;
  int sbl[3] = {1, 1, 1};
  MPI_Aint sd[3], base;
  MPI_Get_address(&it, &base);
  MPI_Get_address(&it.a, &sd[0]);
  MPI_Get_address(&it.b, &sd[1]);
  MPI_Get_address(&it.c, &sd[2]);
  for (int i = 0; i < 3; ++i) sd[i] -= base;
  MPI_Datatype stypes[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_OK(MPI_Type_struct(3, sbl, sd, stypes, &st));
  MPI_OK(MPI_Type_create_struct(3, sbl, sd, stypes, &st2));

  MPI_Datatype olds[3] = {hv, hi, st}, news[3] = {hv2, hi2, st2};
  for (int k = 0; k < 3; ++k) {
    int ni[2], na[2], nt[2], comb[2];
    MPI_OK(MPI_Type_get_envelope(olds[k], &ni[0], &na[0], &nt[0], &comb[0]));
    MPI_OK(MPI_Type_get_envelope(news[k], &ni[1], &na[1], &nt[1], &comb[1]));
    CHECK(ni[0] == ni[1] && na[0] == na[1] && nt[0] == nt[1], "type %d envelope (%d %d %d) vs (%d %d %d)", k,
          ni[0], na[0], nt[0], ni[1], na[1], nt[1]);
    MPI_Aint e0, e1, l0, l1;
    MPI_OK(MPI_Type_get_extent(olds[k], &l0, &e0));
    MPI_OK(MPI_Type_get_extent(news[k], &l1, &e1));
    CHECK(e0 == e1 && l0 == l1, "type %d bounds (%ld %ld) vs (%ld %ld)", k, (long)l0, (long)e0, (long)l1, (long)e1);
    MPI_OK(MPI_Type_free(&news[k]));
  }
  MPI_OK(MPI_Type_commit(&hv));
  MPI_OK(MPI_Type_commit(&hi));
  MPI_OK(MPI_Type_commit(&st));

  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int src[16], dst[16];
  for (int i = 0; i < 16; ++i) { src[i] = 1000 * rank + i; dst[i] = -1; }
  MPI_OK(MPI_Sendrecv(src, 1, hv, right, 1, dst, 1, hv, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 16; ++i) {
    const int in = i < 12 && (i % 4) < 2;  /* blocks of 2 at stride 4, 3 of them */
    CHECK(dst[i] == (in ? 1000 * left + i : -1), "hvector element %d = %d", i, dst[i]);
  }
  for (int i = 0; i < 16; ++i) dst[i] = -1;
  MPI_OK(MPI_Sendrecv(src, 1, hi, right, 2, dst, 1, hi, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 16; ++i) {
    const int in = i == 0 || i == 3 || i == 4 || i == 8;
    CHECK(dst[i] == (in ? 1000 * left + i : -1), "hindexed element %d = %d", i, dst[i]);
  }
  struct item out = {rank, rank + 0.5, (char)('a' + rank % 26)}, got = {-1, -1.0, 0};
  MPI_OK(MPI_Sendrecv(&out, 1, st, right, 3, &got, 1, st, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got.a == left && got.b == left + 0.5 && got.c == (char)('a' + left % 26), "struct {%d %g %c}", got.a, got.b,
        got.c);
  MPI_OK(MPI_Type_free(&hv));
  MPI_OK(MPI_Type_free(&hi));
  MPI_OK(MPI_Type_free(&st));
}

static int handler_calls = 0, handler_code = 0;
static void count_errors(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  ++handler_calls;
  handler_code = *code;
}

static void errhandlers(void) {
  MPI_Errhandler eh, got;
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Errhandler_create(count_errors, &eh));
  MPI_OK(MPI_Errhandler_set(dup, eh));
  MPI_OK(MPI_Errhandler_get(dup, &got));
  CHECK(got == eh, "MPI_Errhandler_get gave another handler");
  MPI_OK(MPI_Errhandler_free(&got));
  int one = 1;
  int rc = MPI_Send(&one, 1, MPI_INT, size + 5, 0, dup);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(handler_calls == 1 && handler_code == rc && cls == MPI_ERR_RANK, "handler calls %d code %d rc %d class %d",
        handler_calls, handler_code, rc, cls);
  MPI_OK(MPI_Errhandler_free(&eh));
  MPI_OK(MPI_Comm_free(&dup));
}

static void conversions(void) {
  CHECK(PMPI_Comm_f2c(PMPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "PMPI comm round trip");
#ifdef FABMPI  /* MPICH has the MPI_ names as macros only */
  CHECK((MPI_Comm_f2c)((MPI_Comm_c2f)(MPI_COMM_SELF)) == MPI_COMM_SELF, "function comm round trip");
#endif
  CHECK(PMPI_Type_f2c(PMPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "PMPI type round trip");
  CHECK(PMPI_Group_f2c(PMPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "PMPI group round trip");
  CHECK(PMPI_Op_f2c(PMPI_Op_c2f(MPI_SUM)) == MPI_SUM, "PMPI op round trip");
  CHECK(PMPI_Info_f2c(PMPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "PMPI info round trip");
  CHECK(PMPI_Errhandler_f2c(PMPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "PMPI errhandler");
  CHECK(PMPI_Request_f2c(PMPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "PMPI request round trip");
  CHECK(PMPI_Message_f2c(PMPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "PMPI message");
  CHECK(PMPI_Win_f2c(PMPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "PMPI win round trip");
  MPI_Request req;
  int value = rank, got = -1;
  MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
  MPI_Fint freq = PMPI_Request_c2f(req);
  MPI_Request back = PMPI_Request_f2c(freq);
  MPI_OK(MPI_Wait(&back, MPI_STATUS_IGNORE));
  (void)value;
}

static void idup_with_info(void) {
  MPI_Info info, seen;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm dup;
  MPI_Request req;
  MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup, &req));
  MPI_OK(MPI_Info_free(&info));  /* the call copied what it needs */
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int result = -1;
  MPI_OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT, "compare %d", result);
  MPI_OK(MPI_Comm_get_info(dup, &seen));
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_OK(MPI_Info_get(seen, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "true") == 0, "hint on the idup'd communicator: flag %d value '%s'", flag, value);
  MPI_OK(MPI_Info_free(&seen));
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
  CHECK(sum == size * (size - 1) / 2, "allreduce over the new communicator %d", sum);
  MPI_OK(MPI_Comm_free(&dup));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bounds();
  constructors();
  errhandlers();
  conversions();
  idup_with_info();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("legacy: OK (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
