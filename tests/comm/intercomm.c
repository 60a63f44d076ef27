/* Intercommunicators. WORLD is split into two groups in several ways (even/odd world ranks, the first
 * rank against the rest, the lower third against the rest, the last rank against the rest; local
 * ranks in world order or reversed) and joined with MPI_Intercomm_create (leaders at local rank 0 or
 * at the last local rank; peer_comm WORLD, a dup of it, or a split of it that numbers it backwards).
 * Each intercommunicator is checked for: the queries (test_inter, size/rank, remote size and group,
 * compare); point-to-point with specific and wildcard sources, sendrecv, probe/iprobe, MPI_PROC_NULL,
 * a 1 MiB message and synchronous sends; MPI_Intercomm_merge with each high/low arrangement; dup
 * (and that its traffic is kept apart), split, create and free; every blocking intercommunicator
 * collective (MPI-3.1 5.2.2: MPI_ROOT / MPI_PROC_NULL / remote root; results come from the remote
 * group) and the nonblocking barrier, bcast, allreduce, allgather and alltoall; and error classes
 * under MPI_ERRORS_RETURN. At one process only the answers of intracommunicators are checked. */
#include <string.h>

#include "check.h"

static int world_size;

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* MPI_Waitall with the statuses kept (MPI_STATUSES_IGNORE upsets gcc's -Wstringop-overflow with
 * some mpi.h). */
static void wait_all(int n, MPI_Request* reqs) {
  MPI_Status* st = malloc(sizeof(MPI_Status) * (size_t)(n ? n : 1));
  MPI_OK(MPI_Waitall(n, reqs, st));
  free(st);
}

static int* alloc_ints(size_t n, int fill) {
  int* p = malloc(sizeof(int) * (n ? n : 1));
  for (size_t i = 0; i < n; ++i) p[i] = fill;
  return p;
}

/* ---- how WORLD is split ------------------------------------------------------------------------ */

enum { SPLIT_PARITY, SPLIT_FIRST, SPLIT_THIRD, SPLIT_LAST };
enum { PEER_WORLD, PEER_DUP, PEER_REVERSED };

typedef struct {
  int split;        /* which world ranks are in group 0; the others are group 1 */
  int reverse_keys; /* local ranks in decreasing world rank order */
  int last_leader;  /* each group's leader is its last local rank (else local rank 0) */
  int peer;         /* peer_comm: WORLD, a dup of WORLD, or WORLD numbered backwards */
} Config;

static const Config configs[] = {
    {SPLIT_PARITY, 0, 0, PEER_WORLD},    {SPLIT_PARITY, 1, 1, PEER_DUP}, {SPLIT_FIRST, 0, 1, PEER_WORLD},
    {SPLIT_THIRD, 0, 0, PEER_REVERSED}, {SPLIT_LAST, 1, 1, PEER_WORLD},
};

static int side_of(int split, int r) {
  switch (split) {
    case SPLIT_PARITY: return r % 2;
    case SPLIT_FIRST: return r == 0 ? 0 : 1;
    case SPLIT_THIRD: return r < (world_size + 2) / 3 ? 0 : 1;
    default: return r == world_size - 1 ? 0 : 1;
  }
}

/* The world ranks of group `side`, in local rank order; returns the group's size. */
static int members_of(const Config* c, int side, int* out) {
  int n = 0;
  for (int i = 0; i < world_size; ++i) {
    const int r = c->reverse_keys ? world_size - 1 - i : i;
    if (side_of(c->split, r) == side) out[n++] = r;
  }
  return n;
}

typedef struct {
  MPI_Comm ic;
  int group; /* 0 or 1: the side this process is on */
  int lsize, lrank, rsize;
  int* members[2]; /* world ranks of each group, by rank in that group */
  int sizes[2];
  const int* lw; /* members[group] */
  const int* rw; /* members[1 - group] */
} Inter;

static int index_of(const int* v, int n, int x) {
  for (int i = 0; i < n; ++i)
    if (v[i] == x) return i;
  return -1;
}

static void check_groups(MPI_Comm ic, const int* lw, int lsize, int lrank, const int* rw, int rsize) {
  int flag = -1, size = -1, rank = -1;
  MPI_OK(MPI_Comm_test_inter(ic, &flag));
  CHECK(flag != 0);
  MPI_OK(MPI_Comm_size(ic, &size));
  MPI_OK(MPI_Comm_rank(ic, &rank));
  CHECK(size == lsize);
  CHECK(rank == lrank);
  MPI_OK(MPI_Comm_remote_size(ic, &size));
  CHECK(size == rsize);

  MPI_Group world_group, remote, local;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  MPI_OK(MPI_Comm_remote_group(ic, &remote));
  MPI_OK(MPI_Comm_group(ic, &local));
  int* idx = alloc_ints((size_t)(lsize > rsize ? lsize : rsize), 0);
  int* got = alloc_ints((size_t)(lsize > rsize ? lsize : rsize), -1);
  for (int i = 0; i < (lsize > rsize ? lsize : rsize); ++i) idx[i] = i;
  MPI_OK(MPI_Group_size(remote, &size));
  CHECK(size == rsize);
  MPI_OK(MPI_Group_rank(remote, &rank));
  CHECK(rank == MPI_UNDEFINED);
  MPI_OK(MPI_Group_translate_ranks(remote, rsize, idx, world_group, got));
  for (int i = 0; i < rsize; ++i) CHECK(got[i] == rw[i]);
  MPI_OK(MPI_Group_size(local, &size));
  CHECK(size == lsize);
  MPI_OK(MPI_Group_rank(local, &rank));
  CHECK(rank == lrank);
  MPI_OK(MPI_Group_translate_ranks(local, lsize, idx, world_group, got));
  for (int i = 0; i < lsize; ++i) CHECK(got[i] == lw[i]);
  free(idx);
  free(got);
  MPI_OK(MPI_Group_free(&remote));
  MPI_OK(MPI_Group_free(&local));
  MPI_OK(MPI_Group_free(&world_group));
}

