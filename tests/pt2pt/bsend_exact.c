/* MPI_Bsend with an attached buffer of exactly MPI_Pack_size + MPI_BSEND_OVERHEAD bytes per message
 * (what MPI-3.1 section 3.6.1 promises is enough), for sizes that are not multiples of 8 and for
 * several messages at once. Found by mpi4py's test_p2p_buf (a 97-byte buffer for a 1-byte message). */
#include "check.h"

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int dest = (rank + 1) % size, source = (rank + size - 1) % size;
  for (int count = 0; count <= 17; ++count) {
    for (int messages = 1; messages <= 3; ++messages) {
      int packed;
      MPI_OK(MPI_Pack_size(count, MPI_CHAR, MPI_COMM_WORLD, &packed));
      const int bytes = messages * (packed + MPI_BSEND_OVERHEAD);
      char* buffer = malloc((size_t)bytes);
      char out[3][17], in[3][17];
      MPI_OK(MPI_Buffer_attach(buffer, bytes));
      for (int m = 0; m < messages; ++m) {
        memset(out[m], 'a' + m, sizeof out[m]);
        MPI_OK(MPI_Bsend(out[m], count, MPI_CHAR, dest, m, MPI_COMM_WORLD));
      }
      for (int m = 0; m < messages; ++m) {
        MPI_Status st;
        int got = -1;
        MPI_OK(MPI_Recv(in[m], count, MPI_CHAR, source, m, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_CHAR, &got));
        CHECK(got == count, "count %d message %d: received %d", count, m, got);
        for (int i = 0; i < count; ++i) CHECK(in[m][i] == 'a' + m, "count %d message %d: byte %d", count, m, i);
      }
      void* detached;
      int detached_size;
      MPI_OK(MPI_Buffer_detach(&detached, &detached_size));
      CHECK(detached == buffer && detached_size == bytes, "detach returned %p/%d", detached, detached_size);
      free(buffer);
    }
  }
  MPI_OK(MPI_Finalize());
  return 0;
}
