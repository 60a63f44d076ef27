/* MPI_PROC_NULL: every operation completes at once; receives report source PROC_NULL, tag ANY_TAG,
 * count 0, and leave the buffer alone. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int v = 42, rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Status st;
  MPI_OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  MPI_OK(MPI_Ssend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(v == 42 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && status_bytes(&st) == 0, "recv");
  MPI_Request r[2];
  MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r[1]));
  MPI_Status sts[2];
  MPI_OK(MPI_Waitall(2, r, sts));
  CHECK(sts[0].MPI_SOURCE == MPI_PROC_NULL && sts[0].MPI_TAG == MPI_ANY_TAG, "irecv");
  MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "sendrecv");
  MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Start(&r[0]));
  MPI_OK(MPI_Wait(&r[0], &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && r[0] != MPI_REQUEST_NULL, "persistent");
  MPI_OK(MPI_Request_free(&r[0]));
  if (rank == 0) printf("procnull OK\n");
  MPI_Finalize();
  return 0;
}
