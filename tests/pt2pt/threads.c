/* MPI_THREAD_MULTIPLE: 4 threads per rank each run their own ping-pong (tag = thread id) with the
 * same thread of the partner rank, mixing eager and rendezvous sizes; data checked. */
#include <pthread.h>

#include "check.h"

#define THREADS 4
#define ITERS 300
static int g_rank, g_peer;

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  const int n = 8192; /* ints: 32 KB, rendezvous */
  int* buf = malloc(sizeof(int) * n);
  for (int it = 0; it < ITERS; ++it) {
    const int len = (it % 3 == 0) ? n : 1 + it % 50;
    if ((g_rank & 1) == 0) {
      for (int i = 0; i < len; ++i) buf[i] = t * 100000 + it * 10 + i;
      MPI_OK(MPI_Send(buf, len, MPI_INT, g_peer, t, MPI_COMM_WORLD));
      MPI_Status st;
      MPI_OK(MPI_Recv(buf, n, MPI_INT, g_peer, t, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_TAG == t && status_bytes(&st) == (size_t)len * sizeof(int), "thread %d it %d status", t, it);
      for (int i = 0; i < len; ++i) CHECK(buf[i] == -(t * 100000 + it * 10 + i), "thread %d it %d elem %d", t, it, i);
    } else {
      MPI_Request r;
      MPI_OK(MPI_Irecv(buf, n, MPI_INT, g_peer, t, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      for (int i = 0; i < len; ++i) {
        CHECK(buf[i] == t * 100000 + it * 10 + i, "thread %d it %d elem %d", t, it, i);
        buf[i] = -buf[i];
      }
      MPI_OK(MPI_Send(buf, len, MPI_INT, g_peer, t, MPI_COMM_WORLD));
    }
  }
  free(buf);
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  g_peer = g_rank ^ 1;
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, worker, (void*)t);
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  if (g_rank == 0) printf("threads: %d threads x %d round trips OK\n", THREADS, ITERS);
  MPI_Finalize();
  return 0;
}
