/* Non-overtaking: many same-tag messages from each peer arrive in order, across eager, credit
 * exhaustion (fallback to rendezvous) and rendezvous sizes, with the receives posted late. */
#include "check.h"

#define N 2000
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int small[N];
  const int big_n = 20000; /* 80 KB: rendezvous */
  int* big = malloc(sizeof(int) * big_n);
  if (rank != 0) {
    /* All nonblocking: a standard send may wait for its receive (rendezvous, or out of credits), and
     * rank 0 posts receives only after the barrier. */
    static MPI_Request reqs[2 * N + 1];
    int nreq = 0;
    for (int i = 0; i < N; ++i) {
      small[i] = rank * 1000000 + i;
      if (i % 50 == 49) MPI_OK(MPI_Isend(big, 0, MPI_INT, 0, 5, MPI_COMM_WORLD, &reqs[nreq++])); /* zero-size marker */
      MPI_OK(MPI_Isend(&small[i], 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &reqs[nreq++]));
    }
    for (int i = 0; i < big_n; ++i) big[i] = rank + i;
    MPI_OK(MPI_Isend(big, big_n, MPI_INT, 0, 5, MPI_COMM_WORLD, &reqs[nreq++]));
    pt_barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
  } else {
    pt_barrier(MPI_COMM_WORLD); /* every message is unexpected by now (or held back by credits) */
    for (int src = 1; src < size; ++src) {
      for (int i = 0; i < N; ++i) {
        MPI_Status st;
        int v = -1;
        if (i % 50 == 49) {
          MPI_OK(MPI_Recv(&v, 1, MPI_INT, src, 5, MPI_COMM_WORLD, &st));
          CHECK(status_bytes(&st) == 0, "expected the zero-size marker before message %d", i);
        }
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, src, 5, MPI_COMM_WORLD, &st));
        CHECK(v == src * 1000000 + i, "from %d: got %d, expected %d", src, v, src * 1000000 + i);
      }
      memset(big, 0, sizeof(int) * big_n);
      MPI_OK(MPI_Recv(big, big_n, MPI_INT, src, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < big_n; ++i) CHECK(big[i] == src + i, "big[%d]", i);
    }
    printf("ordering: %d messages from each of %d peers in order\n", N, size - 1);
  }
  free(big);
  MPI_Finalize();
  return 0;
}
