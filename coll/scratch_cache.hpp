// Large scratch buffers of the collective schedules (Bytes, CollRequest::scratch), kept between calls.
// A multi-MiB temporary allocated per call is mmap'ed and unmapped by malloc every time, so each call
// page-faults and zero-fills every page again: measured at np=2, 8 MiB reduce, about a third of the
// time of the call was exc_page_fault/clear_page (and Rabenseifner's reduce, with three such buffers,
// ran 5x slower than the binomial tree). Buffers of at least kMinCachedBytes go back to a small
// process-wide cache on release and are handed out again, already faulted in.
#pragma once

#include <cstddef>

namespace fabmpi::coll::scratch {

inline constexpr std::size_t kMinCachedBytes = std::size_t{64} << 10;   // smaller: plain operator new
inline constexpr std::size_t kMaxCachedBytes = std::size_t{64} << 20;   // kept across calls, in total
inline constexpr std::size_t kMaxCachedBlocks = 8;

// At least `bytes` of uninitialized memory, 64-byte aligned. Thread-safe.
void* acquire(std::size_t bytes);
// Returns memory from acquire(); kept for reuse while the cache has room, else freed.
void release(void* p) noexcept;
// Sets the cache up (and glibc's trim threshold, see scratch_cache.cpp) before the first collective.
void prepare() noexcept;
// Bytes currently cached (tests).
std::size_t cached_bytes() noexcept;

}  // namespace fabmpi::coll::scratch
