#include "runtime/topology.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace fabmpi::topology {

long grid_size(std::span<const int> dims) {
  long n = 1;
  for (int d : dims) n *= d;
  return n;
}

namespace {

// The non-increasing factorisation of `m` into `k` factors with the smallest spread (largest - smallest).
// Among equally balanced ones, the one whose factors, read from the smallest up, are largest first: the
// answer MPICH gives (its test suite pins thousands of them), e.g. 5040 in 3-d is 21 x 16 x 15, not
// 20 x 18 x 14. A depth-first search over the divisors of m, smallest factor first, pruned by spread;
// the last two factors are solved directly (the most balanced pair), so each call is fast for any int.
std::vector<int> balanced_factors(int m, int k) {
  if (k == 0) return {};
  std::vector<int> divisors;  // of m, ascending
  for (long d = 1; d * d <= m; ++d)
    if (m % d == 0) {
      divisors.push_back(static_cast<int>(d));
      if (d * d != m) divisors.push_back(static_cast<int>(m / d));
    }
  std::sort(divisors.begin(), divisors.end());
  // true when `slots` factors of at least f multiply to at most rest
  auto fits = [](long f, int slots, long rest) {
    long product = 1;
    for (int i = 0; i < slots; ++i)
      if ((product *= f) > rest) return false;
    return true;
  };
  std::vector<int> current, best;  // ascending
  long best_spread = -1;
  auto consider = [&] {
    const long spread = current.back() - current.front();
    if (best_spread < 0 || spread <= best_spread) {  // ties: the later (larger small factors) wins
      best_spread = spread;
      best = current;
    }
  };
  std::function<void(long, int, std::size_t)> search = [&](long rest, int slots, std::size_t from) {
    const long low = current.empty() ? 1 : current.back();
    if (slots == 1) {
      if (rest < low) return;
      current.push_back(static_cast<int>(rest));
      consider();
      current.pop_back();
      return;
    }
    if (slots == 2) {
      // The most balanced pair f <= rest / f with f >= low: the largest such divisor f.
      std::size_t i = static_cast<std::size_t>(
          std::upper_bound(divisors.begin(), divisors.end(), static_cast<int>(std::sqrt(static_cast<double>(rest))) + 1) -
          divisors.begin());
      while (i-- > from) {
        const long f = divisors[i];
        if (f < low) break;
        if (rest % f != 0 || f * f > rest) continue;
        current.push_back(static_cast<int>(f));
        current.push_back(static_cast<int>(rest / f));
        consider();
        current.pop_back();
        current.pop_back();
        return;
      }
      return;
    }
    for (std::size_t i = from; i < divisors.size(); ++i) {
      const long f = divisors[i];
      if (f < low) continue;
      if (!fits(f, slots, rest)) break;  // larger f only overshoots more
      const long smallest = current.empty() ? f : current.front();
      if (best_spread >= 0 && f - smallest > best_spread) break;  // the largest factor is at least f
      if (rest % f != 0) continue;
      current.push_back(static_cast<int>(f));
      search(rest / f, slots - 1, i);
      current.pop_back();
    }
  };
  search(m, k, 0);
  std::reverse(best.begin(), best.end());
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
