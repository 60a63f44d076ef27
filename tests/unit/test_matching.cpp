// The matching queues on their own: wildcard rules, posting order, arrival order, channel and context
// separation, probes that leave messages in place, cancellation.
#include <catch2/catch.hpp>

#include "pt2pt/matching.hpp"

using fabmpi::pt2pt::Envelope;
using fabmpi::pt2pt::MatchQueue;
using fabmpi::pt2pt::envelope_matches;

namespace {
constexpr std::uint8_t kUser = 0, kCollective = 1;
Envelope msg(int source, int tag, std::uint32_t context = 0, std::uint8_t channel = kUser) {
  return Envelope{context, channel, source, tag};
}
}  // namespace

TEST_CASE("envelopes match exactly or through wildcards", "[matching]") {
  CHECK(envelope_matches(msg(1, 5), msg(1, 5)));
  CHECK_FALSE(envelope_matches(msg(1, 5), msg(2, 5)));
  CHECK_FALSE(envelope_matches(msg(1, 5), msg(1, 6)));
  CHECK(envelope_matches(msg(MPI_ANY_SOURCE, 5), msg(3, 5)));
  CHECK(envelope_matches(msg(1, MPI_ANY_TAG), msg(1, 0)));
  CHECK(envelope_matches(msg(MPI_ANY_SOURCE, MPI_ANY_TAG), msg(7, 12345)));
  CHECK_FALSE(envelope_matches(msg(MPI_ANY_SOURCE, MPI_ANY_TAG, 1), msg(7, 1, 2)));
}

TEST_CASE("collective traffic never matches user receives, MPI_ANY_TAG included", "[matching]") {
  MatchQueue<int> unexpected;
  unexpected.push(msg(0, 3, 0, kCollective), 1);
  CHECK_FALSE(unexpected.take_first_matching(msg(MPI_ANY_SOURCE, MPI_ANY_TAG, 0, kUser)));
  CHECK(unexpected.peek_first_matching(msg(0, MPI_ANY_TAG, 0, kUser)) == nullptr);
  auto got = unexpected.take_first_matching(msg(0, 3, 0, kCollective));
  REQUIRE(got);
  CHECK(*got == 1);
  CHECK(unexpected.empty());
}

TEST_CASE("communicator contexts are separate", "[matching]") {
  MatchQueue<int> posted;
  posted.push(msg(MPI_ANY_SOURCE, MPI_ANY_TAG, 4), 40);
  CHECK_FALSE(posted.take_first_accepting(msg(0, 0, 5)));
  auto got = posted.take_first_accepting(msg(0, 0, 4));
  REQUIRE(got);
  CHECK(*got == 40);
}

TEST_CASE("unexpected messages match in arrival order (non-overtaking)", "[matching]") {
  MatchQueue<int> unexpected;
  for (int i = 0; i < 10; ++i) unexpected.push(msg(i % 2, 7), i);
  // From source 1 with tag 7: 1, 3, 5, ...
  for (int expected = 1; expected < 10; expected += 2) {
    auto got = unexpected.take_first_matching(msg(1, 7));
    REQUIRE(got);
    CHECK(*got == expected);
  }
  // ANY_SOURCE takes the oldest remaining
  auto got = unexpected.take_first_matching(msg(MPI_ANY_SOURCE, MPI_ANY_TAG));
  REQUIRE(got);
  CHECK(*got == 0);
  CHECK(unexpected.size() == 4);
}

TEST_CASE("posted receives match in posting order; a specific receive posted first wins", "[matching]") {
  MatchQueue<int> posted;
  posted.push(msg(2, 9), 100);                          // specific
  posted.push(msg(MPI_ANY_SOURCE, 9), 200);             // any source
  posted.push(msg(2, MPI_ANY_TAG), 300);                // any tag
  auto a = posted.take_first_accepting(msg(3, 9));      // only the wildcard source accepts
  REQUIRE(a);
  CHECK(*a == 200);
  auto b = posted.take_first_accepting(msg(2, 9));      // specific one was posted first
  REQUIRE(b);
  CHECK(*b == 100);
  auto c = posted.take_first_accepting(msg(2, 1));
  REQUIRE(c);
  CHECK(*c == 300);
  CHECK_FALSE(posted.take_first_accepting(msg(2, 9)));
}

TEST_CASE("probe leaves the message; cancel removes a posted receive", "[matching]") {
  MatchQueue<int> unexpected;
  unexpected.push(msg(1, 1), 11);
  unexpected.push(msg(1, 2), 12);
  Envelope found;
  const int* p = unexpected.peek_first_matching(msg(1, MPI_ANY_TAG), &found);
  REQUIRE(p);
  CHECK(*p == 11);
  CHECK(found.tag == 1);
  CHECK(unexpected.size() == 2);

  MatchQueue<int> posted;
  posted.push(msg(0, 0), 1);
  posted.push(msg(0, 0), 2);
  auto removed = posted.remove_if_first([](int v) { return v == 2; });
  REQUIRE(removed);
  CHECK(*removed == 2);
  auto left = posted.take_first_accepting(msg(0, 0));
  REQUIRE(left);
  CHECK(*left == 1);
  CHECK(posted.empty());
}