/* Every process sends to every remote rank and receives from every remote rank by its rank. */
static void check_inter_carries(MPI_Comm ic, int lrank, const int* rw, int rsize, int tag) {
  int(*got)[4] = malloc(sizeof *got * (size_t)rsize);
  int(*sent)[4] = malloc(sizeof *sent * (size_t)rsize);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
  MPI_Status* st = malloc(sizeof(MPI_Status) * 2 * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) {
    for (int k = 0; k < 4; ++k) got[j][k] = -1;
    MPI_OK(MPI_Irecv(got[j], 4, MPI_INT, j, tag, ic, &reqs[j]));
  }
  for (int j = 0; j < rsize; ++j) {
    sent[j][0] = g_world_rank;
    sent[j][1] = lrank;
    sent[j][2] = j;
    sent[j][3] = tag;
    MPI_OK(MPI_Isend(sent[j], 4, MPI_INT, j, tag, ic, &reqs[rsize + j]));
  }
  MPI_OK(MPI_Waitall(2 * rsize, reqs, st));
  for (int j = 0; j < rsize; ++j) {
    CHECK(got[j][0] == rw[j] && got[j][1] == j && got[j][2] == lrank && got[j][3] == tag);
    CHECK(st[j].MPI_SOURCE == j);
    CHECK(st[j].MPI_TAG == tag);
  }
  free(got);
  free(sent);
  free(reqs);
  free(st);
}

static void make_inter(const Config* c, int tag, Inter* x) {
  x->group = side_of(c->split, g_world_rank);
  for (int s = 0; s < 2; ++s) {
    x->members[s] = alloc_ints((size_t)world_size, -1);
    x->sizes[s] = members_of(c, s, x->members[s]);
  }
  x->lw = x->members[x->group];
  x->rw = x->members[1 - x->group];
  x->lsize = x->sizes[x->group];
  x->rsize = x->sizes[1 - x->group];
  x->lrank = index_of(x->lw, x->lsize, g_world_rank);

  MPI_Comm local, peer = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, x->group, c->reverse_keys ? world_size - g_world_rank : g_world_rank,
                        &local));
  if (c->peer == PEER_DUP) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &peer));
  if (c->peer == PEER_REVERSED) MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - g_world_rank, &peer));
  const int local_leader = c->last_leader ? x->lsize - 1 : 0;
  const int remote_leader_world = x->rw[c->last_leader ? x->rsize - 1 : 0];
  const int remote_leader = c->peer == PEER_REVERSED ? world_size - 1 - remote_leader_world : remote_leader_world;
  MPI_OK(MPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, &x->ic));
  /* The intercommunicator outlives the communicators it was built from. */
  MPI_OK(MPI_Comm_free(&local));
  if (peer != MPI_COMM_WORLD) MPI_OK(MPI_Comm_free(&peer));
}

static void free_inter(Inter* x) {
  MPI_OK(MPI_Comm_free(&x->ic));
  CHECK(x->ic == MPI_COMM_NULL);
  free(x->members[0]);
  free(x->members[1]);
}

/* ---- intracommunicators (any size) ------------------------------------------------------------- */

/* Errors the standard does not require an implementation to detect, or where MPICH and Open MPI
 * detect them with different classes; the classes checked are fabmpi's own choice, so these checks
 * run only against fabmpi.
 * - An intercommunicator call on an intracommunicator (MPI-3.1 6.6.2 names the argument an
 *   intercommunicator): MPICH 4.0.2 answers MPI_Comm_remote_size/group with the local group and
 *   fails an assertion in MPI_Intercomm_merge; Open MPI 4.1.4 gives remote size 0 and MPI_ERR_COMM
 *   for the other two. fabmpi: MPI_ERR_COMM.
 * - MPI_Intercomm_create with local_leader out of range: MPI_ERR_RANK in MPICH, MPI_ERR_ARG in
 *   Open MPI. fabmpi: MPI_ERR_RANK. */
#ifdef FABMPI
#define CHECK_FABMPI_ERRORS 1
#else
#define CHECK_FABMPI_ERRORS 0
#endif

static void test_intracomm_answers(void) {
  int flag = -1;
  MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
  MPI_OK(MPI_Comm_test_inter(MPI_COMM_SELF, &flag));
  CHECK(flag == 0);
  if (!CHECK_FABMPI_ERRORS) return;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int size = -7;
  CHECK(error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &size)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_remote_size(MPI_COMM_SELF, &size)) == MPI_ERR_COMM);
  MPI_Group group = MPI_GROUP_NULL;
  CHECK(error_class(MPI_Comm_remote_group(MPI_COMM_WORLD, &group)) == MPI_ERR_COMM);
  MPI_Comm merged = MPI_COMM_NULL;
  CHECK(error_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &merged)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Intercomm_merge(MPI_COMM_SELF, 1, &merged)) == MPI_ERR_COMM);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* ---- 1. queries -------------------------------------------------------------------------------- */

