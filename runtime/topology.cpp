#include "runtime/topology.hpp"

#include <algorithm>
#include <functional>

namespace fabmpi::topology {

long grid_size(std::span<const int> dims) {
  long n = 1;
  for (int d : dims) n *= d;
  return n;
}

namespace {

// The non-increasing factorisation of `m` into `k` factors with the smallest spread (largest - smallest);
// ties go to the first found, which has the smallest leading factor. Enumerates divisors depth-first
// (cheap for any real process count).
std::vector<int> balanced_factors(int m, int k) {
  std::vector<int> best, current;
  int best_spread = -1;
  std::function<void(int, int, int)> search = [&](int rest, int slots, int max_factor) {
    if (slots == 0) {
      if (rest != 1) return;
      const int spread = current.front() - current.back();
      if (best_spread < 0 || spread < best_spread) {
        best_spread = spread;
        best = current;
      }
      return;
    }
    if (slots == 1) {
      if (rest > max_factor) return;
      current.push_back(rest);
      search(1, 0, rest);
      current.pop_back();
      return;
    }
    // The largest remaining factor is at least rest^(1/slots): start at the smallest such divisor.
    for (int f = 1; f <= std::min(rest, max_factor); ++f) {
      if (rest % f != 0) continue;
      long power = 1;
      for (int i = 0; i < slots && power < rest; ++i) power *= f;
      if (power < rest) continue;
      current.push_back(f);
      search(rest / f, slots - 1, f);
      current.pop_back();
    }
  };
  if (k == 0) return {};
  search(m, k, m);
  return best;
}

}  // namespace

Rc dims_create(int nnodes, std::span<int> dims) {
  if (nnodes < 1) return fail(MPI_ERR_ARG, "invalid nnodes %d (must be >= 1)", nnodes);
  long fixed = 1;
  int free_dims = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return fail(MPI_ERR_DIMS, "dims[%zu] = %d is negative", i, dims[i]);
    if (dims[i] == 0)
      ++free_dims;
    else
      fixed *= dims[i];
  }
  if (nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes))
    return fail(MPI_ERR_DIMS, "the fixed dimensions (product %ld) do not divide %d nodes", fixed, nnodes);
  std::vector<int> factors = balanced_factors(static_cast<int>(nnodes / fixed), free_dims);
  std::size_t next = 0;
  for (int& d : dims)
    if (d == 0) d = factors[next++];
  return Rc();
}

std::vector<int> cart_coords(const Topology& t, int rank) {
  std::vector<int> coords(t.dims.size());
  for (std::size_t i = t.dims.size(); i-- > 0;) {
    coords[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
  return coords;
}

Rc cart_rank(const Topology& t, std::span<const int> coords, int* rank) {
  int r = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    int c = coords[i];
    const int d = t.dims[i];
    if (c < 0 || c >= d) {
      if (!t.periods[i])
        return fail(MPI_ERR_ARG, "coordinate %d in dimension %zu is outside 0..%d (not periodic)", c, i, d - 1);
      c = ((c % d) + d) % d;
    }
    r = r * d + c;
  }
  *rank = r;
  return Rc();
}

void cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest) {
  std::vector<int> coords = cart_coords(t, rank);
  const std::size_t dim = static_cast<std::size_t>(direction);
  auto neighbour = [&](long step) {
    std::vector<int> c = coords;
    const long shifted = c[dim] + step;
    const int d = t.dims[dim];
    if (!t.periods[dim] && (shifted < 0 || shifted >= d)) return MPI_PROC_NULL;
    c[dim] = static_cast<int>(((shifted % d) + d) % d);
    int r = MPI_PROC_NULL;
    (void)cart_rank(t, c, &r);
    return r;
  };
  *dest = neighbour(disp);
  *source = neighbour(-static_cast<long>(disp));
}

int cart_sub_color(const Topology& t, int rank, const std::vector<bool>& remain) {
  std::vector<int> coords = cart_coords(t, rank);
  int color = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    if (!remain[i]) color = color * t.dims[i] + coords[i];
  return color;
}

Topology cart_sub_topology(const Topology& t, const std::vector<bool>& remain) {
  Topology sub;
  sub.kind = Topology::Kind::cart;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    if (!remain[i]) continue;
    sub.dims.push_back(t.dims[i]);
    sub.periods.push_back(t.periods[i]);
  }
  return sub;
}

Rc check_graph(int nnodes, std::span<const int> index, std::span<const int> edges) {
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[static_cast<std::size_t>(i)] < previous)
      return fail(MPI_ERR_ARG, "index[%d] = %d is smaller than the previous entry %d", i,
                  index[static_cast<std::size_t>(i)], previous);
    previous = index[static_cast<std::size_t>(i)];
  }
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return fail(MPI_ERR_ARG, "edges[%zu] = %d is not a node (0..%d)", e, edges[e], nnodes - 1);
  return Rc();
}

std::span<const int> graph_neighbors(const Topology& t, int rank) {
  const std::size_t r = static_cast<std::size_t>(rank);
  const int first = r == 0 ? 0 : t.index[r - 1];
  const int last = t.index[r];
  return std::span<const int>(t.edges).subspan(static_cast<std::size_t>(first),
                                               static_cast<std::size_t>(last - first));
}

Neighbors neighbors(const Topology& t, int rank) {
  Neighbors n;
  switch (t.kind) {
    case Topology::Kind::cart:
      for (int d = 0; d < t.ndims(); ++d) {
        int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
        cart_shift(t, rank, d, 1, &below, &above);
        n.sources.push_back(below);
        n.sources.push_back(above);
      }
      n.destinations = n.sources;
      break;
    case Topology::Kind::graph: {
      const std::span<const int> adjacent = graph_neighbors(t, rank);
      n.sources.assign(adjacent.begin(), adjacent.end());
      n.destinations = n.sources;
      break;
    }
    case Topology::Kind::dist_graph:
      n.sources = t.sources;
      n.destinations = t.destinations;
      break;
  }
  return n;
}

}  // namespace fabmpi::topology
