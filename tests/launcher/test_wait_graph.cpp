// mpirun's reading of hang reports (launcher/wait_graph.hpp).
#include <catch2/catch.hpp>

#include "launcher/wait_graph.hpp"

using namespace fabmpi::launcher;
using Kind = RankWaitState::Kind;

namespace {
RankWaitState waiting(std::vector<int> on, bool any = false) {
  RankWaitState s;
  s.kind = Kind::waiting;
  s.waits_for = std::move(on);
  s.any_source = any;
  return s;
}
RankWaitState state(Kind kind, int code = 0) {
  RankWaitState s;
  s.kind = kind;
  s.exit_code = code;
  return s;
}
}  // namespace

TEST_CASE("wait summaries parse") {
  std::vector<int> ranks;
  bool any = false;
  REQUIRE(parse_wait_summary("waiting on world ranks: 1 3 any", &ranks, &any));
  CHECK(ranks == std::vector<int>{1, 3});
  CHECK(any);
  REQUIRE(parse_wait_summary("waiting on world ranks: 0", &ranks, &any));
  CHECK_FALSE(any);
  CHECK_FALSE(parse_wait_summary("waiting on world ranks: x", &ranks, &any));
  CHECK_FALSE(parse_wait_summary("something else", &ranks, &any));
}

TEST_CASE("a two-rank and a three-rank cycle are reported once each, from their lowest rank") {
  const auto lines = explain_waits({waiting({1}), waiting({0}), waiting({4}), waiting({2}), waiting({3})});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "deadlock: rank 0 waits for rank 1, which waits for rank 0");
  CHECK(lines[1] == "deadlock: rank 2 waits for rank 4, which waits for rank 3, which waits for rank 2");
}

TEST_CASE("waits on ranks that will not answer") {
  const auto lines = explain_waits({waiting({1, 2, 3}), state(Kind::exited, 3), state(Kind::finalized),
                                    state(Kind::silent)});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "rank 0 waits for rank 1, which exited (code 3)");
  CHECK(lines[1] == "rank 0 waits for rank 2, which has called MPI_Finalize");
  CHECK(lines[2] == "rank 0 waits for rank 3, which is not waiting in MPI (computing, or blocked outside MPI)");
}

TEST_CASE("a rank waiting for itself; chains that end in a waiting rank are no cycle") {
  CHECK(explain_waits({waiting({0})}) == std::vector<std::string>{"deadlock: rank 0 waits for itself"});
  CHECK(explain_waits({waiting({1}), waiting({2}), waiting({}, true)}).empty());
}