static void test_queries(const Inter* x, int tag) {
  check_groups(x->ic, x->lw, x->lsize, x->lrank, x->rw, x->rsize);
  check_inter_carries(x->ic, x->lrank, x->rw, x->rsize, tag);
  int result = -1;
  MPI_OK(MPI_Comm_compare(x->ic, x->ic, &result));
  CHECK(result == MPI_IDENT);
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(x->ic, &dup));
  MPI_OK(MPI_Comm_compare(x->ic, dup, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_compare(dup, x->ic, &result));
  CHECK(result == MPI_CONGRUENT);
  /* An intercommunicator against an intracommunicator: MPI_UNEQUAL (MPI-3.1 6.6.1). */
  MPI_OK(MPI_Comm_compare(x->ic, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL);
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
}

/* ---- 2. point-to-point ------------------------------------------------------------------------- */

static void test_p2p(const Inter* x, int tag) {
  const int n = x->rsize;
  MPI_Comm ic = x->ic;
  int(*sent)[4] = malloc(sizeof *sent * (size_t)n);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  int* seen = alloc_ints((size_t)n, 0);
  MPI_Status s;
  int m[4], count;

  /* Specific sources. */
  check_inter_carries(ic, x->lrank, x->rw, n, tag);

  /* MPI_ANY_SOURCE: each remote process is heard from once, and the status names it. */
  for (int j = 0; j < n; ++j) {
    sent[j][0] = g_world_rank;
    sent[j][1] = x->lrank;
    sent[j][2] = j;
    sent[j][3] = tag + 1;
    MPI_OK(MPI_Isend(sent[j], 4, MPI_INT, j, tag + 1, ic, &reqs[j]));
  }
  for (int k = 0; k < n; ++k) {
    m[0] = m[1] = m[2] = m[3] = -1;
    MPI_OK(MPI_Recv(m, 4, MPI_INT, MPI_ANY_SOURCE, tag + 1, ic, &s));
    const int src = s.MPI_SOURCE;
    CHECK(src >= 0 && src < n);
    if (src < 0 || src >= n) continue;
    CHECK(!seen[src]);
    seen[src] = 1;
    CHECK(s.MPI_TAG == tag + 1);
    CHECK(m[0] == x->rw[src] && m[1] == src && m[2] == x->lrank && m[3] == tag + 1);
  }
  wait_all(n, reqs);

  /* MPI_Sendrecv with each remote rank in turn. */
  for (int j = 0; j < n; ++j) {
    m[0] = m[1] = m[2] = m[3] = -1;
    MPI_OK(MPI_Sendrecv(sent[j], 4, MPI_INT, j, tag + 2, m, 4, MPI_INT, j, tag + 2, ic, &s));
    CHECK(s.MPI_SOURCE == j && s.MPI_TAG == tag + 2);
    CHECK(m[0] == x->rw[j] && m[1] == j && m[2] == x->lrank);
  }

  /* MPI_Probe and MPI_Iprobe with MPI_ANY_SOURCE; remote rank j sends j + 1 ints. */
  int* payload = alloc_ints((size_t)x->lsize, g_world_rank);
  int* in = alloc_ints((size_t)n + 1, -1);
  for (int j = 0; j < n; ++j) MPI_OK(MPI_Isend(payload, x->lrank + 1, MPI_INT, j, tag + 3, ic, &reqs[j]));
  memset(seen, 0, sizeof(int) * (size_t)n);
  for (int k = 0; k < n; ++k) {
    if (k % 2) {
      int flag = 0;
      while (!flag) MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, tag + 3, ic, &flag, &s));
    } else {
      MPI_OK(MPI_Probe(MPI_ANY_SOURCE, tag + 3, ic, &s));
    }
    const int src = s.MPI_SOURCE;
    CHECK(src >= 0 && src < n);
    if (src < 0 || src >= n) continue;
    CHECK(!seen[src]);
    seen[src] = 1;
    MPI_OK(MPI_Get_count(&s, MPI_INT, &count));
    CHECK(count == src + 1);
    for (int i = 0; i <= n; ++i) in[i] = -1;
    MPI_Status s2;
    MPI_OK(MPI_Recv(in, n, MPI_INT, src, tag + 3, ic, &s2));
    CHECK(s2.MPI_SOURCE == src);
    for (int i = 0; i <= src; ++i) CHECK(in[i] == x->rw[src]);
    CHECK(in[src + 1] == -1);
  }
  wait_all(n, reqs);
  free(payload);
  free(in);

  /* MPI_PROC_NULL: a send goes nowhere, a receive completes at once with the null status. */
  MPI_OK(MPI_Send(sent[0], 4, MPI_INT, MPI_PROC_NULL, tag, ic));
  m[0] = 17;
  MPI_OK(MPI_Recv(m, 4, MPI_INT, MPI_PROC_NULL, tag, ic, &s));
  CHECK(s.MPI_SOURCE == MPI_PROC_NULL && s.MPI_TAG == MPI_ANY_TAG);
  MPI_OK(MPI_Get_count(&s, MPI_INT, &count));
  CHECK(count == 0 && m[0] == 17);

  /* 1 MiB each way between local rank i and remote rank i, and synchronous sends on the same pairs. */
  const int pairs = x->lsize < x->rsize ? x->lsize : x->rsize;
  if (x->lrank < pairs) {
    const int big = 1 << 18;
    const int partner = x->lrank, from = x->rw[partner];
    int* out = malloc(sizeof(int) * (size_t)big);
    int* back = alloc_ints((size_t)big, -1);
    for (int i = 0; i < big; ++i) out[i] = g_world_rank * 1000003 + i;
    MPI_Request r[2];
    MPI_OK(MPI_Irecv(back, big, MPI_INT, partner, tag + 4, ic, &r[0]));
    MPI_OK(MPI_Isend(out, big, MPI_INT, partner, tag + 4, ic, &r[1]));
    MPI_Status st[2];
    MPI_OK(MPI_Waitall(2, r, st));
    CHECK(st[0].MPI_SOURCE == partner);
    MPI_OK(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == big);
    int bad = 0;
    for (int i = 0; i < big; ++i) bad += back[i] != from * 1000003 + i;
    CHECK(bad == 0);

    int one = -1, mine = g_world_rank + 500;
    MPI_OK(MPI_Irecv(&one, 1, MPI_INT, partner, tag + 5, ic, &r[0]));
    MPI_OK(MPI_Ssend(&mine, 1, MPI_INT, partner, tag + 5, ic));
    MPI_OK(MPI_Wait(&r[0], &s));
    CHECK(one == from + 500 && s.MPI_SOURCE == partner);
    one = -1;
    MPI_OK(MPI_Issend(&mine, 1, MPI_INT, partner, tag + 6, ic, &r[1]));
    MPI_OK(MPI_Recv(&one, 1, MPI_INT, partner, tag + 6, ic, &s));
    MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    CHECK(one == from + 500 && s.MPI_SOURCE == partner);
    /* A large synchronous send too. */
    for (int i = 0; i < big; ++i) back[i] = -1;
    MPI_OK(MPI_Irecv(back, big, MPI_INT, partner, tag + 7, ic, &r[0]));
    MPI_OK(MPI_Ssend(out, big, MPI_INT, partner, tag + 7, ic));
    MPI_OK(MPI_Wait(&r[0], &s));
    bad = 0;
    for (int i = 0; i < big; ++i) bad += back[i] != from * 1000003 + i;
    CHECK(bad == 0);
    free(out);
    free(back);
  }
  free(sent);
  free(reqs);
  free(seen);
}

/* ---- 3. merge ---------------------------------------------------------------------------------- */

