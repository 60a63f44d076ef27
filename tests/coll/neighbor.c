/* Neighbourhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*, MPI-3.1 7.6) on Cartesian, graph and
 * distributed-graph topologies: every block of every call is checked against what its sender put there.
 *
 * Topologies: a periodic ring of all ranks (at 1 and 2 ranks a process is its own neighbour, or both
 * neighbours are one process), a 2-D grid periodic in one dimension (MPI_PROC_NULL neighbours), a 3-D
 * grid whose last two periodic dimensions have one process, a graph ring with every edge doubled
 * (multi-edges pair up in order), a distributed graph with two destinations per process, and one
 * where only rank 0 receives (in- and outdegrees differ, degree 0 with NULL arrays).
 * Cartesian rule (MPI-4.0's clarification of 7.6): receive block 2d holds what the neighbour below sent
 * upwards (its block 2d+1), block 2d+1 what the neighbour above sent downwards (its block 2d).
 * Also: derived datatypes (alltoallw with a vector type), displacements with gaps, several nonblocking
 * calls in flight at once, and the error classes for misuse. Prints "neighbor: ok" on success. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 3        /* elements per block */
#define UNTOUCHED -7

static int rank, size, failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);    \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            if (++failures > 20) MPI_Abort(MPI_COMM_WORLD, 1);                     \
        }                                                                          \
    } while (0)

enum topo_kind { CART, GRAPH, DIST_RING, DIST_STAR };

struct topo {
    const char *name;
    enum topo_kind kind;
    MPI_Comm comm;
    int indeg, outdeg;
    int sources[64], dests[64];
};

/* The destinations of process s in the distributed graphs (the graph ring's come from MPI). */
static int dist_dests(enum topo_kind kind, int s, int *out)
{
    if (kind == DIST_RING) {
        out[0] = (s + 1) % size;
        out[1] = (s + 2) % size;
        return 2;
    }
    out[0] = 0; /* DIST_STAR: everyone sends to rank 0 */
    return 1;
}

/* The index of the block, among its sender's destinations, that lands in receive block i. */
static int sender_block(const struct topo *t, int i)
{
    int s = t->sources[i], k = 0, j, n, d[64];
    if (t->kind == CART) return i ^ 1;
    for (j = 0; j < i; j++)
        if (t->sources[j] == s) k++;
    if (t->kind == GRAPH) {
        MPI_Graph_neighbors_count(t->comm, s, &n);
        MPI_Graph_neighbors(t->comm, s, n, d);
    } else {
        n = dist_dests(t->kind, s, d);
    }
    for (j = 0; j < n; j++)
        if (d[j] == rank && k-- == 0) return j;
    fprintf(stderr, "rank %d: test bug: no block of %d for me\n", rank, s);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return -1;
}

/* What process s puts in element e of the block for its destination j. */
static int value(int s, int j, int e) { return 100000 + s * 1000 + j * 10 + e; }

static void neighbours_of(struct topo *t)
{
    int kind, weighted, i, n;
    MPI_Topo_test(t->comm, &kind);
    if (kind == MPI_CART) {
        int ndims;
        MPI_Cartdim_get(t->comm, &ndims);
        for (i = 0; i < ndims; i++) MPI_Cart_shift(t->comm, i, 1, &t->sources[2 * i], &t->sources[2 * i + 1]);
        t->indeg = t->outdeg = 2 * ndims;
        memcpy(t->dests, t->sources, sizeof t->sources);
    } else if (kind == MPI_GRAPH) {
        MPI_Graph_neighbors_count(t->comm, rank, &n);
        MPI_Graph_neighbors(t->comm, rank, n, t->sources);
        t->indeg = t->outdeg = n;
        memcpy(t->dests, t->sources, sizeof t->sources);
    } else {
        MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &weighted);
        MPI_Dist_graph_neighbors(t->comm, t->indeg, t->sources, MPI_UNWEIGHTED, t->outdeg, t->dests,
                                 MPI_UNWEIGHTED);
    }
}

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++) buf[i] = v;
}

/* Starts (nonblocking) or runs one neighbourhood collective of kind `which` and returns after checking
 * it, or leaves *req for the caller to wait on and check with check_result. */
struct call {
    int which; /* 0 allgather, 1 allgatherv, 2 alltoall, 3 alltoallv, 4 alltoallw */
    int sendbuf[64 * 8], recvbuf[64 * 8];
    int scounts[64], rcounts[64], sdispls[64], rdispls[64];
    MPI_Aint sbytes[64], rbytes[64];
    MPI_Datatype stypes[64], rtypes[64];
};

static MPI_Datatype every_other_int; /* 3 ints with a gap after each: extent 5 ints */

