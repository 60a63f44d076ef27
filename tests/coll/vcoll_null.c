/* Gatherv, Scatterv and Allgatherv (blocking and nonblocking) with NULL buffers and every count zero:
 * valid MPI (nothing is read or written), rejected before with MPI_ERR_BUFFER. Found by mpi4py's
 * test_cco_vec and test_msgzero. Also a NULL receive buffer at the root when only some counts are
 * zero is still an error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int g_failures = 0;
#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      g_failures++;                                                          \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int* zeros = calloc((size_t)size, sizeof(int));
  int* displs = calloc((size_t)size, sizeof(int));
  for (int root = 0; root < size; ++root) {
    CHECK(MPI_Gatherv(NULL, 0, MPI_INT, NULL, zeros, displs, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Scatterv(NULL, zeros, displs, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Request req;
    CHECK(MPI_Igatherv(NULL, 0, MPI_INT, NULL, zeros, displs, MPI_INT, root, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Iscatterv(NULL, zeros, displs, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  CHECK(MPI_Allgatherv(NULL, 0, MPI_INT, NULL, zeros, displs, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
  MPI_Request req;
  CHECK(MPI_Iallgatherv(NULL, 0, MPI_INT, NULL, zeros, displs, MPI_INT, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  /* A local check, so every rank can make it alone: one positive count with a NULL buffer. */
  int* ones = calloc((size_t)size, sizeof(int));
  ones[0] = 1;
  int x = 0;
  CHECK(MPI_Allgatherv(&x, rank == 0 ? 1 : 0, MPI_INT, NULL, ones, displs, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
  free(ones);
  free(zeros);
  free(displs);
  MPI_Finalize();
  if (g_failures) fprintf(stderr, "vcoll_null: %d failures\n", g_failures);
  return g_failures ? 1 : 0;
}