static void test_merge(const Inter* x, int tag) {
  const int n = world_size;
  int* wr = alloc_ints((size_t)n, -1);
  for (int v = 0; v < 4; ++v) {
    /* 0: group 0 low; 1: group 1 low; 2: both low; 3: both high. */
    const int high = v == 0 ? x->group : v == 1 ? 1 - x->group : v == 2 ? 0 : 1;
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(x->ic, high, &merged));
    int flag = -1, size = -1, rank = -1;
    MPI_OK(MPI_Comm_test_inter(merged, &flag));
    CHECK(flag == 0);
    MPI_OK(MPI_Comm_size(merged, &size));
    MPI_OK(MPI_Comm_rank(merged, &rank));
    CHECK(size == n);
    world_ranks_of(merged, wr);
    if (v < 2) {
      /* The low group first, each group in its local order. */
      const int low = v == 0 ? 0 : 1;
      for (int i = 0; i < x->sizes[low]; ++i) CHECK(wr[i] == x->members[low][i]);
      for (int i = 0; i < x->sizes[1 - low]; ++i) CHECK(wr[x->sizes[low] + i] == x->members[1 - low][i]);
      CHECK(rank == (x->group == low ? x->lrank : x->sizes[low] + x->lrank));
    } else {
      /* Same high everywhere: which group comes first is the implementation's choice. */
      int local_first = 1, remote_first = 1;
      for (int i = 0; i < x->lsize; ++i) local_first &= wr[i] == x->lw[i];
      for (int i = 0; i < x->rsize; ++i) local_first &= wr[x->lsize + i] == x->rw[i];
      for (int i = 0; i < x->rsize; ++i) remote_first &= wr[i] == x->rw[i];
      for (int i = 0; i < x->lsize; ++i) remote_first &= wr[x->rsize + i] == x->lw[i];
      CHECK(local_first || remote_first);
      CHECK(rank == (local_first ? x->lrank : x->rsize + x->lrank));
    }
    int sum = -1;
    MPI_OK(MPI_Allreduce(&g_world_rank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == n * (n - 1) / 2);
    check_comm_carries(merged, tag + v);
    MPI_OK(MPI_Comm_free(&merged));
    CHECK(merged == MPI_COMM_NULL);
  }
  free(wr);
}

/* ---- 4. dup, split, create --------------------------------------------------------------------- */

static void test_dup(const Inter* x, int tag) {
  const int n = x->rsize;
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(x->ic, &dup));
  check_groups(dup, x->lw, x->lsize, x->lrank, x->rw, x->rsize);

  /* Receives posted on the dup first; the same tags sent on the original must not match them. */
  int* on_dup = alloc_ints((size_t)n, -1);
  MPI_Request* dreqs = malloc(sizeof(MPI_Request) * (size_t)n);
  MPI_Request* sreqs = malloc(sizeof(MPI_Request) * (size_t)n);
  for (int j = 0; j < n; ++j) MPI_OK(MPI_Irecv(&on_dup[j], 1, MPI_INT, j, tag, dup, &dreqs[j]));
  const int first = 1000 + g_world_rank, second = 2000 + g_world_rank;
  for (int j = 0; j < n; ++j) MPI_OK(MPI_Isend(&first, 1, MPI_INT, j, tag, x->ic, &sreqs[j]));
  for (int j = 0; j < n; ++j) {
    int v = -1;
    MPI_Status s;
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, j, tag, x->ic, &s));
    CHECK(v == 1000 + x->rw[j] && s.MPI_SOURCE == j);
  }
  wait_all(n, sreqs);
  for (int j = 0; j < n; ++j) MPI_OK(MPI_Isend(&second, 1, MPI_INT, j, tag, dup, &sreqs[j]));
  wait_all(n, sreqs);
  wait_all(n, dreqs);
  for (int j = 0; j < n; ++j) CHECK(on_dup[j] == 2000 + x->rw[j]);

  /* A dup of the dup, and collectives on both interleaved. */
  MPI_Comm dup2;
  MPI_OK(MPI_Comm_dup(dup, &dup2));
  int flag = -1, size = -1;
  MPI_OK(MPI_Comm_test_inter(dup2, &flag));
  MPI_OK(MPI_Comm_remote_size(dup2, &size));
  CHECK(flag != 0 && size == n);
  int a = -1, b = -1;
  MPI_OK(MPI_Allreduce(&g_world_rank, &a, 1, MPI_INT, MPI_SUM, dup2));
  MPI_OK(MPI_Allreduce(&x->lrank, &b, 1, MPI_INT, MPI_SUM, dup));
  int rsum = 0;
  for (int j = 0; j < n; ++j) rsum += x->rw[j];
  CHECK(a == rsum && b == n * (n - 1) / 2);
  MPI_OK(MPI_Comm_free(&dup2));
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL && dup2 == MPI_COMM_NULL);

  /* MPI_Comm_idup does not block: local rank 0 waits in receives from every remote process, each sent
   * after that process started its idup (MPICH's comm_idup pattern), and two idups are in flight at
   * once, waited in the reverse order. */
  MPI_Comm idup1, idup2;
  MPI_Request ireq[2];
  if (x->lrank == 0) {
    for (int j = 1; j < n; ++j) {
      int v = -1;
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, j, tag + 1, x->ic, MPI_STATUS_IGNORE));
      CHECK(v == x->rw[j]);
    }
    MPI_OK(MPI_Comm_idup(x->ic, &idup1, &ireq[0]));
    MPI_OK(MPI_Comm_idup(x->ic, &idup2, &ireq[1]));
  } else {
    MPI_OK(MPI_Comm_idup(x->ic, &idup1, &ireq[0]));
    MPI_OK(MPI_Comm_idup(x->ic, &idup2, &ireq[1]));
    MPI_OK(MPI_Ssend(&g_world_rank, 1, MPI_INT, 0, tag + 1, x->ic));
  }
  MPI_OK(MPI_Wait(&ireq[1], MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&ireq[0], MPI_STATUS_IGNORE));
  int flags[2] = {-1, -1}, cmp = -1;
  MPI_OK(MPI_Comm_test_inter(idup1, &flags[0]));
  MPI_OK(MPI_Comm_test_inter(idup2, &flags[1]));
  CHECK(flags[0] && flags[1]);
  MPI_OK(MPI_Comm_compare(idup1, x->ic, &cmp));
  CHECK(cmp == MPI_CONGRUENT);
  check_groups(idup2, x->lw, x->lsize, x->lrank, x->rw, x->rsize);
  int s1 = -1, s2 = -1;
  MPI_OK(MPI_Allreduce(&g_world_rank, &s1, 1, MPI_INT, MPI_SUM, idup1));
  MPI_OK(MPI_Allreduce(&g_world_rank, &s2, 1, MPI_INT, MPI_SUM, idup2));
  CHECK(s1 == rsum && s2 == rsum);
  MPI_OK(MPI_Comm_free(&idup1));
  MPI_OK(MPI_Comm_free(&idup2));
  free(on_dup);
  free(dreqs);
  free(sreqs);
}

