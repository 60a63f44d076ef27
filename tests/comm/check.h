/* Shared helpers of the comm tests: CHECK (counts failures), MPI_OK (aborts), and a check that a
 * communicator carries messages between exactly the processes its group names. */
#ifndef FABMPI_TESTS_COMM_CHECK_H
#define FABMPI_TESTS_COMM_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int g_world_rank = -1;
static int g_failures = 0;

#define CHECK(cond)                                                                                  \
  do {                                                                                               \
    if (!(cond)) {                                                                                   \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", g_world_rank, __FILE__, __LINE__, #cond); \
      g_failures++;                                                                                  \
    }                                                                                                \
  } while (0)

#define MPI_OK(call)                                                                                    \
  do {                                                                                                  \
    int rc_ = (call);                                                                                   \
    if (rc_ != MPI_SUCCESS) {                                                                           \
      fprintf(stderr, "rank %d: %s:%d: %s returned %d\n", g_world_rank, __FILE__, __LINE__, #call, rc_); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                     \
    }                                                                                                   \
  } while (0)

/* The world rank of each rank of `comm`, from its group. */
static inline void world_ranks_of(MPI_Comm comm, int* out) {
  MPI_Group group, world_group;
  int size;
  MPI_OK(MPI_Comm_group(comm, &group));
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  MPI_OK(MPI_Group_size(group, &size));
  int* ranks = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  MPI_OK(MPI_Group_translate_ranks(group, size, ranks, world_group, out));
  free(ranks);
  MPI_OK(MPI_Group_free(&group));
  MPI_OK(MPI_Group_free(&world_group));
}

/* Every rank sends its world rank to every other; each checks it hears from the world rank its group
 * names for that comm rank, with the right source in the status. */
static inline void check_comm_carries(MPI_Comm comm, int tag) {
  int size, rank;
  MPI_OK(MPI_Comm_size(comm, &size));
  MPI_OK(MPI_Comm_rank(comm, &rank));
  int* expected = malloc(sizeof(int) * (size_t)size);
  int* got = malloc(sizeof(int) * (size_t)size);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
  MPI_Status* st = malloc(sizeof(MPI_Status) * 2 * (size_t)size);
  world_ranks_of(comm, expected);
  CHECK(expected[rank] == g_world_rank);
  for (int r = 0; r < size; ++r) {
    got[r] = -1;
    MPI_OK(MPI_Irecv(&got[r], 1, MPI_INT, r, tag, comm, &reqs[r]));
  }
  for (int r = 0; r < size; ++r) MPI_OK(MPI_Isend(&g_world_rank, 1, MPI_INT, r, tag, comm, &reqs[size + r]));
  MPI_OK(MPI_Waitall(2 * size, reqs, st));
  for (int r = 0; r < size; ++r) {
    CHECK(got[r] == expected[r]);
    CHECK(st[r].MPI_SOURCE == r);
  }
  free(expected);
  free(got);
  free(reqs);
  free(st);
}

static inline int finish_test(const char* name) {
  int total = g_failures;
  if (g_failures) fprintf(stderr, "rank %d: %s: %d failures\n", g_world_rank, name, g_failures);
  MPI_OK(MPI_Finalize());
  return total ? 1 : 0;
}

#endif
