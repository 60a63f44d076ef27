/* Persistent requests: Send_init/Ssend_init/Rsend_init/Bsend_init/Recv_init, Start/Startall over many
 * rounds, inactive requests in Wait/Test, Request_free; plus Bsend/Ibsend with Buffer_attach/detach. */
#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = rank ^ 1;
  CHECK(size % 2 == 0, "even number of ranks");
  enum { N = 5000 };
  static int sbuf[4][N], rbuf[4][N];
  MPI_Request reqs[8];
  int bsize = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void* attach = malloc((size_t)bsize);
  MPI_OK(MPI_Buffer_attach(attach, bsize));
  MPI_OK(MPI_Send_init(sbuf[0], N, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]));
  MPI_OK(MPI_Ssend_init(sbuf[1], 10, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Rsend_init(sbuf[2], 7, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[2]));
  MPI_OK(MPI_Bsend_init(sbuf[3], N, MPI_INT, peer, 3, MPI_COMM_WORLD, &reqs[3]));
  for (int t = 0; t < 4; ++t) MPI_OK(MPI_Recv_init(rbuf[t], N, MPI_INT, peer, t, MPI_COMM_WORLD, &reqs[4 + t]));
  /* inactive persistent requests complete at once with an empty status */
  MPI_Status st;
  MPI_OK(MPI_Wait(&reqs[4], &st));
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && reqs[4] != MPI_REQUEST_NULL, "inactive wait");
  for (int round = 0; round < 50; ++round) {
    for (int t = 0; t < 4; ++t)
      for (int i = 0; i < N; ++i) sbuf[t][i] = round * 100 + t * 10 + i;
    /* receives first (Rsend needs the receive posted: exchange a token after starting them) */
    MPI_OK(MPI_Startall(4, &reqs[4]));
    int token = 0;
    MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, peer, 99, &token, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Startall(4, reqs));
    MPI_Status sts[8];
    MPI_OK(MPI_Waitall(8, reqs, sts));
    const int lens[4] = {N, 10, 7, N};
    for (int t = 0; t < 4; ++t) {
      CHECK(sts[4 + t].MPI_SOURCE == peer && sts[4 + t].MPI_TAG == t, "status round %d", round);
      CHECK(status_bytes(&sts[4 + t]) == (size_t)lens[t] * sizeof(int), "bytes");
      for (int i = 0; i < lens[t]; ++i) CHECK(rbuf[t][i] == round * 100 + t * 10 + i, "round %d type %d elem %d", round, t, i);
    }
    for (int k = 0; k < 8; ++k) CHECK(reqs[k] != MPI_REQUEST_NULL, "persistent request freed by Waitall");
  }
  for (int k = 0; k < 8; ++k) MPI_OK(MPI_Request_free(&reqs[k]));
  /* Bsend / Ibsend */
  for (int i = 0; i < N; ++i) sbuf[0][i] = i * 3;
  MPI_OK(MPI_Bsend(sbuf[0], N, MPI_INT, peer, 7, MPI_COMM_WORLD));
  MPI_Request r;
  MPI_OK(MPI_Ibsend(sbuf[0], 100, MPI_INT, peer, 8, MPI_COMM_WORLD, &r));
  memset(sbuf[0], 0, sizeof sbuf[0]); /* buffered: the user's buffer is free */
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Recv(rbuf[0], N, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Recv(rbuf[1], 100, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; ++i) CHECK(rbuf[0][i] == i * 3, "bsend %d", i);
  for (int i = 0; i < 100; ++i) CHECK(rbuf[1][i] == i * 3, "ibsend %d", i);
  /* a buffered send that does not fit: MPI_ERR_BUFFER */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static int huge[5 * N];
  int rc = MPI_Bsend(huge, 5 * N, MPI_INT, peer, 9, MPI_COMM_WORLD);
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "oversized bsend: class %d", cls);
  void* detached;
  int dsize;
  MPI_OK(MPI_Buffer_detach(&detached, &dsize));
  CHECK(detached == attach && dsize == bsize, "detach");
  free(attach);
  if (rank == 0) printf("persistent + buffered OK\n");
  MPI_Finalize();
  return 0;
}
