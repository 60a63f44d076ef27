// The native shm transport's SPSC ring (pt2pt/shm_ring.hpp): wraparound with skip records, back-pressure
// when full, FIFO order, and a two-thread producer/consumer run.
#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "pt2pt/shm_ring.hpp"

using namespace fabmpi::pt2pt;

namespace {

struct TestRing {
  explicit TestRing(std::size_t capacity) : capacity(capacity), data(capacity) {}
  RingProducer producer() { return RingProducer(&control, data.data(), capacity); }
  RingConsumer consumer() { return RingConsumer(&control, data.data(), capacity); }
  std::size_t capacity;
  RingControl control;
  std::vector<unsigned char> data;
};

bool put(RingProducer& p, std::uint32_t value, std::size_t bytes) {
  unsigned char* d = p.reserve(bytes, 1);
  if (!d) return false;
  std::memset(d, static_cast<int>(value & 0xff), bytes);
  if (bytes >= 4) std::memcpy(d, &value, 4);
  p.commit();
  return true;
}

// Puts 120-byte records (128 bytes each in the ring) numbered 0, 1, ... until the ring refuses one;
// returns how many went in.
int fill_with_120_byte_records(RingProducer& p) {
  int written = 0;
  while (put(p, static_cast<std::uint32_t>(written), 120)) ++written;
  return written;
}

std::uint32_t take(RingConsumer& c, std::size_t expect_bytes) {
  const RecordHeader* r = c.peek();
  REQUIRE(r != nullptr);
  REQUIRE(r->type == 1u);
  REQUIRE(r->bytes == expect_bytes);
  const auto* d = reinterpret_cast<const unsigned char*>(r + 1);
  std::uint32_t value = 0;
  if (expect_bytes >= 4) std::memcpy(&value, d, 4);
  for (std::size_t i = 4; i < expect_bytes; ++i) REQUIRE(d[i] == (value & 0xff));
  c.pop(r);
  return value;
}

}  // namespace

TEST_CASE("shm ring: records come out in order, empty ring peeks nothing") {
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  REQUIRE(c.peek() == nullptr);
  for (std::uint32_t i = 0; i < 10; ++i) REQUIRE(put(p, i, 4 + i * 7));
  for (std::uint32_t i = 0; i < 10; ++i) REQUIRE(take(c, 4 + i * 7) == i);
  REQUIRE(c.peek() == nullptr);
  REQUIRE(p.empty_for_consumer());
}

TEST_CASE("shm ring: a full ring refuses, and accepts again once the consumer frees space") {
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  REQUIRE(fill_with_120_byte_records(p) == 32);  // 32 records of 128 bytes fill the ring exactly
  REQUIRE(p.reserve(0, 1) == nullptr);
  REQUIRE(take(c, 120) == 0u);
  REQUIRE(put(p, 1000, 120));   // the freed record is reusable
  REQUIRE_FALSE(put(p, 1001, 120));
  for (int i = 1; i < 32; ++i) REQUIRE(take(c, 120) == static_cast<std::uint32_t>(i));
  REQUIRE(take(c, 120) == 1000u);
  REQUIRE(c.peek() == nullptr);
}

TEST_CASE("shm ring: records never straddle the end (skip records), across many wraps") {
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  REQUIRE(p.max_payload() == 2048 - sizeof(RecordHeader));
  std::uint32_t next_put = 0, next_take = 0;
  // Sizes that do not divide the ring, up to the largest allowed record.
  const std::size_t sizes[] = {1000, 56, 2040, 300, 1500, 8};
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = sizes[round % 6];
    while (!put(p, next_put, n)) {
      const std::size_t m = sizes[next_take % 6];
      REQUIRE(take(c, m) == next_take);
      ++next_take;
    }
    ++next_put;
  }
  while (next_take < next_put) {
    REQUIRE(take(c, sizes[next_take % 6]) == next_take);
    ++next_take;
  }
  REQUIRE(c.peek() == nullptr);
}

TEST_CASE("shm ring: the largest record always fits an empty ring, whatever the wrap position") {
  for (std::size_t offset = 0; offset < 4096; offset += 64) {
    TestRing ring(4096);
    auto p = ring.producer();
    auto c = ring.consumer();
    if (offset) {
      REQUIRE(put(p, 7, offset - sizeof(RecordHeader)));
      REQUIRE(take(c, offset - sizeof(RecordHeader)) == 7u);
    }
    REQUIRE(put(p, 9, p.max_payload()));
    REQUIRE(take(c, p.max_payload()) == 9u);
  }
}

