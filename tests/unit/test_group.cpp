// Group algebra (runtime/group_ops.hpp): ordering rules of MPI-3.1 section 6.3 and every error case.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/group_ops.hpp"
#include "runtime/rc.hpp"

using namespace fabmpi;
using group_ops::RankRange;

namespace {

Group make(std::vector<int> world_ranks) { return Group(std::move(world_ranks)); }

std::vector<int> members(const GroupRef& g) { return g->world_ranks(); }

}  // namespace

TEST_CASE("incl keeps the order of the rank list", "[group]") {
  const Group g = make({10, 11, 12, 13, 14});
  GroupRef out;
  REQUIRE(group_ops::incl(g, std::vector<int>{3, 0, 4}, &out).ok());
  CHECK(members(out) == std::vector<int>{13, 10, 14});
  REQUIRE(group_ops::incl(g, std::vector<int>{}, &out).ok());
  CHECK(out->size() == 0);
}

TEST_CASE("incl rejects duplicate and out-of-range ranks with MPI_ERR_RANK", "[group]") {
  const Group g = make({0, 1, 2, 3});
  GroupRef out;
  CHECK(group_ops::incl(g, std::vector<int>{1, 2, 1}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::incl(g, std::vector<int>{4}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::incl(g, std::vector<int>{-1}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::incl(g, std::vector<int>{MPI_PROC_NULL}, &out).code() == MPI_ERR_RANK);
}

TEST_CASE("excl keeps the group's order and checks its ranks", "[group]") {
  const Group g = make({5, 6, 7, 8, 9});
  GroupRef out;
  REQUIRE(group_ops::excl(g, std::vector<int>{3, 0}, &out).ok());
  CHECK(members(out) == std::vector<int>{6, 7, 9});
  REQUIRE(group_ops::excl(g, std::vector<int>{0, 1, 2, 3, 4}, &out).ok());
  CHECK(out->size() == 0);
  CHECK(group_ops::excl(g, std::vector<int>{2, 2}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::excl(g, std::vector<int>{5}, &out).code() == MPI_ERR_RANK);
}

TEST_CASE("range_incl expands triplets in order, with negative strides", "[group]") {
  const Group g = make({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  GroupRef out;
  REQUIRE(group_ops::range_incl(g, std::vector<RankRange>{{0, 9, 3}}, &out).ok());
  CHECK(members(out) == std::vector<int>{0, 3, 6, 9});
  REQUIRE(group_ops::range_incl(g, std::vector<RankRange>{{8, 1, -3}, {0, 0, 1}}, &out).ok());
  CHECK(members(out) == std::vector<int>{8, 5, 2, 0});
  // The last rank need not be hit.
  REQUIRE(group_ops::range_incl(g, std::vector<RankRange>{{1, 8, 4}}, &out).ok());
  CHECK(members(out) == std::vector<int>{1, 5});
  REQUIRE(group_ops::range_incl(g, std::vector<RankRange>{{4, 4, -7}}, &out).ok());
  CHECK(members(out) == std::vector<int>{4});
  // A huge stride must not overflow.
  REQUIRE(group_ops::range_incl(g, std::vector<RankRange>{{0, 9, 0x7fffffff}}, &out).ok());
  CHECK(members(out) == std::vector<int>{0});
}

TEST_CASE("range_incl and range_excl error classes", "[group]") {
  const Group g = make({0, 1, 2, 3, 4, 5});
  GroupRef out;
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{0, 5, 0}}, &out).code() == MPI_ERR_ARG);
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{5, 0, 1}}, &out).code() == MPI_ERR_ARG);
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{0, 5, -1}}, &out).code() == MPI_ERR_ARG);
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{0, 6, 1}}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{-1, 3, 1}}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::range_incl(g, std::vector<RankRange>{{0, 3, 1}, {3, 5, 1}}, &out).code() == MPI_ERR_RANK);
  CHECK(group_ops::range_excl(g, std::vector<RankRange>{{0, 4, 2}, {2, 2, 1}}, &out).code() == MPI_ERR_RANK);
  REQUIRE(group_ops::range_excl(g, std::vector<RankRange>{{0, 4, 2}}, &out).ok());
  CHECK(members(out) == std::vector<int>{1, 3, 5});
  REQUIRE(group_ops::range_excl(g, std::vector<RankRange>{}, &out).ok());
  CHECK(members(out) == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("union, intersection and difference follow the standard's ordering", "[group]") {
  const Group a = make({4, 1, 7, 3});
  const Group b = make({3, 9, 4, 0, 8});
  CHECK(members(group_ops::set_union(a, b)) == std::vector<int>{4, 1, 7, 3, 9, 0, 8});
  CHECK(members(group_ops::set_union(b, a)) == std::vector<int>{3, 9, 4, 0, 8, 1, 7});
  CHECK(members(group_ops::intersection(a, b)) == std::vector<int>{4, 3});
  CHECK(members(group_ops::intersection(b, a)) == std::vector<int>{3, 4});
  CHECK(members(group_ops::difference(a, b)) == std::vector<int>{1, 7});
  CHECK(members(group_ops::difference(b, a)) == std::vector<int>{9, 0, 8});
  const Group empty;
  CHECK(members(group_ops::set_union(empty, a)) == a.world_ranks());
  CHECK(group_ops::intersection(a, empty)->size() == 0);
  CHECK(members(group_ops::difference(a, empty)) == a.world_ranks());
  CHECK(group_ops::difference(a, a)->size() == 0);
}

TEST_CASE("translate_ranks maps members, absent processes and MPI_PROC_NULL", "[group]") {
  const Group a = make({0, 1, 2, 3, 4});
  const Group b = make({4, 2, 0});
  const std::vector<int> in{0, 1, 2, MPI_PROC_NULL, 4, 3};
  std::vector<int> out(in.size(), -77);
  REQUIRE(group_ops::translate_ranks(a, in, b, out).ok());
  CHECK(out == std::vector<int>{2, MPI_UNDEFINED, 1, MPI_PROC_NULL, 0, MPI_UNDEFINED});
  CHECK(group_ops::translate_ranks(a, std::vector<int>{5}, b, out).code() == MPI_ERR_RANK);
  CHECK(group_ops::translate_ranks(a, std::vector<int>{MPI_ANY_SOURCE}, b, out).code() == MPI_ERR_RANK);
  std::vector<int> none;
  CHECK(group_ops::translate_ranks(a, none, b, none).ok());
}

TEST_CASE("compare: IDENT, SIMILAR, UNEQUAL", "[group]") {
  CHECK(group_ops::compare(make({1, 2, 3}), make({1, 2, 3})) == MPI_IDENT);
  CHECK(group_ops::compare(make({1, 2, 3}), make({3, 1, 2})) == MPI_SIMILAR);
  CHECK(group_ops::compare(make({1, 2, 3}), make({1, 2, 4})) == MPI_UNEQUAL);
  CHECK(group_ops::compare(make({1, 2, 3}), make({1, 2})) == MPI_UNEQUAL);
  CHECK(group_ops::compare(Group(), Group()) == MPI_IDENT);
}

TEST_CASE("is_subset", "[group]") {
  CHECK(group_ops::is_subset(make({2, 0}), make({0, 1, 2})));
  CHECK(group_ops::is_subset(Group(), make({0})));
  CHECK_FALSE(group_ops::is_subset(make({3}), make({0, 1, 2})));
}

TEST_CASE("rank_of_world", "[group]") {
  const Group g = make({7, 3, 5});
  CHECK(g.rank_of_world(3) == 1);
  CHECK(g.rank_of_world(4) == MPI_UNDEFINED);
}

// ---- the pure parts of communicator creation (runtime/comm_create_patterns.cpp)
#include <algorithm>

#include "runtime/comm_create.hpp"

TEST_CASE("binomial tree over 1..64 participants", "[comm_create]") {
  using fabmpi::comm_create::binomial_tree;
  for (int n = 1; n <= 64; ++n) {
    std::vector<int> times_child(static_cast<std::size_t>(n), 0);
    int depth_bound = 0;
    while ((1 << depth_bound) < n) ++depth_bound;
    for (int i = 0; i < n; ++i) {
      const auto t = binomial_tree(i, n);
      if (i == 0) {
        CHECK(t.parent == -1);
      } else {
        REQUIRE(t.parent >= 0);
        CHECK(t.parent < i);
        const auto p = binomial_tree(t.parent, n);
        CHECK(std::count(p.children.begin(), p.children.end(), i) == 1);
      }
      for (int c : t.children) {
        REQUIRE(c > i);
        REQUIRE(c < n);
        ++times_child[static_cast<std::size_t>(c)];
      }
      // Depth from the root is at most ceil(log2 n).
      int depth = 0;
      for (int j = i; j != 0; j = binomial_tree(j, n).parent) ++depth;
      CHECK(depth <= depth_bound);
    }
    CHECK(times_child[0] == 0);
    for (int i = 1; i < n; ++i) CHECK(times_child[static_cast<std::size_t>(i)] == 1);
  }
}

TEST_CASE("split orders by key, ties by old rank, and keeps colors apart", "[comm_create]") {
  using fabmpi::comm_create::pack_color_key;
  using fabmpi::comm_create::split_members;
  // rank:            0               1                2              3               4               5
  std::vector<std::uint64_t> slots{pack_color_key(1, 5), pack_color_key(0, -3), pack_color_key(1, 5),
                                   pack_color_key(MPI_UNDEFINED, 0), pack_color_key(1, -1), pack_color_key(0, 7)};
  CHECK(split_members(slots, 1) == std::vector<int>{4, 0, 2});
  CHECK(split_members(slots, 0) == std::vector<int>{1, 5});
  CHECK(split_members(slots, 2).empty());
  std::vector<std::uint64_t> zeros(4, pack_color_key(0, 0));
  CHECK(split_members(zeros, 0) == std::vector<int>{0, 1, 2, 3});
  std::vector<std::uint64_t> big{pack_color_key(0x7fffffff, 0x7fffffff), pack_color_key(0x7fffffff, -0x7fffffff - 1)};
  CHECK(split_members(big, 0x7fffffff) == std::vector<int>{1, 0});
}
