/* Ring exchange timing: each rank Sendrecv's ITERS messages to its right neighbour; prints the time.
 * With more ranks than cores, waiting ranks must yield: 16 ranks on 2 cores should take about 8x the
 * time of 2 ranks, not 100x. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 2000;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1;
  pt_barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, i, &in, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == left, "got %d from %d", in, left);
  }
  pt_barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ring: %d ranks, %d iterations, %.3f s (%.1f us per step)\n", size, iters,
                        MPI_Wtime() - t0, (MPI_Wtime() - t0) * 1e6 / iters);
  MPI_Finalize();
  return 0;
}
