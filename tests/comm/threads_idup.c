/* MPI_Comm_idup from several threads whose start order differs between ranks (MPICH's
 * threads/comm/idup_deadlock pattern): on even ranks, threads 0 and 2 start their idup only after
 * one of the other threads' idups completed, while odd ranks start all four at once. A correct MPI
 * completes the idups of threads 1 and 3 without waiting for those of 0 and 2 to start everywhere.
 * Then the same with the blocking MPI_Comm_dup, and every new communicator is checked by use. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 10 };
static MPI_Comm parents[THREADS];
static int rank, size;
static int finished[THREADS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int failures = 0;
static int blocking = 0;

static void check_comm(MPI_Comm comm, MPI_Comm parent) {
  int result, sum = 0, me = rank + 1;
  MPI_Comm_compare(comm, parent, &result);
  if (result != MPI_CONGRUENT) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm);
  if (sum != size * (size + 1) / 2) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

static void* work(void* arg) {
  const int t = *(int*)arg;
  if (t % 2 == 0 && rank % 2 == 0) {
    pthread_mutex_lock(&lock);
    while (finished[1] + finished[3] == 0) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
  }
  MPI_Comm comm;
  if (blocking) {
    MPI_Comm_dup(parents[t], &comm);
  } else {
    MPI_Request req;
    MPI_Comm_idup(parents[t], &comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  pthread_mutex_lock(&lock);
  finished[t] = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  check_comm(comm, parents[t]);
  MPI_Comm_free(&comm);
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "threads_idup: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int t = 0; t < THREADS; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
  for (int round = 0; round < 2 * ROUNDS; ++round) {
    blocking = round >= ROUNDS;
    for (int t = 0; t < THREADS; ++t) finished[t] = 0;
    pthread_t threads[THREADS];
    int ids[THREADS];
    for (int t = 0; t < THREADS; ++t) ids[t] = t, pthread_create(&threads[t], NULL, work, &ids[t]);
    for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  for (int t = 0; t < THREADS; ++t) MPI_Comm_free(&parents[t]);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "threads_idup: %d failures\n" : "threads_idup: OK\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
