// common/memory_copy: the non-temporal copy (and the copy that takes the source's lines) against memcpy at every alignment and length that changes
// its path (head up to the first 16-byte boundary, 64-byte blocks, tail), and the past-caches thresholds.
#include <catch2/catch.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/memory_copy.hpp"

using fabmpi::copy_non_temporal;
using fabmpi::past_caches_threshold;

namespace {

unsigned char pattern(std::size_t i) { return static_cast<unsigned char>((i * 131u + 7u) & 0xff); }

}  // namespace

TEST_CASE("copy_non_temporal copies exactly the range, at any alignment", "[memory_copy]") {
  std::vector<unsigned char> src(4096 + 128), dst(4096 + 256);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(i);
  for (std::size_t dst_offset = 0; dst_offset < 64; dst_offset += 3) {
    for (std::size_t src_offset : {0, 1, 8, 15, 16, 33}) {
      for (std::size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200, 1000, 4096}) {
        std::fill(dst.begin(), dst.end(), 0xEE);
        copy_non_temporal(dst.data() + dst_offset, src.data() + src_offset, n);
        for (std::size_t i = 0; i < dst.size(); ++i) {
          const bool inside = i >= dst_offset && i < dst_offset + n;
          const unsigned char want = inside ? src[src_offset + (i - dst_offset)] : 0xEE;
          if (dst[i] != want) {
            INFO("dst_offset " << dst_offset << " src_offset " << src_offset << " n " << n << " byte " << i);
            REQUIRE(static_cast<int>(dst[i]) == static_cast<int>(want));
          }
        }
      }
    }
  }
}

TEST_CASE("copy_non_temporal moves a large buffer intact", "[memory_copy]") {
  const std::size_t n = (std::size_t(3) << 20) + 77;
  std::vector<unsigned char> src(n), dst(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) src[i] = pattern(i);
  copy_non_temporal(dst.data() + 1, src.data(), n);
  REQUIRE(dst[0] == 0);
  REQUIRE(std::equal(src.begin(), src.end(), dst.begin() + 1));
}

TEST_CASE("past-caches thresholds", "[memory_copy]") {
  const std::size_t mib = std::size_t(1) << 20;
  // FABMPI_NT_MIN, when set, is the answer for both.
  REQUIRE(past_caches_threshold(12345) == 12345);
  REQUIRE(past_caches_threshold(1, 64, 4) == 1);
  // Automatic: at least 1 MiB; a collective's share never exceeds the cache, and more ranks on the node
  // never raise it.
  const fabmpi::LastLevelCache llc = fabmpi::last_level_cache();
  REQUIRE(llc.cpus >= 1);
  const std::size_t pt2pt = past_caches_threshold(0);
  REQUIRE(pt2pt >= mib);
  if (llc.bytes) REQUIRE(pt2pt == std::max(llc.bytes / 4, mib));
  std::size_t previous = past_caches_threshold(0, 1, 4);
  REQUIRE(previous >= mib);
  if (llc.bytes) REQUIRE(previous == std::max(llc.bytes, mib));
  for (int ranks : {2, 3, 4, 8, 16, 64, 1024}) {
    const std::size_t t = past_caches_threshold(0, ranks, 4);
    REQUIRE(t >= mib);
    REQUIRE(t <= previous);
    previous = t;
  }
}

TEST_CASE("copy_and_own_source copies the range and leaves the source as it was", "[memory_copy]") {
  std::vector<unsigned char> src(4096 + 128), dst(4096 + 256);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(i);
  for (bool past_caches : {false, true}) {
    for (std::size_t dst_offset = 0; dst_offset < 64; dst_offset += 5) {
      for (std::size_t src_offset : {0, 1, 8, 15, 16, 33, 63}) {
        for (std::size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200, 1000, 4096}) {
          std::fill(dst.begin(), dst.end(), 0xEE);
          fabmpi::copy_and_own_source(dst.data() + dst_offset, src.data() + src_offset, n, past_caches);
          for (std::size_t i = 0; i < dst.size(); ++i) {
            const bool inside = i >= dst_offset && i < dst_offset + n;
            const unsigned char want = inside ? pattern(src_offset + (i - dst_offset)) : 0xEE;
            if (dst[i] != want) {
              INFO("past_caches " << past_caches << " dst_offset " << dst_offset << " src_offset " << src_offset
                                  << " n " << n << " byte " << i);
              REQUIRE(static_cast<int>(dst[i]) == static_cast<int>(want));
            }
          }
          for (std::size_t i = 0; i < src.size(); ++i)
            if (src[i] != pattern(i)) {
              INFO("source byte " << i << " changed");
              REQUIRE(static_cast<int>(src[i]) == static_cast<int>(pattern(i)));
            }
        }
      }
    }
  }
}

TEST_CASE("copy_and_own_source touches nothing outside the source range", "[memory_copy]") {
  // The range sits between two inaccessible pages: a load or store one byte outside it faults.
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  auto* base = static_cast<unsigned char*>(p);
  REQUIRE(mprotect(base, page, PROT_NONE) == 0);
  REQUIRE(mprotect(base + 3 * page, page, PROT_NONE) == 0);
  std::vector<unsigned char> dst(2 * page);
  for (std::size_t i = 0; i < 2 * page; ++i) base[page + i] = pattern(i);
  for (std::size_t start : {std::size_t{0}, std::size_t{1}, std::size_t{37}}) {
    for (std::size_t n : {2 * page - start, 2 * page - start - 1, 2 * page - start - 63}) {
      for (bool past_caches : {false, true}) {
        fabmpi::copy_and_own_source(dst.data(), base + page + start, n, past_caches);
        for (std::size_t i = 0; i < n; ++i) REQUIRE(dst[i] == pattern(start + i));
      }
    }
  }
  munmap(p, 4 * page);
}

