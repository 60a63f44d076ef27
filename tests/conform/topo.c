/* Process topologies through the C API at any process count: Dims_create, Cart_create (ranks beyond the
 * grid get MPI_COMM_NULL), Cart_get/rank/coords/shift/sub/map, Topo_test, Comm_dup keeping the topology,
 * graphs and distributed graphs (adjacent and not), and the error classes of misuse. */
#include <string.h>

#include "../comm/check.h"

static void check_cart_2d(int size, int rank) {
  int dims[2] = {0, 0};
  MPI_OK(MPI_Dims_create(size, 2, dims));
  CHECK(dims[0] * dims[1] == size);
  CHECK(dims[0] >= dims[1]);
  int periods[2] = {0, 1};
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  CHECK(cart != MPI_COMM_NULL);
  int status = -1, ndims = -1, cart_rank = -1;
  MPI_OK(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART);
  MPI_OK(MPI_Cartdim_get(cart, &ndims));
  CHECK(ndims == 2);
  MPI_OK(MPI_Comm_rank(cart, &cart_rank));
  CHECK(cart_rank == rank);
  int gdims[2], gperiods[2], coords[2];
  MPI_OK(MPI_Cart_get(cart, 2, gdims, gperiods, coords));
  CHECK(gdims[0] == dims[0] && gdims[1] == dims[1]);
  CHECK(gperiods[0] == 0 && gperiods[1] == 1);
  CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1]);
  int back = -1;
  MPI_OK(MPI_Cart_rank(cart, coords, &back));
  CHECK(back == rank);
  int c2[2];
  MPI_OK(MPI_Cart_coords(cart, size - 1, 2, c2));
  CHECK(c2[0] == dims[0] - 1 && c2[1] == dims[1] - 1);
  int src, dst;
  MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK(src == (coords[0] == 0 ? MPI_PROC_NULL : rank - dims[1]));
  CHECK(dst == (coords[0] == dims[0] - 1 ? MPI_PROC_NULL : rank + dims[1]));
  MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  CHECK(dst == coords[0] * dims[1] + (coords[1] + 1) % dims[1]);
  CHECK(src == coords[0] * dims[1] + (coords[1] + dims[1] - 1) % dims[1]);
  /* A halo exchange along the periodic dimension. */
  int sent = rank, got = -1;
  MPI_OK(MPI_Sendrecv(&sent, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, cart, MPI_STATUS_IGNORE));
  CHECK(got == src);

  /* Rows: keep dimension 1. */
  int remain[2] = {0, 1};
  MPI_Comm row;
  MPI_OK(MPI_Cart_sub(cart, remain, &row));
  int row_size, row_rank, row_ndims, rdims[1], rperiods[1], rcoords[1];
  MPI_OK(MPI_Comm_size(row, &row_size));
  MPI_OK(MPI_Comm_rank(row, &row_rank));
  CHECK(row_size == dims[1]);
  CHECK(row_rank == coords[1]);
  MPI_OK(MPI_Cartdim_get(row, &row_ndims));
  CHECK(row_ndims == 1);
  MPI_OK(MPI_Cart_get(row, 1, rdims, rperiods, rcoords));
  CHECK(rdims[0] == dims[1] && rperiods[0] == 1 && rcoords[0] == coords[1]);
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row));
  CHECK(sum == coords[0] * dims[1] * dims[1] + dims[1] * (dims[1] - 1) / 2);
  MPI_OK(MPI_Comm_free(&row));

  /* Nothing kept: a zero-dimensional grid of one process. */
  int none[2] = {0, 0};
  MPI_Comm point;
  MPI_OK(MPI_Cart_sub(cart, none, &point));
  int point_size, point_ndims;
  MPI_OK(MPI_Comm_size(point, &point_size));
  MPI_OK(MPI_Cartdim_get(point, &point_ndims));
  CHECK(point_size == 1 && point_ndims == 0);
  MPI_OK(MPI_Comm_free(&point));

  /* A dup keeps the topology. */
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(cart, &dup));
  MPI_OK(MPI_Topo_test(dup, &status));
  CHECK(status == MPI_CART);
  MPI_OK(MPI_Cart_get(dup, 2, gdims, gperiods, coords));
  CHECK(gdims[0] == dims[0] && gperiods[1] == 1);
  MPI_OK(MPI_Comm_free(&dup));

  /* Misuse, under MPI_ERRORS_RETURN. */
  MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
  int bad[2] = {dims[0], 0};
  int r;
  CHECK(MPI_Cart_rank(cart, bad, &r) == MPI_ERR_ARG); /* non-periodic dimension out of range */
  bad[0] = 0;
  bad[1] = dims[1] + 1; /* periodic: wraps */
  MPI_OK(MPI_Cart_rank(cart, bad, &r));
  CHECK(r == 1 % dims[1]);
  CHECK(MPI_Cart_shift(cart, 2, 1, &src, &dst) == MPI_ERR_ARG);
  CHECK(MPI_Cart_coords(cart, size, 2, c2) == MPI_ERR_RANK);
  CHECK(MPI_Graphdims_get(cart, &r, &r) == MPI_ERR_TOPOLOGY);
  MPI_OK(MPI_Comm_free(&cart));

  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Cartdim_get(MPI_COMM_WORLD, &ndims) == MPI_ERR_TOPOLOGY);
  int too_big[1] = {size + 1};
  MPI_Comm none_comm;
  CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, too_big, periods, 0, &none_comm) == MPI_ERR_ARG);
  int neg[2] = {-1, 0};
  CHECK(MPI_Dims_create(size, 2, neg) == MPI_ERR_DIMS);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void check_partial_grid(int size, int rank) {
  /* A 1-d grid of size-1 processes: the last rank is left out. */
  if (size < 2) return;
  int dims[1] = {size - 1}, periods[1] = {1};
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  int newrank = -2;
  MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
  if (rank == size - 1) {
    CHECK(cart == MPI_COMM_NULL);
    CHECK(newrank == MPI_UNDEFINED);
    return;
  }
  CHECK(newrank == rank);
  CHECK(cart != MPI_COMM_NULL);
  int n;
  MPI_OK(MPI_Comm_size(cart, &n));
  CHECK(n == size - 1);
  check_comm_carries(cart, 11);
  MPI_OK(MPI_Comm_free(&cart));
}

