/* The shared-memory collectives (coll/shm_*.cpp) beyond what coll_check covers, run with every
 * FABMPI_<COLL>_ALGORITHM=shm (meson.build):
 *   1. counts at the slot limit and just above it (the engine's algorithms take over), per collective;
 *   2. many back-to-back small calls (double-buffered slots: a rank runs one call ahead), varying roots;
 *   3. split and dup sub-communicators running shm collectives interleaved with pt2pt traffic and
 *      nonblocking collectives on the same communicators;
 *   4. communicator free + recreate in a loop; /dev/shm holds no fabmpi-coll object afterwards;
 *   5. a vector datatype (2 ints, stride 3) through bcast, allreduce, gather, scatter, allgather, alltoall.
 * argv[1]: the slot size in bytes (FABMPI_SHM_COLL_SLOT), argv[2]: iterations of part 2. */
#include <mpi.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank_, size_;
static long failures;

#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond)) {                                            \
      if (failures++ < 10) {                                  \
        fprintf(stderr, "rank %d: line %d: ", rank_, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                         \
        fprintf(stderr, "\n");                                \
      }                                                       \
    }                                                         \
  } while (0)

static int v(int r, int i) { return (r * 1000003 + i * 7919) % 100003; }

static int coll_objects(void) {
  DIR* d = opendir("/dev/shm");
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  char mine[64];
  snprintf(mine, sizeof mine, "-coll-%d-", (int)getpid());  /* "<node segment>-coll-<creator pid>-..." */
  while ((e = readdir(d)) != NULL)
    if (strncmp(e->d_name, "fabmpi-", 7) == 0 && strstr(e->d_name, mine) != NULL) ++n;
  closedir(d);
  return n;
}