TEST_CASE("SourceCopyChooser follows the faster way, judging a probe by its second copy", "[memory_copy]") {
  using fabmpi::SourceCopyChooser;
  const std::size_t n = std::size_t{1} << 20;
  // Feeds copies that take `own_ns` / `plain_ns` for the way asked; returns how many of `count` owned.
  auto run = [&](SourceCopyChooser& c, int count, std::uint64_t own_ns, std::uint64_t plain_ns) {
    int owned = 0;
    for (int i = 0; i < count; ++i) {
      const bool own = c.own_next(n);
      owned += own;
      c.record(own, n, own ? own_ns : plain_ns);
    }
    return owned;
  };
  SourceCopyChooser chooser;
  CHECK(chooser.owning());  // taking the lines is the first choice
  // Owning is 5x slower (a buffer its owner reads between sends): the first probe switches.
  run(chooser, 6, 50000, 10000);
  CHECK(!chooser.owning());
  // Then owning becomes faster: a later probe switches back, and probes get rarer while it holds.
  run(chooser, 40, 10000, 50000);
  CHECK(chooser.owning());
  CHECK(run(chooser, 2000, 10000, 50000) > 1980);
  // Small copies are not timed and follow the current choice.
  SourceCopyChooser small;
  for (int i = 0; i < 100; ++i) {
    CHECK(small.own_next(4096));
    small.record(true, 4096, 1000000);
  }
  // A probe's first copy (the lines changing hands) is not judged: a slow one, then a fast one, switches.
  SourceCopyChooser transition;
  run(transition, 2, 10000, 10000);  // two owned copies (the first not averaged either)
  REQUIRE(!transition.own_next(n));
  transition.record(false, n, 100000);
  CHECK(transition.owning());
  REQUIRE(!transition.own_next(n));
  transition.record(false, n, 5000);
  CHECK(!transition.owning());
  // Long settled on owning (probes far apart), then one copy 10x slower: the next copy is a probe.
  SourceCopyChooser settled;
  run(settled, 600, 10000, 50000);
  REQUIRE(settled.owning());
  REQUIRE(settled.own_next(n));
  settled.record(true, n, 100000);
  CHECK(!settled.own_next(n));
  // As fast both ways: no switch.
  SourceCopyChooser level;
  run(level, 40, 10000, 10000);
  CHECK(level.owning());
}

TEST_CASE("copy_from_peer_source copies the range either way", "[memory_copy]") {
  fabmpi::SourceCopyChooser chooser;
  std::vector<unsigned char> src(200000), dst(200000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(i);
  for (int i = 0; i < 40; ++i) {
    std::fill(dst.begin(), dst.end(), 0);
    const std::size_t n = i % 2 ? src.size() - 7 : 1000;
    fabmpi::copy_from_peer_source(chooser, dst.data(), src.data(), n, i % 3 == 0);
    for (std::size_t k = 0; k < n; ++k) REQUIRE(dst[k] == pattern(k));
    REQUIRE(dst[n] == 0);
    for (std::size_t k = 0; k < src.size(); ++k) REQUIRE(src[k] == pattern(k));
  }
}

// copy_memory takes its own loop when the page offsets of destination and source nearly alias (glibc's
// rep movsb case, memory_copy.hpp): every such distance, lengths around the loop's 128-byte steps and the
// thresholds, nothing outside the range written.
TEST_CASE("copy_memory copies exactly the range at every near-aliasing distance", "[memory_copy]") {
  const std::size_t page = 4096;
  std::vector<unsigned char> src(3 * page + (std::size_t{1} << 20)), dst(3 * page + (std::size_t{1} << 20) + 256);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(i);
  auto* src_page = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(src.data()) + page - 1) & ~(page - 1));
  auto* dst_page = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(dst.data()) + page - 1) & ~(page - 1));
  for (std::size_t distance : {0, 1, 7, 16, 31, 32, 48, 63, 64, 100, 4095}) {
    for (std::size_t src_offset : {0, 16, 40}) {
      for (std::size_t n : {std::size_t{2048}, std::size_t{2049}, std::size_t{2050}, std::size_t{4096 + 77},
                            std::size_t{65536}, std::size_t{65536 + 127}, std::size_t{(1u << 20) - 1}, std::size_t{1} << 20}) {
        unsigned char* s = src_page + src_offset;
        unsigned char* d = dst_page + ((src_offset + distance) % page);
        if (d + n + 64 > dst.data() + dst.size() || s + n > src.data() + src.size()) continue;
        std::fill(d - (d > dst.data() ? 1 : 0), d + n + 1, 0xEE);
        fabmpi::copy_memory(d, s, n);
        INFO("distance " << distance << " src_offset " << src_offset << " n " << n);
        REQUIRE(std::equal(d, d + n, s));
        if (d > dst.data()) REQUIRE(static_cast<int>(d[-1]) == 0xEE);
        REQUIRE(static_cast<int>(d[n]) == 0xEE);
      }
    }
  }
}