/* The expected members of a split of the intercommunicator: ranks of `side` whose color is `color`,
 * in the order of the keys (key = size - rank: backwards). */
static int split_members(const Inter* x, int side, int color, int* out, int undefined_last0) {
  int k = 0;
  const int size = x->sizes[side];
  for (int r = size - 1; r >= 0; --r) {
    int c = r % 2;
    if (undefined_last0 && side == 0 && r == size - 1) c = MPI_UNDEFINED;
    if (undefined_last0) c = c == MPI_UNDEFINED ? c : 0;
    if (c == color) out[k++] = x->members[side][r];
  }
  return k;
}

static void test_split(const Inter* x, int tag) {
  int* lw = alloc_ints((size_t)world_size, -1);
  int* rw = alloc_ints((size_t)world_size, -1);
  for (int variant = 0; variant < 2; ++variant) {
    /* 0: color = local rank % 2. 1: everyone color 0 except the last rank of group 0 (undefined). */
    int color = x->lrank % 2;
    if (variant == 1) color = (x->group == 0 && x->lrank == x->lsize - 1) ? MPI_UNDEFINED : 0;
    MPI_Comm sub;
    MPI_OK(MPI_Comm_split(x->ic, color, x->lsize - x->lrank, &sub));
    if (color == MPI_UNDEFINED) {
      CHECK(sub == MPI_COMM_NULL);
      continue;
    }
    const int ln = split_members(x, x->group, color, lw, variant);
    const int rn = split_members(x, 1 - x->group, color, rw, variant);
    if (rn == 0) {
      /* A color only one side has: MPI_COMM_NULL (MPI-3.1 6.4.2). */
      CHECK(sub == MPI_COMM_NULL);
      if (sub != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&sub));
      continue;
    }
    CHECK(sub != MPI_COMM_NULL);
    if (sub == MPI_COMM_NULL) continue;
    const int lrank = index_of(lw, ln, g_world_rank);
    check_groups(sub, lw, ln, lrank, rw, rn);
    check_inter_carries(sub, lrank, rw, rn, tag + variant);
    MPI_OK(MPI_Barrier(sub));
    MPI_OK(MPI_Comm_free(&sub));
  }
  free(lw);
  free(rw);
}

static void test_create(const Inter* x, int tag) {
  /* Each side keeps its even local ranks, in their order. (In reverse order, Open MPI 4.1.4 gives
   * the new intercommunicator a remote group in the old order, which disagrees with the other
   * side's local group, so messages reach the wrong processes.) */
  int* ranks = alloc_ints((size_t)x->lsize, -1);
  int k = 0;
  for (int r = 0; r < x->lsize; ++r)
    if (r % 2 == 0) ranks[k++] = r;
  MPI_Group local, sub_group;
  MPI_OK(MPI_Comm_group(x->ic, &local));
  MPI_OK(MPI_Group_incl(local, k, ranks, &sub_group));
  MPI_Comm sub;
  MPI_OK(MPI_Comm_create(x->ic, sub_group, &sub));
  if (x->lrank % 2) {
    CHECK(sub == MPI_COMM_NULL);
  } else {
    int* lw = alloc_ints((size_t)world_size, -1);
    int* rw = alloc_ints((size_t)world_size, -1);
    int ln = 0, rn = 0;
    for (int r = 0; r < x->lsize; r += 2) lw[ln++] = x->lw[r];
    for (int r = 0; r < x->rsize; r += 2) rw[rn++] = x->rw[r];
    CHECK(ln == k);
    CHECK(sub != MPI_COMM_NULL);
    if (sub != MPI_COMM_NULL) {
      const int lrank = index_of(lw, ln, g_world_rank);
      check_groups(sub, lw, ln, lrank, rw, rn);
      check_inter_carries(sub, lrank, rw, rn, tag);
      MPI_OK(MPI_Comm_free(&sub));
    }
    free(lw);
    free(rw);
  }
  MPI_OK(MPI_Group_free(&sub_group));
  MPI_OK(MPI_Group_free(&local));
  free(ranks);
}

/* ---- 5. collectives ---------------------------------------------------------------------------- */

/* Non-commutative: pairs [first, last] of consecutive ranks; in op inout = in then inout. */
static void interval_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) {
    const int* p = a + 2 * i;
    int* q = b + 2 * i;
    if (p[0] < 0 || q[0] < 0 || p[1] + 1 != q[0]) {
      q[0] = q[1] = -1;
    } else {
      q[0] = p[0];
    }
  }
}

static MPI_Op interval;
static MPI_Datatype pair_type;

static int sum_of(const int* v, int n, int plus) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += v[i] + plus;
  return s;
}

static int root_arg(const Inter* x, int root_side, int root_lrank) {
  if (x->group == root_side) return x->lrank == root_lrank ? MPI_ROOT : MPI_PROC_NULL;
  return root_lrank;
}

/* Displacements that place blocks in reverse rank order with a one-element gap after each; returns
 * the buffer length. */
static int reversed_displs(const int* counts, int n, int* displs) {
  int d = 0;
  for (int j = n - 1; j >= 0; --j) {
    displs[j] = d;
    d += counts[j] + 1;
  }
  return d;
}

