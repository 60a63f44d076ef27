// RecentBuffers (pt2pt/recent_buffers.hpp): a large receive buffer counts as still cached only when it
// was touched lately and the distinct buffers touched since, with the receive's source and
// destination, fit in the rank's share of the cache.
#include <catch2/catch.hpp>

#include "pt2pt/recent_buffers.hpp"

using fabmpi::pt2pt::RecentBuffers;

namespace {
constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::uint64_t kUs = 1000;
constexpr int kMe = 1, kPeer = 0;
constexpr std::uintptr_t kRecvBuf = 0x100000, kPeerSend = 0x200000, kMySend = 0x300000;

// One receive as the engine records it: the decision first, then source and destination touched.
bool receive(RecentBuffers& r, std::uintptr_t dest, std::size_t n, std::uintptr_t source, std::uint64_t now) {
  const bool cached = r.still_cached(kMe, dest, n, kPeer, source, now);
  r.touch(kPeer, source, n, now);
  r.touch(kMe, dest, n, now);
  return cached;
}
}  // namespace

TEST_CASE("a stream into one reused buffer that fits the cache share stays cached", "[recent_buffers]") {
  RecentBuffers r(16 * kMiB, kMiB);
  CHECK_FALSE(receive(r, kRecvBuf, 8 * kMiB, kPeerSend, 0));  // never seen: not cached
  for (int i = 1; i < 10; ++i) CHECK(receive(r, kRecvBuf, 8 * kMiB, kPeerSend, i * 300 * kUs));
}

TEST_CASE("a stream whose source and destination outgrow the share is not cached", "[recent_buffers]") {
  RecentBuffers r(16 * kMiB, kMiB);
  for (int i = 0; i < 5; ++i) CHECK_FALSE(receive(r, kRecvBuf, 12 * kMiB, kPeerSend, i * 300 * kUs));
}

TEST_CASE("a ping-pong with separate send and receive buffers on both ranks is not cached", "[recent_buffers]") {
  RecentBuffers r(16 * kMiB, kMiB);
  for (int i = 0; i < 5; ++i) {
    CHECK_FALSE(receive(r, kRecvBuf, 8 * kMiB, kPeerSend, i * 600 * kUs));
    r.touch(kMe, kMySend, 8 * kMiB, i * 600 * kUs + 300 * kUs);  // this rank's reply
  }
}

TEST_CASE("an echo from the buffer just received into stays cached", "[recent_buffers]") {
  RecentBuffers r(16 * kMiB, kMiB);
  receive(r, kRecvBuf, 8 * kMiB, kPeerSend, 0);
  for (int i = 1; i < 5; ++i) {
    r.touch(kMe, kRecvBuf, 8 * kMiB, i * 600 * kUs - 300 * kUs);  // sent back from the same buffer
    CHECK(receive(r, kRecvBuf, 8 * kMiB, kPeerSend, i * 600 * kUs));
  }
}

TEST_CASE("an old, smaller or evicted destination is not cached", "[recent_buffers]") {
  RecentBuffers r(16 * kMiB, kMiB);
  receive(r, kRecvBuf, 4 * kMiB, kPeerSend, 0);
  CHECK_FALSE(r.still_cached(kMe, kRecvBuf, 8 * kMiB, kPeer, kPeerSend, 100 * kUs));  // larger than touched
  CHECK(r.still_cached(kMe, kRecvBuf, 4 * kMiB, kPeer, kPeerSend, 100 * kUs));
  CHECK_FALSE(r.still_cached(kMe, kRecvBuf, 4 * kMiB, kPeer, kPeerSend, RecentBuffers::kMaxAgeNs + 1));
  // Other buffers touched since push the working set past the share.
  r.touch(kMe, 0x400000, 6 * kMiB, 200 * kUs);
  r.touch(kMe, 0x500000, 6 * kMiB, 200 * kUs);
  CHECK_FALSE(r.still_cached(kMe, kRecvBuf, 4 * kMiB, kPeer, kPeerSend, 300 * kUs));
  // Transfers below the floor are not tracked at all.
  RecentBuffers small(16 * kMiB, kMiB);
  small.touch(kMe, kRecvBuf, kMiB / 2, 0);
  CHECK_FALSE(small.still_cached(kMe, kRecvBuf, kMiB / 2, kPeer, kPeerSend, 1));
}

TEST_CASE("more buffers than the list holds push out the least recent", "[recent_buffers]") {
  RecentBuffers r(1024 * kMiB, kMiB);
  r.touch(kMe, kRecvBuf, 2 * kMiB, 0);
  for (std::uintptr_t i = 1; i <= 8; ++i) r.touch(kMe, kRecvBuf + i * 0x1000000, 2 * kMiB, 0);
  CHECK_FALSE(r.still_cached(kMe, kRecvBuf, 2 * kMiB, kPeer, kPeerSend, 1));
  CHECK(r.still_cached(kMe, kRecvBuf + 8 * 0x1000000, 2 * kMiB, kPeer, kPeerSend, 1));
}
