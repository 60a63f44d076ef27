// The pattern arithmetic of coll/patterns.hpp, for every communicator size 1..64: each pattern is
// simulated on sets of ranks/blocks and must deliver everything everywhere, without any transport.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "coll/patterns.hpp"

using namespace fabmpi::coll::pattern;
using Set = std::uint64_t;  // bit i = rank (or block) i; sizes up to 64

namespace {
Set all(int p) { return p == 64 ? ~Set{0} : (Set{1} << p) - 1; }
Set bit(int i) { return Set{1} << i; }
}  // namespace

static_assert(is_pow2(1) && is_pow2(64) && !is_pow2(0) && !is_pow2(12));
static_assert(floor_pow2(1) == 1 && floor_pow2(7) == 4 && floor_pow2(8) == 8);
static_assert(ceil_log2(1) == 0 && ceil_log2(2) == 1 && ceil_log2(5) == 3 && ceil_log2(64) == 6);
static_assert(binomial_parent(6) == 4 && binomial_child(4, 8, 1) == 6);

TEST_CASE("binomial tree: every rank has one parent and subtrees partition the ranks", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    REQUIRE(binomial_subtree_size(0, p) == p);
    std::vector<int> parent_count(static_cast<std::size_t>(p), 0);
    for (int v = 0; v < p; ++v) {
      CAPTURE(v);
      // The children's subtrees tile (v, v + subtree) in ascending order.
      int next = v + 1;
      for (int i = 0; i < binomial_num_children(v, p); ++i) {
        const int c = binomial_child(v, p, i);
        REQUIRE(c == next);
        REQUIRE(binomial_parent(c) == v);
        ++parent_count[static_cast<std::size_t>(c)];
        next = c + binomial_subtree_size(c, p);
      }
      REQUIRE(next == v + binomial_subtree_size(v, p));
      // Depth is at most ceil(log2 p).
      int depth = 0;
      for (int u = v; u != 0; u = binomial_parent(u)) ++depth;
      REQUIRE(depth <= ceil_log2(p));
    }
    REQUIRE(parent_count[0] == 0);
    for (int v = 1; v < p; ++v) REQUIRE(parent_count[static_cast<std::size_t>(v)] == 1);
  }
}

TEST_CASE("ring reduce-scatter then allgather delivers every contribution", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    // partial[r][b] = set of ranks whose contribution to block b rank r holds.
    std::vector<std::vector<Set>> partial(static_cast<std::size_t>(p), std::vector<Set>(static_cast<std::size_t>(p)));
    for (int r = 0; r < p; ++r)
      for (int b = 0; b < p; ++b) partial[r][b] = bit(r);
    for (int s = 0; s < p - 1; ++s) {
      auto next = partial;
      for (int r = 0; r < p; ++r) {
        REQUIRE(ring_left(ring_right(r, p), p) == r);
        const int b = ring_rs_send_block(r, p, s);
        const int to = ring_right(r, p);
        REQUIRE(ring_rs_recv_block(to, p, s) == b);
        next[to][b] |= partial[r][b];
      }
      partial = next;
    }
    for (int r = 0; r < p; ++r) REQUIRE(partial[r][r] == all(p));
    std::vector<Set> have(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) have[r] = bit(r);
    for (int s = 0; s < p - 1; ++s) {
      auto next = have;
      for (int r = 0; r < p; ++r) {
        const int b = ring_ag_send_block(r, p, s);
        REQUIRE((have[r] & bit(b)) != 0);
        REQUIRE(ring_ag_recv_block(ring_right(r, p), p, s) == b);
        next[ring_right(r, p)] |= bit(b);
      }
      have = next;
    }
    for (int r = 0; r < p; ++r) REQUIRE(have[r] == all(p));
  }
}

