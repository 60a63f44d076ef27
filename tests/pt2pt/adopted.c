/* Large messages from malloc'd buffers sent again and again, which fabmpi moves into shared memory in place
 * after FABMPI_SHM_ADOPT sends (pt2pt/adopted_memory.hpp) so the node's receivers copy them out of a mapping:
 * every pair of ranks, buffers rewritten before every send (the receiver must see the new bytes, also in the
 * partial first and last pages), prefixes of growing size from one buffer, MPI_Alltoall's blocks inside one
 * buffer (found from inside it: pt2pt/adopted_memory.cpp inside_mapped_block), buffers
 * freed and allocated again at the same addresses (a freed buffer's region must never serve a later one),
 * realloc of an adopted buffer, a send from glibc's heap, a forked child writing into an adopted buffer (the
 * parent must not see it), and receives into adopted buffers. Every byte is checked.
 *
 * argv[1] "expect-mapped": the MPI_T counter rendezvous_reads_mapped must have grown on every rank, unless
 * malloc is not glibc's (a sanitizer's), where fabmpi adopts nothing. */
#include <malloc.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mapped_counter.h"

extern void* __libc_malloc(size_t);

/* `rounds` exchanges of `n` bytes at `offset` in `sbuf` with every other rank (rank+d sends to rank-d's
 * partner), the send buffer rewritten before each. */
static void exchange(int rank, int size, unsigned char* sbuf, unsigned char* rbuf, size_t n, int rounds,
                     int round0, const char* what) {
  for (int r = 0; r < rounds; ++r) {
    const int round = round0 + r;
    pattern_fill(sbuf, n, rank, round);
    for (int d = 1; d < size; ++d) {
      const int to = (rank + d) % size, from = (rank - d + size) % size;
      memset(rbuf, 0, n);
      MPI_Request reqs[2];
      MPI_OK(MPI_Irecv(rbuf, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD, &reqs[0]));
      MPI_OK(MPI_Isend(sbuf, (int)n, MPI_BYTE, to, round, MPI_COMM_WORLD, &reqs[1]));
      MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
      pattern_verify(rbuf, n, from, round, what);
    }
  }
}

int main(int argc, char** argv) {
  int rank, size, provided;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int glibc_malloc = (void*)malloc == (void*)__libc_malloc;
  const int expect_mapped = argc > 1 && strcmp(argv[1], "expect-mapped") == 0 && glibc_malloc && size > 1;
  mapped_counter_start();
  int round = 0;
  /* A fixed threshold: every request of 512 KiB or more gets a block mapped for it (glibc otherwise raises
   * the threshold after the first free and serves later ones from its heap), and a freed block's addresses
   * are unmapped, so the next such request is usually mapped at the same addresses. */
  mallopt(M_MMAP_THRESHOLD, 512 << 10);

  /* 1. One buffer of each kind glibc hands out for a large request (a block of its own: starts 16 bytes into
   * a page; the end in a partial page), sent over and over: adopted after FABMPI_SHM_ADOPT sends. */
  const size_t sizes[] = {(size_t)1 << 20, ((size_t)3 << 20) + 1000, 700000};
  for (int s = 0; s < 3; ++s) {
    const size_t n = sizes[s];
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", n);
    exchange(rank, size, sbuf, rbuf, n, 24, round, "repeated");
    round += 24;
    /* Growing prefixes of one buffer, then a slice at an odd offset (its pages partly adopted). */
    for (size_t part = n / 4; part <= n; part += n / 4) {
      exchange(rank, size, sbuf, rbuf, part, 6, round, "prefix");
      round += 6;
    }
    exchange(rank, size, sbuf + 4097, rbuf + 3, n - 8200, 4, round, "odd slice");
    round += 4;
    /* realloc of an adopted buffer keeps its bytes (glibc copies: the block is no longer one mapping). */
    pattern_fill(sbuf, n, rank, round);
    sbuf = realloc(sbuf, 2 * n);
    CHECK(sbuf != NULL, "realloc");
    pattern_verify(sbuf, n, rank, round, "realloc");
    exchange(rank, size, sbuf, rbuf, n, 20, ++round, "after realloc");
    round += 20;
    free(sbuf);
    free(rbuf);
  }

  /* 1b. Blocks inside one mapped buffer (none starts it but the first): MPI_Alltoall's send blocks, each
   * adopted on its own once sent often enough, rewritten before every call (two ranks: a pairwise exchange). */
  {
    const size_t blk = 300000;
    unsigned char* sbuf = malloc(blk * (size_t)size);
    unsigned char* rbuf = malloc(blk * (size_t)size);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", blk * (size_t)size);
    for (int r = 0; r < 24; ++r, ++round) {
      for (int p = 0; p < size; ++p) pattern_fill(sbuf + (size_t)p * blk, blk, rank * 64 + p, round);
      memset(rbuf, 0, blk * (size_t)size);
      MPI_OK(MPI_Alltoall(sbuf, (int)blk, MPI_BYTE, rbuf, (int)blk, MPI_BYTE, MPI_COMM_WORLD));
      for (int q = 0; q < size; ++q) pattern_verify(rbuf + (size_t)q * blk, blk, q * 64 + rank, round, "alltoall block");
    }
    free(sbuf);
    free(rbuf);
  }

  /* 2. Free and allocate again, sizes alternating: new buffers at old addresses. A receiver that copied
   * from a stale mapping would see the old round's bytes. */
  for (int cycle = 0; cycle < 6; ++cycle) {
    const size_t n = (cycle % 2 ? (size_t)2 << 20 : (size_t)1 << 20) + 64 * (size_t)cycle;
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(sbuf && rbuf, "malloc of %zu bytes", n);
    exchange(rank, size, sbuf, rbuf, n, 18, round, "reallocated");
    round += 18;
    free(sbuf);
    free(rbuf);
  }

  /* 3. glibc's heap: with a high mmap threshold large requests come from the brk heap. */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  {
    const size_t n = ((size_t)2 << 20) + 333;
    unsigned char* pad = malloc(100);
    unsigned char* sbuf = malloc(n);
    unsigned char* rbuf = malloc(n);
    CHECK(pad && sbuf && rbuf, "heap malloc");
    exchange(rank, size, sbuf, rbuf, n, 20, round, "heap");
    round += 20;

    /* 4. A forked child writes into the (now adopted) buffer; the parent's bytes must not change. */
    pattern_fill(sbuf, n, rank, round);
    const pid_t child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0) {
      memset(sbuf, 0x5c, n);
      _exit(0);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status), "child");
    pattern_verify(sbuf, n, rank, round, "after a child wrote its copy");
    exchange(rank, size, sbuf, rbuf, n, 4, ++round, "after fork");
    round += 4;
    free(pad);
    free(sbuf);
    free(rbuf);
  }

  const unsigned long long mapped = mapped_reads();
  if (expect_mapped)
    CHECK(mapped > 0, "no message was read from a mapping (rendezvous_reads_mapped = %llu)", mapped);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("adopted: %d ranks, %d rounds, mapped reads on rank 0: %llu\n", size, round, mapped);
  mapped_counter_stop();
  MPI_OK(MPI_Finalize());
  return 0;
}
