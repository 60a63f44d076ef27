/* Ping-pong of every power-of-two size (and neighbours) from 0 B to 64 MiB, across the inject / eager /
 * rendezvous switches, data checked both ways. Also Ssend and Isend/Irecv variants per size. */
#include "check.h"

static void fill(unsigned char* b, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(i * 31 + (size_t)seed);
}
static void verify(const unsigned char* b, size_t n, int seed, size_t size) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != (unsigned char)(i * 31 + (size_t)seed)) CHECK(0, "size %zu: byte %zu is %d", size, i, b[i]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks");
  const size_t max = (size_t)64 << 20;
  unsigned char* buf = malloc(max + 1);
  size_t sizes[200];
  int n = 0;
  sizes[n++] = 0;
  for (size_t s = 1; s <= max; s *= 2) {
    if (s > 2) sizes[n++] = s - 1;
    sizes[n++] = s;
    if (s < max) sizes[n++] = s + 1;
  }
  for (int k = 0; k < n; ++k) {
    const size_t s = sizes[k];
    const int variant = k % 3; /* 0: Send/Recv, 1: Ssend/Recv, 2: Isend/Irecv */
    MPI_Status st;
    if (rank == 0) {
      fill(buf, s, k);
      if (variant == 1) MPI_OK(MPI_Ssend(buf, (int)s, MPI_BYTE, 1, k, MPI_COMM_WORLD));
      else MPI_OK(MPI_Send(buf, (int)s, MPI_BYTE, 1, k, MPI_COMM_WORLD));
      memset(buf, 0, s);
      MPI_OK(MPI_Recv(buf, (int)s, MPI_BYTE, 1, k, MPI_COMM_WORLD, &st));
      CHECK(status_bytes(&st) == s, "count %zu != %zu", status_bytes(&st), s);
      verify(buf, s, k + 1, s);
    } else {
      memset(buf, 0, s);
      if (variant == 2) {
        MPI_Request r;
        MPI_OK(MPI_Irecv(buf, (int)s, MPI_BYTE, 0, k, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, &st));
        CHECK(r == MPI_REQUEST_NULL, "request not freed");
      } else {
        MPI_OK(MPI_Recv(buf, (int)s, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
      }
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == k, "status %d %d", st.MPI_SOURCE, st.MPI_TAG);
      CHECK(status_bytes(&st) == s, "count %zu != %zu", status_bytes(&st), s);
      verify(buf, s, k, s);
      fill(buf, s, k + 1);
      if (variant == 2) {
        MPI_Request r;
        MPI_OK(MPI_Isend(buf, (int)s, MPI_BYTE, 0, k, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      } else {
        MPI_OK(MPI_Send(buf, (int)s, MPI_BYTE, 0, k, MPI_COMM_WORLD));
      }
    }
  }
  free(buf);
  if (rank == 0) printf("pingpong: %d sizes up to %zu bytes OK\n", n, max);
  MPI_Finalize();
  return 0;
}
