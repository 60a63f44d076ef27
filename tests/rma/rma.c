/* One-sided communication (MPI-3.1 chapter 11), at any number of processes (1 included).
 *
 * Covered, each with the values checked:
 *  - creation: MPI_Win_create over a user buffer with disp_unit 1, 4 and 8 (size 0 on the odd ranks
 *    with disp_unit 4; size 0 and base NULL everywhere), MPI_Win_allocate (the returned base is
 *    usable; size 0 on rank 0), the attributes MPI_WIN_BASE (windows of nonzero size) / MPI_WIN_SIZE /
 *    MPI_WIN_DISP_UNIT / MPI_WIN_CREATE_FLAVOR (CREATE, ALLOCATE) / MPI_WIN_MODEL (SEPARATE or
 *    UNIFIED), the scaling of target displacements by disp_unit, MPI_Win_get_group (MPI_IDENT to the
 *    communicator's group), the window name (empty until set, set / get / set again), windows over a
 *    split of WORLD (reversed keys) and over MPI_COMM_SELF (fence and lock epochs), and MPI_Win_free
 *    setting MPI_WIN_NULL;
 *  - fence epochs: every rank puts its rank into its slot of every window; Get of a neighbour's data;
 *    Accumulate from every rank into rank 0 (MPI_SUM, MPI_MAX on MPI_INT; MPI_BOR, MPI_SUM on MPI_LONG;
 *    MPI_PROD, MPI_MAX, MPI_SUM on MPI_DOUBLE; MPI_REPLACE from one rank); several operations to one
 *    target at different displacements in one epoch; count 0 operations; MPI_PROC_NULL targets; the
 *    first fence with MPI_MODE_NOPRECEDE and the last with MPI_MODE_NOSUCCEED;
 *  - derived datatypes: MPI_Type_vector on the origin and target sides, an indexed target type and a
 *    target count of 2, for Put, Get and Accumulate (the untouched elements are checked too);
 *  - a 1 MiB Put and Get in fence epochs, and a 512 KiB Get at a byte displacement under lock_all;
 *  - passive target: a read-modify-write counter (Get, flush, Put) at rank 0 under MPI_LOCK_EXCLUSIVE
 *    that must count every increment (only the exclusion makes it so); Put / Accumulate / Get ordered
 *    by flushes under an exclusive lock; MPI_Accumulate from all ranks under MPI_LOCK_SHARED;
 *    MPI_LOCK_SHARED with MPI_MODE_NOCHECK (on a window where no exclusive lock is ever taken);
 *    lock_all / unlock_all with a Put to every rank; MPI_Win_flush / flush_all / flush_local /
 *    flush_local_all (the origin buffer is reusable after flush_local, a later Get in the same epoch
 *    sees the Put after flush, a Get's buffer is filled after flush_local); MPI_Win_sync under an
 *    exclusive self-lock (local store then Get, Put then local load), and, in the unified model only,
 *    across processes with lock_all and barriers. The owner loads and stores its window memory in
 *    passive mode only under a lock on itself (MPI-3.1 11.7), so this holds in the separate model;
 *  - atomics: MPI_Fetch_and_op MPI_SUM as a shared ticket counter (MPI_INT and MPI_LONG; the tickets
 *    are a permutation of 0..n*k-1), MPI_NO_OP (atomic read, the target is unchanged), MPI_REPLACE
 *    (swap; the old values and the final one are -1 and every rank once each), MPI_BOR on MPI_LONG,
 *    MPI_MAX and MPI_PROD on MPI_DOUBLE; MPI_Compare_and_swap (MPI_INT and MPI_LONG) from -1 to the
 *    caller's rank: exactly one wins and the others read the winner; MPI_Get_accumulate MPI_SUM (the
 *    old values chain into the total) on MPI_INT and MPI_DOUBLE, and with MPI_NO_OP; Fetch_and_op,
 *    Compare_and_swap and Get_accumulate to MPI_PROC_NULL leave the result buffer alone;
 *  - errors under MPI_ERRORS_RETURN (MPI_Win_set_errhandler / get_errhandler / MPI_Errhandler_free;
 *    the default is MPI_ERRORS_ARE_FATAL), by error class: Put / Get / Accumulate / Fetch_and_op /
 *    Compare_and_swap / Get_accumulate to a rank >= size or a negative rank other than MPI_PROC_NULL
 *    -> MPI_ERR_RANK; a negative origin or target count -> MPI_ERR_COUNT; a negative target
 *    displacement -> MPI_ERR_DISP; MPI_Win_unlock / unlock_all without a lock and a nested
 *    MPI_Win_lock_all -> MPI_ERR_RMA_SYNC; MPI_Win_lock with a bad lock type -> MPI_ERR_LOCKTYPE (or
 *    MPI_ERR_ARG, as MPICH has it) and of a bad rank -> MPI_ERR_RANK; MPI_Win_create /
 *    MPI_Win_allocate with a negative size -> MPI_ERR_SIZE and disp_unit 0 or negative ->
 *    MPI_ERR_DISP (on the communicator's error handler); the window and communicator still work.
 *
 * Only what MPI-3.1 defines is checked: no conflicting concurrent accesses, concurrent accumulates to
 * one location use one op (and MPI_NO_OP), and origin buffers of MPI_NO_OP calls are valid. Checked
 * against MPICH 4.0.2 and Open MPI 4.1.4 (osc/pt2pt); Open MPI's osc/pt2pt names windows by default,
 * against MPI-3.1 (MPI_WIN_GET_NAME returns an empty string when no name was set). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1; /* rank in WORLD */
static int g_size = 0;  /* size of WORLD */
static int g_failures = 0;

