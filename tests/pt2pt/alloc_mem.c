/* Large messages between buffers from MPI_Alloc_mem (which fabmpi serves from memory the node's ranks can
 * map, so a receiver copies a message straight out of the sender's buffer), mixed with malloc'd buffers:
 * every pair of ranks, slices at odd offsets inside a buffer, both directions at once, a buffer rewritten
 * between sends (the receiver must see the new bytes), buffers freed and allocated again (a receiver's
 * mapping of a freed buffer must never serve a later one), a vector datatype, and a receive into
 * MPI_Alloc_mem memory. Every byte is checked.
 *
 * argv[1] "expect-mapped": the MPI_T counter rendezvous_reads_mapped must have grown on every rank that
 * received (fabmpi's native shared memory); otherwise it is only read. */
#include <stdint.h>

#include "mapped_counter.h"

/* Every ordered pair (a -> b) exchanges `n` bytes taken at `offset` inside a buffer of `bytes`, sender's
 * buffer from MPI_Alloc_mem (`send_shared`) or malloc, receiver's likewise. */
static void pairwise(int rank, int size, size_t bytes, size_t offset, size_t n, int send_shared, int recv_shared,
                     int round) {
  unsigned char *sbuf, *rbuf;
  if (bytes < 65536) bytes = 65536;
  if (send_shared) MPI_OK(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &sbuf));
  else sbuf = malloc(bytes);
  if (recv_shared) MPI_OK(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &rbuf));
  else rbuf = malloc(bytes);
  CHECK(sbuf && rbuf, "allocation of %zu bytes", bytes);
  pattern_fill(sbuf + offset, n, rank, round);
  for (int d = 1; d < size; ++d) {
    const int to = (rank + d) % size, from = (rank - d + size) % size;
    memset(rbuf, 0, bytes);
    MPI_Request reqs[2];
    MPI_OK(MPI_Irecv(rbuf + offset, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Isend(sbuf + offset, (int)n, MPI_BYTE, to, round, MPI_COMM_WORLD, &reqs[1]));
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    pattern_verify(rbuf + offset, n, from, round, "pairwise");
  }
  if (send_shared) MPI_OK(MPI_Free_mem(sbuf));
  else free(sbuf);
  if (recv_shared) MPI_OK(MPI_Free_mem(rbuf));
  else free(rbuf);
}

