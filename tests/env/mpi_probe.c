/* The MPI twin of tests/launcher/pmi_probe: the same command line, through libmpi.
 *   mpi_probe MODE [VICTIM] [marker...]
 * ok: print "probe rank R size N name HOST ok" (checks MPI_Get_processor_name against gethostname).
 * singleton: like ok, and fails unless the world has exactly one rank (run without mpirun).
 * exit3|exit0|segv|abort7|sleep: after MPI_Init the VICTIM rank exits with 3 / exits 0 / segfaults /
 * calls MPI_Abort(MPI_COMM_WORLD, 7); every other rank sleeps until the launcher tears the job down. */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int victim = argc > 2 ? atoi(argv[2]) : 1;
    MPI_Init(&argc, &argv);
    int rank = -1, size = -1, len = -1;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    if (strcmp(mode, "ok") == 0 || strcmp(mode, "singleton") == 0) {
        char host[256] = {0};
        gethostname(host, sizeof host - 1);
        if (len != (int)strlen(name) || strcmp(name, host) != 0) {
            fprintf(stderr, "mpi_probe: processor name '%s' (len %d) is not the host name '%s'\n", name, len, host);
            return 2;
        }
        if (strcmp(mode, "singleton") == 0 && (rank != 0 || size != 1)) {
            fprintf(stderr, "mpi_probe: singleton is rank %d of %d\n", rank, size);
            return 2;
        }
        printf("probe rank %d size %d name %s ok\n", rank, size, name);
        fflush(stdout);
        MPI_Finalize();
        return 0;
    }
    if (rank == victim) {
        if (strcmp(mode, "exit3") == 0) exit(3);
        if (strcmp(mode, "exit0") == 0) exit(0);
        if (strcmp(mode, "segv") == 0) raise(SIGSEGV);
        if (strcmp(mode, "abort7") == 0) MPI_Abort(MPI_COMM_WORLD, 7);
    }
    for (int i = 0; i < 600; ++i) sleep(1);
    MPI_Finalize();
    return 0;
}
