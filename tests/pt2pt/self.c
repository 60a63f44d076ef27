/* Messages to oneself: eager and rendezvous, Irecv-first and Send-first, Ssend, Sendrecv(_replace). */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int sizes[4] = {0, 1, 1000, 1 << 20};
  for (int k = 0; k < 4; ++k) {
    const int n = sizes[k];
    int* s = malloc(sizeof(int) * (size_t)(n + 1));
    int* r = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) s[i] = i ^ k;
    MPI_Request rq, sq;
    /* Send first (standard mode may buffer or rendezvous: use Isend) */
    MPI_OK(MPI_Isend(s, n, MPI_INT, rank, k, MPI_COMM_WORLD, &sq));
    MPI_OK(MPI_Recv(r, n, MPI_INT, rank, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; ++i) CHECK(r[i] == (i ^ k), "send-first %d", i);
    /* Receive first, synchronous send */
    memset(r, 0, sizeof(int) * (size_t)n);
    MPI_OK(MPI_Irecv(r, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Ssend(s, n, MPI_INT, rank, k, MPI_COMM_WORLD));
    MPI_Status st;
    MPI_OK(MPI_Wait(&rq, &st));
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == k, "status");
    for (int i = 0; i < n; ++i) CHECK(r[i] == (i ^ k), "recv-first %d", i);
    /* MPI_COMM_SELF and Sendrecv */
    memset(r, 0, sizeof(int) * (size_t)n);
    MPI_OK(MPI_Sendrecv(s, n, MPI_INT, 0, 3, r, n, MPI_INT, 0, 3, MPI_COMM_SELF, &st));
    for (int i = 0; i < n; ++i) CHECK(r[i] == (i ^ k), "sendrecv %d", i);
    MPI_OK(MPI_Sendrecv_replace(s, n, MPI_INT, 0, 4, 0, 4, MPI_COMM_SELF, &st));
    for (int i = 0; i < n; ++i) CHECK(s[i] == (i ^ k), "sendrecv_replace %d", i);
    free(s);
    free(r);
  }
  if (rank == 0) printf("self OK\n");
  MPI_Finalize();
  return 0;
}