TEST_CASE("shm ring: two threads, back-pressure and order under concurrency") {
  TestRing ring(8192);
  constexpr std::uint32_t kCount = 200000;
  std::thread producer([&] {
    auto p = ring.producer();
    for (std::uint32_t i = 0; i < kCount; ++i) {
      const std::size_t n = 4 + (i * 37) % 900;
      while (!put(p, i, n)) std::this_thread::yield();
    }
  });
  auto c = ring.consumer();
  std::uint32_t expected = 0;
  bool ok = true;
  while (expected < kCount && ok) {
    const RecordHeader* r = c.peek();
    if (!r) {
      std::this_thread::yield();
      continue;
    }
    std::uint32_t value;
    std::memcpy(&value, r + 1, 4);
    ok = value == expected && r->bytes == 4 + (expected * 37) % 900;
    c.pop(r);
    ++expected;
  }
  producer.join();
  REQUIRE(ok);
  REQUIRE(expected == kCount);
}

TEST_CASE("shm ring: stale payload shaped like record headers is never read as a record") {
  // Every cache line inside each payload carries what looks like a published header (bytes 8, type 1)
  // where a later lap's record may start; the consumer must only ever see the records put.
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  const std::size_t sizes[] = {2040, 120, 700, 56, 1000, 8, 1500};
  auto put_forged = [&](std::uint32_t value, std::size_t bytes) {
    unsigned char* d = p.reserve(bytes, 1);
    if (!d) return false;
    std::memset(d, static_cast<int>(value & 0xff), bytes);
    const RecordHeader forged{8, 1};
    for (std::size_t line = 64; line <= bytes; line += 64)  // header of the line at record offset `line`
      std::memcpy(d + line - sizeof(RecordHeader), &forged, sizeof forged);
    std::memcpy(d, &value, 4);
    p.commit();
    return true;
  };
  std::uint32_t next_put = 0, next_take = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = sizes[round % 7];
    while (!put_forged(next_put, n)) {
      const RecordHeader* r = c.peek();
      REQUIRE(r != nullptr);
      REQUIRE(r->bytes == sizes[next_take % 7]);
      std::uint32_t value = 0;
      std::memcpy(&value, r + 1, 4);
      REQUIRE(value == next_take);
      c.pop(r);
      ++next_take;
    }
    ++next_put;
    // Drain completely now and then so the consumer sits at every kind of position.
    if (round % 11 == 0)
      while (next_take < next_put) {
        const RecordHeader* r = c.peek();
        REQUIRE(r != nullptr);
        std::uint32_t value = 0;
        std::memcpy(&value, r + 1, 4);
        REQUIRE(value == next_take);
        c.pop(r);
        ++next_take;
        REQUIRE((next_take < next_put || c.peek() == nullptr));
      }
  }
}

TEST_CASE("shm ring: a deferred pop frees its space only when released (or at the next pop)") {
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  REQUIRE(fill_with_120_byte_records(p) == 32);
  const RecordHeader* r = c.peek();
  REQUIRE(r != nullptr);
  c.pop_deferred(r);
  REQUIRE_FALSE(put(p, 1000, 120));  // still held
  const RecordHeader* next = c.peek();  // the consumer has moved on: it sees record 1
  REQUIRE(next != nullptr);
  std::uint32_t value = 0;
  std::memcpy(&value, next + 1, 4);
  REQUIRE(value == 1u);
  c.release_deferred();
  REQUIRE(put(p, 1000, 120));  // record 0's space is back
  c.release_deferred();        // nothing deferred: no effect
  REQUIRE_FALSE(put(p, 1001, 120));
}

TEST_CASE("shm ring: deferred pops across many wraps and skip records") {
  TestRing ring(4096);
  auto p = ring.producer();
  auto c = ring.consumer();
  const std::size_t sizes[] = {1000, 56, 2040, 300, 1500, 8, 777};
  std::uint32_t next_put = 0, next_take = 0;
  auto take_deferred = [&] {
    const RecordHeader* r = c.peek();
    REQUIRE(r != nullptr);
    REQUIRE(r->bytes == sizes[next_take % 7]);
    std::uint32_t value = 0;
    if (r->bytes >= 4) std::memcpy(&value, r + 1, 4);
    else value = next_take;
    REQUIRE(value == next_take);
    c.pop_deferred(r);
    ++next_take;
  };
  for (int round = 0; round < 3000; ++round) {
    while (!put(p, next_put, sizes[next_put % 7])) {
      if (next_take == next_put) c.release_deferred();  // empty but full: the deferred record holds it
      else take_deferred();
    }
    ++next_put;
    if (round % 5 == 0) c.release_deferred();
  }
  while (next_take < next_put) take_deferred();
  c.release_deferred();
  REQUIRE(c.peek() == nullptr);
  REQUIRE(p.empty_for_consumer());
}
