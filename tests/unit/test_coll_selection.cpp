// The selection table parser (valid and malformed tables), the built-in table and selection logic:
// first match, restrictions with fallback, forced algorithms, defaults.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "coll/registry.hpp"
#include "coll/selection.hpp"

using namespace fabmpi::coll;

namespace {

SelectionTable parse_ok(const std::string& text) {
  SelectionTable table;
  std::string error;
  const bool ok = SelectionTable::parse(text, "test", &table, &error);
  INFO(error);
  REQUIRE(ok);
  return table;
}

std::string parse_error(const std::string& text) {
  SelectionTable table;
  std::string error;
  REQUIRE_FALSE(SelectionTable::parse(text, "bad.table", &table, &error));
  return error;
}

SelectionKey key(Collective c, int size, std::size_t bytes) {
  SelectionKey k;
  k.collective = c;
  k.comm_size = size;
  k.bytes = bytes;
  return k;
}

}  // namespace

TEST_CASE("registry: names are unique per collective and every collective has a default", "[coll][selection]") {
  std::set<std::pair<int, std::string>> seen;
  for (const Algorithm& a : algorithm_registry()) {
    REQUIRE(seen.insert({static_cast<int>(a.collective), a.name}).second);
    REQUIRE(a.make != nullptr);
    REQUIRE(std::string(a.description).size() > 0);
  }
  for (int i = 0; i < kCollectiveCount; ++i) {
    const auto c = static_cast<Collective>(i);
    Collective back;
    REQUIRE(collective_from_name(collective_name(c), &back));
    REQUIRE(back == c);
    REQUIRE(default_algorithm(c).collective == c);
    REQUIRE(default_algorithm(c).restrictions == 0);  // the last resort must always be valid
  }
  REQUIRE(find_algorithm(Collective::allreduce, "ring") != nullptr);
  REQUIRE(find_algorithm(Collective::allreduce, "bruck") == nullptr);
  REQUIRE(algorithm_names(Collective::gatherv) == "linear");
}

TEST_CASE("parser: a valid table with ranges, suffixes, predicates and parameters", "[coll][selection]") {
  const SelectionTable t = parse_ok(
      "# comment line\n"
      "\n"
      "bcast      1-7   *        -                   binomial   # trailing comment\n"
      "bcast      8-    0-12K    pow2,!single_node   scatter_recursive_doubling_allgather\n"
      "bcast      16    1M-      -                   pipelined_chain chunk=128K\n"
      "alltoall   *     0-32K    -                   scattered  window=4\n"
      "allreduce\t*\t*\tcommutative,builtin_op\trabenseifner\r\n"
      "reduce     1-4   256K-    -                   binomial   segment=512K\n");
  REQUIRE(t.rules.size() == 6);
  REQUIRE(t.rules[0].min_ranks == 1);
  REQUIRE(t.rules[0].max_ranks == 7);
  REQUIRE(t.rules[0].line == 3);
  REQUIRE(t.rules[1].min_ranks == 8);
  REQUIRE(t.rules[1].max_bytes == 12 * 1024);
  REQUIRE(t.rules[1].require == predicate::pow2);
  REQUIRE(t.rules[1].forbid == predicate::single_node);
  REQUIRE(t.rules[2].min_ranks == 16);
  REQUIRE(t.rules[2].max_ranks == 16);
  REQUIRE(t.rules[2].min_bytes == 1024 * 1024);
  REQUIRE(t.rules[2].params.chunk_bytes == 128 * 1024);
  REQUIRE(std::string(t.rules[2].algorithm->name) == "pipelined_chain");
  REQUIRE(t.rules[3].params.window == 4);
  REQUIRE(t.rules[4].require == (predicate::commutative | predicate::builtin_op));
  REQUIRE(t.rules[5].params.segment_bytes == 512 * 1024);
}

TEST_CASE("parser: malformed tables name the line and the problem", "[coll][selection]") {
  CHECK(parse_error("bcast * * - binomial\nfrobnicate * * - binomial\n").find("bad.table:2: unknown collective 'frobnicate'") == 0);
  CHECK(parse_error("bcast * * -\n").find("bad.table:1: expected") == 0);
  CHECK(parse_error("bcast x-3 * - binomial\n").find("bad rank range 'x-3'") != std::string::npos);
  CHECK(parse_error("bcast 9-3 * - binomial\n").find("bad rank range") != std::string::npos);
  CHECK(parse_error("bcast * 12Q - binomial\n").find("bad byte range '12Q'") != std::string::npos);
  CHECK(parse_error("bcast * * pow3 binomial\n").find("unknown predicate 'pow3'") != std::string::npos);
  const std::string e = parse_error("allreduce * * - bruck\n");
  CHECK(e.find("unknown allreduce algorithm 'bruck'") != std::string::npos);
  CHECK(e.find("recursive_doubling, rabenseifner, ring") != std::string::npos);
  CHECK(parse_error("bcast * * - pipelined_chain chunk=0\n").find("bad chunk size") != std::string::npos);
  CHECK(parse_error("bcast * * - binomial fanout=2\n").find("unknown parameter 'fanout=2'") != std::string::npos);
  CHECK(parse_error("alltoall * * - scattered window=-1\n").find("bad window") != std::string::npos);
  CHECK(parse_error("reduce * * - binomial segment=0\n").find("bad segment size") != std::string::npos);
}

TEST_CASE("the built-in table parses and covers every collective", "[coll][selection]") {
  const SelectionTable t = parse_ok(kBuiltinSelectionTable);
  for (int i = 0; i < kCollectiveCount; ++i) {
    const auto c = static_cast<Collective>(i);
    bool covered = false;
    for (const Rule& r : t.rules) covered = covered || r.collective == c;
    CAPTURE(collective_name(c));
    REQUIRE(covered);
  }
}

