/* Messages between buffers whose page offsets differ by a few bytes: the distances (destination minus
 * source, modulo 4096) at which fabmpi copies with its own loop (copy_memory) and reads by CMA through a
 * bounce buffer (pt2pt/shm_transport.cpp cma_read), and a few around them. Rank 0 sends from page + 0,
 * rank 1 receives into page + d and sends the message back from there; every byte and the bytes on either
 * side of the receive range are checked; blocking and nonblocking, sizes across the eager, rendezvous and
 * bounce-piece boundaries. Two ranks (others idle). Self-contained: builds with any MPI mpicc. */
#include <stdint.h>
#include "check.h"

static unsigned char value(size_t i, int round) { return (unsigned char)((i * 151u + (unsigned)round * 29u + 3u) & 0xff); }

int main(int argc, char** argv) {
  const long distances[] = {0, 1, 8, 16, 31, 32, 48, 63, 64, 4095};
  const size_t sizes[] = {2047, 3000, 4096, 16384 + 17, 65536, 65536 + 100, 131072 + 5, 300000, (1u << 20) + 3, 2u << 20};
  const size_t most = 2u << 20;
  int rank, size, round = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned char* base = malloc(most + 3 * 4096);
  CHECK(base != NULL, "malloc");
  unsigned char* page = (unsigned char*)(((uintptr_t)base + 4095) & ~(uintptr_t)4095);
  if (rank < 2) {
    for (size_t di = 0; di < sizeof distances / sizeof distances[0]; ++di) {
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si, ++round) {
        const size_t n = sizes[si];
        const long d = rank == 1 ? distances[di] : 0;
        unsigned char* buf = page + d;
        for (int way = 0; way < 2; ++way) {  /* 0: blocking, 1: Isend/Irecv */
          if (rank == 0) {
            for (size_t i = 0; i < n; ++i) buf[i] = value(i, round);
            if (way == 0) MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD));
            else {
              MPI_Request r;
              MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, &r));
              MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            memset(buf, 0, n);
            buf[n] = 0x5a;
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (size_t i = 0; i < n; ++i)
              CHECK(buf[i] == (unsigned char)(value(i, round) ^ 0xff), "echo distance %ld size %zu byte %zu", distances[di], n, i);
            CHECK(buf[n] == 0x5a, "byte past the echo written (size %zu)", n);
          } else {
            if (d > 0) page[d - 1] = 0xa5;
            buf[n] = 0xa5;
            if (way == 0) MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            else {
              MPI_Request r;
              MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, &r));
              MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            for (size_t i = 0; i < n; ++i)
              CHECK(buf[i] == value(i, round), "distance %ld size %zu byte %zu: %d, want %d", d, n, i, buf[i], value(i, round));
            CHECK(buf[n] == 0xa5, "byte past the message written (distance %ld size %zu)", d, n);
            if (d > 0) CHECK(page[d - 1] == 0xa5, "byte before the message written (distance %ld size %zu)", d, n);
            for (size_t i = 0; i < n; ++i) buf[i] ^= 0xff;
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD));
          }
        }
      }
    }
  }
  free(base);
  if (rank == 0) printf("shifted: %d rounds passed\n", round);
  MPI_Finalize();
  return 0;
}
