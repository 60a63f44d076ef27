/* Messages of 16 KiB - 1 MiB between every pair of ranks, many times over, in the patterns that make
 * native shared memory's receivers switch how each peer's messages reach them (FABMPI_SHM_CHOOSE:
 * through the ring, or by rendezvous and CMA; the advice for eager sizes reaches the sender while its
 * messages are in flight, and probes flip it and back at intervals): windows of nonblocking sends one
 * way, exchanges both ways at once (MPI_Sendrecv), synchronous sends, receives posted late (unexpected)
 * and by MPI_ANY_SOURCE, MPI_Probe of what is coming. Every byte is checked.
 *   argv[1]: rounds (default 1000) */
#include "check.h"

static const size_t kSizes[] = {16384, 20000, 32768, 65535, 65536, 65537, 100000, 131072, 262144, 300000, 1048576};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])
#define WINDOW 8

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  const size_t max = kSizes[NSIZES - 1];
  unsigned char* sbuf = malloc(max * WINDOW);
  unsigned char* rbuf = malloc(max * WINDOW);
  CHECK(sbuf && rbuf, "malloc");
  const int right = (rank + 1) % np, left = (rank + np - 1) % np;

  for (int round = 0; round < rounds; ++round) {
    /* Smaller sizes every round, the larger ones every 8th (bounded run time). */
    const size_t size = kSizes[round % 8 == 7 ? NSIZES - 1 - (round / 8) % 4 : (size_t)round % (NSIZES - 4)];
    const int tag = round % 1000;
    MPI_Request req[2 * WINDOW];
    MPI_Status st;
    if (np == 1) {
      pattern_fill(sbuf, size, rank, tag);
      MPI_OK(MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, 0, tag, rbuf, (int)size, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
      pattern_verify(rbuf, size, rank, tag, "self");
      continue;
    }
    switch (round % 4) {
      case 0: /* a window one way round the ring: send right, receive from the left */
        for (int w = 0; w < WINDOW; ++w) {
          pattern_fill(sbuf + (size_t)w * size, size, rank, tag + w);
          MPI_OK(MPI_Irecv(rbuf + (size_t)w * size, (int)size, MPI_BYTE, left, tag + w, MPI_COMM_WORLD, &req[w]));
        }
        for (int w = 0; w < WINDOW; ++w)
          MPI_OK(MPI_Isend(sbuf + (size_t)w * size, (int)size, MPI_BYTE, right, tag + w, MPI_COMM_WORLD, &req[WINDOW + w]));
        MPI_OK(MPI_Waitall(2 * WINDOW, req, MPI_STATUSES_IGNORE));
        for (int w = 0; w < WINDOW; ++w) pattern_verify(rbuf + (size_t)w * size, size, left, tag + w, "window");
        break;
      case 1: /* an exchange both ways at once */
        pattern_fill(sbuf, size, rank, tag);
        MPI_OK(MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, right, tag, rbuf, (int)size, MPI_BYTE, left, tag,
                            MPI_COMM_WORLD, &st));
        CHECK(status_bytes(&st) == size && st.MPI_SOURCE == left, "exchange status: %zu bytes from %d",
              status_bytes(&st), st.MPI_SOURCE);
        pattern_verify(rbuf, size, left, tag, "exchange");
        break;
      case 2: /* synchronous sends, received late (probed first) by MPI_ANY_SOURCE */
        pattern_fill(sbuf, size, rank, tag);
        MPI_OK(MPI_Issend(sbuf, (int)size, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[0]));
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
        CHECK(status_bytes(&st) == size && st.MPI_SOURCE == left, "probe: %zu bytes from %d", status_bytes(&st),
              st.MPI_SOURCE);
        MPI_OK(MPI_Recv(rbuf, (int)size, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        pattern_verify(rbuf, size, left, tag, "synchronous");
        break;
      default: /* unexpected: everyone sends first, the receives come after a barrier */
        for (int w = 0; w < 2; ++w) {
          pattern_fill(sbuf + (size_t)w * size, size, rank, tag + w);
          MPI_OK(MPI_Isend(sbuf + (size_t)w * size, (int)size, MPI_BYTE, right, tag + w, MPI_COMM_WORLD, &req[w]));
        }
        pt_barrier(MPI_COMM_WORLD);
        for (int w = 1; w >= 0; --w)
          MPI_OK(MPI_Recv(rbuf + (size_t)w * size, (int)size, MPI_BYTE, left, tag + w, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        for (int w = 0; w < 2; ++w) pattern_verify(rbuf + (size_t)w * size, size, left, tag + w, "unexpected");
        break;
    }
  }
  pt_barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ways: %d rounds on %d ranks OK\n", rounds, np);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
