// Copies that choose where the destination's lines end up, and the cache size that decides it.
#pragma once

#include <cstddef>

namespace fabmpi {

// memcpy with non-temporal stores: the destination's lines are written to memory without being read
// into (or taken back from) any cache first, and without evicting what the caches hold. Fenced, so a
// flag published after it is seen after the data. Plain memcpy where SSE2 is missing.
void copy_non_temporal(void* dst, const void* src, std::size_t n) noexcept;

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