static void prepare(const struct topo *t, struct call *c)
{
    int j, e;
    fill(c->recvbuf, 64 * 8, UNTOUCHED);
    fill(c->sendbuf, 64 * 8, -1);
    if (c->which <= 1) {
        for (e = 0; e < N; e++) c->sendbuf[e] = value(rank, 0, e);
    } else {
        for (j = 0; j < t->outdeg; j++) {
            /* alltoall: block j at j*N; v: at j*(N+2) (gaps); w: like v, in bytes */
            int at = c->which == 2 ? j * N : j * (N + 2);
            for (e = 0; e < N; e++) c->sendbuf[at + e] = value(rank, j, e);
            c->scounts[j] = N;
            c->sdispls[j] = at;
            c->sbytes[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
            c->stypes[j] = MPI_INT;
        }
    }
    for (j = 0; j < t->indeg; j++) {
        /* receive blocks in reverse order with gaps, to test the displacements */
        int at = (t->indeg - 1 - j) * (N + 2) * 2;
        c->rcounts[j] = N;
        c->rdispls[j] = at;
        c->rbytes[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        c->rtypes[j] = j % 2 ? MPI_INT : every_other_int;
        if (c->which == 4 && j % 2 == 0) c->rcounts[j] = 1; /* one vector of N spread ints */
    }
}

static int start(const struct topo *t, struct call *c, MPI_Request *req)
{
    const int *sb = c->sendbuf;
    int *rb = c->recvbuf;
    MPI_Comm comm = t->comm;
    switch (c->which) {
    case 0:
        return req ? MPI_Ineighbor_allgather(sb, N, MPI_INT, rb, N, MPI_INT, comm, req)
                   : MPI_Neighbor_allgather(sb, N, MPI_INT, rb, N, MPI_INT, comm);
    case 1:
        return req ? MPI_Ineighbor_allgatherv(sb, N, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, comm, req)
                   : MPI_Neighbor_allgatherv(sb, N, MPI_INT, rb, c->rcounts, c->rdispls, MPI_INT, comm);
    case 2:
        return req ? MPI_Ineighbor_alltoall(sb, N, MPI_INT, rb, N, MPI_INT, comm, req)
                   : MPI_Neighbor_alltoall(sb, N, MPI_INT, rb, N, MPI_INT, comm);
    case 3:
        return req ? MPI_Ineighbor_alltoallv(sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcounts, c->rdispls,
                                             MPI_INT, comm, req)
                   : MPI_Neighbor_alltoallv(sb, c->scounts, c->sdispls, MPI_INT, rb, c->rcounts, c->rdispls,
                                            MPI_INT, comm);
    default:
        return req ? MPI_Ineighbor_alltoallw(sb, c->scounts, c->sbytes, c->stypes, rb, c->rcounts, c->rbytes,
                                             c->rtypes, comm, req)
                   : MPI_Neighbor_alltoallw(sb, c->scounts, c->sbytes, c->stypes, rb, c->rcounts, c->rbytes,
                                            c->rtypes, comm);
    }
}

static void check_result(const struct topo *t, const struct call *c, const char *how)
{
    static const char *names[] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
    int i, e, used[64 * 8] = {0};
    for (i = 0; i < t->indeg; i++) {
        int s = t->sources[i];
        int at = c->which == 0 || c->which == 2 ? i * N : c->rdispls[i];
        int stride = c->which == 4 && i % 2 == 0 ? 2 : 1; /* the vector type leaves a gap after each int */
        int j = c->which <= 1 ? 0 : sender_block(t, i);
        for (e = 0; e < N; e++) {
            int got = c->recvbuf[at + e * stride];
            int want = s == MPI_PROC_NULL ? UNTOUCHED : value(s, j, e);
            used[at + e * stride] = 1;
            CHECK(got == want, "%s %s %s: block %d (from %d) element %d is %d, expected %d", t->name, names[c->which],
                  how, i, s, e, got, want);
        }
    }
    for (i = 0; i < 64 * 8; i++)
        CHECK(used[i] || c->recvbuf[i] == UNTOUCHED, "%s %s %s: int %d outside every block was written (%d)", t->name,
              names[c->which], how, i, c->recvbuf[i]);
}

static void run(struct topo *t)
{
    static struct call calls[5];
    MPI_Request reqs[5];
    int which, rc;
    neighbours_of(t);
    for (which = 0; which < 5; which++) {
        struct call *c = &calls[which];
        c->which = which;
        prepare(t, c);
        rc = start(t, c, NULL);
        CHECK(rc == MPI_SUCCESS, "%s: blocking call %d failed (%d)", t->name, which, rc);
        check_result(t, c, "blocking");
    }
    /* every kind in flight at once, completed in reverse order */
    for (which = 0; which < 5; which++) {
        prepare(t, &calls[which]);
        rc = start(t, &calls[which], &reqs[which]);
        CHECK(rc == MPI_SUCCESS, "%s: nonblocking call %d failed (%d)", t->name, which, rc);
    }
    for (which = 4; which >= 0; which--) MPI_Wait(&reqs[which], MPI_STATUS_IGNORE);
    for (which = 0; which < 5; which++) check_result(t, &calls[which], "nonblocking");
}

/* MPI_BOTTOM with absolute byte displacements (MPI_Get_address), as mpi4py's tests use it. */
static void bottom(MPI_Comm ring)
{
    int sendbuf[2] = {rank * 10, rank * 10 + 1}, recvbuf[2] = {-1, -1}, counts[2] = {1, 1}, below, above;
    MPI_Aint sdispls[2], rdispls[2];
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Get_address(&sendbuf[0], &sdispls[0]);
    MPI_Get_address(&sendbuf[1], &sdispls[1]);
    MPI_Get_address(&recvbuf[0], &rdispls[0]);
    MPI_Get_address(&recvbuf[1], &rdispls[1]);
    MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sdispls, types, MPI_BOTTOM, counts, rdispls, types, ring);
    MPI_Cart_shift(ring, 0, 1, &below, &above);
    /* block 0 (from below) holds what the rank below sent up (its block 1), block 1 its upper's block 0 */
    CHECK(recvbuf[0] == below * 10 + 1 && recvbuf[1] == above * 10, "MPI_BOTTOM alltoallw: got %d %d", recvbuf[0],
          recvbuf[1]);
}

/* Blocks large enough for the rendezvous protocol (256 KiB each way), both neighbours of the ring. */
static void large(MPI_Comm ring)
{
    enum { LARGE = 1 << 16 }; /* ints per block */
    int below, above, i, bad = 0;
    int *sendbuf = malloc(2 * LARGE * sizeof(int)), *recvbuf = malloc(2 * LARGE * sizeof(int));
    MPI_Request req;
    MPI_Cart_shift(ring, 0, 1, &below, &above);
    for (i = 0; i < 2 * LARGE; i++) {
        sendbuf[i] = rank * 7 + i;
        recvbuf[i] = -1;
    }
    MPI_Ineighbor_alltoall(sendbuf, LARGE, MPI_INT, recvbuf, LARGE, MPI_INT, ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* block 0 from below: its block 1 (ints LARGE..2*LARGE-1); block 1 from above: its block 0 */
    for (i = 0; i < LARGE; i++) {
        bad += recvbuf[i] != below * 7 + LARGE + i;
        bad += recvbuf[LARGE + i] != above * 7 + i;
    }
    CHECK(bad == 0, "large alltoall: %d wrong ints", bad);
    free(sendbuf);
    free(recvbuf);
}

static void errors(MPI_Comm cart)
{
    int buf[8] = {0}, rc, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    rc = MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "no topology: class %d, expected MPI_ERR_TOPOLOGY", cls);
    rc = MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, cart);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "MPI_IN_PLACE: class %d, expected MPI_ERR_BUFFER", cls);
    rc = MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf + 4, 1, MPI_INT, cart);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative count: class %d, expected MPI_ERR_COUNT", cls);
    rc = MPI_Neighbor_allgather(buf, 1, MPI_DATATYPE_NULL, buf + 4, 1, MPI_INT, cart);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "null datatype: class %d, expected MPI_ERR_TYPE", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    struct topo t;
    int dims[3], periods[3], i, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 16) {
        if (rank == 0) fprintf(stderr, "neighbor: at most 16 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other_int);
    MPI_Type_commit(&every_other_int);

    memset(&t, 0, sizeof t);
    t.kind = CART;
    t.name = "ring";
    dims[0] = size;
    periods[0] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &t.comm);
    run(&t);
    bottom(t.comm);
    large(t.comm);
    errors(t.comm);
    MPI_Comm_free(&t.comm);

    t.name = "grid2d";
    dims[0] = dims[1] = 0;
    MPI_Dims_create(size, 2, dims);
    periods[0] = 0;
    periods[1] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.comm);
    run(&t);
    MPI_Comm_free(&t.comm);

    t.name = "grid3d";
    dims[0] = size;
    dims[1] = dims[2] = 1;
    periods[0] = 0;
    periods[1] = periods[2] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &t.comm);
    run(&t);
    MPI_Comm_free(&t.comm);

    {
        int index[16], edges[64];
        for (i = 0; i < size; i++) {
            index[i] = 4 * (i + 1);
            edges[4 * i] = edges[4 * i + 2] = (i + 1) % size;
            edges[4 * i + 1] = edges[4 * i + 3] = (i - 1 + size) % size;
        }
        t.kind = GRAPH;
        t.name = "graph";
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t.comm);
        run(&t);
        MPI_Comm_free(&t.comm);
    }

    {
        int src[2] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size}, dst[2];
        dist_dests(DIST_RING, rank, dst);
        t.kind = DIST_RING;
        t.name = "dist_ring";
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &t.comm);
        run(&t);
        MPI_Comm_free(&t.comm);
    }

    {
        int all[16], zero = 0;
        for (i = 0; i < size; i++) all[i] = i;
        t.kind = DIST_STAR;
        t.name = "dist_star";
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank == 0 ? size : 0, rank == 0 ? all : NULL,
                                       MPI_UNWEIGHTED, 1, &zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm);
        run(&t);
        MPI_Comm_free(&t.comm);
    }

    MPI_Type_free(&every_other_int);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(total ? "neighbor: %d failures\n" : "neighbor: ok\n", total);
    MPI_Finalize();
    return total != 0;
}
