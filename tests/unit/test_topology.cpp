// Process topology arithmetic (runtime/topology.hpp): MPI_Dims_create, Cartesian ranks, shifts and
// sub-grids, graph neighbours.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/topology.hpp"

using namespace fabmpi;

namespace {

std::vector<int> dims_for(int nnodes, std::vector<int> dims) {
  REQUIRE(topology::dims_create(nnodes, dims).ok());
  return dims;
}

Topology cart(std::vector<int> dims, std::vector<bool> periods) {
  Topology t;
  t.kind = Topology::Kind::cart;
  t.dims = std::move(dims);
  t.periods = std::move(periods);
  return t;
}

}  // namespace

TEST_CASE("dims_create balances the free dimensions in non-increasing order", "[topology]") {
  CHECK(dims_for(6, {0, 0}) == std::vector<int>{3, 2});
  CHECK(dims_for(7, {0, 0}) == std::vector<int>{7, 1});
  CHECK(dims_for(16, {0, 0}) == std::vector<int>{4, 4});
  CHECK(dims_for(16, {0, 0, 0}) == std::vector<int>{4, 2, 2});
  CHECK(dims_for(12, {0, 0, 0}) == std::vector<int>{3, 2, 2});
  CHECK(dims_for(24, {0, 0, 0}) == std::vector<int>{4, 3, 2});
  CHECK(dims_for(1, {0, 0, 0}) == std::vector<int>{1, 1, 1});
  CHECK(dims_for(6, {0, 3, 0}) == std::vector<int>{2, 3, 1});
  CHECK(dims_for(8, {2, 0, 2}) == std::vector<int>{2, 2, 2});
  CHECK(dims_for(5, {5}) == std::vector<int>{5});
  CHECK(dims_for(1 << 20, {0, 0, 0}) == std::vector<int>{128, 128, 64});
  // Equally balanced answers: the one MPICH gives (larger small factors), e.g. spread 6 for 5040 either way.
  CHECK(dims_for(5040, {0, 0, 0}) == std::vector<int>{21, 16, 15});
  CHECK(dims_for(6240, {0, 0, 0}) == std::vector<int>{26, 16, 15});
  CHECK(dims_for(100320, {0, 0, 0}) == std::vector<int>{57, 44, 40});
  CHECK(dims_for(1800, {0, 0, 0, 0}) == std::vector<int>{9, 8, 5, 5});
  CHECK(dims_for(108, {0, 0, 0, 0}) == std::vector<int>{4, 3, 3, 3});
  CHECK(dims_for(8, {0, 0, 0, 0, 0}) == std::vector<int>{2, 2, 2, 1, 1});
  CHECK(dims_for(2147483647, {0, 0, 0}) == std::vector<int>{2147483647, 1, 1});  // INT_MAX is prime
  CHECK(dims_for(1 << 30, {0, 0, 0, 0, 0, 0}) == std::vector<int>{32, 32, 32, 32, 32, 32});
  for (int n = 1; n <= 64; ++n) {
    std::vector<int> d = dims_for(n, {0, 0, 0});
    CHECK(d[0] * d[1] * d[2] == n);
    CHECK((d[0] >= d[1] && d[1] >= d[2]));
  }
}

TEST_CASE("dims_create rejects negative entries and fixed entries that do not divide", "[topology]") {
  std::vector<int> neg{-1, 0};
  CHECK(topology::dims_create(4, neg).code() == MPI_ERR_DIMS);
  std::vector<int> bad{3, 0};
  CHECK(topology::dims_create(4, bad).code() == MPI_ERR_DIMS);
  std::vector<int> full{2, 3};
  CHECK(topology::dims_create(5, full).code() == MPI_ERR_DIMS);
}

TEST_CASE("cart coordinates are row-major and cart_rank inverts them", "[topology]") {
  const Topology t = cart({2, 3, 4}, {false, true, false});
  for (int r = 0; r < 24; ++r) {
    std::vector<int> c = topology::cart_coords(t, r);
    CHECK(c == std::vector<int>{r / 12, (r / 4) % 3, r % 4});
    int back = -1;
    REQUIRE(topology::cart_rank(t, c, &back).ok());
    CHECK(back == r);
  }
  int r = -1;
  CHECK(topology::cart_rank(t, std::vector<int>{0, -1, 0}, &r).ok());  // periodic: wraps to 2
  CHECK(r == 8);
  CHECK(topology::cart_rank(t, std::vector<int>{2, 0, 0}, &r).code() == MPI_ERR_ARG);
  CHECK(topology::cart_rank(t, std::vector<int>{0, 0, 4}, &r).code() == MPI_ERR_ARG);
}