int main(int argc, char** argv) {
  int rank, size;
  const int expect_mapped = argc > 1 && strcmp(argv[1], "expect-mapped") == 0;
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (!mapped_counter_start()) CHECK(!expect_mapped, "no rendezvous_reads_mapped performance variable");

  /* Sizes around the mapped-send threshold (16 KiB: rendezvous from MPI_Alloc_mem memory under the eager
   * limit), the eager limits and the 1 MiB read pieces; offsets that are not page- or line-aligned. The
   * buffers are at least 64 KiB, so that MPI_Alloc_mem shares them. */
  const size_t sizes[] = {9000, 20000, 65536, 70000, 1 << 20, (1 << 20) + 4097, 3 * (1 << 20) + 5, 9 * (1 << 20)};
  int round = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    const size_t n = sizes[s];
    pairwise(rank, size, n, 0, n, 1, 0, round++);
    pairwise(rank, size, n + 8192, 4099, n, 1, 1, round++);
    pairwise(rank, size, n, 0, n, 0, 1, round++);
  }
  const unsigned long long after_pairwise = mapped_reads();
  if (expect_mapped && size > 1)
    CHECK(after_pairwise > 0, "no message was read from a mapping (rendezvous_reads_mapped = %llu)", after_pairwise);

  /* One buffer, rewritten between sends: a receiver that mapped it must see each round's bytes. */
  {
    const size_t n = 2 * (1 << 20) + 64;
    unsigned char *sbuf, *rbuf;
    MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &sbuf));
    rbuf = malloc(n);
    const int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    for (int r = 0; r < 4; ++r, ++round) {
      pattern_fill(sbuf, n, rank, round);
      MPI_OK(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, to, round, rbuf, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
      pattern_verify(rbuf, n, from, round, "rewritten");
    }
    MPI_OK(MPI_Free_mem(sbuf));
    free(rbuf);
  }

  /* Free and allocate again, many times: new regions often get the memfd number of a freed one. */
  for (int r = 0; r < 24; ++r, ++round) {
    const size_t n = (size_t)(256 * 1024) * (size_t)(1 + r % 5);
    pairwise(rank, size, n, 0, n, 1, r % 2, round);
  }

  /* More live regions than the library keeps for reuse (20 x 4 MiB): freeing them drops most, and the
   * next allocations get new regions, often under the memfd numbers of dropped ones, which a receiver
   * that mapped the old ones must tell apart. */
  for (int pass = 0; pass < 2; ++pass) {
    enum { kRegions = 20 };
    const size_t n = (size_t)(4 << 20) + 4096;
    unsigned char* bufs[kRegions];
    unsigned char* rbuf = malloc(n);
    const int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    for (int b = 0; b < kRegions; ++b) {
      MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &bufs[b]));
      pattern_fill(bufs[b], n, rank, round + b);
    }
    for (int b = 0; b < kRegions; ++b) {
      MPI_OK(MPI_Sendrecv(bufs[b], (int)n, MPI_BYTE, to, round + b, rbuf, (int)n, MPI_BYTE, from, round + b,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      pattern_verify(rbuf, n, from, round + b, "many regions");
    }
    for (int b = 0; b < kRegions; ++b) MPI_OK(MPI_Free_mem(bufs[b]));
    free(rbuf);
    round += kRegions;
  }

  /* A strided datatype over MPI_Alloc_mem memory (sent packed: a contiguous read is not possible). */
  {
    const int blocks = 4096, blocklen = 96, stride = 160;
    const size_t span = (size_t)stride * (size_t)blocks;
    unsigned char *sbuf, *rbuf;
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(blocks, blocklen, stride, MPI_BYTE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Alloc_mem((MPI_Aint)span, MPI_INFO_NULL, &sbuf));
    MPI_OK(MPI_Alloc_mem((MPI_Aint)span, MPI_INFO_NULL, &rbuf));
    pattern_fill(sbuf, span, rank, round);
    memset(rbuf, 0, span);
    const int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_OK(MPI_Sendrecv(sbuf, 1, vec, to, round, rbuf, 1, vec, from, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int b = 0; b < blocks; ++b)
      for (int i = 0; i < stride; ++i) {
        const size_t at = (size_t)b * (size_t)stride + (size_t)i;
        const unsigned char want = i < blocklen ? pattern_byte(from, round, at) : 0;
        CHECK(rbuf[at] == want, "vector: byte %zu is %u, expected %u", at, rbuf[at], want);
      }
    ++round;
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Free_mem(sbuf));
    MPI_OK(MPI_Free_mem(rbuf));
  }

  /* More than the machine has: refused (MPI_ERR_NO_MEM), not handed out as shared memory that would fail
   * only when touched. Several blocks larger than the eager limit, all alive: each gets its own memory. */
  {
    void* huge = NULL;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int rc = MPI_Alloc_mem((MPI_Aint)1 << 60, MPI_INFO_NULL, &huge);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_MEM, "MPI_Alloc_mem(2^60) returned class %d, expected MPI_ERR_NO_MEM", cls);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    enum { kBlocks = 8 };
    unsigned char* blocks[kBlocks];
    for (int b = 0; b < kBlocks; ++b) {
      MPI_OK(MPI_Alloc_mem(200000, MPI_INFO_NULL, &blocks[b]));
      memset(blocks[b], b + 1, 200000);
    }
    for (int b = 0; b < kBlocks; ++b)
      for (int b2 = 0; b2 < kBlocks; ++b2)
        CHECK(b == b2 || blocks[b] + 200000 <= blocks[b2] || blocks[b2] + 200000 <= blocks[b], "blocks %d and %d overlap",
              b, b2);
    for (int b = 0; b < kBlocks; ++b) {
      CHECK(blocks[b][0] == b + 1 && blocks[b][199999] == b + 1, "block %d was overwritten", b);
      MPI_OK(MPI_Free_mem(blocks[b]));
    }
  }

  if (rank == 0) printf("alloc_mem: %d ranks, %d rounds, mapped reads on rank 0: %llu\n", size, round, mapped_reads());
  mapped_counter_stop();
  MPI_OK(MPI_Finalize());
  return 0;
}
