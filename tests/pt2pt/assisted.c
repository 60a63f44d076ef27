/* Assisted reads (native shm, FABMPI_SHM_ASSIST_MIN): a large message from memory the receiver maps, into a
 * receive buffer the sender can map (adopted after FABMPI_SHM_ADOPT receives, or MPI_Alloc_mem memory), is
 * copied by both ranks at once, 64 KiB chunks each takes in turn. Every byte is checked in:
 * - a window of receives (more than the 8 reads a pair helps at once) into slices of one buffer at odd
 *   offsets, of sizes that are not whole chunks and span several 1 MiB read pieces;
 * - exchanges, each rank reading the other's message while helping with its own;
 * - a sender that computes outside MPI while its message is read (it helps with nothing);
 * - MPI_Alloc_mem memory on both sides; a truncated receive (MPI_ERR_TRUNCATE, the prefix delivered);
 * - receive buffers freed and allocated again between rounds.
 *
 * argv[1] "expect-assisted": the MPI_T counter rendezvous_bytes_assisted must have grown on some rank.
 * "expect-none": it must have stayed 0 on every rank (FABMPI_SHM_ASSIST_MIN=0). */
#include <time.h>

#include "check.h"

static int counter_index = -1;
static MPI_T_pvar_session counter_session;
static MPI_T_pvar_handle counter_handle;

static void counter_start(void) {
  int provided, count = 0;
  MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  if (MPI_T_pvar_get_index("rendezvous_bytes_assisted", MPI_T_PVAR_CLASS_COUNTER, &counter_index) != MPI_SUCCESS) {
    counter_index = -1;
    return;
  }
  MPI_OK(MPI_T_pvar_session_create(&counter_session));
  MPI_OK(MPI_T_pvar_handle_alloc(counter_session, counter_index, NULL, &counter_handle, &count));
  MPI_OK(MPI_T_pvar_start(counter_session, counter_handle));
}

static unsigned long long assisted_bytes(void) {
  unsigned long long v = 0;
  if (counter_index >= 0) MPI_OK(MPI_T_pvar_read(counter_session, counter_handle, &v));
  return v;
}

