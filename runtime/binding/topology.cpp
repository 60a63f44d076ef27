// Process topologies (MPI-3.1 chapter 7): Cartesian, graph and distributed-graph communicators and their
// queries. The arithmetic is runtime/topology.cpp; a topology communicator is a split of the parent
// (members keep their parent rank: no reordering) with a Topology attached. MPI_Dist_graph_create first
// routes each edge to both of its ends (an alltoall of counts, then an alltoallv of the edges, on the
// parent). Neighbourhood collectives are not provided.
#include <algorithm>
#include <vector>

#include "coll/collectives.hpp"
#include "runtime/binding/library.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/topology.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

int g_unweighted = 0;
int g_weights_empty = 0;

// The communicator's topology, which must be of `kind`.
Rc topology_of(const Comm& comm, Topology::Kind kind, const Topology** out) {
  if (!comm.topology || comm.topology->kind != kind) {
    const char* wanted = kind == Topology::Kind::cart ? "Cartesian"
                         : kind == Topology::Kind::graph ? "graph" : "distributed graph";
    return fail(MPI_ERR_TOPOLOGY, "the communicator has no %s topology", wanted);
  }
  *out = comm.topology.get();
  return Rc();
}

// A new communicator of the parent's first `members` ranks (same order), carrying `topology`; the others
// get MPI_COMM_NULL. Collective over the parent.
Rc create_topology_comm(const CommRef& parent, int members, Topology topology, MPI_Comm* newcomm) {
  CommRef created;
  const int color = parent->rank() < members ? 0 : MPI_UNDEFINED;
  FABMPI_TRY(comm_create::split(parent, color, parent->rank(), &created));
  if (!created) {
    *newcomm = MPI_COMM_NULL;
    return Rc();
  }
  created->topology = std::make_shared<const Topology>(std::move(topology));
  *newcomm = new_comm_handle(created);
  return Rc();
}

Rc check_ndims(int ndims) {
  if (ndims < 0) return fail(MPI_ERR_DIMS, "invalid ndims %d (must be >= 0)", ndims);
  return Rc();
}

Rc check_cart_dims(int ndims, const int dims[]) {
  for (int i = 0; i < ndims; ++i)
    if (dims[i] <= 0) return fail(MPI_ERR_DIMS, "dims[%d] = %d (must be > 0)", i, dims[i]);
  return Rc();
}

Rc check_rank_in(const Comm& comm, int rank) {
  if (rank < 0 || rank >= comm.size())
    return fail(MPI_ERR_RANK, "invalid rank %d (communicator has %d ranks)", rank, comm.size());
  return Rc();
}

Rc check_degree(int degree, const char* what) {
  if (degree < 0) return fail(MPI_ERR_ARG, "invalid %s %d (must be >= 0)", what, degree);
  return Rc();
}

Rc check_neighbours(const Comm& comm, int n, const int ranks[], const char* what) {
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= comm.size())
      return fail(MPI_ERR_RANK, "%s[%d] = %d is not a rank (communicator has %d ranks)", what, i, ranks[i],
                  comm.size());
  return Rc();
}

bool is_weights_array(const int* weights) { return weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY; }

// One edge as sent to one of its ends: whether it leaves or enters the receiver, the other end, the weight.
struct EdgeRecord {
  int leaves_receiver;
  int peer;
  int weight;
};

// Runs one blocking alltoallv of ints on `comm` (counts and data laid out per peer, in ints).
Rc alltoallv_ints(const CommRef& comm, const std::vector<int>& send, const std::vector<int>& send_counts,
                  std::vector<int>* recv, const std::vector<int>& recv_counts) {
  const auto p = static_cast<std::size_t>(comm->size());
  const DatatypeRef int_type = builtin_datatype(MPI_INT);
  coll::PeerBlocks out, in;
  MPI_Aint send_at = 0, recv_at = 0;
  for (std::size_t i = 0; i < p; ++i) {
    out.counts.push_back(send_counts[i]);
    out.byte_displs.push_back(send_at);
    out.types.push_back(int_type);
    send_at += send_counts[i] * static_cast<MPI_Aint>(sizeof(int));
    in.counts.push_back(recv_counts[i]);
    in.byte_displs.push_back(recv_at);
    in.types.push_back(int_type);
    recv_at += recv_counts[i] * static_cast<MPI_Aint>(sizeof(int));
  }
  recv->assign(static_cast<std::size_t>(recv_at) / sizeof(int), 0);
  RequestRef r;
  FABMPI_TRY(coll::start_alltoall(coll::Collective::alltoallv, comm, send.data(), out, recv->data(), in, &r));
  runtime().wait(*r);
  if (r->error != MPI_SUCCESS) return fail(r->error, "the edge exchange failed (error class %d)", r->error);
  return Rc();
}