static void test_rooted(const Inter* x, int root_side, int root_lrank) {
  MPI_Comm ic = x->ic;
  const int root = root_arg(x, root_side, root_lrank);
  const int is_root = root == MPI_ROOT, idle = root == MPI_PROC_NULL;
  const int rootw = x->members[root_side][root_lrank];
  const int n = x->rsize;

  /* Bcast. */
  int b[3] = {-1, -1, -1};
  if (is_root) b[0] = rootw, b[1] = root_side, b[2] = root_lrank + 5;
  MPI_OK(MPI_Bcast(b, 3, MPI_INT, root, ic));
  if (idle)
    CHECK(b[0] == -1 && b[1] == -1 && b[2] == -1);
  else
    CHECK(b[0] == rootw && b[1] == root_side && b[2] == root_lrank + 5);

  /* Reduce: the root gets the reduction over the other group. */
  int contrib[3] = {g_world_rank, 1, x->lrank};
  int pairs[6] = {x->lrank, x->lrank, x->lrank, x->lrank, x->lrank, x->lrank};
  int unused[6] = {-5, -5, -5, -5, -5, -5};
  if (is_root) {
    int r[3] = {-1, -1, -1}, q[6] = {-2, -2, -2, -2, -2, -2};
    /* sendbuf is not significant at MPI_ROOT (MPI-3.1 5.9.1), but MPICH 4.0.2 refuses NULL there. */
    MPI_OK(MPI_Reduce(unused, r, 3, MPI_INT, MPI_SUM, MPI_ROOT, ic));
    CHECK(r[0] == sum_of(x->rw, n, 0) && r[1] == n && r[2] == n * (n - 1) / 2);
    MPI_OK(MPI_Reduce(unused, q, 3, pair_type, interval, MPI_ROOT, ic));
    for (int i = 0; i < 3; ++i) CHECK(q[2 * i] == 0 && q[2 * i + 1] == n - 1);
  } else if (idle) {
    MPI_OK(MPI_Reduce(NULL, NULL, 3, MPI_INT, MPI_SUM, MPI_PROC_NULL, ic));
    MPI_OK(MPI_Reduce(NULL, NULL, 3, pair_type, interval, MPI_PROC_NULL, ic));
  } else {
    MPI_OK(MPI_Reduce(contrib, NULL, 3, MPI_INT, MPI_SUM, root, ic));
    MPI_OK(MPI_Reduce(pairs, NULL, 3, pair_type, interval, root, ic));
  }

  /* Gather: block j at the root is remote rank j's. */
  if (is_root) {
    int* r = alloc_ints(3 * (size_t)n, -1);
    MPI_OK(MPI_Gather(NULL, 0, MPI_INT, r, 3, MPI_INT, MPI_ROOT, ic));
    for (int j = 0; j < n; ++j) CHECK(r[3 * j] == x->rw[j] && r[3 * j + 1] == j && r[3 * j + 2] == root_lrank);
    free(r);
  } else if (idle) {
    MPI_OK(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_PROC_NULL, ic));
  } else {
    int s[3] = {g_world_rank, x->lrank, root_lrank};
    MPI_OK(MPI_Gather(s, 3, MPI_INT, NULL, 0, MPI_INT, root, ic));
  }

  /* Gatherv: remote rank j sends (j + 1) % 3 ints, placed backwards with gaps. */
  if (is_root) {
    int* counts = alloc_ints((size_t)n, 0);
    int* displs = alloc_ints((size_t)n, 0);
    for (int j = 0; j < n; ++j) counts[j] = (j + 1) % 3;
    const int len = reversed_displs(counts, n, displs);
    int* r = alloc_ints((size_t)len, -1);
    MPI_OK(MPI_Gatherv(NULL, 0, MPI_INT, r, counts, displs, MPI_INT, MPI_ROOT, ic));
    for (int j = 0; j < n; ++j) {
      for (int e = 0; e < counts[j]; ++e) CHECK(r[displs[j] + e] == x->rw[j] * 100 + e);
      CHECK(r[displs[j] + counts[j]] == -1);
    }
    free(r);
    free(counts);
    free(displs);
  } else if (idle) {
    MPI_OK(MPI_Gatherv(NULL, 0, MPI_INT, NULL, NULL, NULL, MPI_INT, MPI_PROC_NULL, ic));
  } else {
    int s[2] = {g_world_rank * 100, g_world_rank * 100 + 1};
    MPI_OK(MPI_Gatherv(s, (x->lrank + 1) % 3, MPI_INT, NULL, NULL, NULL, MPI_INT, root, ic));
  }

  /* Scatter: remote rank j gets block j. */
  if (is_root) {
    int* s = alloc_ints(3 * (size_t)n, 0);
    for (int j = 0; j < n; ++j) s[3 * j] = rootw, s[3 * j + 1] = j, s[3 * j + 2] = 77 + root_lrank;
    MPI_OK(MPI_Scatter(s, 3, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, ic));
    free(s);
  } else if (idle) {
    MPI_OK(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_PROC_NULL, ic));
  } else {
    int r[3] = {-1, -1, -1};
    MPI_OK(MPI_Scatter(NULL, 0, MPI_INT, r, 3, MPI_INT, root, ic));
    CHECK(r[0] == rootw && r[1] == x->lrank && r[2] == 77 + root_lrank);
  }

  /* Scatterv: remote rank j gets (j + 2) % 3 ints from a backwards, gapped buffer. */
  if (is_root) {
    int* counts = alloc_ints((size_t)n, 0);
    int* displs = alloc_ints((size_t)n, 0);
    for (int j = 0; j < n; ++j) counts[j] = (j + 2) % 3;
    const int len = reversed_displs(counts, n, displs);
    int* s = alloc_ints((size_t)len, -9);
    for (int j = 0; j < n; ++j)
      for (int e = 0; e < counts[j]; ++e) s[displs[j] + e] = rootw * 10000 + j * 100 + e;
    MPI_OK(MPI_Scatterv(s, counts, displs, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, ic));
    free(s);
    free(counts);
    free(displs);
  } else if (idle) {
    MPI_OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, NULL, 0, MPI_INT, MPI_PROC_NULL, ic));
  } else {
    int r[3] = {-1, -1, -1};
    const int c = (x->lrank + 2) % 3;
    MPI_OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, r, c, MPI_INT, root, ic));
    for (int e = 0; e < c; ++e) CHECK(r[e] == rootw * 10000 + x->lrank * 100 + e);
    CHECK(r[c] == -1);
  }
}

static int a2a_count(int from_world, int to_world) { return (from_world + 2 * to_world) % 3; }

