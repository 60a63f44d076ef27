/* Generalized active target synchronization and request-based operations: three post/start/complete/wait
 * epochs in which every rank puts into every rank's window (each epoch's values checked after MPI_Win_wait),
 * then MPI_Rput and MPI_Rget under MPI_Win_lock_all completed with MPI_Wait, then MPICH's test2 pattern:
 * rank 0 alone accesses rank 1 with 2000 one-int puts and gets in one epoch while rank 1 waits (more
 * operations than the shared-memory ring holds: regression for operation headers freed while still
 * queued). Validated against MPICH. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  int buf[64] = {0}; MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, peers; MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0, ranks[64]; for (int r = 0; r < size; ++r) ranks[n++] = r;
  MPI_Group_incl(world, n, ranks, &peers);
  int ok = 1;
  for (int it = 0; it < 3; ++it) {
    MPI_Win_post(peers, 0, win);
    MPI_Win_start(peers, 0, win);
    for (int t = 0; t < size; ++t) { int v = rank + 100 * it; MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win); }
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (int r = 0; r < size; ++r) ok &= buf[r] == r + 100 * it;
  }
  /* Rput / Rget under lock_all */
  MPI_Win_lock_all(0, win);
  MPI_Request req[2]; int v = 7 + rank, got = -1;
  MPI_Rput(&v, 1, MPI_INT, (rank + 1) % size, 40 + rank, 1, MPI_INT, win, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Win_flush((rank + 1) % size, win);
  MPI_Rget(&got, 1, MPI_INT, (rank + 1) % size, 40 + rank, 1, MPI_INT, win, &req[1]);
  MPI_Wait(&req[1], MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  ok &= got == 7 + rank;
  if (!ok) printf("rank %d FAILED got %d\n", rank, got);
  MPI_Win_free(&win);

  if (size >= 2) {
    enum { N = 1000 };
    static int A[2 * N], B[N];
    MPI_Win many;
    MPI_Group one;
    if (rank == 0) {
      for (int i = 0; i < N; ++i) A[i] = i, B[i] = -1;
      MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &many);
      int target = 1;
      MPI_Group_incl(world, 1, &target, &one);
      MPI_Win_start(one, 0, many);
      for (int i = 0; i < N; ++i) MPI_Put(&A[i], 1, MPI_INT, 1, i, 1, MPI_INT, many);
      for (int i = 0; i < N; ++i) MPI_Get(&B[i], 1, MPI_INT, 1, N + i, 1, MPI_INT, many);
      MPI_Win_complete(many);
      for (int i = 0; i < N; ++i) ok &= B[i] == -4 * (N + i);
      MPI_Group_free(&one);
    } else if (rank == 1) {
      for (int i = 0; i < 2 * N; ++i) A[i] = -4 * i;
      MPI_Win_create(A, sizeof A, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &many);
      int origin = 0;
      MPI_Group_incl(world, 1, &origin, &one);
      MPI_Win_post(one, 0, many);
      MPI_Win_wait(many);
      for (int i = 0; i < N; ++i) ok &= A[i] == i;
      MPI_Group_free(&one);
    } else {
      MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &many);
    }
    MPI_Win_free(&many);
    if (!ok) printf("rank %d FAILED in the 2000-operation epoch\n", rank);
  }
  MPI_Group_free(&peers); MPI_Group_free(&world);
  MPI_Finalize();
  return !ok;
}
