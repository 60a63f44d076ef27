/* Collectives on duplicated and split communicators, in flight at the same time.
 *
 * Every rank starts, all nonblocking and before waiting on any: an allreduce on a duplicate of
 * MPI_COMM_WORLD, a bcast on an even/odd split, an allgather on a second duplicate, a reduce on a split
 * of the split, and a barrier on the world; then waits on all of them in reverse order and checks every
 * element against a serial computation. Repeated for several rounds so collective sequence numbers of
 * the different communicators drift apart. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4099 /* odd, crosses eager sizes with doubles */
#define ROUNDS 6

static int failures = 0;
static void expect(int ok, const char *what, int rank, int round, int i) {
    if (!ok && failures++ < 10) fprintf(stderr, "rank %d round %d: %s wrong at %d\n", rank, round, what, i);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup1, dup2, half, quarter;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order inside each half */
    MPI_Comm_dup(dup1, &dup2);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Comm_split(half, hrank % 2, hrank, &quarter);
    int qrank, qsize;
    MPI_Comm_rank(quarter, &qrank);
    MPI_Comm_size(quarter, &qsize);

    double *in = malloc(N * sizeof(double)), *sum = malloc(N * sizeof(double));
    int *bc = malloc(N * sizeof(int)), *gathered = malloc((size_t)size * 3 * sizeof(int));
    long *red = malloc(N * sizeof(long)), *red_out = malloc(N * sizeof(long));
    for (int round = 0; round < ROUNDS; ++round) {
        for (int i = 0; i < N; ++i) {
            in[i] = rank + i + round;
            bc[i] = hrank == 0 ? i * 7 + round : -1;
            red[i] = (long)qrank * i + round;
        }
        int mine[3] = {rank, rank * 2, round};
        MPI_Request reqs[5];
        MPI_Iallreduce(in, sum, N, MPI_DOUBLE, MPI_SUM, dup1, &reqs[0]);
        MPI_Ibcast(bc, N, MPI_INT, 0, half, &reqs[1]);
        MPI_Iallgather(mine, 3, MPI_INT, gathered, 3, MPI_INT, dup2, &reqs[2]);
        MPI_Ireduce(red, red_out, N, MPI_LONG, MPI_SUM, qsize - 1, quarter, &reqs[3]);
        MPI_Ibarrier(MPI_COMM_WORLD, &reqs[4]);
        for (int r = 4; r >= 0; --r) MPI_Wait(&reqs[r], MPI_STATUS_IGNORE);

        for (int i = 0; i < N; ++i) {
            double expect_sum = (double)size * (i + round) + (double)size * (size - 1) / 2.0;
            expect(sum[i] == expect_sum, "allreduce on dup", rank, round, i);
            expect(bc[i] == i * 7 + round, "bcast on split", rank, round, i);
        }
        for (int r = 0; r < size; ++r) {
            expect(gathered[3 * r] == r && gathered[3 * r + 1] == 2 * r && gathered[3 * r + 2] == round,
                   "allgather on dup of dup", rank, round, r);
        }
        if (qrank == qsize - 1) {
            long qsum = (long)qsize * (qsize - 1) / 2;
            for (int i = 0; i < N; ++i)
                expect(red_out[i] == qsum * i + (long)qsize * round, "reduce on split of split", rank, round, i);
        }
    }
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup1);
    free(in); free(sum); free(bc); free(gathered); free(red); free(red_out);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("coll_comms: %d ranks, %d failures\n", size, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
