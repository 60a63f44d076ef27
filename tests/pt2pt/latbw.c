/* Ping-pong latency (half round trip) and bandwidth per size, for comparing with other MPIs.
 * Not a test: build and run by hand (mpirun -np 2 pt2pt_latbw). Compiles against any mpi.h. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t max = (size_t)4 << 20;
  char* buf = malloc(max);
  memset(buf, 1, max);
  if (rank == 0) printf("%10s %12s %12s\n", "bytes", "lat_us", "MB/s");
  for (size_t s = 0; s <= max; s = s ? s * 4 : 1) {
    const int iters = s <= 65536 ? 2000 : 100;
    double t0 = 0;
    for (int i = -10; i < iters; ++i) {
      if (i == 0) t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, (int)s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, (int)s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    const double half = (MPI_Wtime() - t0) / iters / 2;
    if (rank == 0) printf("%10zu %12.2f %12.1f\n", s, half * 1e6, s / half / 1e6);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
