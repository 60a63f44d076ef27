/* Blocking MPI_Send/MPI_Recv, which run on a request on the stack and complete inside the call when
 * they can (an eager send the transport takes at once; a receive whose message is already here).
 * Covers: receive posted before / after arrival, eager and rendezvous, zero bytes, truncation on both
 * paths, non-contiguous receive types, MPI_ANY_SOURCE mixing a posted MPI_Irecv, a self-message and a
 * peer's message, Ssend/Rsend, sends to self, and blocking ping-pong from two threads at once under
 * MPI_THREAD_MULTIPLE. Run with 2 ranks. */
#include <pthread.h>

#include "check.h"

enum { TAG_SYNC = 900, TAG_DONE = 901 };

static int rank;

/* Rank 1 sends `count` messages of `bytes` then a marker; rank 0 waits until the marker is visible, so
 * the messages sit in its unexpected queue (non-overtaking) before the receives are posted. */
static void wait_for_marker(void) {
  int flag = 0;
  while (!flag) MPI_OK(MPI_Iprobe(1, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  int dummy;
  MPI_OK(MPI_Recv(&dummy, 1, MPI_INT, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void send_marker(void) {
  int dummy = 0;
  MPI_OK(MPI_Send(&dummy, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD));
}

static void spin_ms(double ms) {
  const double until = MPI_Wtime() + ms / 1000.0;
  while (MPI_Wtime() < until) {
  }
}

static void fill(unsigned char* b, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(seed * 31 + i * 7);
}

static void expect(const unsigned char* b, size_t n, int seed, const char* what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(b[i] == (unsigned char)(seed * 31 + i * 7), "%s: byte %zu of %zu wrong", what, i, n);
}

/* Eager and rendezvous sizes, each received both after and before arrival. */
static void sizes_both_orders(void) {
  const int sizes[] = {0, 1, 8, 1000, 4096, 65536, 200000, 1 << 21};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  unsigned char* buf = malloc((size_t)(1 << 21) + 64);
  for (int k = 0; k < nsizes; ++k) {
    const int n = sizes[k];
    if (rank == 1) {
      for (int m = 0; m < 3; ++m) {
        fill(buf, (size_t)n, k * 10 + m);
        MPI_OK(MPI_Send(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
      }
      send_marker();
      /* posted first: rank 0 is already waiting in MPI_Recv */
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      spin_ms(2);
      fill(buf, (size_t)n, k * 10 + 5);
      MPI_OK(MPI_Send(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
    } else if (rank == 0) {
      if (n >= 65536) {
        /* rendezvous messages do not complete until received: receive them as they come */
      } else {
        wait_for_marker();
      }
      for (int m = 0; m < 3; ++m) {
        MPI_Status st;
        memset(buf, 0xee, (size_t)n + 64);
        MPI_OK(MPI_Recv(buf, n + 64, MPI_BYTE, 1, k, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == k, "source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        CHECK(status_bytes(&st) == (size_t)n, "size %d: count %zu", n, status_bytes(&st));
        expect(buf, (size_t)n, k * 10 + m, "unexpected path");
        CHECK(buf[n] == 0xee, "size %d: overrun", n);
      }
      if (n >= 65536) wait_for_marker();
      MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
      MPI_Status st;
      MPI_OK(MPI_Recv(buf, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == k, "posted: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
      CHECK(status_bytes(&st) == (size_t)n, "posted: size %d: count %zu", n, status_bytes(&st));
      expect(buf, (size_t)n, k * 10 + 5, "posted path");
    }
  }
  free(buf);
}

/* Truncation on both paths: MPI_ERR_TRUNCATE, status filled, nothing written past the buffer. */
static void truncation(void) {
  const int sizes[] = {16, 4000, 200000};
  for (int k = 0; k < 3; ++k) {
    const int n = sizes[k], cap = n / 2;
    unsigned char* b = malloc((size_t)n + 16);
    if (rank == 1) {
      fill(b, (size_t)n, k);
      MPI_OK(MPI_Send(b, n, MPI_BYTE, 0, 50 + k, MPI_COMM_WORLD));
      send_marker();
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      spin_ms(2);
      MPI_OK(MPI_Send(b, n, MPI_BYTE, 0, 50 + k, MPI_COMM_WORLD));
    } else if (rank == 0) {
      for (int path = 0; path < 2; ++path) {
        if (path == 0 && n < 65536) wait_for_marker();
        if (path == 1) {
          if (n >= 65536) wait_for_marker();
          MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
        }
        memset(b, 0, (size_t)n + 16);
        MPI_Status st;
        st.MPI_ERROR = -5;
        int rc = MPI_Recv(b, cap, MPI_BYTE, 1, 50 + k, MPI_COMM_WORLD, &st), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "size %d path %d: class %d", n, path, cls);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 50 + k, "source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        CHECK(status_bytes(&st) == (size_t)cap, "count %zu, expected %d", status_bytes(&st), cap);
        /* Only the multiple-completion calls write MPI_ERROR (MPI-1.1 3.2.5; MPICH keeps it too). */
        CHECK(st.MPI_ERROR == -5, "status.MPI_ERROR %d, expected the caller's -5 untouched", st.MPI_ERROR);
        expect(b, (size_t)cap, k, "truncated");
        CHECK(b[cap] == 0, "size %d path %d: buffer overrun", n, path);
      }
    }
    free(b);
  }
}

/* A strided receive type, on the unexpected and the posted path. */
static void noncontiguous(void) {
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(100, 1, 3, MPI_INT, &vec));
  MPI_OK(MPI_Type_commit(&vec));
  int data[100], out[300];
  for (int i = 0; i < 100; ++i) data[i] = i * i + 1;
  for (int path = 0; path < 2; ++path) {
    if (rank == 1) {
      if (path == 1) {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        spin_ms(2);
      }
      MPI_OK(MPI_Send(data, 100, MPI_INT, 0, 60, MPI_COMM_WORLD));
      if (path == 0) send_marker();
    } else if (rank == 0) {
      if (path == 0) wait_for_marker();
      else MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
      for (int i = 0; i < 300; ++i) out[i] = -1;
      MPI_Status st;
      MPI_OK(MPI_Recv(out, 1, vec, 1, 60, MPI_COMM_WORLD, &st));
      for (int i = 0; i < 300; ++i)
        CHECK(out[i] == (i % 3 == 0 ? data[i / 3] : -1), "path %d: element %d = %d", path, i, out[i]);
      int count;
      MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 100, "path %d: count %d", path, count);
    }
  }
  MPI_OK(MPI_Type_free(&vec));
}

/* MPI_ANY_SOURCE: a posted MPI_Irecv(ANY_SOURCE) gets the first message even when a blocking receive
 * for the same source comes after it; self and peer messages mix in the unexpected queue. */
static void any_source_mix(void) {
  if (rank == 1) {
    int v = 1001;
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 70, MPI_COMM_WORLD));
    v = 1002;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 70, MPI_COMM_WORLD));
    /* then two for the unexpected-queue part */
    v = 2001;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 71, MPI_COMM_WORLD));
    v = 2002;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 71, MPI_COMM_WORLD));
    send_marker();
  } else if (rank == 0) {
    int a = 0, b = 0;
    MPI_Request r;
    MPI_OK(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
    MPI_Status st;
    MPI_OK(MPI_Recv(&b, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(a == 1001 && b == 1002, "posted order: irecv got %d, recv got %d", a, b);
    /* a self-message and two from rank 1, all unexpected; ANY_SOURCE takes them in arrival order per
     * source, and the self-message is among them. */
    int mine = 3001;
    MPI_OK(MPI_Send(&mine, 1, MPI_INT, 0, 71, MPI_COMM_WORLD));
    wait_for_marker();
    int got[3], from1 = 0, from0 = 0;
    for (int i = 0; i < 3; ++i) {
      MPI_OK(MPI_Recv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &st));
      if (st.MPI_SOURCE == 1) {
        CHECK(got[i] == 2001 + from1, "from rank 1 out of order: %d", got[i]);
        ++from1;
      } else {
        CHECK(st.MPI_SOURCE == 0 && got[i] == 3001, "self message: source %d value %d", st.MPI_SOURCE, got[i]);
        ++from0;
      }
    }
    CHECK(from1 == 2 && from0 == 1, "from1 %d from0 %d", from1, from0);
  }
}

/* Synchronous and ready modes, and sends to self (blocking send first, then the receive). */
static void modes_and_self(void) {
  int v = 0;
  if (rank == 1) {
    v = 11;
    MPI_OK(MPI_Ssend(&v, 1, MPI_INT, 0, 80, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    v = 12;
    MPI_OK(MPI_Rsend(&v, 1, MPI_INT, 0, 81, MPI_COMM_WORLD));
  } else if (rank == 0) {
    MPI_Request r;
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 11, "ssend value %d", v);
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 81, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(v == 12, "rsend value %d", v);
  }
  for (int i = 0; i < 100; ++i) {
    int out = rank * 1000 + i, in = -1;
    MPI_Status st;
    MPI_OK(MPI_Send(&out, 1, MPI_INT, rank, 82, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(NULL, 0, MPI_INT, rank, 83, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, rank, 82, MPI_COMM_WORLD, &st));
    CHECK(in == out && st.MPI_SOURCE == rank, "self: %d vs %d", in, out);
    MPI_OK(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 83, MPI_COMM_WORLD, &st));
    CHECK(status_bytes(&st) == 0 && st.MPI_SOURCE == rank, "self zero-byte");
  }
}

struct thread_arg {
  int tag;
  int iterations;
};

static void* pingpong_thread(void* p) {
  const struct thread_arg* a = p;
  const int peer = 1 - rank;
  for (int i = 0; i < a->iterations; ++i) {
    int v = -1;
    if (rank == 0) {
      int out = a->tag * 100000 + i;
      MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, a->tag, MPI_COMM_WORLD));
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, a->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == out + 1, "thread tag %d iteration %d: %d", a->tag, i, v);
    } else {
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, a->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == a->tag * 100000 + i, "thread tag %d iteration %d: got %d", a->tag, i, v);
      ++v;
      MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, a->tag, MPI_COMM_WORLD));
    }
  }
  return NULL;
}

static void threads(int provided) {
  if (provided < MPI_THREAD_MULTIPLE) return;
  struct thread_arg args[3] = {{201, 2000}, {202, 2000}, {203, 2000}};
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) CHECK(pthread_create(&t[i], NULL, pingpong_thread, &args[i]) == 0, "pthread_create");
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
}

int main(int argc, char** argv) {
  /* "single": plain MPI_Init (no API lock, sleeping allowed); default: MPI_THREAD_MULTIPLE + threads */
  int provided = MPI_THREAD_SINGLE;
  if (argc > 1 && strcmp(argv[1], "single") == 0) MPI_Init(&argc, &argv);
  else MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  sizes_both_orders();
  pt_barrier(MPI_COMM_WORLD);
  truncation();
  pt_barrier(MPI_COMM_WORLD);
  noncontiguous();
  pt_barrier(MPI_COMM_WORLD);
  any_source_mix();
  pt_barrier(MPI_COMM_WORLD);
  modes_and_self();
  pt_barrier(MPI_COMM_WORLD);
  threads(provided);
  pt_barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("blocking: ok\n");
  MPI_Finalize();
  return 0;
}
