/* Rank 1 (or 0 on one rank) makes an erroneous call (or, for "preinit", a call before MPI_Init) under the default MPI_ERRORS_ARE_FATAL handler while
 * the other ranks wait in a receive that will never complete. The job must end with one message naming
 * the rank, the function and the reason, and a non-zero exit status. */
#define _DEFAULT_SOURCE /* setenv, usleep under -std=c11 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "rank";
    if (strcmp(what, "preinit") == 0) {
        /* A call before MPI_Init on rank 1 (the launcher's PMI_RANK): the line must still name it. */
        const char *pmi_rank = getenv("PMI_RANK");
        int early;
        if (pmi_rank && atoi(pmi_rank) == 1) MPI_Comm_rank(MPI_COMM_WORLD, &early);
    }
    if (strcmp(what, "provider") == 0) {
        /* Rank 1 opens another libfabric provider for the network path than the others: its first send
         * must fail with a message naming both, not hang on a connection that cannot be made. */
        const char *pmi_rank = getenv("PMI_RANK");
        setenv("FABMPI_NETMOD", "tcp", 1);
        setenv("FABMPI_TCP_PROVIDER", pmi_rank && atoi(pmi_rank) == 1 ? "tcp;ofi_rxm" : "net", 1);
    }
    MPI_Init(&argc, &argv);
    int rank, size, buf = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int culprit = size > 1 ? 1 : 0;
    if (rank == culprit) {
        if (strcmp(what, "rank") == 0) MPI_Send(&buf, 1, MPI_INT, size + 6, 0, MPI_COMM_WORLD);
        if (strcmp(what, "count") == 0) MPI_Send(&buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (strcmp(what, "type") == 0) MPI_Send(&buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
        if (strcmp(what, "root") == 0) MPI_Bcast(&buf, 1, MPI_INT, size, MPI_COMM_WORLD);
        if (strcmp(what, "op") == 0) MPI_Allreduce(&buf, &buf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
        if (strcmp(what, "comm") == 0) MPI_Barrier(MPI_COMM_NULL);
        if (strcmp(what, "provider") == 0) MPI_Send(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (strcmp(what, "collregion") == 0) {
            /* The others are inside their first barrier: rank 0 has created the communicator's
             * shared-memory collective region and waits for us; we fail instead of joining. */
            usleep(300000);
            MPI_Send(&buf, 1, MPI_INT, size + 6, 0, MPI_COMM_WORLD);
        }
    } else if (strcmp(what, "collregion") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Recv(&buf, 1, MPI_INT, culprit, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
