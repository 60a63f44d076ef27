/* MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv; eager and rendezvous;
 * MPI_MESSAGE_NO_PROC for MPI_PROC_NULL. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  const int sizes[4] = {3, 1000, 100000, 1};
  if (rank == 1) {
    /* nonblocking: rank 0 receives the rendezvous message only after the one behind it */
    int* b[4];
    MPI_Request r[4];
    for (int k = 0; k < 4; ++k) {
      b[k] = malloc(sizeof(int) * (size_t)sizes[k]);
      for (int i = 0; i < sizes[k]; ++i) b[k][i] = k * 7 + i;
      MPI_OK(MPI_Isend(b[k], sizes[k], MPI_INT, 0, 10 + k, MPI_COMM_WORLD, &r[k]));
    }
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 4; ++k) free(b[k]);
  } else if (rank == 0) {
    MPI_Status st;
    int flag = 0;
    /* Probe then Recv */
    MPI_OK(MPI_Probe(1, 10, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 10 && status_bytes(&st) == 12, "probe status");
    int small[3];
    MPI_OK(MPI_Recv(small, 3, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(small[2] == 2, "data");
    /* Iprobe until found, ANY_TAG */
    while (!flag) MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(st.MPI_TAG == 11 && status_bytes(&st) == 4000, "iprobe status tag %d", st.MPI_TAG);
    /* Mprobe + Mrecv of the message Iprobe saw */
    MPI_Message msg;
    MPI_OK(MPI_Mprobe(1, 11, MPI_COMM_WORLD, &msg, &st));
    int* b = malloc(sizeof(int) * 100000);
    MPI_OK(MPI_Mrecv(b, 1000, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "message handle not reset");
    for (int i = 0; i < 1000; ++i) CHECK(b[i] == 7 + i, "mrecv data %d", i);
    /* Improbe + Imrecv of the rendezvous message */
    flag = 0;
    while (!flag) MPI_OK(MPI_Improbe(1, 12, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(status_bytes(&st) == 400000, "improbe bytes %zu", status_bytes(&st));
    /* A later Recv with ANY_TAG must not see the matched message */
    MPI_OK(MPI_Recv(small, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 13 && small[0] == 21, "recv after improbe took tag %d", st.MPI_TAG);
    MPI_Request r;
    MPI_OK(MPI_Imrecv(b, 100000, MPI_INT, &msg, &r));
    MPI_OK(MPI_Wait(&r, &st));
    for (int i = 0; i < 100000; ++i) CHECK(b[i] == 14 + i, "imrecv data %d", i);
    free(b);
    /* PROC_NULL */
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && status_bytes(&st) == 0, "probe proc_null");
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_MESSAGE_NO_PROC");
    MPI_OK(MPI_Mrecv(small, 1, MPI_INT, &msg, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && msg == MPI_MESSAGE_NULL, "mrecv no_proc");
    flag = 0;
    MPI_OK(MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "iprobe found a message that was never sent");
    printf("probe OK\n");
  }
  MPI_Finalize();
  return 0;
}