/* Every collective once with `n` ints per rank block (vector for reduce/allreduce). */
static void all_once(MPI_Comm comm, int n, int root) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int* a = malloc(sizeof(int) * ((size_t)n * p + 1));
  int* b = malloc(sizeof(int) * ((size_t)n * p + 1));
  /* bcast */
  for (int i = 0; i < n; ++i) a[i] = me == root ? v(root, i) : -1;
  MPI_Bcast(a, n, MPI_INT, root, comm);
  for (int i = 0; i < n; ++i) CHECK(a[i] == v(root, i), "bcast n=%d i=%d", n, i);
  /* allreduce, reduce */
  for (int i = 0; i < n; ++i) a[i] = v(me, i) % 1000;
  MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int r = 0; r < p; ++r) want += v(r, i) % 1000;
    CHECK(b[i] == want, "allreduce n=%d i=%d: %d vs %d", n, i, b[i], want);
  }
  for (int i = 0; i < n; ++i) b[i] = -1;
  MPI_Reduce(a, b, n, MPI_INT, MPI_MAX, root, comm);
  if (me == root)
    for (int i = 0; i < n; ++i) {
      int want = 0;
      for (int r = 0; r < p; ++r) want = v(r, i) % 1000 > want ? v(r, i) % 1000 : want;
      CHECK(b[i] == want, "reduce n=%d i=%d", n, i);
    }
  /* gather, allgather */
  for (int i = 0; i < n; ++i) a[i] = v(me, i);
  MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, comm);
  if (me == root)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < n; ++i) CHECK(b[r * n + i] == v(r, i), "gather n=%d r=%d i=%d", n, r, i);
  MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) CHECK(b[r * n + i] == v(r, i), "allgather n=%d r=%d i=%d", n, r, i);
  /* scatter */
  if (me == root)
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < n; ++i) b[r * n + i] = v(r, i);
  MPI_Scatter(b, n, MPI_INT, a, n, MPI_INT, root, comm);
  for (int i = 0; i < n; ++i) CHECK(a[i] == v(me, i), "scatter n=%d i=%d", n, i);
  /* alltoall: block r of rank s is v(s * p + r, i) */
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) a[r * n + i] = v(me * p + r, i);
  MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, comm);
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < n; ++i) CHECK(b[r * n + i] == v(r * p + me, i), "alltoall n=%d r=%d i=%d", n, r, i);
  /* reduce_scatter_block */
  for (int i = 0; i < n * p; ++i) a[i] = v(me, i) % 1000;
  MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int r = 0; r < p; ++r) want += v(r, me * n + i) % 1000;
    CHECK(b[i] == want, "reduce_scatter_block n=%d i=%d", n, i);
  }
  MPI_Barrier(comm);
  free(a);
  free(b);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const int slot = argc > 1 ? atoi(argv[1]) : 32768;
  const int iters = argc > 2 ? atoi(argv[2]) : 10000;
  const int before = coll_objects();

  /* 1. Around the slot limit: per rank block of n ints, the largest shm case is n*p*4 == slot
   * (scatter/alltoall/reduce_scatter_block) or n*4 == slot (the others). */
  const int limits[] = {slot / 4, slot / 4 + 1, slot / 4 / size_, slot / 4 / size_ + 1};
  for (int k = 0; k < 4; ++k) all_once(MPI_COMM_WORLD, limits[k], k % size_);

  /* 2. Back to back: small calls, roots varying, values changing every call. */
  for (int it = 0; it < iters; ++it) {
    const int root = it % size_;
    int x = rank_ == root ? it : -1;
    MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(x == it, "bcast iteration %d: %d", it, x);
    int s = rank_ + it, sum = 0;
    MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size_ * (size_ - 1) / 2 + size_ * it, "allreduce iteration %d: %d", it, sum);
    if (it % 4 == 0) {
      int g[64];
      MPI_Gather(&s, 1, MPI_INT, g, 1, MPI_INT, root, MPI_COMM_WORLD);
      if (rank_ == root)
        for (int r = 0; r < size_ && r < 64; ++r) CHECK(g[r] == r + it, "gather iteration %d", it);
      int red = 0;
      MPI_Reduce(&s, &red, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
      if (rank_ == root) CHECK(red == sum, "reduce iteration %d", it);
    }
    if (it % 16 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }

  /* 3. Sub-communicators, shm collectives interleaved with pt2pt and nonblocking collectives. */
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, -rank_, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int hr, hp;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hp);
  for (int it = 0; it < 500; ++it) {
    int ib = rank_ == 0 ? it : -1, ia = 0, one = 1;
    MPI_Request reqs[4];
    MPI_Ibcast(&ib, 1, MPI_INT, 0, dup, &reqs[0]);
    MPI_Iallreduce(&one, &ia, 1, MPI_INT, MPI_SUM, half, &reqs[1]);
    const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int token = rank_ * 1000 + it, got = -1;
    MPI_Irecv(&got, 1, MPI_INT, left, it % 7, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(&token, 1, MPI_INT, right, it % 7, MPI_COMM_WORLD, &reqs[3]);
    int s = 0, x = hr + it;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, half);
    CHECK(s == hp * (hp - 1) / 2 + hp * it, "half allreduce iteration %d", it);
    int y = rank_ == size_ - 1 ? it : -2;
    MPI_Bcast(&y, 1, MPI_INT, size_ - 1, dup);
    CHECK(y == it, "dup bcast iteration %d", it);
    MPI_Barrier(half);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    CHECK(ib == it && ia == hp && got == left * 1000 + it, "nonblocking/pt2pt iteration %d", it);
    if (it % 50 == 0) all_once(half, 3, hp - 1);
  }
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);

  /* 4. Free + recreate. */
  for (int it = 0; it < 200; ++it) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int x = 1, s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c);
    CHECK(s == size_, "recreated allreduce %d", it);
    MPI_Barrier(c);
    CHECK(coll_objects() == before, "iteration %d: fabmpi-coll objects left in /dev/shm", it);
    MPI_Comm_free(&c);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(coll_objects() == before, "fabmpi-coll objects left in /dev/shm at the end");

  /* 5. Vector datatype: element e of a buffer is ints [3e] and [3e+1]; [3e+2] is a gap left alone. */
  {
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    enum { N = 5 };
    const int p = size_, ints = 3 * N * 64;
    int* a = malloc(sizeof(int) * ints);
    int* b = malloc(sizeof(int) * ints);
    /* vector extent is 4 ints (lb 0, ub 3*1+1): element e starts at int 4e */
    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec, &lb, &ext);
    const int stride = (int)(ext / sizeof(int));