static void test_unrooted(const Inter* x) {
  MPI_Comm ic = x->ic;
  const int n = x->rsize, w = g_world_rank;
  MPI_OK(MPI_Barrier(ic));

  /* Allreduce: each group gets the reduction over the other. */
  int contrib[3] = {w, 1, x->lrank}, r[3] = {-1, -1, -1};
  MPI_OK(MPI_Allreduce(contrib, r, 3, MPI_INT, MPI_SUM, ic));
  CHECK(r[0] == sum_of(x->rw, n, 0) && r[1] == n && r[2] == n * (n - 1) / 2);
  int pairs[6], q[6];
  for (int i = 0; i < 6; ++i) pairs[i] = x->lrank, q[i] = -2;
  MPI_OK(MPI_Allreduce(pairs, q, 3, pair_type, interval, ic));
  for (int i = 0; i < 3; ++i) CHECK(q[2 * i] == 0 && q[2 * i + 1] == n - 1);

  /* A large allreduce. */
  const int big = 1 << 16;
  int* bs = malloc(sizeof(int) * (size_t)big);
  int* br = alloc_ints((size_t)big, -1);
  for (int i = 0; i < big; ++i) bs[i] = w + i;
  MPI_OK(MPI_Allreduce(bs, br, big, MPI_INT, MPI_SUM, ic));
  const int rsum = sum_of(x->rw, n, 0);
  int bad = 0;
  for (int i = 0; i < big; ++i) bad += br[i] != rsum + n * i;
  CHECK(bad == 0);
  free(bs);
  free(br);

  /* Allgather: block j is remote rank j's. */
  int s3[3] = {w, x->lrank, 7};
  int* ag = alloc_ints(3 * (size_t)n, -1);
  MPI_OK(MPI_Allgather(s3, 3, MPI_INT, ag, 3, MPI_INT, ic));
  for (int j = 0; j < n; ++j) CHECK(ag[3 * j] == x->rw[j] && ag[3 * j + 1] == j && ag[3 * j + 2] == 7);
  free(ag);

  /* Allgatherv: remote rank j contributes (j + 2) % 3 ints, placed backwards with gaps. */
  int* counts = alloc_ints((size_t)n, 0);
  int* displs = alloc_ints((size_t)n, 0);
  for (int j = 0; j < n; ++j) counts[j] = (j + 2) % 3;
  int len = reversed_displs(counts, n, displs);
  int* agv = alloc_ints((size_t)len, -1);
  int sv[2] = {w * 100, w * 100 + 1};
  MPI_OK(MPI_Allgatherv(sv, (x->lrank + 2) % 3, MPI_INT, agv, counts, displs, MPI_INT, ic));
  for (int j = 0; j < n; ++j) {
    for (int e = 0; e < counts[j]; ++e) CHECK(agv[displs[j] + e] == x->rw[j] * 100 + e);
    CHECK(agv[displs[j] + counts[j]] == -1);
  }
  free(agv);

  /* Alltoall: remote_size blocks each way. */
  int* a2s = alloc_ints(2 * (size_t)n, 0);
  int* a2r = alloc_ints(2 * (size_t)n, -1);
  for (int j = 0; j < n; ++j) a2s[2 * j] = w, a2s[2 * j + 1] = j;
  MPI_OK(MPI_Alltoall(a2s, 2, MPI_INT, a2r, 2, MPI_INT, ic));
  for (int j = 0; j < n; ++j) CHECK(a2r[2 * j] == x->rw[j] && a2r[2 * j + 1] == x->lrank);
  free(a2s);
  free(a2r);

  /* Alltoallv: from world rank s to world rank t go (s + 2t) % 3 ints; sent packed, received
   * backwards with gaps. */
  int* scounts = alloc_ints((size_t)n, 0);
  int* sdispls = alloc_ints((size_t)n, 0);
  int* rdispls = alloc_ints((size_t)n, 0);
  int slen = 0;
  for (int j = 0; j < n; ++j) {
    scounts[j] = a2a_count(w, x->rw[j]);
    counts[j] = a2a_count(x->rw[j], w);
    sdispls[j] = slen;
    slen += scounts[j];
  }
  len = reversed_displs(counts, n, rdispls);
  int* vs = alloc_ints((size_t)slen, 0);
  int* vr = alloc_ints((size_t)len, -1);
  for (int j = 0; j < n; ++j)
    for (int e = 0; e < scounts[j]; ++e) vs[sdispls[j] + e] = w * 1000 + x->rw[j] * 10 + e;
  MPI_OK(MPI_Alltoallv(vs, scounts, sdispls, MPI_INT, vr, counts, rdispls, MPI_INT, ic));
  for (int j = 0; j < n; ++j) {
    for (int e = 0; e < counts[j]; ++e) CHECK(vr[rdispls[j] + e] == x->rw[j] * 1000 + w * 10 + e);
    CHECK(vr[rdispls[j] + counts[j]] == -1);
  }
  free(vs);
  free(vr);
  free(scounts);
  free(sdispls);
  free(rdispls);
  free(counts);
  free(displs);

  /* Reduce_scatter_block: each side's vector has lsize * recvcount = lsize * rsize * 2 elements;
   * the reduction over the remote group is cut into local-size blocks. */
  const int S = sum_of(x->rw, n, 1);
  const int rc = 2 * n, total = x->lsize * rc;
  int* rs_in = alloc_ints((size_t)total, 0);
  int* rs_out = alloc_ints((size_t)rc + 1, -1);
  for (int e = 0; e < total; ++e) rs_in[e] = (w + 1) * (e + 1);
  MPI_OK(MPI_Reduce_scatter_block(rs_in, rs_out, rc, MPI_INT, MPI_SUM, ic));
  for (int k = 0; k < rc; ++k) CHECK(rs_out[k] == (x->lrank * rc + k + 1) * S);
  CHECK(rs_out[rc] == -1);
  free(rs_in);
  free(rs_out);

  /* Reduce_scatter: recvcounts has one entry per LOCAL rank (MPI-3.1 5.10.2); both sides reduce
   * vectors of the same length T, each side cutting it its own way: i + 1 for rank i, the rest for
   * the last rank. */
  const int m0 = x->sizes[0] * (x->sizes[0] + 1) / 2, m1 = x->sizes[1] * (x->sizes[1] + 1) / 2;
  const int T = (m0 > m1 ? m0 : m1) + 1;
  int* rcounts = alloc_ints((size_t)x->lsize, 0);
  int used = 0;
  for (int i = 0; i < x->lsize - 1; ++i) rcounts[i] = i + 1, used += i + 1;
  rcounts[x->lsize - 1] = T - used;
  int offset = 0;
  for (int i = 0; i < x->lrank; ++i) offset += rcounts[i];
  const int mine = rcounts[x->lrank];
  rs_in = alloc_ints((size_t)T, 0);
  rs_out = alloc_ints((size_t)mine + 1, -1);
  for (int e = 0; e < T; ++e) rs_in[e] = (w + 1) * (e + 1);
  MPI_OK(MPI_Reduce_scatter(rs_in, rs_out, rcounts, MPI_INT, MPI_SUM, ic));
  for (int k = 0; k < mine; ++k) CHECK(rs_out[k] == (offset + k + 1) * S);
  CHECK(rs_out[mine] == -1);
  free(rs_in);
  free(rs_out);
  free(rcounts);
}

