/* Waitany, Waitsome, Testany, Testsome, Testall, Request_get_status: every request completes exactly
 * once, with the right index and status; null requests are skipped; MPI_UNDEFINED when none is active. */
#include "check.h"

#define N 16
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = rank ^ 1;
  int sbuf[N], rbuf[N];
  MPI_Request reqs[N];
  for (int variant = 0; variant < 3; ++variant) {
    for (int i = 0; i < N; ++i) {
      rbuf[i] = -1;
      MPI_OK(MPI_Irecv(&rbuf[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &reqs[i]));
    }
    reqs[3] = MPI_REQUEST_NULL; /* a null handle in the middle is skipped */
    rbuf[3] = 1000 + 3;
    for (int i = N - 1; i >= 0; --i) {
      sbuf[i] = 1000 + i;
      if (i != 3) MPI_OK(MPI_Send(&sbuf[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD));
    }
    int seen[N] = {0}, done = 0;
    while (done < N - 1) {
      if (variant == 0) {
        int idx;
        MPI_Status st;
        MPI_OK(MPI_Waitany(N, reqs, &idx, &st));
        CHECK(idx >= 0 && idx < N && !seen[idx] && st.MPI_TAG == idx, "waitany idx %d", idx);
        CHECK(reqs[idx] == MPI_REQUEST_NULL, "not freed");
        seen[idx] = 1;
        ++done;
      } else if (variant == 1) {
        int out, idx[N];
        MPI_Status sts[N];
        MPI_OK(MPI_Waitsome(N, reqs, &out, idx, sts));
        CHECK(out >= 1, "waitsome out %d", out);
        for (int k = 0; k < out; ++k) {
          CHECK(!seen[idx[k]] && sts[k].MPI_TAG == idx[k], "waitsome idx %d", idx[k]);
          seen[idx[k]] = 1;
        }
        done += out;
      } else {
        int out, idx[N];
        MPI_Status sts[N];
        MPI_OK(MPI_Testsome(N, reqs, &out, idx, sts));
        CHECK(out >= 0, "testsome out %d", out);
        for (int k = 0; k < out; ++k) {
          CHECK(!seen[idx[k]] && sts[k].MPI_SOURCE == peer && sts[k].MPI_TAG == idx[k], "testsome idx %d", idx[k]);
          seen[idx[k]] = 1;
        }
        done += out;
      }
    }
    for (int i = 0; i < N; ++i) CHECK(rbuf[i] == 1000 + i, "data %d", i);
    /* none active now */
    int idx, out, flag;
    MPI_OK(MPI_Waitany(N, reqs, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "waitany with no active requests: %d", idx);
    int idxs[N];
    MPI_OK(MPI_Waitsome(N, reqs, &out, idxs, MPI_STATUSES_IGNORE));
    CHECK(out == MPI_UNDEFINED, "waitsome with no active requests: %d", out);
    MPI_OK(MPI_Testany(N, reqs, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && idx == MPI_UNDEFINED, "testany with no active requests");
  }
  /* Testall + Request_get_status */
  MPI_Request r[2];
  int a = rank, b = -1, flag = 0;
  MPI_OK(MPI_Irecv(&b, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Isend(&a, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r[1]));
  MPI_Status st;
  while (!flag) MPI_OK(MPI_Request_get_status(r[0], &flag, &st));
  CHECK(st.MPI_SOURCE == peer && r[0] != MPI_REQUEST_NULL, "get_status must not free");
  flag = 0;
  while (!flag) MPI_OK(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
  CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && b == peer, "testall");
  if (rank == 0) printf("completion OK\n");
  MPI_Finalize();
  return 0;
}