TEST_CASE("cart_shift gives MPI_PROC_NULL past non-periodic edges and wraps periodic ones", "[topology]") {
  const Topology t = cart({4, 3}, {false, true});
  int src = 0, dst = 0;
  topology::cart_shift(t, 0, 0, 1, &src, &dst);  // rank 0 = (0,0)
  CHECK(src == MPI_PROC_NULL);
  CHECK(dst == 3);
  topology::cart_shift(t, 9, 0, 1, &src, &dst);  // (3,0)
  CHECK(src == 6);
  CHECK(dst == MPI_PROC_NULL);
  topology::cart_shift(t, 0, 1, 1, &src, &dst);  // along the periodic dimension
  CHECK(src == 2);
  CHECK(dst == 1);
  topology::cart_shift(t, 4, 1, -4, &src, &dst);  // (1,1), shift by -4 = -1 mod 3
  CHECK(dst == 3);
  CHECK(src == 5);
  topology::cart_shift(t, 4, 0, 5, &src, &dst);
  CHECK(src == MPI_PROC_NULL);
  CHECK(dst == MPI_PROC_NULL);
}

TEST_CASE("cart_sub groups processes by the dropped coordinates", "[topology]") {
  const Topology t = cart({2, 3, 4}, {true, false, true});
  const std::vector<bool> keep{false, true, false};
  for (int r = 0; r < 24; ++r) {
    std::vector<int> c = topology::cart_coords(t, r);
    CHECK(topology::cart_sub_color(t, r, keep) == c[0] * 4 + c[2]);
  }
  const Topology sub = topology::cart_sub_topology(t, keep);
  CHECK(sub.dims == std::vector<int>{3});
  CHECK(sub.periods == std::vector<bool>{false});
}

TEST_CASE("graph neighbours come from index and edges", "[topology]") {
  Topology g;
  g.kind = Topology::Kind::graph;
  g.index = {2, 3, 3, 5};
  g.edges = {1, 3, 0, 0, 2};
  CHECK(topology::check_graph(4, g.index, g.edges).ok());
  auto n0 = topology::graph_neighbors(g, 0);
  CHECK(std::vector<int>(n0.begin(), n0.end()) == std::vector<int>{1, 3});
  CHECK(topology::graph_neighbors(g, 2).empty());
  auto n3 = topology::graph_neighbors(g, 3);
  CHECK(std::vector<int>(n3.begin(), n3.end()) == std::vector<int>{0, 2});
  CHECK(topology::check_graph(4, std::vector<int>{2, 1, 3, 5}, g.edges).code() == MPI_ERR_ARG);
  CHECK(topology::check_graph(4, g.index, std::vector<int>{1, 3, 0, 4, 2}).code() == MPI_ERR_ARG);
}

TEST_CASE("neighbourhood collectives see sources and destinations in block order", "[topology]") {
  // 3 x 2 grid, periodic in the second dimension only; rank 2 sits at (1, 0).
  const Topology t = cart({3, 2}, {false, true});
  topology::Neighbors n = topology::neighbors(t, 2);
  CHECK(n.sources == std::vector<int>{0, 4, 3, 3});  // dim 0: below, above; dim 1: both wrap to (1, 1)
  CHECK(n.destinations == n.sources);
  n = topology::neighbors(t, 0);
  CHECK(n.sources == std::vector<int>{MPI_PROC_NULL, 2, 1, 1});
  // A periodic dimension of one: the process is its own neighbour on both sides.
  const Topology ring_of_one = cart({1}, {true});
  CHECK(topology::neighbors(ring_of_one, 0).sources == std::vector<int>{0, 0});
  CHECK(topology::neighbors(cart({}, {}), 0).sources.empty());

  Topology g;
  g.kind = Topology::Kind::graph;
  g.index = {2, 3, 3, 5};
  g.edges = {1, 3, 0, 0, 2};
  CHECK(topology::neighbors(g, 3).sources == std::vector<int>{0, 2});
  CHECK(topology::neighbors(g, 3).destinations == std::vector<int>{0, 2});
  CHECK(topology::neighbors(g, 2).sources.empty());

  Topology d;
  d.kind = Topology::Kind::dist_graph;
  d.sources = {4, 1, 4};
  d.destinations = {2};
  n = topology::neighbors(d, 0);
  CHECK(n.sources == std::vector<int>{4, 1, 4});
  CHECK(n.destinations == std::vector<int>{2});
}