TEST_CASE("selection: the built-in table's thresholds", "[coll][selection]") {
  const SelectionTable t = parse_ok(kBuiltinSelectionTable);
  auto pick = [&](SelectionKey k) { return std::string(select_algorithm(t, k, nullptr).algorithm->name); };
  CHECK(pick(key(Collective::bcast, 4, 1 << 20)) == "binomial");
  CHECK(pick(key(Collective::bcast, 16, 100)) == "binomial");
  CHECK(pick(key(Collective::bcast, 16, 100 * 1024)) == "scatter_recursive_doubling_allgather");
  CHECK(pick(key(Collective::bcast, 12, 100 * 1024)) == "scatter_ring_allgather");
  CHECK(pick(key(Collective::allreduce, 8, 64)) == "recursive_doubling");
  CHECK(pick(key(Collective::allreduce, 8, 1 << 20)) == "rabenseifner");
  CHECK(pick(key(Collective::allreduce, 6, 4 << 20)) == "ring");
  SelectionKey user_op = key(Collective::allreduce, 8, 1 << 20);
  user_op.builtin_op = false;
  user_op.commutative = false;
  CHECK(pick(user_op) == "recursive_doubling");
  CHECK(pick(key(Collective::allgather, 8, 1000)) == "recursive_doubling");
  CHECK(pick(key(Collective::allgather, 6, 1000)) == "bruck");
  CHECK(pick(key(Collective::allgather, 6, 1 << 20)) == "ring");
  CHECK(pick(key(Collective::alltoall, 8, 64)) == "bruck");
  CHECK(pick(key(Collective::alltoall, 4, 64)) == "scattered");
  CHECK(pick(key(Collective::alltoall, 4, 1 << 20)) == "pairwise");
  SelectionKey noncomm = key(Collective::reduce_scatter, 4, 64);
  noncomm.commutative = false;
  CHECK(pick(noncomm) == "noncommutative");
  CHECK(select_algorithm(t, key(Collective::alltoall, 4, 64), nullptr).params.window == 8);
}

TEST_CASE("selection: the staged shm rules apply to eligible blocking calls and warn nobody else", "[coll][selection]") {
  const SelectionTable t = parse_ok(kBuiltinSelectionTable);
  for (Collective c : {Collective::bcast, Collective::reduce, Collective::allreduce, Collective::allgather,
                       Collective::gather, Collective::reduce_scatter_block, Collective::alltoall}) {
    const std::size_t bytes = c == Collective::alltoall ? 8 << 10 : 8 << 20;  // staged alltoall: 4K-8K blocks
    SelectionKey blocking = key(c, 4, bytes);
    blocking.shm_staged = true;
    const Decision staged = select_algorithm(t, blocking, nullptr);
    CHECK(std::string(staged.algorithm->name) == "shm_staged");
    CHECK(staged.warnings.empty());
    // A nonblocking call (or one across nodes) never has shm_staged set: the rules pass it by silently.
    const Decision other = select_algorithm(t, key(c, 4, bytes), nullptr);
    CHECK(std::string(other.algorithm->name) != "shm_staged");
    CHECK(other.warnings.empty());
  }
}

TEST_CASE("selection: forced algorithms, restriction fallbacks and the default", "[coll][selection]") {
  const SelectionTable t = parse_ok(
      "allgather * * pow2 recursive_doubling\n"
      "allgather * * - bruck\n"
      "allreduce * * - ring\n");
  // Forced and valid.
  Decision d = select_algorithm(t, key(Collective::allgather, 6, 10), find_algorithm(Collective::allgather, "ring"));
  CHECK(std::string(d.algorithm->name) == "ring");
  CHECK(d.reason == "FABMPI_ALLGATHER_ALGORITHM");
  CHECK(d.warnings.empty());
  // Forced but not valid (needs a power of two): warning, then the table's first valid match.
  d = select_algorithm(t, key(Collective::allgather, 6, 10),
                       find_algorithm(Collective::allgather, "recursive_doubling"));
  CHECK(std::string(d.algorithm->name) == "bruck");
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0].find("power-of-two") != std::string::npos);
  CHECK(d.reason == "test line 2");
  // The table's match is restricted (ring needs a commutative op): warning, then the default.
  SelectionKey k = key(Collective::allreduce, 4, 10);
  k.commutative = false;
  d = select_algorithm(t, k, nullptr);
  CHECK(std::string(d.algorithm->name) == "recursive_doubling");
  CHECK(d.reason == "default");
  REQUIRE(d.warnings.size() == 1);
  CHECK(d.warnings[0].find("commutative") != std::string::npos);
  // No rule at all: the default, silently.
  d = select_algorithm(t, key(Collective::scan, 4, 10), nullptr);
  CHECK(std::string(d.algorithm->name) == "linear");
  CHECK(d.warnings.empty());
  // Predicates and ranges.
  Rule r = t.rules[0];
  CHECK(r.matches(key(Collective::allgather, 8, 0)));
  CHECK_FALSE(r.matches(key(Collective::allgather, 7, 0)));
  CHECK_FALSE(r.matches(key(Collective::allgatherv, 8, 0)));
  const SelectionTable ranges = parse_ok("bcast 2-4 100-200 !in_place binomial\n");
  SelectionKey b = key(Collective::bcast, 3, 150);
  CHECK(ranges.rules[0].matches(b));
  b.in_place = true;
  CHECK_FALSE(ranges.rules[0].matches(b));
  CHECK_FALSE(ranges.rules[0].matches(key(Collective::bcast, 5, 150)));
  CHECK_FALSE(ranges.rules[0].matches(key(Collective::bcast, 3, 201)));
  CHECK_FALSE(ranges.rules[0].matches(key(Collective::bcast, 3, 99)));
}