static void check_graph(int size, int rank) {
  /* A ring as a graph: node i's neighbours are i-1 and i+1. */
  int* index = malloc(sizeof(int) * (size_t)size);
  int* edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm graph;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  int status, nnodes, nedges, count, neighbors[2];
  MPI_OK(MPI_Topo_test(graph, &status));
  CHECK(status == MPI_GRAPH);
  MPI_OK(MPI_Graphdims_get(graph, &nnodes, &nedges));
  CHECK(nnodes == size && nedges == 2 * size);
  MPI_OK(MPI_Graph_neighbors_count(graph, rank, &count));
  CHECK(count == 2);
  MPI_OK(MPI_Graph_neighbors(graph, rank, 2, neighbors));
  CHECK(neighbors[0] == (rank + size - 1) % size && neighbors[1] == (rank + 1) % size);
  int* gi = malloc(sizeof(int) * (size_t)size);
  int* ge = malloc(sizeof(int) * 2 * (size_t)size);
  MPI_OK(MPI_Graph_get(graph, size, 2 * size, gi, ge));
  CHECK(memcmp(gi, index, sizeof(int) * (size_t)size) == 0);
  CHECK(memcmp(ge, edges, sizeof(int) * 2 * (size_t)size) == 0);
  int newrank;
  MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK(newrank == rank);
  MPI_OK(MPI_Comm_free(&graph));
  free(index);
  free(edges);
  free(gi);
  free(ge);
}

