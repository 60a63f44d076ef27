// Copies that choose where the destination's lines end up, and the cache size that decides it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/rate_chooser.hpp"

namespace fabmpi {

// memcpy for fabmpi's data paths, around one slow case of glibc's: from 2 KiB up to its non-temporal
// threshold glibc copies with `rep movsb`, and on AMD EPYC with FSRM that runs at 1.3-2.7 GB/s instead
// of 25-45 when the destination lies 1-63 bytes after the source modulo 4096 (the page offsets nearly
// alias; measured on the 2-core EPYC VM, twentieth session: 64 KiB at distance 16 1.8 GB/s, at 0, 80
// or 4080 34-44). Two malloc'd buffers whose page offsets differ by 16 are such a pair: the own block
// of an np=2 allgather of 64 KiB took 36 us of its 55. Such copies go through copy_memory_aliased, a
// backward AVX2 loop (memcpy without AVX2); the others are plain memcpy. Non-overlapping ranges only.
void copy_memory_aliased(void* dst, const void* src, std::size_t n) noexcept;
inline constexpr std::size_t kAliasedCopyMin = 2049, kAliasedCopyMax = std::size_t{1} << 20;
inline void copy_memory(void* dst, const void* src, std::size_t n) noexcept {
  const std::uintptr_t distance =
      (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  if (distance != 0 && distance < 64 && n >= kAliasedCopyMin && n < kAliasedCopyMax) {
    copy_memory_aliased(dst, src, n);
    return;
  }
  std::memcpy(dst, src, n);
}

// memcpy with non-temporal stores: the destination's lines are written to memory without being read
// into (or taken back from) any cache first, and without evicting what the caches hold. Fenced, so a
// flag published after it is seen after the data. Plain memcpy where SSE2 is missing.
void copy_non_temporal(void* dst, const void* src, std::size_t n) noexcept;

// memcpy that also stores source bytes back, unchanged, into the source (one byte of every cache line
// it covers): the source's lines end up modified in this core's cache instead of shared with the core
// that wrote them. For a source another process owns and rewrites soon (a mapped send buffer,
// pt2pt/shared_heap.hpp): its next write to a line we only read waits for the invalidation of our shared
// copy, while a line we hold modified is simply handed back. Measured on the development VM (AMD EPYC
// under KVM), ping-pong of freshly rewritten MPI_Alloc_mem buffers: the sender's memset of 128 KiB 14.4 us
// after a plain copy, 2.0 us after this one; of 8 MiB 2.2-2.6 ms after a copy past the caches, 0.4-0.5 ms.
// `past_caches`: the destination is written with non-temporal stores, as copy_non_temporal.
// Only [src, src + n) is stored to, so bytes next to the range, which others may write at the same time,
// are never touched. The caller must own the right to write the range: nobody may change it during the
// copy (an MPI send buffer), so the values stored back are the ones there.
void copy_and_own_source(void* dst, void* src, std::size_t n, bool past_caches) noexcept;

// Chooses, for copies out of one source another process owns (a peer's mapped send buffer), between
// copy_and_own_source and a plain copy, by the copy rates this process measures. Neither wins everywhere:
// taking the lines pays when the owner next rewrites them (a handoff instead of invalidations) and when
// nobody else touches them, and costs a round of invalidations per line, every time, when the owner reads
// the buffer between sends. Measured on the development VM (eighteenth session, docs/performance.md),
// np=2 exchange of one malloc'd buffer, us, owned / plain: the buffer read by its owner before each send
// 64 KiB 21.4 / 4.0, 1 MiB 84 / 40; rewritten before each send 64 KiB 7.1 / 14.0, 1 MiB 64 / 93.
// Copies under kTimedMin are not timed and follow the current choice; the rest go to a RateChooser
// (common/rate_chooser.hpp: probes of two copies judged by the second, at doubling intervals, brought
// forward by a copy at under a quarter of the usual rate: a buffer sent unchanged for a while, then read
// by its owner between sends, ran at 655 us per 1 MiB exchange until the next probe without that).
class SourceCopyChooser {
 public:
  static constexpr std::size_t kTimedMin = std::size_t{32} << 10;
  static constexpr unsigned kFirstProbeEvery = RateChooser::kFirstProbeEvery;
  static constexpr unsigned kMaxProbeEvery = RateChooser::kMaxProbeEvery;
  // Whether the next copy, of n bytes, should take the source's lines (copy_and_own_source).
  bool own_next(std::size_t n) noexcept { return n < kTimedMin ? chooser_.current() : chooser_.next(); }
  // The copy own_next(n) was asked for took ns nanoseconds.
  void record(bool own, std::size_t n, std::uint64_t ns) noexcept {
    if (n >= kTimedMin) chooser_.record(own, n, ns);
  }
  bool owning() const noexcept { return chooser_.current(); }

 private:
  RateChooser chooser_{true};  // true: own the lines
};

// Copies n bytes out of a source another process owns, the way `chooser` picks, timing it for the choice.
// `past_caches` as for copy_and_own_source (the plain copy is then copy_non_temporal).
void copy_from_peer_source(SourceCopyChooser& chooser, void* dst, void* src, std::size_t n, bool past_caches) noexcept;

// The largest cache of the CPU this process started on (the last-level cache, usually L3): its size
// (0 when neither sysfs nor the C library says) and how many CPUs share one such cache.
struct LastLevelCache {
  std::size_t bytes = 0;
  int cpus = 1;
};
LastLevelCache last_level_cache() noexcept;

// The destination size from which fabmpi's own copies go past the caches (copy_non_temporal), for
// `configured` = FABMPI_NT_MIN: that size when non-zero, else measured defaults (docs/performance.md,
// fourteenth session), at least 1 MiB, from an assumed 32 MiB cache when the size is unknown:
// - point to point (one stream into one receive buffer): a quarter of the last-level cache;
// - a collective's results, where `ranks_on_node` ranks each fill a receive buffer at once: the cache's
//   share of one rank (its size over the ranks that share one, spread evenly over the caches of the
//   `usable_cpus` this process may run on).
std::size_t past_caches_threshold(std::size_t configured) noexcept;
std::size_t past_caches_threshold(std::size_t configured, int ranks_on_node, int usable_cpus) noexcept;

}  // namespace fabmpi