TEST_CASE("recursive doubling fold: new ranks are contiguous, ordered and complete", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    const int pof2 = fold_pof2(p);
    REQUIRE(pof2 + fold_rem(p) == p);
    int expected_first = 0;
    for (int n = 0; n < pof2; ++n) {
      const int old = fold_oldrank(n, p);
      REQUIRE(fold_newrank(old, p) == n);
      REQUIRE(fold_first_oldrank(n, p) == expected_first);
      expected_first = old + 1;
      if (fold_first_oldrank(n, p) != old) {
        REQUIRE(fold_newrank(fold_first_oldrank(n, p), p) == -1);
        REQUIRE(fold_partner(fold_first_oldrank(n, p), p) == old);
        REQUIRE(fold_partner(old, p) == fold_first_oldrank(n, p));
      }
    }
    REQUIRE(expected_first == p);
    // Full-vector recursive doubling among new ranks gathers everything; partials stay contiguous.
    std::vector<Set> have(static_cast<std::size_t>(pof2));
    for (int n = 0; n < pof2; ++n) have[n] = bit(n);
    for (int k = 0; (1 << k) < pof2; ++k) {
      auto next = have;
      for (int n = 0; n < pof2; ++n) {
        const int q = rd_partner(n, k);
        REQUIRE(rd_partner(q, k) == n);
        next[n] |= have[q];
        // The union is an aligned contiguous run of 2^(k+1) new ranks.
        const Set run = next[n] >> (n & ~((2 << k) - 1));
        REQUIRE(run == all(2 << k));
      }
      have = next;
    }
    for (int n = 0; n < pof2; ++n) REQUIRE(have[n] == all(pof2));
  }
}

TEST_CASE("dissemination: every rank hears from every other", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    std::vector<Set> heard(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) heard[r] = bit(r);
    for (int k = 0; k < dissemination_steps(p); ++k) {
      auto next = heard;
      for (int r = 0; r < p; ++r) {
        const int to = dissemination_to(r, p, k);
        REQUIRE(dissemination_from(to, p, k) == r);
        next[to] |= heard[r];
      }
      heard = next;
    }
    for (int r = 0; r < p; ++r) REQUIRE(heard[r] == all(p));
  }
}

TEST_CASE("Bruck allgather: the rotated buffer fills up in order", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    std::vector<std::vector<int>> buf(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) buf[r] = {r};
    for (int k = 0; k < bruck_steps(p); ++k) {
      auto next = buf;
      const int n = bruck_ag_blocks(p, k);
      for (int r = 0; r < p; ++r) {
        const int from = bruck_ag_from(r, p, k);
        REQUIRE(bruck_ag_to(from, p, k) == r);
        REQUIRE(static_cast<int>(buf[from].size()) >= n);
        for (int i = 0; i < n; ++i) next[r].push_back(buf[from][static_cast<std::size_t>(i)]);
      }
      buf = next;
    }
    for (int r = 0; r < p; ++r) {
      REQUIRE(static_cast<int>(buf[r].size()) == p);
      for (int i = 0; i < p; ++i) REQUIRE(buf[r][static_cast<std::size_t>(i)] == (r + i) % p);
    }
  }
}

TEST_CASE("Bruck alltoall: position i ends with the block from rank r - i", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    CAPTURE(p);
    // pos[r][i] = (source, destination) of the block at position i of rank r.
    std::vector<std::vector<std::pair<int, int>>> pos(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < p; ++i) pos[r].push_back({r, (r + i) % p});
    for (int k = 0; (1 << k) < p; ++k) {
      auto next = pos;
      for (int r = 0; r < p; ++r) {
        const int to = bruck_a2a_to(r, p, k);
        REQUIRE(bruck_a2a_from(to, p, k) == r);
        for (int i = 0; i < p; ++i)
          if (bruck_a2a_moves(i, k)) next[to][i] = pos[r][i];
      }
      pos = next;
    }
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < p; ++i) {
        REQUIRE(pos[r][i].second == r);
        REQUIRE(pos[r][i].first == bruck_a2a_source_of_position(r, p, i));
      }
  }
}

TEST_CASE("pairwise exchange meets every peer once", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p) {
    for (int r = 0; r < p; ++r) {
      Set to = bit(r), from = bit(r);
      for (int s = 1; s < p; ++s) {
        REQUIRE(pairwise_from(pairwise_to(r, p, s), p, s) == r);
        to |= bit(pairwise_to(r, p, s));
        from |= bit(pairwise_from(r, p, s));
      }
      REQUIRE(to == all(p));
      REQUIRE(from == all(p));
    }
  }
}

TEST_CASE("even split covers the total", "[coll][patterns]") {
  for (int p = 1; p <= 64; ++p)
    for (std::size_t total : {0, 1, 3, 63, 64, 65, 1000}) {
      std::size_t sum = 0;
      for (int i = 0; i < p; ++i) {
        REQUIRE(split_offset(total, p, i) == sum);
        sum += split_count(total, p, i);
      }
      REQUIRE(sum == total);
      REQUIRE(split_offset(total, p, p) == total);
    }
}
