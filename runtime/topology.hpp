// Process topologies (MPI-3.1 chapter 7): Cartesian grids, general graphs and distributed graphs, and
// the rank/coordinate arithmetic on them. A Topology is immutable and hangs on its communicator
// (Comm::topology); MPI_Comm_dup shares it. fabmpi never reorders: a process keeps its rank in the new
// communicator (reorder = false semantics, which the standard allows for reorder = true too).
//
// Everything here is pure arithmetic, unit-tested in tests/unit/test_topology.cpp; creating the
// communicators is runtime/comm_create's business (a split of the parent).
#pragma once

#include <mpi.h>

#include <memory>
#include <span>
#include <vector>

#include "runtime/rc.hpp"

namespace fabmpi {

struct Topology {
  enum class Kind { cart = MPI_CART, graph = MPI_GRAPH, dist_graph = MPI_DIST_GRAPH };
  Kind kind = Kind::cart;
  // cart: extent and periodicity of each dimension (row-major: the last dimension varies fastest).
  std::vector<int> dims;
  std::vector<bool> periods;
  // graph: MPI_Graph_create's arrays (index[i] = neighbours of nodes 0..i, edges = their concatenation).
  std::vector<int> index;
  std::vector<int> edges;
  // dist_graph: this process's neighbours as given to MPI_Dist_graph_create_adjacent.
  std::vector<int> sources, source_weights, destinations, dest_weights;
  bool weighted = false;

  int ndims() const noexcept { return static_cast<int>(dims.size()); }
};
using TopologyRef = std::shared_ptr<const Topology>;

namespace topology {

// Product of the dimensions (1 for none).
long grid_size(std::span<const int> dims);

// MPI_Dims_create: fills the zero entries of `dims` so that the product of all is `nnodes`, as close to
// each other as possible and in non-increasing order. MPI_ERR_DIMS when an entry is negative or the fixed
// entries do not divide nnodes.
Rc dims_create(int nnodes, std::span<int> dims);

// Row-major coordinates of `rank` in the grid, and back. cart_rank wraps periodic coordinates and fails
// with MPI_ERR_ARG for a coordinate outside a non-periodic dimension.
std::vector<int> cart_coords(const Topology& t, int rank);
Rc cart_rank(const Topology& t, std::span<const int> coords, int* rank);

// MPI_Cart_shift: the ranks `disp` steps below and above `rank` along `direction` (MPI_PROC_NULL past a
// non-periodic edge).
void cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest);

// MPI_Cart_sub: the colour (which sub-grid) and the sub-grid's topology for the process at `rank`.
int cart_sub_color(const Topology& t, int rank, const std::vector<bool>& remain);
Topology cart_sub_topology(const Topology& t, const std::vector<bool>& remain);

// MPI_Graph_create's argument rules: index non-decreasing from >= 0, edges in 0..nnodes-1.
Rc check_graph(int nnodes, std::span<const int> index, std::span<const int> edges);
// Neighbours of `rank` in a graph topology.
std::span<const int> graph_neighbors(const Topology& t, int rank);

// The neighbourhood collectives' view of `rank` (MPI-3.1 7.6): the sources it receives from and the
// destinations it sends to, in buffer-block order. Cartesian: for each dimension the rank one step
// below, then one step above (MPI_PROC_NULL past a non-periodic edge), as sources and destinations
// alike; graph: the node's neighbours, both ways; distributed graph: the lists it was created with.
struct Neighbors {
  std::vector<int> sources, destinations;
};
Neighbors neighbors(const Topology& t, int rank);

}  // namespace topology
}  // namespace fabmpi