// MPI_Dist_graph_create: every process learns the edges that enter and leave it, from whoever named them.
Rc exchange_edges(const CommRef& comm, int n, const int sources[], const int degrees[], const int destinations[],
                  const int weights[], bool weighted, Topology* t) {
  const auto p = static_cast<std::size_t>(comm->size());
  std::vector<std::vector<EdgeRecord>> to(p);
  for (int i = 0, e = 0; i < n; ++i) {
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      const int w = weighted && is_weights_array(weights) ? weights[e] : 1;
      to[static_cast<std::size_t>(sources[i])].push_back({1, destinations[e], w});
      to[static_cast<std::size_t>(destinations[e])].push_back({0, sources[i], w});
    }
  }
  std::vector<int> send_counts(p), flat;
  for (std::size_t r = 0; r < p; ++r) {
    send_counts[r] = static_cast<int>(to[r].size() * 3);
    for (const EdgeRecord& rec : to[r]) flat.insert(flat.end(), {rec.leaves_receiver, rec.peer, rec.weight});
  }
  std::vector<int> one(p, 1), recv_counts;
  FABMPI_TRY(alltoallv_ints(comm, send_counts, one, &recv_counts, one));
  std::vector<int> edges;
  FABMPI_TRY(alltoallv_ints(comm, flat, send_counts, &edges, recv_counts));
  for (std::size_t i = 0; i + 2 < edges.size(); i += 3) {
    if (edges[i]) {
      t->destinations.push_back(edges[i + 1]);
      t->dest_weights.push_back(edges[i + 2]);
    } else {
      t->sources.push_back(edges[i + 1]);
      t->source_weights.push_back(edges[i + 2]);
    }
  }
  if (!weighted) {
    t->dest_weights.clear();
    t->source_weights.clear();
  }
  return Rc();
}

}  // namespace

