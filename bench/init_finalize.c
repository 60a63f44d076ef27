/* init_finalize: MPI_Init + MPI_Finalize only, to measure launch wall time.
 *
 * compare.py times the whole `mpirun` from outside (metric launch_wall_ms);
 * this program adds what it sees inside (rank 0, microseconds):
 *   metric=init_us size=0 value=<MPI_Init duration, max over ranks>
 * Optional argument: the expected number of ranks; a mismatch fails the run.
 * MPI_Finalize's own duration cannot be reported after it returns, so it is
 * printed to stderr by rank 0 (informational).
 */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size, expect = 0;
    double t0, t1, t_init, t_max;
    t0 = now_s();
    MPI_Init(&argc, &argv);
    t1 = now_s();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) expect = atoi(argv[1]);
    if (expect > 0 && size != expect) {
        fprintf(stderr, "bench: FAILED: MPI_Comm_size is %d, expected %d\n", size, expect);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t_init = t1 - t0;
    MPI_Reduce(&t_init, &t_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("metric=init_us size=0 value=%.1f np=%d\n", t_max * 1e6, size);
        fflush(stdout);
    }
    t0 = now_s();
    MPI_Finalize();
    if (rank == 0) fprintf(stderr, "finalize_us=%.1f\n", (now_s() - t0) * 1e6);
    return 0;
}
