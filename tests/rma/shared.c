/* MPI_Win_allocate_shared and MPI_Win_shared_query: every member writes its own part (of a different size
 * on odd and even ranks) under lock_all, synchronizes with MPI_Win_sync + barrier, reads every other part
 * through shared_query's pointer, checks the flavor attribute, then puts to the next member through the
 * usual RMA path and reads what the previous one put. A second window where the odd node ranks contribute
 * nothing: their shared_query answers size 0 and a NULL base (as MPICH), MPI_PROC_NULL the first
 * nonempty segment. Validated against MPICH. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node; MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int nrank, nsize; MPI_Comm_rank(node, &nrank); MPI_Comm_size(node, &nsize);
  int* mine; MPI_Win win;
  MPI_Win_allocate_shared((rank % 2 ? 3 : 5) * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win);
  int n = rank % 2 ? 3 : 5;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < n; ++i) mine[i] = 100 * nrank + i;
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  int ok = 1;
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint sz; int du; int* p;
    MPI_Win_shared_query(win, r, &sz, &du, &p);
    int cnt = (int)(sz / sizeof(int));
    for (int i = 0; i < cnt; ++i) ok &= p[i] == 100 * r + i;
    ok &= du == (int)sizeof(int);
  }
  MPI_Barrier(node);  /* everyone has read before the puts below change slot 0 */
  int flavor_ok = 0; int* flavor; int flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  flavor_ok = flag && *flavor == MPI_WIN_FLAVOR_SHARED;
  /* RMA through the usual path too */
  int v = rank + 1000, got = -1;
  MPI_Put(&v, 1, MPI_INT, (nrank + 1) % nsize, 0, 1, MPI_INT, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(node);
  MPI_Win_lock(MPI_LOCK_SHARED, nrank, 0, win);
  got = mine[0];
  MPI_Win_unlock(nrank, win);
  ok &= got == 1000 + (rank - nrank) + (nrank + nsize - 1) % nsize;  /* from the previous node rank */
  if (!ok || !flavor_ok) printf("rank %d: ok %d flavor %d got %d\n", rank, ok, flavor_ok, got);
  MPI_Win_free(&win);

  int* part;
  MPI_Win_allocate_shared(nrank % 2 ? 0 : 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &part, &win);
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint sz; int du; int* p;
    MPI_Win_shared_query(win, r, &sz, &du, &p);
    if (r % 2) ok &= sz == 0 && p == NULL;
    else ok &= sz == 4 * (MPI_Aint)sizeof(int) && p != NULL;
  }
  {
    MPI_Aint sz; int du; int* p; int* first;
    MPI_Win_shared_query(win, 0, &sz, &du, &first);
    MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p);
    ok &= p == first && sz == 4 * (MPI_Aint)sizeof(int);
  }
  if (!ok) printf("rank %d: zero-size shared_query failed\n", rank);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return !(ok && flavor_ok);
}