extern "C" {

int* const MPI_UNWEIGHTED = &g_unweighted;
int* const MPI_WEIGHTS_EMPTY = &g_weights_empty;

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  ApiCall call("MPI_Dims_create");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_ndims(ndims));
    if (ndims > 0) FABMPI_TRY(check_out_ptr(dims, "dims"));
    return topology::dims_create(nnodes, std::span<int>(dims, static_cast<std::size_t>(ndims)));
  }());
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm* comm_cart) {
  ApiCall call("MPI_Cart_create");
  return call.finish([&]() -> Rc {
    (void)reorder;  // never reorders (allowed: MPI-3.1 section 7.5.1)
    CommRef c;
    FABMPI_TRY(call.comm(comm_old, &c));
    FABMPI_TRY(check_intra(*c));
    FABMPI_TRY(check_ndims(ndims));
    if (ndims > 0) {
      FABMPI_TRY(check_out_ptr(dims, "dims"));
      FABMPI_TRY(check_out_ptr(periods, "periods"));
    }
    FABMPI_TRY(check_cart_dims(ndims, dims));
    FABMPI_TRY(check_out_ptr(comm_cart, "comm_cart"));
    Topology t;
    t.kind = Topology::Kind::cart;
    t.dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) t.periods.push_back(periods[i] != 0);
    const long cells = topology::grid_size(t.dims);
    if (cells > c->size())
      return fail(MPI_ERR_ARG, "the grid has %ld processes, more than the communicator's %d", cells, c->size());
    return create_topology_comm(c, static_cast<int>(cells), std::move(t), comm_cart);
  }());
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  ApiCall call("MPI_Cartdim_get");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(ndims, "ndims"));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    *ndims = t->ndims();
    return Rc();
  }());
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  ApiCall call("MPI_Cart_get");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    if (maxdims < t->ndims())
      return fail(MPI_ERR_ARG, "maxdims %d is smaller than the topology's %d dimensions", maxdims, t->ndims());
    if (t->ndims() > 0) {
      FABMPI_TRY(check_out_ptr(dims, "dims"));
      FABMPI_TRY(check_out_ptr(periods, "periods"));
      FABMPI_TRY(check_out_ptr(coords, "coords"));
    }
    std::vector<int> mine = topology::cart_coords(*t, c->rank());
    for (int i = 0; i < t->ndims(); ++i) {
      dims[i] = t->dims[static_cast<std::size_t>(i)];
      periods[i] = t->periods[static_cast<std::size_t>(i)] ? 1 : 0;
      coords[i] = mine[static_cast<std::size_t>(i)];
    }
    return Rc();
  }());
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  ApiCall call("MPI_Cart_rank");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    if (t->ndims() > 0) FABMPI_TRY(check_out_ptr(coords, "coords"));
    FABMPI_TRY(check_out_ptr(rank, "rank"));
    return topology::cart_rank(*t, std::span<const int>(coords, static_cast<std::size_t>(t->ndims())), rank);
  }());
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  ApiCall call("MPI_Cart_coords");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    FABMPI_TRY(check_rank_in(*c, rank));
    if (maxdims < t->ndims())
      return fail(MPI_ERR_ARG, "maxdims %d is smaller than the topology's %d dimensions", maxdims, t->ndims());
    if (t->ndims() > 0) FABMPI_TRY(check_out_ptr(coords, "coords"));
    std::vector<int> found = topology::cart_coords(*t, rank);
    std::copy(found.begin(), found.end(), coords);
    return Rc();
  }());
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  ApiCall call("MPI_Cart_shift");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    if (direction < 0 || direction >= t->ndims())
      return fail(MPI_ERR_ARG, "invalid direction %d (the topology has %d dimensions)", direction, t->ndims());
    FABMPI_TRY(check_out_ptr(rank_source, "rank_source"));
    FABMPI_TRY(check_out_ptr(rank_dest, "rank_dest"));
    topology::cart_shift(*t, c->rank(), direction, disp, rank_source, rank_dest);
    return Rc();
  }());
}

