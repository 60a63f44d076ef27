/* MPI_Cancel: an unmatched receive is cancelled (status says so, buffer untouched, a later message goes
 * to the next receive); a send may or may not be cancelled but must complete; Status_set_cancelled. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = rank ^ 1;
  int v = -1, flag;
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag && v == -1 && r == MPI_REQUEST_NULL, "receive not cancelled");
  /* persistent receive cancelled, then restarted and used */
  MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, peer, 78, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Start(&r));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "persistent receive not cancelled");
  pt_barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Start(&r));
  int mine = rank + 100;
  MPI_OK(MPI_Send(&mine, 1, MPI_INT, peer, 78, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag && v == peer + 100, "restarted receive: flag %d v %d", flag, v);
  MPI_OK(MPI_Request_free(&r));
  /* a send: cancel may not take effect; the request completes either way */
  MPI_OK(MPI_Isend(&mine, 1, MPI_INT, peer, 79, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  if (!flag) MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Status_set_cancelled(&st, 1));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "Status_set_cancelled");
  MPI_OK(MPI_Status_set_cancelled(&st, 0));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "Status_set_cancelled(0)");
  if (rank == 0) printf("cancel OK\n");
  MPI_Finalize();
  return 0;
}