#define AT(buf, e, k) (buf)[(e) * stride + (k) * 3]
    for (int i = 0; i < ints; ++i) a[i] = b[i] = -7;
    for (int e = 0; e < N; ++e) { AT(a, e, 0) = rank_ == 0 ? v(0, 2 * e) : -1; AT(a, e, 1) = rank_ == 0 ? v(0, 2 * e + 1) : -1; }
    MPI_Bcast(a, N, vec, 0, MPI_COMM_WORLD);
    for (int e = 0; e < N; ++e) CHECK(AT(a, e, 0) == v(0, 2 * e) && AT(a, e, 1) == v(0, 2 * e + 1), "vector bcast e=%d", e);
    for (int e = 0; e < N; ++e) { AT(a, e, 0) = rank_ + e; AT(a, e, 1) = 2 * rank_ + e; }
    MPI_Allreduce(a, b, N, vec, MPI_SUM, MPI_COMM_WORLD);
    for (int e = 0; e < N; ++e)
      CHECK(AT(b, e, 0) == p * (p - 1) / 2 + p * e && AT(b, e, 1) == p * (p - 1) + p * e, "vector allreduce e=%d", e);
    for (int e = 0; e < N; ++e) CHECK(b[e * stride + 1] == -7, "vector allreduce wrote into a gap at e=%d", e);
    /* gather/allgather/scatter/alltoall: one element per rank block (block r = element r) */
    for (int i = 0; i < ints; ++i) b[i] = -7;
    AT(a, 0, 0) = v(rank_, 0); AT(a, 0, 1) = v(rank_, 1);
    MPI_Allgather(a, 1, vec, b, 1, vec, MPI_COMM_WORLD);
    for (int r = 0; r < p && r < 64; ++r) CHECK(AT(b, r, 0) == v(r, 0) && AT(b, r, 1) == v(r, 1), "vector allgather r=%d", r);
    for (int i = 0; i < ints; ++i) b[i] = -7;
    MPI_Gather(a, 1, vec, b, 1, vec, p - 1, MPI_COMM_WORLD);
    if (rank_ == p - 1)
      for (int r = 0; r < p && r < 64; ++r) CHECK(AT(b, r, 0) == v(r, 0) && AT(b, r, 1) == v(r, 1), "vector gather r=%d", r);
    for (int r = 0; r < p && r < 64; ++r) { AT(a, r, 0) = v(rank_ * p + r, 0); AT(a, r, 1) = v(rank_ * p + r, 1); }
    for (int i = 0; i < ints; ++i) b[i] = -7;
    MPI_Alltoall(a, 1, vec, b, 1, vec, MPI_COMM_WORLD);
    for (int r = 0; r < p && r < 64; ++r)
      CHECK(AT(b, r, 0) == v(r * p + rank_, 0) && AT(b, r, 1) == v(r * p + rank_, 1), "vector alltoall r=%d", r);
    for (int i = 0; i < ints; ++i) b[i] = -7;
    MPI_Scatter(a, 1, vec, b, 1, vec, 0, MPI_COMM_WORLD);
    CHECK(AT(b, 0, 0) == v(rank_, 0) && AT(b, 0, 1) == v(rank_, 1), "vector scatter");
#undef AT
    free(a);
    free(b);
    MPI_Type_free(&vec);
  }

  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf("shm_coll on %d ranks: %ld failures\n", size_, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