#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  ApiCall call("MPI_Cart_sub");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::cart, &t));
    if (t->ndims() > 0) FABMPI_TRY(check_out_ptr(remain_dims, "remain_dims"));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    std::vector<bool> remain;
    for (int i = 0; i < t->ndims(); ++i) remain.push_back(remain_dims[i] != 0);
    // Ordering by parent rank keeps the kept coordinates in row-major order.
    CommRef created;
    FABMPI_TRY(comm_create::split(c, topology::cart_sub_color(*t, c->rank(), remain), c->rank(), &created));
    if (!created) return fail(MPI_ERR_INTERN, "MPI_Cart_sub produced no communicator");
    created->topology = std::make_shared<const Topology>(topology::cart_sub_topology(*t, remain));
    *newcomm = new_comm_handle(created);
    return Rc();
  }());
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  ApiCall call("MPI_Cart_map");
  return call.finish([&]() -> Rc {
    (void)periods;
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_ndims(ndims));
    if (ndims > 0) FABMPI_TRY(check_out_ptr(dims, "dims"));
    FABMPI_TRY(check_cart_dims(ndims, dims));
    FABMPI_TRY(check_out_ptr(newrank, "newrank"));
    const long cells = topology::grid_size(std::span<const int>(dims, static_cast<std::size_t>(ndims)));
    if (cells > c->size())
      return fail(MPI_ERR_ARG, "the grid has %ld processes, more than the communicator's %d", cells, c->size());
    *newrank = c->rank() < cells ? c->rank() : MPI_UNDEFINED;
    return Rc();
  }());
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm* comm_graph) {
  ApiCall call("MPI_Graph_create");
  return call.finish([&]() -> Rc {
    (void)reorder;
    CommRef c;
    FABMPI_TRY(call.comm(comm_old, &c));
    FABMPI_TRY(check_intra(*c));
    if (nnodes < 0 || nnodes > c->size())
      return fail(MPI_ERR_ARG, "invalid nnodes %d (communicator has %d ranks)", nnodes, c->size());
    FABMPI_TRY(check_out_ptr(comm_graph, "comm_graph"));
    Topology t;
    t.kind = Topology::Kind::graph;
    if (nnodes > 0) {
      FABMPI_TRY(check_out_ptr(index, "index"));
      t.index.assign(index, index + nnodes);
      const int nedges = index[nnodes - 1];
      if (nedges > 0) FABMPI_TRY(check_out_ptr(edges, "edges"));
      if (nedges > 0) t.edges.assign(edges, edges + std::max(nedges, 0));
    }
    FABMPI_TRY(topology::check_graph(nnodes, t.index, t.edges));
    return create_topology_comm(c, nnodes, std::move(t), comm_graph);
  }());
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  ApiCall call("MPI_Graphdims_get");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::graph, &t));
    FABMPI_TRY(check_out_ptr(nnodes, "nnodes"));
    FABMPI_TRY(check_out_ptr(nedges, "nedges"));
    *nnodes = static_cast<int>(t->index.size());
    *nedges = static_cast<int>(t->edges.size());
    return Rc();
  }());
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  ApiCall call("MPI_Graph_get");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::graph, &t));
    if (maxindex < 0 || maxedges < 0)
      return fail(MPI_ERR_ARG, "invalid maxindex %d / maxedges %d", maxindex, maxedges);
    const std::size_t ni = std::min<std::size_t>(t->index.size(), static_cast<std::size_t>(maxindex));
    const std::size_t ne = std::min<std::size_t>(t->edges.size(), static_cast<std::size_t>(maxedges));
    if (ni > 0) FABMPI_TRY(check_out_ptr(index, "index"));
    if (ne > 0) FABMPI_TRY(check_out_ptr(edges, "edges"));
    std::copy_n(t->index.begin(), ni, index);
    std::copy_n(t->edges.begin(), ne, edges);
    return Rc();
  }());
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  ApiCall call("MPI_Graph_neighbors_count");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::graph, &t));
    FABMPI_TRY(check_rank_in(*c, rank));
    FABMPI_TRY(check_out_ptr(nneighbors, "nneighbors"));
    *nneighbors = static_cast<int>(topology::graph_neighbors(*t, rank).size());
    return Rc();
  }());
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  ApiCall call("MPI_Graph_neighbors");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::graph, &t));
    FABMPI_TRY(check_rank_in(*c, rank));
    if (maxneighbors < 0) return fail(MPI_ERR_ARG, "invalid maxneighbors %d", maxneighbors);
    std::span<const int> found = topology::graph_neighbors(*t, rank);
    const std::size_t n = std::min<std::size_t>(found.size(), static_cast<std::size_t>(maxneighbors));
    if (n > 0) FABMPI_TRY(check_out_ptr(neighbors, "neighbors"));
    std::copy_n(found.begin(), n, neighbors);
    return Rc();
  }());
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  ApiCall call("MPI_Graph_map");
  return call.finish([&]() -> Rc {
    (void)index;
    (void)edges;
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    if (nnodes < 1 || nnodes > c->size())
      return fail(MPI_ERR_ARG, "invalid nnodes %d (communicator has %d ranks)", nnodes, c->size());
    FABMPI_TRY(check_out_ptr(newrank, "newrank"));
    *newrank = c->rank() < nnodes ? c->rank() : MPI_UNDEFINED;
    return Rc();
  }());
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm* comm_dist_graph) {
  ApiCall call("MPI_Dist_graph_create_adjacent");
  return call.finish([&]() -> Rc {
    (void)reorder;
    CommRef c;
    FABMPI_TRY(call.comm(comm_old, &c));
    FABMPI_TRY(check_intra(*c));
    FABMPI_TRY(check_degree(indegree, "indegree"));
    FABMPI_TRY(check_degree(outdegree, "outdegree"));
    if (indegree > 0) FABMPI_TRY(check_out_ptr(sources, "sources"));
    if (outdegree > 0) FABMPI_TRY(check_out_ptr(destinations, "destinations"));
    FABMPI_TRY(check_neighbours(*c, indegree, sources, "sources"));
    FABMPI_TRY(check_neighbours(*c, outdegree, destinations, "destinations"));
    if (info != MPI_INFO_NULL) {
      InfoRef hints;
      FABMPI_TRY(to_info(info, &hints));
    }
    FABMPI_TRY(check_out_ptr(comm_dist_graph, "comm_dist_graph"));
    Topology t;
    t.kind = Topology::Kind::dist_graph;
    t.sources.assign(sources, sources + indegree);
    t.destinations.assign(destinations, destinations + outdegree);
    // Weighted unless the caller says MPI_UNWEIGHTED (MPI_WEIGHTS_EMPTY: weighted, no edges here).
    t.weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (t.weighted) {
      if (indegree > 0 && is_weights_array(sourceweights)) t.source_weights.assign(sourceweights, sourceweights + indegree);
      if (outdegree > 0 && is_weights_array(destweights)) t.dest_weights.assign(destweights, destweights + outdegree);
      t.source_weights.resize(static_cast<std::size_t>(indegree), 1);
      t.dest_weights.resize(static_cast<std::size_t>(outdegree), 1);
    }
    return create_topology_comm(c, c->size(), std::move(t), comm_dist_graph);
  }());
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  ApiCall call("MPI_Dist_graph_create");
  return call.finish([&]() -> Rc {
    (void)reorder;
    CommRef c;
    FABMPI_TRY(call.comm(comm_old, &c));
    FABMPI_TRY(check_intra(*c));
    FABMPI_TRY(check_degree(n, "n"));
    if (n > 0) {
      FABMPI_TRY(check_out_ptr(sources, "sources"));
      FABMPI_TRY(check_out_ptr(degrees, "degrees"));
    }
    FABMPI_TRY(check_neighbours(*c, n, sources, "sources"));
    long total = 0;
    for (int i = 0; i < n; ++i) {
      FABMPI_TRY(check_degree(degrees[i], "degree"));
      total += degrees[i];
    }
    if (total > 0) FABMPI_TRY(check_out_ptr(destinations, "destinations"));
    FABMPI_TRY(check_neighbours(*c, static_cast<int>(total), destinations, "destinations"));
    if (total > 0 && weights == nullptr) return fail(MPI_ERR_ARG, "NULL weights (use MPI_UNWEIGHTED)");
    if (info != MPI_INFO_NULL) {
      InfoRef hints;
      FABMPI_TRY(to_info(info, &hints));
    }
    FABMPI_TRY(check_out_ptr(comm_dist_graph, "comm_dist_graph"));
    Topology t;
    t.kind = Topology::Kind::dist_graph;
    t.weighted = weights != MPI_UNWEIGHTED;
    FABMPI_TRY(exchange_edges(c, n, sources, degrees, destinations, weights, t.weighted, &t));
    return create_topology_comm(c, c->size(), std::move(t), comm_dist_graph);
  }());
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  ApiCall call("MPI_Dist_graph_neighbors_count");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::dist_graph, &t));
    FABMPI_TRY(check_out_ptr(indegree, "indegree"));
    FABMPI_TRY(check_out_ptr(outdegree, "outdegree"));
    FABMPI_TRY(check_out_ptr(weighted, "weighted"));
    *indegree = static_cast<int>(t->sources.size());
    *outdegree = static_cast<int>(t->destinations.size());
    *weighted = t->weighted ? 1 : 0;
    return Rc();
  }());
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  ApiCall call("MPI_Dist_graph_neighbors");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    const Topology* t = nullptr;
    FABMPI_TRY(topology_of(*c, Topology::Kind::dist_graph, &t));
    if (maxindegree < 0 || maxoutdegree < 0)
      return fail(MPI_ERR_ARG, "invalid maxindegree %d / maxoutdegree %d", maxindegree, maxoutdegree);
    const std::size_t nin = std::min<std::size_t>(t->sources.size(), static_cast<std::size_t>(maxindegree));
    const std::size_t nout = std::min<std::size_t>(t->destinations.size(), static_cast<std::size_t>(maxoutdegree));
    if (nin > 0) FABMPI_TRY(check_out_ptr(sources, "sources"));
    if (nout > 0) FABMPI_TRY(check_out_ptr(destinations, "destinations"));
    std::copy_n(t->sources.begin(), nin, sources);
    std::copy_n(t->destinations.begin(), nout, destinations);
    if (t->weighted && is_weights_array(sourceweights)) std::copy_n(t->source_weights.begin(), nin, sourceweights);
    if (t->weighted && is_weights_array(destweights)) std::copy_n(t->dest_weights.begin(), nout, destweights);
    return Rc();
  }());
}

}  // extern "C"
