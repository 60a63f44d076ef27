/* Helpers shared by the pt2pt test programs (no collectives: they are tested elsewhere). */
#ifndef FABMPI_TEST_PT2PT_CHECK_H
#define FABMPI_TEST_PT2PT_CHECK_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      int r_ = -1;                                                              \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                       \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

/* A barrier from point-to-point only. Rank 0 speaks first, so nobody sends to rank 0 before rank 0 has
 * entered the barrier (its MPI_ANY_TAG receives before that never see barrier traffic). */
static inline void pt_barrier(MPI_Comm comm) {
  int rank, size, i, token = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank == 0) {
    for (i = 1; i < size; ++i) MPI_Send(&token, 1, MPI_INT, i, 32000, comm);
    for (i = 1; i < size; ++i) MPI_Recv(&token, 1, MPI_INT, i, 32001, comm, MPI_STATUS_IGNORE);
    for (i = 1; i < size; ++i) MPI_Send(&token, 1, MPI_INT, i, 32002, comm);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 32000, comm, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_INT, 0, 32001, comm);
    MPI_Recv(&token, 1, MPI_INT, 0, 32002, comm, MPI_STATUS_IGNORE);
  }
}

static inline unsigned char pattern_byte(int src, int tag, size_t i) {
  return (unsigned char)((size_t)src * 131u + (size_t)tag * 7u + i * 2654435761u % 251u);
}

/* n bytes of the pattern rank `src` sends with `tag` (a round number, ...), and the check of a receive. */
static inline void pattern_fill(unsigned char* p, size_t n, int src, int tag) {
  for (size_t i = 0; i < n; ++i) p[i] = pattern_byte(src, tag, i);
}

static inline void pattern_verify(const unsigned char* p, size_t n, int src, int tag, const char* what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(p[i] == pattern_byte(src, tag, i), "%s: byte %zu of %zu from rank %d (tag %d) is %u, expected %u", what, i,
          n, src, tag, p[i], pattern_byte(src, tag, i));
}

static inline size_t status_bytes(const MPI_Status* st) {
  return (size_t)(unsigned)st->count_lo | ((size_t)(st->count_hi_and_cancelled >> 1) << 32);
}
#endif
