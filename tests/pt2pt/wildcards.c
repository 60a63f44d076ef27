/* MPI_ANY_SOURCE / MPI_ANY_TAG: rank 0 receives from everybody with wildcards (under
 * FABMPI_NETMOD=mixed the peers are split between shm and tcp) and checks statuses and data. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int per_peer = 100;
  if (rank != 0) {
    for (int i = 0; i < per_peer; ++i) {
      int msg[2] = {rank, i};
      int len = (i % 10 == 0) ? 5000 : 2; /* some rendezvous (20 KB) */
      int* buf = calloc((size_t)len, sizeof(int));
      buf[0] = rank;
      buf[1] = i;
      MPI_OK(MPI_Send(len == 2 ? msg : buf, len, MPI_INT, 0, i, MPI_COMM_WORLD));
      free(buf);
    }
  } else {
    int* next = calloc((size_t)size, sizeof(int));
    int* buf = malloc(5000 * sizeof(int));
    for (int k = 0; k < per_peer * (size - 1); ++k) {
      MPI_Status st;
      MPI_OK(MPI_Recv(buf, 5000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      const int src = st.MPI_SOURCE;
      CHECK(src >= 1 && src < size, "source %d", src);
      CHECK(buf[0] == src, "payload says %d, status says %d", buf[0], src);
      CHECK(st.MPI_TAG == next[src] && buf[1] == next[src], "from %d: tag %d, expected %d (order)", src, st.MPI_TAG, next[src]);
      CHECK(status_bytes(&st) == (next[src] % 10 == 0 ? 20000u : 8u), "bytes %zu", status_bytes(&st));
      ++next[src];
    }
    /* ANY_TAG with a specific source, and specific tag with ANY_SOURCE */
    free(next);
    free(buf);
  }
  pt_barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    int v = rank;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 1000 + rank, MPI_COMM_WORLD));
  } else {
    for (int src = size - 1; src >= 1; --src) {
      int v;
      MPI_Status st;
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(v == src && st.MPI_TAG == 1000 + src, "any-tag from %d", src);
    }
    printf("wildcards OK with %d peers\n", size - 1);
  }
  MPI_Finalize();
  return 0;
}
