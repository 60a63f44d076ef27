/* A program for tests/env/trace.py (FABMPI_TRACE / mpirun --trace): a fixed sequence of MPI calls, part
 * of it between MPI_Pcontrol(0) and MPI_Pcontrol(1) (not recorded), and a second thread's calls under
 * MPI_THREAD_MULTIPLE when argv[1] is "threads". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *helper(void *arg)
{
    int i, x = 1, sum;
    (void)arg;
    for (i = 0; i < 3; i++) MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, i, token = 0, provided, threads = argc > 1 && strcmp(argv[1], "threads") == 0;
    MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 4; i++) MPI_Barrier(MPI_COMM_WORLD); /* 4 recorded */
    MPI_Pcontrol(0);
    for (i = 0; i < 5; i++) MPI_Barrier(MPI_COMM_WORLD); /* not recorded */
    MPI_Pcontrol(1);
    if (size > 1) { /* a token around the ring: 1 send and 1 receive per rank */
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    if (threads && provided == MPI_THREAD_MULTIPLE) {
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
        pthread_join(t, NULL);
    }
    MPI_Bcast(&token, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &token, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