static void test_nonblocking(const Inter* x) {
  MPI_Comm ic = x->ic;
  const int n = x->rsize, w = g_world_rank;
  const int rsum = sum_of(x->rw, n, 0);
  MPI_Request req[5];
  for (int together = 0; together < 2; ++together) {
    /* One at a time with the bcast from group 1's rank 0, then all five in flight at once with the
     * bcast from group 0's last rank. MPICH 4.0.2's intercommunicator MPI_Ibcast uses the remote
     * root's rank as the root of the receiving group's local bcast
     * (src/mpi/coll/ibcast/ibcast_inter_sched_flat.c), so a non-zero root loses the data or
     * asserts there; it is checked everywhere else (MPI-3.1 5.12.2: same semantics as MPI_Bcast). */
    const int root_side = together ? 0 : 1;
#ifdef MPICH_VERSION
    const int root_lrank = 0;
#else
    const int root_lrank = together ? x->sizes[0] - 1 : 0;
#endif
    const int root = root_arg(x, root_side, root_lrank);
    const int rootw = x->members[root_side][root_lrank];
    int b[2] = {-1, -1};
    if (root == MPI_ROOT) b[0] = rootw, b[1] = 42;
    int contrib[2] = {w, 1}, r[2] = {-1, -1};
    int s2[2] = {w, x->lrank};
    int* ag = alloc_ints(2 * (size_t)n, -1);
    int* a2s = alloc_ints(2 * (size_t)n, 0);
    int* a2r = alloc_ints(2 * (size_t)n, -1);
    for (int j = 0; j < n; ++j) a2s[2 * j] = w + together, a2s[2 * j + 1] = j;
    MPI_OK(MPI_Ibarrier(ic, &req[0]));
    if (!together) MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Ibcast(b, 2, MPI_INT, root, ic, &req[1]));
    if (!together) MPI_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallreduce(contrib, r, 2, MPI_INT, MPI_SUM, ic, &req[2]));
    if (!together) MPI_OK(MPI_Wait(&req[2], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallgather(s2, 2, MPI_INT, ag, 2, MPI_INT, ic, &req[3]));
    if (!together) MPI_OK(MPI_Wait(&req[3], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Ialltoall(a2s, 2, MPI_INT, a2r, 2, MPI_INT, ic, &req[4]));
    if (together)
      wait_all(5, req);
    else
      MPI_OK(MPI_Wait(&req[4], MPI_STATUS_IGNORE));
    if (root == MPI_PROC_NULL)
      CHECK(b[0] == -1 && b[1] == -1);
    else
      CHECK(b[0] == rootw && b[1] == 42);
    CHECK(r[0] == rsum && r[1] == n);
    for (int j = 0; j < n; ++j) CHECK(ag[2 * j] == x->rw[j] && ag[2 * j + 1] == j);
    for (int j = 0; j < n; ++j) CHECK(a2r[2 * j] == x->rw[j] + together && a2r[2 * j + 1] == x->lrank);
    free(ag);
    free(a2s);
    free(a2r);
  }
}

static void test_collectives(const Inter* x) {
  for (int root_side = 0; root_side < 2; ++root_side) {
    test_rooted(x, root_side, 0);
    if (x->sizes[root_side] > 1) test_rooted(x, root_side, x->sizes[root_side] - 1);
  }
  test_unrooted(x);
  test_nonblocking(x);
}

/* ---- 6. errors --------------------------------------------------------------------------------- */

static void test_errors(const Inter* x, int tag) {
  MPI_OK(MPI_Comm_set_errhandler(x->ic, MPI_ERRORS_RETURN));
  int v = 0, flag = -1;
  MPI_Status s;
  CHECK(error_class(MPI_Send(&v, 1, MPI_INT, x->rsize, tag, x->ic)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Send(&v, 1, MPI_INT, -42, tag, x->ic)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Recv(&v, 1, MPI_INT, x->rsize, tag, x->ic, &s)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Iprobe(x->rsize, tag, x->ic, &flag, &s)) == MPI_ERR_RANK);
  /* A root that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank, on every process. */
  CHECK(error_class(MPI_Bcast(&v, 1, MPI_INT, world_size, x->ic)) == MPI_ERR_ROOT);
  /* An intercommunicator as local_comm. Which handler sees an invalid communicator argument is not
   * settled (Open MPI raises it on MPI_COMM_WORLD, MPICH on the argument), so both return. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm out = MPI_COMM_NULL;
  CHECK(error_class(MPI_Intercomm_create(x->ic, 0, MPI_COMM_WORLD, x->rw[0], tag, &out)) == MPI_ERR_COMM);
  CHECK(out == MPI_COMM_NULL);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  if (CHECK_FABMPI_ERRORS) {
    MPI_Comm local;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, x->group, g_world_rank, &local));
    MPI_OK(MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN));
    CHECK(error_class(MPI_Intercomm_merge(local, 0, &out)) == MPI_ERR_COMM);
    /* Every process of both groups names a bad local leader, so no one waits for the others. */
    CHECK(error_class(MPI_Intercomm_create(local, x->lsize, MPI_COMM_WORLD, x->rw[0], tag, &out)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, x->rw[0], tag, &out)) == MPI_ERR_RANK);
    CHECK(out == MPI_COMM_NULL);
    MPI_OK(MPI_Comm_free(&local));
  }
  /* The intercommunicator still works after the errors. */
  check_inter_carries(x->ic, x->lrank, x->rw, x->rsize, tag);
  MPI_OK(MPI_Barrier(x->ic));
  MPI_OK(MPI_Comm_set_errhandler(x->ic, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  test_intracomm_answers();
  if (world_size >= 2) {
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair_type));
    MPI_OK(MPI_Type_commit(&pair_type));
    MPI_OK(MPI_Op_create(interval_op, 0, &interval));
    const int nconfigs = (int)(sizeof configs / sizeof configs[0]);
    for (int i = 0; i < nconfigs; ++i) {
      Inter x;
      make_inter(&configs[i], 100 + i, &x);
      test_queries(&x, 10);
      test_p2p(&x, 20);
      test_merge(&x, 40);
      test_dup(&x, 50);
      test_split(&x, 60);
      test_create(&x, 70);
      test_collectives(&x);
      test_errors(&x, 80);
      free_inter(&x);
    }
    MPI_OK(MPI_Op_free(&interval));
    MPI_OK(MPI_Type_free(&pair_type));
  }
  return finish_test("intercomm");
}