#define CHECK(cond)                                                                                  \
  do {                                                                                               \
    if (!(cond)) {                                                                                   \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", g_rank, __FILE__, __LINE__, #cond);      \
      g_failures++;                                                                                  \
    }                                                                                                \
  } while (0)

#define MPI_OK(call)                                                                                 \
  do {                                                                                               \
    int rc_ = (call);                                                                                \
    if (rc_ != MPI_SUCCESS) {                                                                        \
      fprintf(stderr, "rank %d: %s:%d: %s returned %d\n", g_rank, __FILE__, __LINE__, #call, rc_);   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
    }                                                                                                \
  } while (0)

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

static int succ_of(int r, int n) { return (r + 1) % n; }
static int pred_of(int r, int n) { return (r + n - 1) % n; }

/* Window sizes are kept multiples of 16 bytes: MPICH 4.0.2 (ch4) returns from MPI_Win_allocate a
 * baseptr that is not the window's memory (nor MPI_WIN_BASE) on a rank whose predecessors asked for
 * sizes that are not multiples of 16 bytes. */
static int pad_ints(int count) { return (count + 3) / 4 * 4; }

static int cmp_int(const void* a, const void* b) {
  const int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

/* ---- attributes -------------------------------------------------------------------------------- */

static void* attr_base(MPI_Win win) {
  void* base = NULL;
  int flag = 0;
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK(flag);
  return base;
}

static MPI_Aint attr_size(MPI_Win win) {
  MPI_Aint* p = NULL;
  int flag = 0;
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &p, &flag));
  CHECK(flag && p != NULL);
  return flag && p ? *p : -1;
}

static int attr_int(MPI_Win win, int key) {
  int* p = NULL;
  int flag = 0;
  MPI_OK(MPI_Win_get_attr(win, key, &p, &flag));
  CHECK(flag && p != NULL);
  return flag && p ? *p : -12345;
}

static int win_model(MPI_Win win) { return attr_int(win, MPI_WIN_MODEL); }

/* The attributes of `win` and its group, against what it was created with. MPI_WIN_BASE is not
 * checked for windows of size 0 (MPICH returns NULL there, not the base given to MPI_Win_create). */
static void check_win(MPI_Win win, MPI_Comm comm, const void* base, MPI_Aint size, int disp_unit, int flavor) {
  if (size > 0) CHECK(attr_base(win) == base);
  CHECK(attr_size(win) == size);
  CHECK(attr_int(win, MPI_WIN_DISP_UNIT) == disp_unit);
  CHECK(attr_int(win, MPI_WIN_CREATE_FLAVOR) == flavor);
  const int model = win_model(win);
  CHECK(model == MPI_WIN_SEPARATE || model == MPI_WIN_UNIFIED);
  MPI_Group wg, cg;
  int result = -1, wsize = -1, csize = -2;
  MPI_OK(MPI_Win_get_group(win, &wg));
  MPI_OK(MPI_Comm_group(comm, &cg));
  MPI_OK(MPI_Group_compare(wg, cg, &result));
  CHECK(result == MPI_IDENT);
  MPI_OK(MPI_Group_size(wg, &wsize));
  MPI_OK(MPI_Comm_size(comm, &csize));
  CHECK(wsize == csize);
  MPI_OK(MPI_Group_free(&wg));
  MPI_OK(MPI_Group_free(&cg));
}

static void free_win(MPI_Win* win) {
  MPI_OK(MPI_Win_free(win));
  CHECK(*win == MPI_WIN_NULL);
}

/* ---- 1. creation ------------------------------------------------------------------------------- */

/* MPI_Win_create with disp_unit 1, 4 and 8; a fence epoch checks the displacement scaling. The
 * window is 64 bytes: int at byte 0 = 10 * owner (read by Get), byte 8 = Put target, byte 16 =
 * Accumulate target (initially 5). With disp_unit 4 the odd ranks expose 0 bytes. */
static void test_create_disp_units(void) {
  const int dus[3] = {1, 4, 8};
  const int n = g_size, r = g_rank;
  for (int k = 0; k < 3; ++k) {
    const int du = dus[k];
    int64_t storage[8];
    unsigned char* buf = (unsigned char*)storage;
    memset(storage, 0xff, sizeof storage);
    const int has_mem = !(du == 4 && r % 2 == 1);
    const MPI_Aint size = has_mem ? (MPI_Aint)sizeof storage : 0;
    const int zero_init = 10 * r, acc_init = 5;
    memcpy(buf + 0, &zero_init, sizeof(int));
    memcpy(buf + 16, &acc_init, sizeof(int));
    MPI_Win win = MPI_WIN_NULL;
    MPI_OK(MPI_Win_create(buf, size, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(win != MPI_WIN_NULL);
    check_win(win, MPI_COMM_WORLD, buf, size, du, MPI_WIN_FLAVOR_CREATE);

    const int t = succ_of(r, n);
    const int t_has_mem = !(du == 4 && t % 2 == 1);
    const int put_val = 1000 + r, acc_val = 1 + r;
    int got = -1;
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    if (t_has_mem) {
      MPI_OK(MPI_Put(&put_val, 1, MPI_INT, t, 8 / du, 1, MPI_INT, win));
      MPI_OK(MPI_Accumulate(&acc_val, 1, MPI_INT, t, 16 / du, 1, MPI_INT, MPI_SUM, win));
      MPI_OK(MPI_Get(&got, 1, MPI_INT, t, 0, 1, MPI_INT, win));
    }
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (t_has_mem) CHECK(got == 10 * t);
    if (has_mem) {
      const int p = pred_of(r, n);
      int v8, v16, v0;
      memcpy(&v0, buf + 0, sizeof(int));
      memcpy(&v8, buf + 8, sizeof(int));
      memcpy(&v16, buf + 16, sizeof(int));
      CHECK(v0 == 10 * r);
      CHECK(v8 == 1000 + p);
      CHECK(v16 == 5 + 1 + p);
      int untouched;
      memcpy(&untouched, buf + 4, sizeof(int));
      CHECK(untouched == -1);
      memcpy(&untouched, buf + 12, sizeof(int));
      CHECK(untouched == -1);
    }
    free_win(&win);
  }

  /* Size 0 and base NULL everywhere: only MPI_PROC_NULL can be a target. */
  MPI_Win win;
  MPI_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK(attr_size(win) == 0);
  CHECK(attr_int(win, MPI_WIN_CREATE_FLAVOR) == MPI_WIN_FLAVOR_CREATE);
  int v = 7;
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  CHECK(v == 7);
  free_win(&win);
}

/* MPI_Win_allocate: the base is usable by local stores and remote Gets; size 0 on rank 0. */
static void test_allocate(void) {
  const int n = g_size, r = g_rank;
  const int count = pad_ints(n + 4);
  int* base = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate((MPI_Aint)count * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &base, &win));
  CHECK(base != NULL);
  check_win(win, MPI_COMM_WORLD, base, (MPI_Aint)count * (MPI_Aint)sizeof(int), (int)sizeof(int),
            MPI_WIN_FLAVOR_ALLOCATE);
  for (int i = 0; i < count; ++i) base[i] = r * 100 + i;
  int* got = malloc(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; ++i) got[i] = -1;
  const int t = succ_of(r, n);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  MPI_OK(MPI_Get(got, count, MPI_INT, t, 0, count, MPI_INT, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < count; ++i) CHECK(got[i] == t * 100 + i);
  free(got);

  /* The name: empty until set. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  name[0] = 'x';
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == 0 && name[0] == '\0');
  MPI_OK(MPI_Win_set_name(win, "rma test window"));
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == (int)strlen("rma test window") && strcmp(name, "rma test window") == 0);
  MPI_OK(MPI_Win_set_name(win, "renamed"));
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == 7 && strcmp(name, "renamed") == 0);
  free_win(&win);

  /* Size 0 on rank 0: the others can still be targeted. */
  const MPI_Aint size = r == 0 ? 0 : 2 * (MPI_Aint)sizeof(double);
  double* dbase = NULL;
  MPI_OK(MPI_Win_allocate(size, (int)sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dbase, &win));
  check_win(win, MPI_COMM_WORLD, dbase, size, (int)sizeof(double), MPI_WIN_FLAVOR_ALLOCATE);
  if (r != 0) dbase[0] = dbase[1] = -1.0;
  const double val = 0.5 + r;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  if (t != 0) MPI_OK(MPI_Put(&val, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  if (r != 0) CHECK(dbase[0] == 0.5 + pred_of(r, n) && dbase[1] == -1.0);
  free_win(&win);
}

/* A window over a split of WORLD (even / odd world ranks, numbered backwards), and over COMM_SELF. */
static void test_subcomm_and_self(void) {
  MPI_Comm sub;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &sub));
  int m, s;
  MPI_OK(MPI_Comm_size(sub, &m));
  MPI_OK(MPI_Comm_rank(sub, &s));
  int* world_of = malloc(sizeof(int) * (size_t)m);
  MPI_OK(MPI_Allgather(&g_rank, 1, MPI_INT, world_of, 1, MPI_INT, sub));
  int* base = NULL;
  MPI_Win win;
  const MPI_Aint bytes = (MPI_Aint)pad_ints(m) * (MPI_Aint)sizeof(int);
  MPI_OK(MPI_Win_allocate(bytes, (int)sizeof(int), MPI_INFO_NULL, sub, &base, &win));
  check_win(win, sub, base, bytes, (int)sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
  {
    /* Compared with WORLD's group: the same only at one process. */
    MPI_Group wg, world;
    int result = -1;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_compare(wg, world, &result));
    CHECK(result == (g_size == 1 ? MPI_IDENT : MPI_UNEQUAL));
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&world));
  }
  for (int i = 0; i < m; ++i) base[i] = -1;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int t = 0; t < m; ++t) MPI_OK(MPI_Put(&g_rank, 1, MPI_INT, t, s, 1, MPI_INT, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < m; ++i) CHECK(base[i] == world_of[i]);
  free_win(&win);
  free(world_of);
  MPI_OK(MPI_Comm_free(&sub));

  /* COMM_SELF: fence, then an exclusive lock on rank 0 (this process). */
  int buf[4] = {1, 2, 3, 4};
  MPI_OK(MPI_Win_create(buf, (MPI_Aint)sizeof buf, (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win));
  check_win(win, MPI_COMM_SELF, buf, (MPI_Aint)sizeof buf, (int)sizeof(int), MPI_WIN_FLAVOR_CREATE);
  const int v = 40 + g_rank;
  int got = -1;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
  MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 3, 1, MPI_INT, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK(buf[0] == 1 && buf[1] == 40 + g_rank && buf[2] == 3 && buf[3] == 4);
  CHECK(got == 4);
  const int v2 = 50 + g_rank;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  MPI_OK(MPI_Put(&v2, 1, MPI_INT, 0, 2, 1, MPI_INT, win));
  MPI_OK(MPI_Win_flush(0, win));
  got = -1;
  MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, win));
  MPI_OK(MPI_Win_unlock(0, win));
  CHECK(got == 50 + g_rank);
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK(buf[2] == 50 + g_rank);
  MPI_OK(MPI_Win_unlock(0, win));
  free_win(&win);
}

/* ---- 2. fence epochs --------------------------------------------------------------------------- */

/* The int window (disp_unit sizeof(int)) is: [0, n) a slot per rank; [n] the owner's marker
 * 100 * rank + 7; [n+1] SUM and [n+2] MAX accumulators (at rank 0); [n+3, n+8) the area the
 * predecessor writes with several operations in one epoch. */
static void test_fence(void) {
  const int n = g_size, r = g_rank, succ = succ_of(r, n), pred = pred_of(r, n);
  const int MARK = n, SUMI = n + 1, MAXI = n + 2, AREA = n + 3, count = pad_ints(n + 8);
  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate((MPI_Aint)count * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w, &win));
  for (int i = 0; i < n; ++i) w[i] = -1;
  w[MARK] = 100 * r + 7;
  w[SUMI] = 0;
  w[MAXI] = -1;
  for (int i = 0; i < 5; ++i) w[AREA + i] = -5;

  /* long / double accumulators at rank 0: BOR, SUM of longs; PROD, MAX, SUM, REPLACE of doubles. */
  long* lw = NULL;
  double* dw = NULL;
  MPI_Win lwin, dwin;
  MPI_OK(MPI_Win_allocate(2 * (MPI_Aint)sizeof(long), (int)sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &lw, &lwin));
  MPI_OK(MPI_Win_allocate(4 * (MPI_Aint)sizeof(double), (int)sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dw,
                          &dwin));
  lw[0] = 0;
  lw[1] = 1000;
  dw[0] = 1.0;
  dw[1] = -1.0;
  dw[2] = 0.0;
  dw[3] = -3.0;

  /* Epoch 1. */
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, lwin));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, dwin));
  for (int t = 0; t < n; ++t) MPI_OK(MPI_Put(&r, 1, MPI_INT, t, r, 1, MPI_INT, win));
  MPI_OK(MPI_Accumulate(&r, 1, MPI_INT, 0, SUMI, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Accumulate(&r, 1, MPI_INT, 0, MAXI, 1, MPI_INT, MPI_MAX, win));
  /* Several operations to the successor, each on its own location. */
  const int a = 3 * r + 1, b = 3 * r + 2, c = r + 1, junk = 999;
  int got_mark = -1, untouched = -42;
  MPI_OK(MPI_Put(&a, 1, MPI_INT, succ, AREA + 0, 1, MPI_INT, win));
  MPI_OK(MPI_Put(&junk, 0, MPI_INT, succ, AREA + 1, 0, MPI_INT, win));
  MPI_OK(MPI_Put(&b, 1, MPI_INT, succ, AREA + 2, 1, MPI_INT, win));
  MPI_OK(MPI_Accumulate(&c, 1, MPI_INT, succ, AREA + 3, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Accumulate(&junk, 0, MPI_INT, succ, AREA + 4, 0, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Get(&got_mark, 1, MPI_INT, succ, MARK, 1, MPI_INT, win));
  MPI_OK(MPI_Get(&untouched, 0, MPI_INT, succ, MARK, 0, MPI_INT, win));
  /* MPI_PROC_NULL targets do nothing. */
  int null_got = -43;
  MPI_OK(MPI_Put(&junk, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  MPI_OK(MPI_Get(&null_got, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  MPI_OK(MPI_Accumulate(&junk, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, MPI_SUM, win));
  const long bit = 1L << (r % 62), big = 3000000L;
  MPI_OK(MPI_Accumulate(&bit, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_BOR, lwin));
  MPI_OK(MPI_Accumulate(&big, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, lwin));
  const double two = 2.0, half = r + 0.5, quarter = 0.25 * r, repl = 77.0;
  MPI_OK(MPI_Accumulate(&two, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_PROD, dwin));
  MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, MPI_MAX, dwin));
  MPI_OK(MPI_Accumulate(&quarter, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE, MPI_SUM, dwin));
  if (r == n - 1) MPI_OK(MPI_Accumulate(&repl, 1, MPI_DOUBLE, 0, 3, 1, MPI_DOUBLE, MPI_REPLACE, dwin));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, lwin));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, dwin));

  for (int i = 0; i < n; ++i) CHECK(w[i] == i);
  CHECK(w[MARK] == 100 * r + 7);
  CHECK(got_mark == 100 * succ + 7);
  CHECK(untouched == -42);
  CHECK(null_got == -43);
  CHECK(w[AREA + 0] == 3 * pred + 1);
  CHECK(w[AREA + 1] == -5);
  CHECK(w[AREA + 2] == 3 * pred + 2);
  CHECK(w[AREA + 3] == -5 + pred + 1);
  CHECK(w[AREA + 4] == -5);
  if (r == 0) {
    CHECK(w[SUMI] == n * (n - 1) / 2);
    CHECK(w[MAXI] == n - 1);
    long bits = 0;
    for (int i = 0; i < n; ++i) bits |= 1L << (i % 62);
    CHECK(lw[0] == bits);
    CHECK(lw[1] == 1000 + 3000000L * n);
    double p = 1.0;
    for (int i = 0; i < n; ++i) p *= 2.0;
    CHECK(dw[0] == p);
    CHECK(dw[1] == n - 0.5);
    CHECK(dw[2] == 0.25 * n * (n - 1) / 2);
    CHECK(dw[3] == 77.0);
  } else {
    CHECK(w[SUMI] == 0 && w[MAXI] == -1);
    CHECK(lw[0] == 0 && lw[1] == 1000);
    CHECK(dw[0] == 1.0 && dw[1] == -1.0 && dw[2] == 0.0 && dw[3] == -3.0);
  }

  /* Epoch 2: read the predecessor's slots (written in epoch 1) while the owner reads them too. */
  int* slots = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) slots[i] = -1;
  MPI_OK(MPI_Get(slots, n, MPI_INT, pred, 0, n, MPI_INT, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < n; ++i) CHECK(slots[i] == i);
  free(slots);
  free_win(&win);
  free_win(&lwin);
  free_win(&dwin);
}

