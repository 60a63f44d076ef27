/* Dynamic windows (MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach): every rank attaches two
 * arrays, publishes their addresses (MPI_Get_address + MPI_Allgather), and under MPI_Win_lock_all puts into
 * the next rank's first array, accumulates into the previous rank's second array with a vector target
 * type, reads both back after flushes, then detaches and re-attaches a fresh array and uses it in a fence
 * epoch. Then two halves of one array attached separately, and a put and a get that span both (MPICH's
 * win_dynamic_rma_flush_get). Attributes: MPI_WIN_CREATE_FLAVOR is MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_SIZE 0.
 * Validated against MPICH. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", rank, __FILE__, __LINE__, #c); \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

enum { N = 16 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int* flavor;
  MPI_Aint* wsize;
  int flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
  CHECK(flag && *wsize == 0);

  int a[N], b[N];
  for (int i = 0; i < N; ++i) a[i] = b[i] = -1;
  MPI_Win_attach(win, a, sizeof a);
  MPI_Win_attach(win, b, sizeof b);
  MPI_Aint mine[2], all[2 * 64];
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(b, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int values[N], ones[N / 2], got[N];
  for (int i = 0; i < N; ++i) values[i] = 1000 * rank + i;
  for (int i = 0; i < N / 2; ++i) ones[i] = rank + 1;
  MPI_Datatype every_other;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);

  MPI_Win_lock_all(0, win);
  MPI_Put(values, N, MPI_INT, next, all[2 * next], N, MPI_INT, win);
  MPI_Win_flush(next, win);
  MPI_Get(got, N, MPI_INT, next, all[2 * next], N, MPI_INT, win);
  MPI_Win_flush(next, win);
  for (int i = 0; i < N; ++i) CHECK(got[i] == 1000 * rank + i);
  MPI_Accumulate(ones, N / 2, MPI_INT, prev, all[2 * prev + 1], 1, every_other, MPI_SUM, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);  /* read our own window memory inside an epoch */
  for (int i = 0; i < N; ++i) CHECK(a[i] == 1000 * prev + i);
  for (int i = 0; i < N; ++i) CHECK(b[i] == (i % 2 == 0 ? -1 + next + 1 : -1));
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Detach, attach fresh memory, publish it, use it in a fence epoch. */
  MPI_Win_detach(win, a);
  MPI_Win_detach(win, b);
  int* c = calloc(N, sizeof(int));
  MPI_Win_attach(win, c, N * sizeof(int));
  MPI_Get_address(c, &mine[0]);
  MPI_Allgather(mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  MPI_Put(&rank, 1, MPI_INT, next, all[next] + (MPI_Aint)sizeof(int), 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(c[1] == prev);
  MPI_Win_detach(win, c);
  free(c);

  /* One access across two regions attached separately that touch. */
  int halves[2 * N], across[N];
  for (int i = 0; i < 2 * N; ++i) halves[i] = -1;
  MPI_Win_attach(win, halves, N * sizeof(int));
  MPI_Win_attach(win, halves + N, N * sizeof(int));
  MPI_Get_address(halves + N / 2, &mine[0]);  /* the middle of the first half */
  MPI_Allgather(mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  MPI_Put(values, N, MPI_INT, next, all[next], N, MPI_INT, win);
  MPI_Win_flush(next, win);
  MPI_Get(across, N, MPI_INT, next, all[next], N, MPI_INT, win);
  MPI_Win_unlock_all(win);
  for (int i = 0; i < N; ++i) CHECK(across[i] == 1000 * rank + i);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 2 * N; ++i) CHECK(halves[i] == (i >= N / 2 && i < N / 2 + N ? 1000 * prev + i - N / 2 : -1));
  MPI_Win_detach(win, halves);
  MPI_Win_detach(win, halves + N);

  MPI_Type_free(&every_other);
  MPI_Win_free(&win);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? 1 : 0;
}
