/* Stress: MESSAGES messages in total (argv[1], default 100000) of random sizes (0 B..128 KiB, mostly
 * small), random tags and random destinations (self included), received with MPI_ANY_SOURCE /
 * MPI_ANY_TAG through windows of nonblocking operations; every byte is checked. Each sender's plan
 * comes from a generator seeded by its rank, so every receiver knows what to expect from whom. */
#include <stdint.h>

#include "check.h"

typedef struct { int dest, tag; size_t size; } Msg;

static uint64_t next_random(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void plan(int sender, int nranks, int count, Msg* out) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(sender + 1);
  for (int k = 0; k < count; ++k) {
    uint64_t r = next_random(&s);
    out[k].dest = (int)(r % (uint64_t)nranks);
    out[k].tag = (int)((r >> 8) % 100);
    unsigned pick = (unsigned)((r >> 20) % 100);
    uint64_t r2 = next_random(&s);
    out[k].size = pick < 70 ? r2 % 257 : pick < 98 ? r2 % 16385 : r2 % 131073;
  }
}

static unsigned char byte_of(int src, int k, size_t i) { return (unsigned char)(src * 31 + k * 17 + (int)i); }

#define WINDOW 32
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const long total = argc > 1 ? atol(argv[1]) : 100000;
  const int per_rank = (int)(total / np);
  double t0 = MPI_Wtime();
  Msg* mine = malloc(sizeof(Msg) * (size_t)per_rank);
  plan(rank, np, per_rank, mine);
  /* expected[s]: the messages s sends me, in order */
  Msg** expected = malloc(sizeof(Msg*) * (size_t)np);
  int* n_expected = calloc((size_t)np, sizeof(int));
  int* got = calloc((size_t)np, sizeof(int));
  int* k_of = NULL;
  int total_expected = 0;
  Msg* tmp = malloc(sizeof(Msg) * (size_t)per_rank);
  int** index_of = malloc(sizeof(int*) * (size_t)np);
  for (int s = 0; s < np; ++s) {
    plan(s, np, per_rank, tmp);
    expected[s] = malloc(sizeof(Msg) * (size_t)per_rank);
    index_of[s] = malloc(sizeof(int) * (size_t)per_rank);
    for (int k = 0; k < per_rank; ++k)
      if (tmp[k].dest == rank) {
        index_of[s][n_expected[s]] = k;
        expected[s][n_expected[s]++] = tmp[k];
      }
    total_expected += n_expected[s];
  }
  (void)k_of;
  unsigned char* sbufs[WINDOW];
  unsigned char* rbufs[WINDOW];
  MPI_Request sreq[WINDOW], rreq[WINDOW];
  for (int w = 0; w < WINDOW; ++w) {
    sbufs[w] = malloc(131072);
    rbufs[w] = malloc(131072);
    sreq[w] = rreq[w] = MPI_REQUEST_NULL;
  }
  int sent = 0, send_head = 0, send_tail = 0; /* ring of outstanding sends [tail, head) */
  int posted = 0, received = 0;                /* receives: ring [received, posted) */
  while (send_tail < per_rank || received < total_expected) {
    int progressed = 0;
    if (sent < per_rank && send_head - send_tail < WINDOW) {
      const Msg* m = &mine[sent];
      unsigned char* b = sbufs[send_head % WINDOW];
      for (size_t i = 0; i < m->size; ++i) b[i] = byte_of(rank, sent, i);
      MPI_OK(MPI_Isend(b, (int)m->size, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, &sreq[send_head % WINDOW]));
      ++sent;
      ++send_head;
      progressed = 1;
    }
    if (posted < total_expected && posted - received < WINDOW) {
      MPI_OK(MPI_Irecv(rbufs[posted % WINDOW], 131072, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                       &rreq[posted % WINDOW]));
      ++posted;
      progressed = 1;
    }
    int flag = 0;
    if (send_tail < send_head) {
      MPI_OK(MPI_Test(&sreq[send_tail % WINDOW], &flag, MPI_STATUS_IGNORE));
      if (flag) ++send_tail, progressed = 1;
    }
    if (received < posted) {
      MPI_Status st;
      /* retire receives in posting order: that is their matching order, so per source it is send order */
      MPI_OK(MPI_Test(&rreq[received % WINDOW], &flag, &st));
      if (flag) {
        const int s = st.MPI_SOURCE;
        CHECK(s >= 0 && s < np && got[s] < n_expected[s], "unexpected source %d", s);
        const Msg* m = &expected[s][got[s]];
        const int k = index_of[s][got[s]];
        CHECK(st.MPI_TAG == m->tag, "from %d msg %d: tag %d, expected %d", s, k, st.MPI_TAG, m->tag);
        CHECK(status_bytes(&st) == m->size, "from %d msg %d: %zu bytes, expected %zu", s, k, status_bytes(&st), m->size);
        const unsigned char* b = rbufs[received % WINDOW];
        for (size_t i = 0; i < m->size; ++i)
          if (b[i] != byte_of(s, k, i)) CHECK(0, "from %d msg %d: byte %zu wrong", s, k, i);
        ++got[s];
        ++received;
        progressed = 1;
      }
    }
    (void)progressed;
  }
  for (int w = 0; w < WINDOW; ++w) {
    free(sbufs[w]);
    free(rbufs[w]);
  }
  for (int s = 0; s < np; ++s) {
    free(expected[s]);
    free(index_of[s]);
  }
  free(expected);
  free(index_of);
  free(n_expected);
  free(got);
  free(tmp);
  free(mine);
  /* No closing barrier: its messages would match the MPI_ANY_TAG receives of slower ranks. */
  if (rank == 0) printf("stress: %ld messages over %d ranks, every byte checked, %.2f s\n", (long)per_rank * np, np, MPI_Wtime() - t0);
  MPI_Finalize();
  return 0;
}