/* ---- derived datatypes ------------------------------------------------------------------------- */

/* Regions of 48 ints: A [0,48) Put targets, B [48,96) read by Gets (B[i] = 1000 * owner + i),
 * C [96,144) Accumulate targets at rank 0. */
static void test_datatypes(void) {
  const int n = g_size, r = g_rank, succ = succ_of(r, n), pred = pred_of(r, n);
  enum { A = 0, B = 48, C = 96, TOTAL = 144 };
  /* ovec: 4 blocks of 2 every 3 -> 0 1 3 4 6 7 9 10; tvec: 2 blocks of 4 every 6 -> 0-3 6-9;
   * tidx: 1 2 5 6 7 12 13 14; tv2 (count 2): 2 blocks of 1 every 2, extent 3 -> 0 2 3 5. */
  static const int ovec_at[8] = {0, 1, 3, 4, 6, 7, 9, 10};
  static const int tvec_at[8] = {0, 1, 2, 3, 6, 7, 8, 9};
  static const int tidx_at[8] = {1, 2, 5, 6, 7, 12, 13, 14};
  static const int tv2_at[4] = {0, 2, 3, 5};
  MPI_Datatype ovec, tvec, tidx, tv2;
  MPI_OK(MPI_Type_vector(4, 2, 3, MPI_INT, &ovec));
  MPI_OK(MPI_Type_vector(2, 4, 6, MPI_INT, &tvec));
  const int blens[3] = {2, 3, 3}, displs[3] = {1, 5, 12};
  MPI_OK(MPI_Type_indexed(3, blens, displs, MPI_INT, &tidx));
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &tv2));
  MPI_OK(MPI_Type_commit(&ovec));
  MPI_OK(MPI_Type_commit(&tvec));
  MPI_OK(MPI_Type_commit(&tidx));
  MPI_OK(MPI_Type_commit(&tv2));

  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(TOTAL * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  for (int i = 0; i < TOTAL; ++i) w[i] = -1;
  for (int i = 0; i < 48; ++i) w[B + i] = 1000 * r + i;
  for (int i = 0; i < 48; ++i) w[C + i] = 0;

  int src[12], contig[8], acc_src[12], acc_contig[8], dst[12], dst2[8];
  for (int i = 0; i < 12; ++i) src[i] = 100 * r + i;
  for (int i = 0; i < 8; ++i) contig[i] = 100 * r + 50 + i;
  for (int i = 0; i < 12; ++i) acc_src[i] = r + 1 + i;
  for (int i = 0; i < 8; ++i) acc_contig[i] = 2 * r + i;
  for (int i = 0; i < 12; ++i) dst[i] = -9;
  for (int i = 0; i < 8; ++i) dst2[i] = -9;
  const int four[4] = {10 * r + 1, 10 * r + 2, 10 * r + 3, 10 * r + 4};

  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  MPI_OK(MPI_Put(src, 1, ovec, succ, A + 0, 1, tvec, win));
  MPI_OK(MPI_Put(contig, 8, MPI_INT, succ, A + 16, 1, tidx, win));
  MPI_OK(MPI_Put(four, 4, MPI_INT, succ, A + 36, 2, tv2, win));
  MPI_OK(MPI_Get(dst, 1, ovec, succ, B + 0, 1, tidx, win));
  MPI_OK(MPI_Get(dst2, 8, MPI_INT, succ, B + 16, 1, tvec, win));
  MPI_OK(MPI_Accumulate(acc_src, 1, ovec, 0, C + 0, 1, tidx, MPI_SUM, win));
  MPI_OK(MPI_Accumulate(acc_contig, 8, MPI_INT, 0, C + 16, 1, tvec, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  int expect[TOTAL];
  for (int i = 0; i < TOTAL; ++i) expect[i] = -1;
  for (int j = 0; j < 8; ++j) expect[A + tvec_at[j]] = 100 * pred + ovec_at[j];
  for (int j = 0; j < 8; ++j) expect[A + 16 + tidx_at[j]] = 100 * pred + 50 + j;
  for (int j = 0; j < 4; ++j) expect[A + 36 + tv2_at[j]] = 10 * pred + 1 + j;
  for (int i = 0; i < 48; ++i) expect[B + i] = 1000 * r + i;
  for (int i = 0; i < 48; ++i) expect[C + i] = 0;
  if (r == 0) {
    for (int j = 0; j < 8; ++j) expect[C + tidx_at[j]] = n * (n + 1) / 2 + n * ovec_at[j];
    for (int j = 0; j < 8; ++j) expect[C + 16 + tvec_at[j]] = n * (n - 1) + n * j;
  }
  for (int i = 0; i < TOTAL; ++i) {
    if (w[i] != expect[i]) {
      fprintf(stderr, "rank %d: datatypes: window[%d] = %d, expected %d\n", r, i, w[i], expect[i]);
      CHECK(w[i] == expect[i]);
    }
  }
  int dexpect[12];
  for (int i = 0; i < 12; ++i) dexpect[i] = -9;
  for (int j = 0; j < 8; ++j) dexpect[ovec_at[j]] = 1000 * succ + tidx_at[j];
  for (int i = 0; i < 12; ++i) CHECK(dst[i] == dexpect[i]);
  for (int j = 0; j < 8; ++j) CHECK(dst2[j] == 1000 * succ + 16 + tvec_at[j]);

  free_win(&win);
  MPI_OK(MPI_Type_free(&ovec));
  MPI_OK(MPI_Type_free(&tvec));
  MPI_OK(MPI_Type_free(&tidx));
  MPI_OK(MPI_Type_free(&tv2));
  CHECK(ovec == MPI_DATATYPE_NULL && tvec == MPI_DATATYPE_NULL && tidx == MPI_DATATYPE_NULL && tv2 == MPI_DATATYPE_NULL);
}

/* ---- a large transfer -------------------------------------------------------------------------- */

static int big_value(int owner, int i) { return owner * 1000003 + i; }

/* 1 MiB each way: Put to the successor and Get from it in fence epochs; then a Get from the
 * predecessor under lock_all (byte displacements, disp_unit 1). */
static void test_large(void) {
  const int n = g_size, r = g_rank, succ = succ_of(r, n), pred = pred_of(r, n);
  const int count = (1 << 20) / (int)sizeof(int);
  const MPI_Aint bytes = (MPI_Aint)count * (MPI_Aint)sizeof(int);
  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  int* src = malloc((size_t)bytes);
  int* dst = malloc((size_t)bytes);
  for (int i = 0; i < count; ++i) {
    src[i] = big_value(r, i);
    dst[i] = -1;
    w[i] = -1;
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  MPI_OK(MPI_Put(src, count, MPI_INT, succ, 0, count, MPI_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  int bad = 0;
  for (int i = 0; i < count; ++i) bad += w[i] != big_value(pred, i);
  CHECK(bad == 0);
  /* The successor's window holds this rank's data now. */
  MPI_OK(MPI_Get(dst, count, MPI_INT, succ, 0, count, MPI_INT, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  bad = 0;
  for (int i = 0; i < count; ++i) bad += dst[i] != big_value(r, i);
  CHECK(bad == 0);

  /* Passive: the predecessor's window holds the predecessor's predecessor's data. Half of it, from
   * byte 4 * (count / 2). */
  for (int i = 0; i < count; ++i) dst[i] = -1;
  const int half = count / 2;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Get(dst, half, MPI_INT, pred, (MPI_Aint)half * (MPI_Aint)sizeof(int), half, MPI_INT, win));
  MPI_OK(MPI_Win_unlock_all(win));
  bad = 0;
  for (int i = 0; i < half; ++i) bad += dst[i] != big_value(pred_of(pred, n), half + i);
  for (int i = half; i < count; ++i) bad += dst[i] != -1;
  CHECK(bad == 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  free(src);
  free(dst);
  free_win(&win);
}

/* ---- 3. passive target ------------------------------------------------------------------------- */

enum { COUNTER_ITERS = 10 };

/* Local stores into this process's window, under an exclusive lock on itself (the separate model
 * needs it); the others see them after the barrier that follows. */
static void init_local(MPI_Win win, int* w, int count, int value) {
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_rank, 0, win));
  for (int i = 0; i < count; ++i) w[i] = value;
  MPI_OK(MPI_Win_unlock(g_rank, win));
}

/* The int window: [0] counter (rank 0); [1, n+1) a slot per rank (rank 0); [n+1] shared SUM
 * (rank 0); [n+2, 2n+2) lock_all slots; [2n+2, 3n+2) flush slots (origin r uses slot r at its
 * successor); [3n+2, 3n+6) Win_sync. */
static void test_passive(void) {
  const int n = g_size, r = g_rank, succ = succ_of(r, n), pred = pred_of(r, n);
  const int CNT = 0, SLOT = 1, SHSUM = n + 1, LA = n + 2, FL = 2 * n + 2, WS = 3 * n + 2, count = pad_ints(3 * n + 6);
  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate((MPI_Aint)count * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w, &win));
  init_local(win, w, count, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Read-modify-write of the counter under an exclusive lock: no increment is lost. */
  for (int k = 0; k < COUNTER_ITERS; ++k) {
    int v = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, CNT, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(0, win));
    CHECK(v >= 0 && v < n * COUNTER_ITERS);
    ++v;
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, CNT, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
  }
  /* Put, Accumulate and Get of this rank's slot under an exclusive lock, ordered by flushes. */
  {
    const int v = 7 * r + 3, five = 5;
    int got = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, SLOT + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(0, win));
    MPI_OK(MPI_Accumulate(&five, 1, MPI_INT, 0, SLOT + r, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(0, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, SLOT + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(got == 7 * r + 8);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  {
    int got = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, CNT, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(got == n * COUNTER_ITERS);
  }
  if (r == 0) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(w[CNT] == n * COUNTER_ITERS);
    for (int i = 0; i < n; ++i) CHECK(w[SLOT + i] == 7 * i + 8);
    MPI_OK(MPI_Win_unlock(0, win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Accumulate SUM from every rank under shared locks. */
  {
    const int v = r + 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, 0, SHSUM, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(0, win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  {
    int got = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, SHSUM, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(got == n * (n + 1) / 2);
  }

  /* lock_all: a Put to every rank. */
  {
    const int v = 11 * r + 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; ++t) MPI_OK(MPI_Put(&v, 1, MPI_INT, t, LA + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock_all(win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win));
  for (int i = 0; i < n; ++i) CHECK(w[LA + i] == 11 * i + 1);
  MPI_OK(MPI_Win_unlock(r, win));

  /* Flushes, to slot FL + r at the successor. */
  {
    int x, y;
    MPI_OK(MPI_Win_lock_all(0, win));
    /* flush_local: the origin buffer may be reused; flush: a Get then sees the Put. */
    x = 1000 + r;
    MPI_OK(MPI_Put(&x, 1, MPI_INT, succ, FL + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local(succ, win));
    x = -77;
    MPI_OK(MPI_Win_flush(succ, win));
    y = -1;
    MPI_OK(MPI_Get(&y, 1, MPI_INT, succ, FL + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(succ, win));
    CHECK(y == 1000 + r);
    /* flush_local_all, flush_all; a Get completed by flush_local. */
    x = 2000 + r;
    MPI_OK(MPI_Put(&x, 1, MPI_INT, succ, FL + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local_all(win));
    x = -78;
    MPI_OK(MPI_Win_flush_all(win));
    y = -1;
    MPI_OK(MPI_Get(&y, 1, MPI_INT, succ, FL + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local(succ, win));
    CHECK(y == 2000 + r);
    /* Accumulate, flush_all, Get completed by flush_local_all. */
    x = 1000;
    MPI_OK(MPI_Accumulate(&x, 1, MPI_INT, succ, FL + r, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_all(win));
    y = -1;
    MPI_OK(MPI_Get(&y, 1, MPI_INT, succ, FL + r, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local_all(win));
    CHECK(y == 3000 + r);
    MPI_OK(MPI_Win_unlock_all(win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win));
  CHECK(w[FL + pred] == 3000 + pred);
  MPI_OK(MPI_Win_unlock(r, win));

  /* MPI_Win_sync under an exclusive lock on itself: a local store seen by a Get, a Put seen by a
   * local load. */
  {
    int y = -1;
    const int z = 99 + r;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
    w[WS] = 42 + r;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Get(&y, 1, MPI_INT, r, WS, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(r, win));
    CHECK(y == 42 + r);
    MPI_OK(MPI_Put(&z, 1, MPI_INT, r, WS + 1, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(r, win));
    MPI_OK(MPI_Win_sync(win));
    CHECK(w[WS + 1] == 99 + r);
    MPI_OK(MPI_Win_unlock(r, win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Across processes, in the unified model only (MPI-3.1 11.7, example 11.21): a store made public
   * by Win_sync before a barrier is read by the predecessor's Get; a flushed Put is read by the
   * target's load after a barrier and Win_sync. */
  if (win_model(win) == MPI_WIN_UNIFIED) {
    int y = -1;
    const int z = 600 + r;
    MPI_OK(MPI_Win_lock_all(0, win));
    w[WS + 2] = 500 + r;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Get(&y, 1, MPI_INT, succ, WS + 2, 1, MPI_INT, win));
    MPI_OK(MPI_Put(&z, 1, MPI_INT, succ, WS + 3, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(succ, win));
    CHECK(y == 500 + succ);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_sync(win));
    CHECK(w[WS + 3] == 600 + pred);
    MPI_OK(MPI_Win_unlock_all(win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  free_win(&win);
}

/* MPI_MODE_NOCHECK on shared locks, on a window of its own where no process ever takes an exclusive
 * lock (so the assertion holds): Accumulate from every rank into rank 0, then a Get. (A window is
 * used for this alone because MPICH 4.0.2 hangs in a later exclusive lock of a window after a
 * NOCHECK epoch followed by an ordinary shared lock.) */
static void test_nocheck(void) {
  const int n = g_size, r = g_rank;
  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4 * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  /* The initial values, made public by the fence. */
  w[0] = 0;
  w[1] = 100 * r;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win));
  const int v = r + 1;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock(0, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int got[2] = {-1, -1};
  const int t = succ_of(r, n);
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Get(&got[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win));
  MPI_OK(MPI_Win_unlock(0, win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Get(&got[1], 1, MPI_INT, t, 1, 1, MPI_INT, win));
  MPI_OK(MPI_Win_unlock(t, win));
  CHECK(got[0] == n * (n + 1) / 2);
  CHECK(got[1] == 100 * t);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  free_win(&win);
}

/* ---- 4. atomics -------------------------------------------------------------------------------- */

enum { TICKETS = 8 };

/* An 8-byte slot per datum (disp_unit 8), all at rank 0:
 * 0 int ticket counter, 1 long ticket counter, 2 int swap (REPLACE), 3 int CAS, 4 long CAS,
 * 5 int Get_accumulate SUM, 6 long BOR, 7 double MAX, 8 double Get_accumulate SUM, 9 double PROD,
 * 10 int read only (1234). */
static void test_atomics(void) {
  const int n = g_size, r = g_rank;
  enum { NSLOTS = 12 };
  const long LBASE = 3000000000L > 0 && sizeof(long) >= 8 ? 3000000000L : 30000L;
  int64_t* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(NSLOTS * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
#define I(k) (*(int*)(void*)&w[k])
#define L(k) (*(long*)(void*)&w[k])
#define D(k) (*(double*)(void*)&w[k])
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win));
  memset(w, 0, NSLOTS * 8);
  I(0) = 0;
  L(1) = LBASE;
  I(2) = -1;
  I(3) = -1;
  L(4) = -1;
  I(5) = 0;
  L(6) = 0;
  D(7) = -1.0;
  D(8) = 0.0;
  D(9) = 1.0;
  I(10) = 1234;
  MPI_OK(MPI_Win_unlock(r, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  int tickets[TICKETS];
  long ltickets[TICKETS];
  int swap_old = -99, cas_old = -99, ga_old = -99;
  long lcas_old = -99, bor_old = -99;
  double max_old = -99.0, dga_old = -99.0, prod_old = -99.0;
  const int one = 1, minus1 = -1, inc = r + 1;
  const long lone = 1, lminus1 = -1, lrank = r, bit = 1L << (r % 62);
  const double dval = r + 0.5, two = 2.0;

  MPI_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < TICKETS; ++k) {
    tickets[k] = -1;
    ltickets[k] = -1;
    MPI_OK(MPI_Fetch_and_op(&one, &tickets[k], MPI_INT, 0, 0, MPI_SUM, win));
    MPI_OK(MPI_Fetch_and_op(&lone, &ltickets[k], MPI_LONG, 0, 1, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(0, win));
  }
  MPI_OK(MPI_Fetch_and_op(&r, &swap_old, MPI_INT, 0, 2, MPI_REPLACE, win));
  MPI_OK(MPI_Compare_and_swap(&r, &minus1, &cas_old, MPI_INT, 0, 3, win));
  MPI_OK(MPI_Compare_and_swap(&lrank, &lminus1, &lcas_old, MPI_LONG, 0, 4, win));
  MPI_OK(MPI_Get_accumulate(&inc, 1, MPI_INT, &ga_old, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Fetch_and_op(&bit, &bor_old, MPI_LONG, 0, 6, MPI_BOR, win));
  MPI_OK(MPI_Fetch_and_op(&dval, &max_old, MPI_DOUBLE, 0, 7, MPI_MAX, win));
  MPI_OK(MPI_Get_accumulate(&dval, 1, MPI_DOUBLE, &dga_old, 1, MPI_DOUBLE, 0, 8, 1, MPI_DOUBLE, MPI_SUM, win));
  MPI_OK(MPI_Fetch_and_op(&two, &prod_old, MPI_DOUBLE, 0, 9, MPI_PROD, win));
  /* Atomic reads of the read-only slot; the origin values must not be applied. */
  int noop_fao = -1, noop_ga = -1;
  const int ignored = 999;
  MPI_OK(MPI_Fetch_and_op(&ignored, &noop_fao, MPI_INT, 0, 10, MPI_NO_OP, win));
  MPI_OK(MPI_Get_accumulate(&ignored, 1, MPI_INT, &noop_ga, 1, MPI_INT, 0, 10, 1, MPI_INT, MPI_NO_OP, win));
  /* MPI_PROC_NULL targets leave the result buffers alone. */
  int null_fao = -5, null_cas = -6, null_ga = -7;
  MPI_OK(MPI_Fetch_and_op(&one, &null_fao, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
  MPI_OK(MPI_Compare_and_swap(&r, &minus1, &null_cas, MPI_INT, MPI_PROC_NULL, 3, win));
  MPI_OK(MPI_Get_accumulate(&inc, 1, MPI_INT, &null_ga, 1, MPI_INT, MPI_PROC_NULL, 5, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock_all(win));
  CHECK(noop_fao == 1234 && noop_ga == 1234);
  CHECK(null_fao == -5 && null_cas == -6 && null_ga == -7);
  CHECK((bor_old & bit) == 0);
  CHECK(max_old >= -1.0 && max_old != dval);
  CHECK(prod_old >= 1.0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* The final values, read atomically with MPI_NO_OP from every rank. */
  int fin_cnt = -1, fin_swap = -99, fin_cas = -99, fin_ga = -99, fin_ro = -1;
  long fin_lcnt = -1, fin_lcas = -99, fin_bor = -1;
  double fin_max = 0, fin_dga = 0, fin_prod = 0;
  const long lignored = 999;
  const double dignored = 999.0;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  MPI_OK(MPI_Fetch_and_op(&ignored, &fin_cnt, MPI_INT, 0, 0, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&lignored, &fin_lcnt, MPI_LONG, 0, 1, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&ignored, &fin_swap, MPI_INT, 0, 2, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&ignored, &fin_cas, MPI_INT, 0, 3, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&lignored, &fin_lcas, MPI_LONG, 0, 4, MPI_NO_OP, win));
  MPI_OK(MPI_Get_accumulate(&ignored, 1, MPI_INT, &fin_ga, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&lignored, &fin_bor, MPI_LONG, 0, 6, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&dignored, &fin_max, MPI_DOUBLE, 0, 7, MPI_NO_OP, win));
  MPI_OK(MPI_Get_accumulate(&dignored, 1, MPI_DOUBLE, &fin_dga, 1, MPI_DOUBLE, 0, 8, 1, MPI_DOUBLE, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&dignored, &fin_prod, MPI_DOUBLE, 0, 9, MPI_NO_OP, win));
  MPI_OK(MPI_Fetch_and_op(&ignored, &fin_ro, MPI_INT, 0, 10, MPI_NO_OP, win));
  MPI_OK(MPI_Win_unlock(0, win));
  CHECK(fin_cnt == n * TICKETS);
  CHECK(fin_lcnt == LBASE + (long)n * TICKETS);
  CHECK(fin_ro == 1234);
  long bits = 0;
  double prod = 1.0;
  for (int i = 0; i < n; ++i) {
    bits |= 1L << (i % 62);
    prod *= 2.0;
  }
  CHECK(fin_bor == bits);
  CHECK(fin_max == n - 0.5);
  CHECK(fin_dga == n * (n - 1) / 2.0 + n * 0.5);
  CHECK(fin_prod == prod);
  CHECK(fin_ga == n * (n + 1) / 2);
  if (r == 0) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(I(0) == n * TICKETS && L(1) == LBASE + (long)n * TICKETS && I(10) == 1234);
    CHECK(I(3) == fin_cas && L(4) == fin_lcas && I(2) == fin_swap);
    MPI_OK(MPI_Win_unlock(0, win));
  }

  /* The tickets: every value 0..n*TICKETS-1 once (each rank's own increasing). */
  const int total = n * TICKETS;
  int* all = malloc(sizeof(int) * (size_t)total);
  long* lall = malloc(sizeof(long) * (size_t)total);
  MPI_OK(MPI_Allgather(tickets, TICKETS, MPI_INT, all, TICKETS, MPI_INT, MPI_COMM_WORLD));
  MPI_OK(MPI_Allgather(ltickets, TICKETS, MPI_LONG, lall, TICKETS, MPI_LONG, MPI_COMM_WORLD));
  for (int k = 1; k < TICKETS; ++k) CHECK(tickets[k] > tickets[k - 1] && ltickets[k] > ltickets[k - 1]);
  int* lrel = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) lrel[i] = (int)(lall[i] - LBASE);
  qsort(all, (size_t)total, sizeof(int), cmp_int);
  qsort(lrel, (size_t)total, sizeof(int), cmp_int);
  for (int i = 0; i < total; ++i) CHECK(all[i] == i && lrel[i] == i);
  free(all);
  free(lall);
  free(lrel);

  /* Swap: the old values and the final one are -1 and each rank, once each. */
  int* olds = malloc(sizeof(int) * (size_t)(n + 1));
  MPI_OK(MPI_Allgather(&swap_old, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD));
  olds[n] = fin_swap;
  qsort(olds, (size_t)(n + 1), sizeof(int), cmp_int);
  for (int i = 0; i <= n; ++i) CHECK(olds[i] == i - 1);

  /* CAS: one winner saw -1; the others saw the winner, which is the final value. */
  int* cas = malloc(sizeof(int) * (size_t)n);
  long* lcas = malloc(sizeof(long) * (size_t)n);
  MPI_OK(MPI_Allgather(&cas_old, 1, MPI_INT, cas, 1, MPI_INT, MPI_COMM_WORLD));
  MPI_OK(MPI_Allgather(&lcas_old, 1, MPI_LONG, lcas, 1, MPI_LONG, MPI_COMM_WORLD));
  int winners = 0, lwinners = 0;
  for (int i = 0; i < n; ++i) {
    if (cas[i] == -1) {
      ++winners;
      CHECK(fin_cas == i);
    } else {
      CHECK(cas[i] == fin_cas);
    }
    if (lcas[i] == -1) {
      ++lwinners;
      CHECK(fin_lcas == i);
    } else {
      CHECK(lcas[i] == fin_lcas);
    }
  }
  CHECK(winners == 1 && lwinners == 1);
  free(cas);
  free(lcas);

  /* Get_accumulate SUM: sorted by old value, each old value is the previous one plus its rank's
   * increment (rank + 1), starting at 0 and ending at the total. */
  int pair[2] = {ga_old, inc};
  int* pairs = malloc(sizeof(int) * 2 * (size_t)n);
  MPI_OK(MPI_Allgather(pair, 2, MPI_INT, pairs, 2, MPI_INT, MPI_COMM_WORLD));
  qsort(pairs, (size_t)n, 2 * sizeof(int), cmp_int);
  int expect = 0;
  for (int i = 0; i < n; ++i) {
    CHECK(pairs[2 * i] == expect);
    expect += pairs[2 * i + 1];
  }
  CHECK(expect == fin_ga);
  free(pairs);
  free(olds);
#undef I
#undef L
#undef D
  free_win(&win);
}

/* ---- 5. errors --------------------------------------------------------------------------------- */

static void test_errors(void) {
  const int n = g_size, r = g_rank;
  int* w = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4 * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  w[0] = w[1] = w[2] = w[3] = 0;

  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_OK(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  MPI_OK(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  MPI_OK(MPI_Errhandler_free(&eh));

  const int v = 1;
  int got = -1;
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  CHECK(error_class(MPI_Put(&v, 1, MPI_INT, n, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Put(&v, 1, MPI_INT, n + 5, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Get(&got, 1, MPI_INT, n, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Accumulate(&v, 1, MPI_INT, n, 0, 1, MPI_INT, MPI_SUM, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Put(&v, 1, MPI_INT, 0, 0, -1, MPI_INT, win)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Get(&got, -1, MPI_INT, 0, 0, 1, MPI_INT, win)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Accumulate(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win)) == MPI_ERR_COUNT);
  CHECK(error_class(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win)) == MPI_ERR_DISP);
  /* The window still works: each rank adds 1 to rank 0's [0]. */
  MPI_OK(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK(got == -1);
  if (r == 0) CHECK(w[0] == n);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Synchronization errors, outside any epoch (the last fence had MPI_MODE_NOSUCCEED). A Put or a
   * flush outside an epoch is erroneous too, but Open MPI's osc/sm does not report it. */
  CHECK(error_class(MPI_Win_unlock(0, win)) == MPI_ERR_RMA_SYNC);
  CHECK(error_class(MPI_Win_unlock_all(win)) == MPI_ERR_RMA_SYNC);
  /* MPI_ERR_LOCKTYPE is the class MPI-3.1 names (and Open MPI returns); MPICH 4.0.2 returns
   * MPI_ERR_ARG. */
  const int lt = error_class(MPI_Win_lock(12345, 0, 0, win));
  CHECK(lt == MPI_ERR_LOCKTYPE || lt == MPI_ERR_ARG);
  CHECK(error_class(MPI_Win_lock(MPI_LOCK_SHARED, n, 0, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Win_lock(MPI_LOCK_SHARED, -5, 0, win)) == MPI_ERR_RANK);
  /* Passive target errors; the epoch still completes. */
  int res = -1;
  MPI_OK(MPI_Win_lock_all(0, win));
  CHECK(error_class(MPI_Fetch_and_op(&v, &res, MPI_INT, n, 0, MPI_SUM, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Compare_and_swap(&v, &v, &res, MPI_INT, n, 0, win)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Get_accumulate(&v, 1, MPI_INT, &res, 1, MPI_INT, n, 0, 1, MPI_INT, MPI_SUM, win)) ==
        MPI_ERR_RANK);
  CHECK(error_class(MPI_Get_accumulate(&v, -1, MPI_INT, &res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win)) ==
        MPI_ERR_COUNT);
  CHECK(res == -1);
  CHECK(error_class(MPI_Win_lock_all(0, win)) == MPI_ERR_RMA_SYNC);
  CHECK(error_class(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win)) == MPI_ERR_RANK);
  MPI_OK(MPI_Fetch_and_op(&v, &res, MPI_INT, 0, 1, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock_all(win));
  CHECK(res >= 0 && res < n);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (r == 0) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(w[1] == n);
    MPI_OK(MPI_Win_unlock(0, win));
  }
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  MPI_OK(MPI_Errhandler_free(&eh));
  free_win(&win);

  /* Creation errors, reported on the communicator; every process passes the same bad argument. */
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int buf[4];
  void* base = NULL;
  win = MPI_WIN_NULL;
  CHECK(error_class(MPI_Win_create(buf, -8, 4, MPI_INFO_NULL, comm, &win)) == MPI_ERR_SIZE);
  CHECK(error_class(MPI_Win_allocate(-8, 4, MPI_INFO_NULL, comm, &base, &win)) == MPI_ERR_SIZE);
  CHECK(error_class(MPI_Win_create(buf, (MPI_Aint)sizeof buf, 0, MPI_INFO_NULL, comm, &win)) == MPI_ERR_DISP);
  CHECK(error_class(MPI_Win_create(buf, (MPI_Aint)sizeof buf, -4, MPI_INFO_NULL, comm, &win)) == MPI_ERR_DISP);
  CHECK(error_class(MPI_Win_allocate(16, 0, MPI_INFO_NULL, comm, &base, &win)) == MPI_ERR_DISP);
  CHECK(win == MPI_WIN_NULL);
  /* The communicator is still usable. */
  MPI_OK(MPI_Win_create(buf, (MPI_Aint)sizeof buf, 4, MPI_INFO_NULL, comm, &win));
  free_win(&win);
  MPI_OK(MPI_Comm_free(&comm));
}

/* MAXLOC through MPI_Accumulate on a vector of MPI_LONG_DOUBLE_INT, whose packed elements (20 bytes) are
 * shorter than its C layout (32): every rank accumulates into its successor; blocks 3 of every 5 pairs
 * (MPICH's acc_pairtype). */
static void test_pair_accumulate(void) {
  typedef struct { long double value; int index; } ldi;
  enum { N = 25 };
  ldi origin[N], *target;
  MPI_Win win;
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(5, 3, 5, MPI_LONG_DOUBLE_INT, &vec));
  MPI_OK(MPI_Type_commit(&vec));
  MPI_OK(MPI_Win_allocate(sizeof(ldi) * N, sizeof(ldi), MPI_INFO_NULL, MPI_COMM_WORLD, &target, &win));
  for (int i = 0; i < N; ++i) {
    origin[i].value = 1.5L + i;
    origin[i].index = 100 + g_rank;
    target[i].value = (i % 2) ? 1000.0L : 0.0L;  /* the odd ones win over any origin */
    target[i].index = -1;
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  const int to = succ_of(g_rank, g_size), from = pred_of(g_rank, g_size);
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
  MPI_OK(MPI_Accumulate(origin, 1, vec, to, 0, 1, vec, MPI_MAXLOC, win));
  MPI_OK(MPI_Win_unlock(to, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, g_rank, 0, win));
  for (int i = 0; i < N; ++i) {
    const int covered = i % 5 < 3;
    if (covered && i % 2 == 0) CHECK(target[i].value == 1.5L + i && target[i].index == 100 + from);
    else CHECK(target[i].value == ((i % 2) ? 1000.0L : 0.0L) && target[i].index == -1);
  }
  MPI_OK(MPI_Win_unlock(g_rank, win));
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Type_free(&vec));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &g_size));
  test_create_disp_units();
  test_allocate();
  test_subcomm_and_self();
  test_fence();
  test_datatypes();
  test_large();
  test_passive();
  test_nocheck();
  test_atomics();
  test_pair_accumulate();
  test_errors();
  int total = 0;
  MPI_OK(MPI_Allreduce(&g_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (g_failures) fprintf(stderr, "rank %d: rma: %d failures\n", g_rank, g_failures);
  if (g_rank == 0 && total) fprintf(stderr, "rma: %d failures in all\n", total);
  MPI_OK(MPI_Finalize());
  return total ? 1 : 0;
}
