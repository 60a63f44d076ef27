// RateChooser (common/rate_chooser.hpp): the faster way wins, probes are judged by their second sample,
// and samples that arrive by a way nobody asked for (a choice that reached a peer late) change nothing.
#include <catch2/catch.hpp>

#include "common/rate_chooser.hpp"

using fabmpi::RateChooser;

namespace {
constexpr std::size_t kBytes = 65536;

// Takes `count` operations the way the chooser asks, each costing false_ns / true_ns; returns how many
// went the `true` way.
int run(RateChooser& c, int count, std::uint64_t false_ns, std::uint64_t true_ns) {
  int taken = 0;
  for (int i = 0; i < count; ++i) {
    const bool way = c.next();
    taken += way;
    c.record(way, kBytes, way ? true_ns : false_ns);
  }
  return taken;
}
}  // namespace

TEST_CASE("RateChooser starts on its initial way and moves to the faster one", "[rate_chooser]") {
  RateChooser c;
  CHECK(!c.current());
  run(c, 6, 10000, 4000);  // two of the first way, then a probe of two
  CHECK(c.current());
  CHECK(c.rate() == Approx(kBytes / 4000.0));
  // Settled: probes come at doubling intervals, so nearly every operation goes the faster way.
  CHECK(run(c, 3000, 10000, 4000) > 2950);
  RateChooser t(true);
  CHECK(t.current());
}

TEST_CASE("RateChooser keeps its way when the other is level or within the margin", "[rate_chooser]") {
  RateChooser c;
  run(c, 200, 10000, 10000);
  CHECK(!c.current());
  run(c, 200, 10000, 9500);  // 5 % faster: below the 1.1x margin
  CHECK(!c.current());
}

TEST_CASE("RateChooser ignores uninvited samples and counts late ones to their way", "[rate_chooser]") {
  RateChooser c;
  run(c, 2, 10000, 4000);
  REQUIRE(c.next());  // a probe of the other way is asked for
  // Two more arrive the old way first (sent before the request reached the peer): averaged, no verdict.
  c.record(false, kBytes, 10000);
  c.record(false, kBytes, 10000);
  CHECK(!c.current());
  REQUIRE(c.next());
  c.record(true, kBytes, 20000);  // the probe's first: not judged even though slow
  CHECK(!c.current());
  c.record(true, kBytes, 4000);   // its second: faster by 2.5x, switch
  CHECK(c.current());
  // A sample of the old way nobody asked for changes nothing.
  for (int i = 0; i < 3; ++i) c.record(false, kBytes, 100);
  CHECK(c.current());
}

TEST_CASE("RateChooser probes at once after a collapse of the current way's rate", "[rate_chooser]") {
  RateChooser c;
  run(c, 1000, 4000, 10000);  // settled on `false`, probes far apart
  REQUIRE(!c.current());
  REQUIRE(!c.next());
  c.record(false, kBytes, 40000);  // 10x slower than its average
  CHECK(c.next());
}
