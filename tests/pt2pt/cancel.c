/* MPI_Cancel: an unmatched receive is cancelled (status says so, buffer untouched, a later message goes
 * to the next receive); a send may or may not be cancelled but must complete; Status_set_cancelled.
 * Sends that wait for their receiver and are never received — MPI_Issend, a rendezvous-sized MPI_Isend,
 * a started MPI_Ssend_init — are cancelled (their MPI_Wait must return whatever the receiver does,
 * MPI-3.1 3.8.4), the persistent one then restarted and received; a synchronous send that was matched
 * is not cancelled; and the messages after the cancelled ones still match in order. That part is
 * fabmpi's: Debian's MPICH 4.0.2 (ch4:ucx) and Open MPI 4.1 cannot cancel these sends (their wait never
 * returns); the rest was validated on both. */
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

#ifdef FABMPI
  /* Unmatched synchronous and rendezvous sends: cancelled. */
  enum { BIG = 1 << 20 };
  static char big[BIG];
  MPI_Request sends[2];
  MPI_Status sts[2];
  MPI_OK(MPI_Issend(&mine, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, &sends[0]));
  MPI_OK(MPI_Isend(big, BIG, MPI_CHAR, peer, 81, MPI_COMM_WORLD, &sends[1]));
  MPI_OK(MPI_Cancel(&sends[0]));
  MPI_OK(MPI_Cancel(&sends[1]));
  MPI_OK(MPI_Waitall(2, sends, sts));
  for (int i = 0; i < 2; ++i) {
    MPI_OK(MPI_Test_cancelled(&sts[i], &flag));
    CHECK(flag, "unmatched %s send not cancelled", i ? "rendezvous" : "synchronous");
  }
  /* A persistent synchronous send: cancelled once, then restarted and received. */
  MPI_OK(MPI_Ssend_init(&mine, 1, MPI_INT, peer, 82, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Start(&r));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "persistent synchronous send not cancelled");
  pt_barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Start(&r));
  v = -1;
  MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag && v == peer + 100, "restarted persistent send: cancelled %d v %d", flag, v);
  MPI_OK(MPI_Request_free(&r));
  /* A synchronous send the peer has matched (it tells us after receiving) is not cancelled. */
  int got = -1, done = 0;
  MPI_OK(MPI_Issend(&mine, 1, MPI_INT, peer, 83, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Recv(&got, 1, MPI_INT, peer, 83, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, peer, 84, &done, 1, MPI_INT, peer, 84, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag && got == peer + 100, "matched synchronous send: cancelled %d got %d", flag, got);
  /* A synchronous send to oneself, seen by a probe, then cancelled: MPI_Request_get_status says so at once
   * (mpi4py's testProbeCancel receives the message when it does not). */
  MPI_OK(MPI_Issend(&mine, 1, MPI_INT, rank, 86, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Probe(rank, 86, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Cancel(&r));
  int complete = 0;
  MPI_OK(MPI_Request_get_status(r, &complete, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(complete && flag, "self synchronous send: complete %d cancelled %d right after MPI_Cancel", complete, flag);
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Iprobe(rank, 86, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "the cancelled message to oneself can still be received");
  /* The same without the probe, on MPI_COMM_SELF (mpi4py's testCancel). */
  MPI_OK(MPI_Issend(&mine, 1, MPI_INT, 0, 87, MPI_COMM_SELF, &r));
  MPI_OK(MPI_Cancel(&r));
  MPI_OK(MPI_Request_get_status(r, &complete, &st));
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(complete && flag, "self synchronous send on MPI_COMM_SELF: complete %d cancelled %d", complete, flag);
  MPI_OK(MPI_Wait(&r, &st));
  /* The cancelled messages are gone: the next message from the peer is the one after them. */
  int tag_seen = -1;
  MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, peer, 85, &got, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  tag_seen = st.MPI_TAG;
  CHECK(tag_seen == 85, "after the cancelled sends the next message has tag %d", tag_seen);
#endif
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
