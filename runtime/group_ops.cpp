#include "runtime/group_ops.hpp"

#include <unordered_map>
#include <unordered_set>

namespace fabmpi::group_ops {
namespace {

// world rank -> rank in `g`, for lookups that would otherwise be quadratic.
std::unordered_map<int, int> index_of(const Group& g) {
  std::unordered_map<int, int> index;
  index.reserve(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r) index.emplace(g.world_rank(r), r);
  return index;
}

std::unordered_set<int> members_of(const Group& g) {
  return std::unordered_set<int>(g.world_ranks().begin(), g.world_ranks().end());
}

// Checks that `ranks` are distinct ranks of `group`; fills `named` (one flag per group rank).
Rc check_distinct_ranks(const Group& group, std::span<const int> ranks, std::vector<char>* named) {
  named->assign(static_cast<std::size_t>(group.size()), 0);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= group.size())
      return fail(MPI_ERR_RANK, "rank %d (ranks[%zu]) is not in the group (size %d)", r, i, group.size());
    char& seen = (*named)[static_cast<std::size_t>(r)];
    if (seen) return fail(MPI_ERR_RANK, "rank %d is named twice (ranks[%zu])", r, i);
    seen = 1;
  }
  return Rc();
}

}  // namespace

Rc incl(const Group& group, std::span<const int> ranks, GroupRef* out) {
  std::vector<char> named;
  FABMPI_TRY(check_distinct_ranks(group, ranks, &named));
  std::vector<int> members;
  members.reserve(ranks.size());
  for (int r : ranks) members.push_back(group.world_rank(r));
  *out = std::make_shared<const Group>(std::move(members));
  return Rc();
}

Rc excl(const Group& group, std::span<const int> ranks, GroupRef* out) {
  std::vector<char> named;
  FABMPI_TRY(check_distinct_ranks(group, ranks, &named));
  std::vector<int> members;
  members.reserve(static_cast<std::size_t>(group.size()) - ranks.size());
  for (int r = 0; r < group.size(); ++r)
    if (!named[static_cast<std::size_t>(r)]) members.push_back(group.world_rank(r));
  *out = std::make_shared<const Group>(std::move(members));
  return Rc();
}

Rc expand_ranges(const Group& group, std::span<const RankRange> ranges, std::vector<int>* ranks) {
  const int size = group.size();
  std::vector<char> produced(static_cast<std::size_t>(size), 0);
  ranks->clear();
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const RankRange& range = ranges[i];
    if (range.stride == 0) return fail(MPI_ERR_ARG, "range %zu has stride 0", i);
    if (range.first < 0 || range.first >= size)
      return fail(MPI_ERR_RANK, "range %zu starts at rank %d, outside the group (size %d)", i, range.first, size);
    if (range.last < 0 || range.last >= size)
      return fail(MPI_ERR_RANK, "range %zu ends at rank %d, outside the group (size %d)", i, range.last, size);
    if ((range.stride > 0 && range.first > range.last) || (range.stride < 0 && range.first < range.last))
      return fail(MPI_ERR_ARG, "range %zu (%d, %d, stride %d) never reaches its last rank", i, range.first,
                  range.last, range.stride);
    // first + k*stride for k = 0 .. (last-first)/stride; 64-bit so a huge stride cannot overflow.
    const long long steps = (static_cast<long long>(range.last) - range.first) / range.stride;
    for (long long k = 0; k <= steps; ++k) {
      const int r = static_cast<int>(range.first + k * range.stride);
      char& seen = produced[static_cast<std::size_t>(r)];
      if (seen) return fail(MPI_ERR_RANK, "rank %d is produced twice (range %zu)", r, i);
      seen = 1;
      ranks->push_back(r);
    }
  }
  return Rc();
}

Rc range_incl(const Group& group, std::span<const RankRange> ranges, GroupRef* out) {
  std::vector<int> ranks;
  FABMPI_TRY(expand_ranges(group, ranges, &ranks));
  return incl(group, ranks, out);
}

Rc range_excl(const Group& group, std::span<const RankRange> ranges, GroupRef* out) {
  std::vector<int> ranks;
  FABMPI_TRY(expand_ranges(group, ranges, &ranks));
  return excl(group, ranks, out);
}

GroupRef set_union(const Group& a, const Group& b) {
  std::vector<int> members = a.world_ranks();
  const auto in_a = members_of(a);
  for (int w : b.world_ranks())
    if (!in_a.count(w)) members.push_back(w);
  return std::make_shared<const Group>(std::move(members));
}

GroupRef intersection(const Group& a, const Group& b) {
  const auto in_b = members_of(b);
  std::vector<int> members;
  for (int w : a.world_ranks())
    if (in_b.count(w)) members.push_back(w);
  return std::make_shared<const Group>(std::move(members));
}

GroupRef difference(const Group& a, const Group& b) {
  const auto in_b = members_of(b);
  std::vector<int> members;
  for (int w : a.world_ranks())
    if (!in_b.count(w)) members.push_back(w);
  return std::make_shared<const Group>(std::move(members));
}

Rc translate_ranks(const Group& a, std::span<const int> ranks, const Group& b, std::span<int> out) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r != MPI_PROC_NULL && (r < 0 || r >= a.size()))
      return fail(MPI_ERR_RANK, "ranks1[%zu] = %d is not a rank of group1 (size %d)", i, r, a.size());
  }
  const auto index = index_of(b);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r == MPI_PROC_NULL) {
      out[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = index.find(a.world_rank(r));
    out[i] = it == index.end() ? MPI_UNDEFINED : it->second;
  }
  return Rc();
}

int compare(const Group& a, const Group& b) {
  if (a.size() != b.size()) return MPI_UNEQUAL;
  if (a.world_ranks() == b.world_ranks()) return MPI_IDENT;
  return is_subset(a, b) ? MPI_SIMILAR : MPI_UNEQUAL;
}

bool is_subset(const Group& sub, const Group& super) {
  const auto in_super = members_of(super);
  for (int w : sub.world_ranks())
    if (!in_super.count(w)) return false;
  return true;
}

}  // namespace fabmpi::group_ops