static void check_dist_graph(int size, int rank) {
  int sources[1] = {(rank + size - 1) % size}, dests[1] = {(rank + 1) % size};
  int sw[1] = {rank + 10}, dw[1] = {rank + 20};
  MPI_Comm dg;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, sw, 1, dests, dw, MPI_INFO_NULL, 0, &dg));
  int status, indeg, outdeg, weighted;
  MPI_OK(MPI_Topo_test(dg, &status));
  CHECK(status == MPI_DIST_GRAPH);
  MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted == 1);
  int s[1], d[1], gsw[1], gdw[1];
  MPI_OK(MPI_Dist_graph_neighbors(dg, 1, s, gsw, 1, d, gdw));
  CHECK(s[0] == sources[0] && d[0] == dests[0] && gsw[0] == rank + 10 && gdw[0] == rank + 20);
  MPI_OK(MPI_Comm_free(&dg));

  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, MPI_UNWEIGHTED, 1, dests, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, &dg));
  MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted == 0);
  MPI_OK(MPI_Comm_free(&dg));

  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                        MPI_INFO_NULL, 0, &dg));
  MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 0 && outdeg == 0 && weighted == 1);
  MPI_OK(MPI_Comm_free(&dg));
}

static void check_dist_graph_create(int size, int rank) {
  /* Each process names its own out-edge (a weighted ring). */
  int src[1] = {rank}, deg[1] = {1}, dst[1] = {(rank + 1) % size}, w[1] = {100 + rank};
  MPI_Comm dg;
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, dst, w, MPI_INFO_NULL, 0, &dg));
  int status, indeg, outdeg, weighted;
  MPI_OK(MPI_Topo_test(dg, &status));
  CHECK(status == MPI_DIST_GRAPH);
  MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted == 1);
  int s[1], d[1], sw[1], dw[1];
  MPI_OK(MPI_Dist_graph_neighbors(dg, 1, s, sw, 1, d, dw));
  const int left = (rank + size - 1) % size;
  CHECK(s[0] == left && sw[0] == 100 + left);
  CHECK(d[0] == (rank + 1) % size && dw[0] == 100 + rank);
  MPI_OK(MPI_Comm_free(&dg));

  /* Rank 0 names every edge of a star (0 -> everyone else), unweighted; the others name none. */
  int n = rank == 0 ? 1 : 0;
  int* star = malloc(sizeof(int) * (size_t)(size > 1 ? size - 1 : 1));
  for (int i = 1; i < size; ++i) star[i - 1] = i;
  int zero[1] = {0}, count[1] = {size - 1};
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, zero, count, star, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &dg));
  MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(weighted == 0);
  if (rank == 0) {
    CHECK(indeg == 0 && outdeg == size - 1);
    int* out = malloc(sizeof(int) * (size_t)(size > 1 ? size - 1 : 1));
    MPI_OK(MPI_Dist_graph_neighbors(dg, 0, NULL, MPI_UNWEIGHTED, size - 1, out, MPI_UNWEIGHTED));
    for (int i = 1; i < size; ++i) CHECK(out[i - 1] == i);
    free(out);
  } else {
    CHECK(indeg == 1 && outdeg == 0);
    MPI_OK(MPI_Dist_graph_neighbors(dg, 1, s, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED));
    CHECK(s[0] == 0);
  }
  MPI_OK(MPI_Comm_free(&dg));
  free(star);
}

static void check_alloc_mem(void) {
  double* p = NULL;
  MPI_OK(MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &p));
  CHECK(p != NULL);
  CHECK(((unsigned long)p % 64) == 0);
  for (int i = 0; i < 1000; ++i) p[i] = i;
  CHECK(p[999] == 999.0);
  MPI_OK(MPI_Free_mem(p));
  void* empty = NULL;
  MPI_OK(MPI_Alloc_mem(0, MPI_INFO_NULL, &empty));
  MPI_OK(MPI_Free_mem(empty));
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Alloc_mem(10, info, &empty));
  MPI_OK(MPI_Free_mem(empty));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &empty) == MPI_ERR_SIZE);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_cart_2d(size, g_world_rank);
  check_partial_grid(size, g_world_rank);
  check_graph(size, g_world_rank);
  check_dist_graph(size, g_world_rank);
  check_dist_graph_create(size, g_world_rank);
  check_alloc_mem();
  return finish_test("topo");
}
