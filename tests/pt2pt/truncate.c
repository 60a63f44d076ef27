/* Truncation: a message longer than the receive buffer is MPI_ERR_TRUNCATE (MPI_ERRORS_RETURN) with
 * the status filled, for eager and rendezvous, blocking and nonblocking; the buffer is not overrun. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int sizes[3] = {10, 3000, 200000};
  for (int k = 0; k < 3; ++k) {
    const int n = sizes[k];
    if (rank == 1) {
      char* b = malloc((size_t)n);
      memset(b, 'x', (size_t)n);
      MPI_OK(MPI_Send(b, n, MPI_CHAR, 0, k, MPI_COMM_WORLD));
      MPI_OK(MPI_Send(b, n, MPI_CHAR, 0, k, MPI_COMM_WORLD));
      free(b);
    } else if (rank == 0) {
      const int cap = n / 2;
      char* b = malloc((size_t)n + 16);
      memset(b, 0, (size_t)n + 16);
      MPI_Status st;
      st.MPI_ERROR = -5;
      int rc = MPI_Recv(b, cap, MPI_CHAR, 1, k, MPI_COMM_WORLD, &st);
      int cls;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "size %d: class %d", n, cls);
      CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == k, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
      CHECK(status_bytes(&st) == (size_t)cap, "count %zu, expected %d", status_bytes(&st), cap);
      /* single-completion calls leave MPI_ERROR as the caller set it (MPI-1.1 3.2.5, as MPICH) */
      CHECK(st.MPI_ERROR == -5, "status.MPI_ERROR %d", st.MPI_ERROR);
      CHECK(b[cap - 1] == 'x' && b[cap] == 0, "buffer overrun or not filled");
      /* nonblocking: error from MPI_Wait, and ERR_IN_STATUS from Waitall */
      memset(b, 0, (size_t)n + 16);
      MPI_Request r;
      MPI_OK(MPI_Irecv(b, cap, MPI_CHAR, 1, k, MPI_COMM_WORLD, &r));
      MPI_Status sts[1];
      rc = MPI_Waitall(1, &r, sts);
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_IN_STATUS, "waitall class %d", cls);
      CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE, "waitall status error %d", sts[0].MPI_ERROR);
      CHECK(b[cap] == 0, "overrun");
      free(b);
    }
  }
  if (rank == 0) printf("truncate OK\n");
  MPI_Finalize();
  return 0;
}