static void spin_ms(double ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

/* Rank `from` streams `window` messages of n bytes (slices of sbuf, `stride` apart) to rank `to`, which
 * receives them into slices of rbuf; `rounds` times, every byte new each round. */
static void stream(int rank, int from, int to, unsigned char* sbuf, unsigned char* rbuf, size_t n, size_t stride,
                   int window, int rounds, int* round, const char* what) {
  MPI_Request reqs[32];
  for (int r = 0; r < rounds; ++r, ++*round) {
    if (rank == from) {
      for (int w = 0; w < window; ++w) pattern_fill(sbuf + (size_t)w * stride, n, from, *round * 32 + w);
      for (int w = 0; w < window; ++w)
        MPI_OK(MPI_Isend(sbuf + (size_t)w * stride, (int)n, MPI_BYTE, to, w, MPI_COMM_WORLD, &reqs[w]));
      MPI_OK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
    } else if (rank == to) {
      memset(rbuf, 0, (size_t)(window - 1) * stride + n);
      for (int w = 0; w < window; ++w)
        MPI_OK(MPI_Irecv(rbuf + (size_t)w * stride, (int)n, MPI_BYTE, from, w, MPI_COMM_WORLD, &reqs[w]));
      MPI_OK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
      for (int w = 0; w < window; ++w) pattern_verify(rbuf + (size_t)w * stride, n, from, *round * 32 + w, what);
    }
  }
}

/* One exchange around the ring of n bytes, every byte new; checked. */
static void exchange(unsigned char* sbuf, unsigned char* rbuf, size_t n, int to, int from, int rank, int round,
                     const char* what) {
  pattern_fill(sbuf, n, rank, round);
  memset(rbuf, 0, n);
  MPI_OK(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, to, round, rbuf, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
  pattern_verify(rbuf, n, from, round, what);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int expect_assisted = argc > 1 && strcmp(argv[1], "expect-assisted") == 0 && size > 1;
  const int expect_none = argc > 1 && strcmp(argv[1], "expect-none") == 0;
  counter_start();
  int round = 0;
  const int peer_to = (rank + 1) % size, peer_from = (rank - 1 + size) % size;

  /* 1. Windows of 10 messages one way (rank 0 to rank 1; with more ranks every pair (2k, 2k+1)). */
  {
    const size_t sizes[] = {((size_t)1 << 20) + 3 * 4096 + 5, ((size_t)3 << 20) + 123, 600000};
    for (int s = 0; s < 3; ++s) {
      const size_t n = sizes[s], stride = n + 4096 + 24;
      const int window = 10;
      unsigned char* sbuf = malloc(stride * window + 64);
      unsigned char* rbuf = malloc(stride * window + 64);
      CHECK(sbuf && rbuf, "malloc of %zu bytes", stride * window);
      const int from = rank & ~1, to = from + 1;
      if (to < size) stream(rank, from, to, sbuf + 7, rbuf + 3, n, stride, window, 20, &round, "window");
      else round += 20;
      free(sbuf);
      free(rbuf);
    }
  }

  /* 2. Exchanges around the ring: every rank reads its left neighbour's message while its right one reads
   * its own. */
  {
    const size_t n = ((size_t)2 << 20) + 777;
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", n);
    for (int r = 0; r < 24; ++r, ++round) exchange(sbuf, rbuf, n, peer_to, peer_from, rank, round, "exchange");
    free(sbuf);
    free(rbuf);
  }

  /* 3. A sender computing outside MPI (3 ms) while its message is read, then waiting. */
  {
    const size_t n = (size_t)3 << 20;
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", n);
    for (int r = 0; r < 20; ++r, ++round) {
      MPI_Request reqs[2];
      pattern_fill(sbuf, n, rank, round);
      memset(rbuf, 0, n);
      MPI_OK(MPI_Irecv(rbuf, (int)n, MPI_BYTE, peer_from, round, MPI_COMM_WORLD, &reqs[0]));
      MPI_OK(MPI_Isend(sbuf, (int)n, MPI_BYTE, peer_to, round, MPI_COMM_WORLD, &reqs[1]));
      if (rank % 2 == 0) spin_ms(3);
      MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
      pattern_verify(rbuf, n, peer_from, round, "busy sender");
    }
    free(sbuf);
    free(rbuf);
  }

  /* 4. MPI_Alloc_mem buffers on both sides (shared from the first message), and a truncated receive. */
  {
    const size_t n = ((size_t)5 << 20) / 2 + 99;
    unsigned char *sbuf, *rbuf;
    MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &sbuf));
    MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &rbuf));
    for (int r = 0; r < 8; ++r, ++round) exchange(sbuf, rbuf, n, peer_to, peer_from, rank, round, "alloc_mem");
    MPI_Comm comm;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    const size_t cut = n - 300000;
    for (int r = 0; r < 4; ++r, ++round) {
      MPI_Request reqs[2];
      MPI_Status st[2];
      pattern_fill(sbuf, n, rank, round);
      memset(rbuf, 0xee, n);
      MPI_OK(MPI_Irecv(rbuf, (int)cut, MPI_BYTE, peer_from, round, comm, &reqs[0]));
      MPI_OK(MPI_Isend(sbuf, (int)n, MPI_BYTE, peer_to, round, comm, &reqs[1]));
      const int rc = MPI_Waitall(2, reqs, st);
      int cls = MPI_SUCCESS;
      if (rc != MPI_SUCCESS) MPI_Error_class(st[0].MPI_ERROR, &cls);
      CHECK(rc == MPI_ERR_IN_STATUS && cls == MPI_ERR_TRUNCATE, "truncated receive: rc %d, class %d", rc, cls);
      pattern_verify(rbuf, cut, peer_from, round, "truncated prefix");
      for (size_t i = cut; i < n; i += 4099) CHECK(rbuf[i] == 0xee, "truncated receive wrote byte %zu", i);
    }
    MPI_OK(MPI_Comm_free(&comm));
    MPI_OK(MPI_Free_mem(sbuf));
    MPI_OK(MPI_Free_mem(rbuf));
  }

  /* 5. Receive buffers freed and allocated again between rounds (a region of a freed buffer must never be
   * written for a later one), sizes alternating. */
  for (int r = 0; r < 24; ++r, ++round) {
    const size_t n = (r % 2 ? (size_t)1 << 20 : (size_t)3 << 19) + (size_t)r * 8;
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", n);
    exchange(sbuf, rbuf, n, peer_to, peer_from, rank, round, "reallocated");
    free(sbuf);
    free(rbuf);
  }

  const unsigned long long mine = assisted_bytes();
  unsigned long long total = 0;
  MPI_OK(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (expect_assisted) CHECK(total > 0, "no bytes were copied by a sender (rendezvous_bytes_assisted = 0)");
  if (expect_none) CHECK(total == 0, "%llu bytes copied by senders with assistance off", total);
  if (rank == 0) printf("assisted: %d ranks, %d rounds, bytes copied by senders: %llu\n", size, round, total);
  if (counter_index >= 0) {
    MPI_OK(MPI_T_pvar_handle_free(counter_session, &counter_handle));
    MPI_OK(MPI_T_pvar_session_free(&counter_session));
  }
  MPI_OK(MPI_T_finalize());
  MPI_OK(MPI_Finalize());
  return 0;
}
