/* A sender that computes outside MPI right after starting a large send must not hold its receiver up.
 * Native shm streams large messages through the rings, which needs the sender's progress; when the
 * sender stays silent the receiver takes the read over with cross-memory attach (CMA). Rank 0 starts an
 * MPI_Isend (4 MiB + 1 byte, then 1 MiB) and spins for 1.5 s without calling MPI; rank 1's receive must
 * complete well before that (checked on native shm where CMA works: not with FABMPI_SHM_CMA=0, nor
 * where the kernel denies process_vm_readv; over libfabric's network providers a read needs the
 * sender's progress, as in every MPI without a progress thread) and deliver every byte. Both orders:
 * receive posted before and after the send arrives. */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cma_usable(void) {
  const char* env = getenv("FABMPI_SHM_CMA");
  const char* netmod = getenv("FABMPI_NETMOD");
  if (env && strcmp(env, "0") == 0) return 0;
  if (netmod && strcmp(netmod, "auto") != 0 && strcmp(netmod, "shm") != 0) return 0;
  long word = 42, copy = 0;
  struct iovec l = {&copy, sizeof copy}, r = {&word, sizeof word};
  return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof copy && copy == 42;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks");
  const size_t sizes[] = {((size_t)4 << 20) + 1, (size_t)1 << 20};
  const size_t max = sizes[0];
  unsigned char* buf = malloc(max);
  const int timed = cma_usable();
  for (int round = 0; round < 4; ++round) {
    const size_t n = sizes[round % 2];
    const int post_first = round >= 2;  /* rank 1 posts its receive before the send starts */
    if (rank == 0) {
      for (size_t i = 0; i < n; ++i) buf[i] = (unsigned char)(i * 7 + (size_t)round);
      pt_barrier(MPI_COMM_WORLD);
      MPI_Request req;
      MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, &req));
      const double start = now_s();
      volatile unsigned long spin = 0;
      while (now_s() - start < 1.5) ++spin;  /* compute, no MPI call */
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      double took = 0;
      MPI_OK(MPI_Recv(&took, 1, MPI_DOUBLE, 1, 100 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (timed) CHECK(took < 1.0, "round %d: the receive took %.3f s while the sender computed", round, took);
    } else {
      memset(buf, 0, n);
      MPI_Request req = MPI_REQUEST_NULL;
      if (post_first) MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, &req));
      pt_barrier(MPI_COMM_WORLD);
      const double start = now_s();
      if (post_first) MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      else MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      const double took = now_s() - start;
      for (size_t i = 0; i < n; ++i)
        if (buf[i] != (unsigned char)(i * 7 + (size_t)round)) CHECK(0, "round %d: byte %zu is %d", round, i, buf[i]);
      MPI_OK(MPI_Send(&took, 1, MPI_DOUBLE, 0, 100 + round, MPI_COMM_WORLD));
    }
  }
  if (rank == 0) printf("silent_sender: 4 rounds OK%s\n", timed ? " (receiver not held up)" : " (timing not checked)");
  free(buf);
  MPI_Finalize();
  return 0;
}
