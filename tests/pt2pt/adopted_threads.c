/* Threads of one rank sending the same malloc'd buffer at once, MPI_THREAD_MULTIPLE: native shm adopts the
 * buffer into shared memory (pt2pt/adopted_memory.hpp) while other sends of it are in flight, read by CMA,
 * streamed or mapped. Every rank but the last sends to the next; every byte of every message is checked. */
#include <pthread.h>

#include "check.h"

enum { kThreads = 3, kRounds = 30 };
static unsigned char* sbuf;
static size_t bytes = ((size_t)2 << 20) + 100;
static int rank, size;

static void* send_rounds(void* arg) {
  const int t = *(const int*)arg;
  for (int i = 0; i < kRounds; ++i) MPI_OK(MPI_Send(sbuf, (int)bytes, MPI_BYTE, rank + 1, t * kRounds + i, MPI_COMM_WORLD));
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  sbuf = malloc(bytes);
  unsigned char* rbuf = malloc(bytes);
  CHECK(sbuf && rbuf, "malloc");
  pattern_fill(sbuf, bytes, rank, 0);
  pthread_t threads[kThreads];
  int ids[kThreads];
  if (rank + 1 < size)
    for (int t = 0; t < kThreads; ++t) {
      ids[t] = t;
      CHECK(pthread_create(&threads[t], NULL, send_rounds, &ids[t]) == 0, "pthread_create");
    }
  if (rank > 0)
    for (int i = 0; i < kThreads * kRounds; ++i) {
      memset(rbuf, 0, bytes);
      MPI_OK(MPI_Recv(rbuf, (int)bytes, MPI_BYTE, rank - 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      pattern_verify(rbuf, bytes, rank - 1, 0, "threaded sends");
    }
  if (rank + 1 < size)
    for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("adopted_threads: %d ranks, %d threads x %d sends of %zu bytes\n", size, kThreads, kRounds, bytes);
  free(sbuf);
  free(rbuf);
  MPI_OK(MPI_Finalize());
  return 0;
}
