/* Communicator creation from several threads at once (MPI_THREAD_MULTIPLE), MPICH's
 * threads/comm/comm_dup_deadlock pattern: each thread dups its own communicator (a dup of WORLD) in a
 * loop, and between those dups MPI_COMM_SELF under a lock the threads share. A one-member creation
 * must not wait for ids another thread's creation holds while that one waits for other processes
 * (whose threads may be queued on the same kind of lock). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITERATIONS = 20 };
static MPI_Comm comms[THREADS];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures = 0;

static void* work(void* arg) {
  const int t = *(int*)arg;
  for (int i = 0; i < ITERATIONS; ++i) {
    MPI_Comm self_dup, dup;
    pthread_mutex_lock(&self_lock);
    if (MPI_Comm_dup(MPI_COMM_SELF, &self_dup) != MPI_SUCCESS) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&self_lock);
    MPI_Comm_free(&self_dup);
    if (MPI_Comm_dup(comms[t], &dup) != MPI_SUCCESS) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    int size = 0, one = 1, sum = 0;
    MPI_Comm_size(dup, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    if (sum != size) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    MPI_Comm_free(&dup);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "threads_dup: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int t = 0; t < THREADS; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  pthread_t threads[THREADS];
  int ids[THREADS];
  for (int t = 0; t < THREADS; ++t) ids[t] = t, pthread_create(&threads[t], NULL, work, &ids[t]);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; ++t) MPI_Comm_free(&comms[t]);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "threads_dup: %d failures\n" : "threads_dup: OK\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
