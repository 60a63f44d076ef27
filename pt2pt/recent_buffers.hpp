// Which large buffers this rank's point-to-point transfers touched lately, to tell whether a large
// receive buffer is probably still in the cache when the next message lands in it.
//
// Why: a receive of FABMPI_NT_MIN-default bytes or more (a quarter of the last-level cache) is written
// with non-temporal stores, because plain stores into a destination that is not cached first read
// every line in and evict the data still in flight (pt2pt/README.md, "Past the caches"). That is right
// for a ping-pong, where both ranks' send and receive buffers together outgrow the cache (8 MiB on a
// 32 MiB L3: non-temporal 513 against plain 699 us), and wrong for a stream of messages into one reused
// buffer whose lines stay cached between messages (8 MiB: plain 50 against non-temporal 38 GB/s, on
// the twenty-first session's Zen 5). The difference is the working set between two receives into the
// same buffer, which this list estimates the way an LRU stack distance does: the bytes of the distinct
// buffers touched since, plus the receive's own source and destination, against this rank's share of
// the cache.
//
// Only what fabmpi's own large transfers touched is seen; an application that sweeps other large
// arrays between receives is caught only by the age limit (a buffer last touched more than
// kMaxAgeNs ago counts as evicted).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace fabmpi::pt2pt {

class RecentBuffers {
 public:
  // A destination last touched longer ago than this is taken as evicted: back-to-back large messages
  // arrive within a few hundred microseconds (8 MiB at 30 GB/s: 280 us).
  static constexpr std::uint64_t kMaxAgeNs = 2'000'000;

  // `cache_share`: the bytes of last-level cache this rank may count on (its size over the ranks
  // sharing it); `min_bytes`: smaller transfers are not tracked (they neither decide nor matter).
  RecentBuffers(std::size_t cache_share, std::size_t min_bytes) noexcept
      : cache_share_(cache_share), min_bytes_(min_bytes) {}

  std::size_t min_bytes() const noexcept { return min_bytes_; }

  // A transfer read or wrote `bytes` at `addr` in rank `owner`'s memory at time `now_ns`.
  void touch(int owner, std::uintptr_t addr, std::size_t bytes, std::uint64_t now_ns) noexcept {
    if (bytes < min_bytes_) return;
    std::size_t i = 0;
    while (i < count_ && !(entries_[i].owner == owner && entries_[i].addr == addr)) ++i;
    if (i == count_) {
      if (count_ < entries_.size()) ++count_;
      i = count_ - 1;  // a new buffer takes the least recent slot (or a free one)
    }
    for (; i > 0; --i) entries_[i] = entries_[i - 1];
    entries_[0] = Entry{owner, addr, bytes, now_ns};
  }

  // Whether `bytes` received into this rank's (`me`) buffer `dest` from `owner`'s `source` will find
  // the destination's lines still cached: `dest` was touched (at least that large) within kMaxAgeNs,
  // and the distinct buffers touched since, with this transfer's source and destination, fit in the
  // cache share.
  bool still_cached(int me, std::uintptr_t dest, std::size_t bytes, int owner, std::uintptr_t source,
                    std::uint64_t now_ns) const noexcept {
    std::size_t working_set = 2 * bytes;
    for (std::size_t i = 0; i < count_; ++i) {
      const Entry& e = entries_[i];
      if (e.owner == me && e.addr == dest)
        return e.bytes >= bytes && now_ns - e.at <= kMaxAgeNs && working_set <= cache_share_;
      if (!(e.owner == owner && e.addr == source)) working_set += e.bytes;
    }
    return false;
  }

 private:
  struct Entry {
    int owner = -1;
    std::uintptr_t addr = 0;
    std::size_t bytes = 0;
    std::uint64_t at = 0;
  };
  std::array<Entry, 8> entries_{};  // most recent first
  std::size_t count_ = 0;
  std::size_t cache_share_;
  std::size_t min_bytes_;
};

}  // namespace fabmpi::pt2pt
