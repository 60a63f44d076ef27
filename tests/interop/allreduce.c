/* Built with Debian's mpicc.mpich (MPICH's own mpi.h and libmpich): run by fabmpi's mpirun, it checks
 * that fabmpi's PMI-1 server is a good enough host for MPICH. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long values[1000], sums[1000];
    for (int i = 0; i < 1000; ++i) values[i] = (long)(rank + 1) * (i + 1);
    MPI_Allreduce(values, sums, 1000, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 1000; ++i)
        if (sums[i] != (long)size * (size + 1) / 2 * (i + 1)) bad++;
    printf("allreduce rank %d size %d %s\n", rank, size, bad ? "WRONG" : "ok");
    MPI_Finalize();
    return bad != 0;
}
