/* Deadlocked programs for the hang report (tests/env/hang_report.py): every rank ends up waiting in MPI
 * for something that never comes, and mpirun's --timeout (or FABMPI_HANG_REPORT) makes each say what.
 *   recv        both ranks receive from each other (tag 5): nobody sends
 *   unexpected  rank 1 sends tag 9 to rank 0 and receives tag 10; rank 0 receives tag 8
 *   rendezvous  rank 0 sends 1 MiB with tag 3 to rank 1, which receives tag 4
 *   collective  rank 0 is in MPI_Allreduce (a scheduled algorithm: force one), rank 1 in MPI_Recv
 *   shm_collective  the same after one matched MPI_Allreduce (the shared-memory algorithm then runs)
 *   finalize    (3 ranks or more) rank 1 receives from rank 0, the others go on to MPI_Finalize
 *   unmatched   rank 0 frees an MPI_Isend of 1 MiB (tag 2) nobody receives and calls MPI_Finalize
 *   polling     both ranks post MPI_Irecv (tag 6) and poll it with MPI_Test in their own loop
 *   computing   rank 0 receives from rank 1 (tag 1), which computes outside MPI (sleeps)
 *   neighbor    on a periodic ring, rank 0 is in MPI_Neighbor_alltoall, rank 1 in MPI_Recv (tag 11) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "recv";
    const int finalize_mode = strcmp(mode, "finalize") == 0;
    if (finalize_mode ? size < 3 : size != 2) {
        if (rank == 0) fprintf(stderr, "hang_report: run with 2 ranks (finalize: 3 or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank, value = 0;
    if (finalize_mode) {
        if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "recv") == 0) {
        MPI_Recv(&value, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "unexpected") == 0) {
        if (rank == 1) {
            MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&value, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "rendezvous") == 0) {
        const int n = 1 << 20;
        char *buf = calloc(n, 1);
        if (rank == 0) MPI_Send(buf, n, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
        else MPI_Recv(buf, n, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        free(buf);
    } else if (strcmp(mode, "computing") == 0) {
        if (rank == 0) MPI_Recv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else for (int i = 0; i < 600; ++i) sleep(1);
    } else if (strcmp(mode, "polling") == 0) {
        MPI_Request request;
        int done = 0;
        MPI_Irecv(&value, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &request);
        while (!done) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "unmatched") == 0) {
        const int n = 1 << 20;
        static char buf[1 << 20];
        if (rank == 0) {
            MPI_Request request;
            MPI_Isend(buf, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &request);
            MPI_Request_free(&request);
        }
    } else if (strcmp(mode, "collective") == 0 || strcmp(mode, "shm_collective") == 0) {
        if (mode[0] == 's') MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "neighbor") == 0) {
        int dims[1] = {2}, periods[1] = {1}, out[2] = {0, 0}, in[2];
        MPI_Comm ring;
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
        MPI_Comm_set_name(ring, "ring");
        if (rank == 0) MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
        else MPI_Recv(&value, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        fprintf(stderr, "hang_report: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
