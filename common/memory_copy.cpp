#include "common/memory_copy.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fabmpi {

namespace {

// copy_and_own_source's edges, byte by byte: each byte copied and stored back.
void own_and_copy_bytes(unsigned char* dst, unsigned char* src, std::size_t from, std::size_t to) noexcept {
  volatile unsigned char* source = src;
  for (std::size_t i = from; i < to; ++i) {
    const unsigned char v = source[i];
    dst[i] = v;
    source[i] = v;
  }
}

// The one copy loop behind both public copies, 64 bytes at a time. kStream: non-temporal stores to the
// destination (16-byte aligned from the first such address, fenced at the end). kOwn: one byte of every
// block stored back into the source (copy_and_own_source; `src` is then writable, never written otherwise).
template <bool kStream, bool kOwn>
void copy_blocks(unsigned char* dst, const unsigned char* src, std::size_t n) noexcept {
  auto edges = [&](std::size_t from, std::size_t to) {
    if constexpr (kOwn)
      own_and_copy_bytes(dst, const_cast<unsigned char*>(src), from, to);
    else
      copy_memory(dst + from, src + from, to - from);
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  if constexpr (kStream) {
    i = std::min((16 - (reinterpret_cast<std::uintptr_t>(dst) & 15)) & 15, n);
    edges(0, i);
  }
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    if constexpr (kStream) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    if constexpr (kOwn) {
      // One byte per 64 takes the whole line (each line holds exactly one block start); a full write-back
      // would double the stores of a copy in the caches (bw of one buffer sent repeatedly: 47 -> 26 GB/s).
      // Opaque to the compiler, which would otherwise drop a store of the value loaded from that place.
      int first = _mm_cvtsi128_si32(a);
      asm volatile("" : "+r"(first));
      const_cast<unsigned char*>(src)[i] = static_cast<unsigned char>(first);
    }
  }
  if constexpr (kStream) _mm_sfence();
#endif
  edges(i, n);
}

}  // namespace

void copy_non_temporal(void* dst, const void* src, std::size_t n) noexcept {
  copy_blocks<true, false>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), n);
}

void copy_and_own_source(void* dst, void* src, std::size_t n, bool past_caches) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (past_caches)
    copy_blocks<true, true>(d, s, n);
  else
    copy_blocks<false, true>(d, s, n);
}

void copy_from_peer_source(SourceCopyChooser& chooser, void* dst, void* src, std::size_t n, bool past_caches) noexcept {
  const bool own = chooser.own_next(n);
  const bool timed = n >= SourceCopyChooser::kTimedMin;
  const auto started = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  if (own)
    copy_and_own_source(dst, src, n, past_caches);
  else if (past_caches)
    copy_non_temporal(dst, src, n);
  else
    copy_memory(dst, src, n);
  if (timed)
    chooser.record(own, n, static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                          std::chrono::steady_clock::now() - started)
                                                          .count()));
}

namespace {

// "32768K" / "2M" / "512" (sysfs cache sizes) in bytes; 0 if unreadable.
std::size_t read_sysfs_size(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  unsigned long long value = 0;
  char unit = 0;
  const int got = std::fscanf(f, "%llu%c", &value, &unit);
  std::fclose(f);
  if (got < 1) return 0;
  if (unit == 'K') value <<= 10;
  else if (unit == 'M') value <<= 20;
  else if (unit == 'G') value <<= 30;
  return static_cast<std::size_t>(value);
}

// CPUs in a sysfs CPU list ("0-1", "0,2,4-7"); 1 if unreadable.
int read_sysfs_cpu_count(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 1;
  char text[4096] = {};
  const bool got = std::fgets(text, sizeof text, f) != nullptr;
  std::fclose(f);
  if (!got) return 1;
  int count = 0;
  for (const char* p = text; *p && *p != '\n';) {
    char* end = nullptr;
    const long first = std::strtol(p, &end, 10);
    if (end == p) break;
    long last = first;
    p = end;
    if (*p == '-') {
      last = std::strtol(p + 1, &end, 10);
      p = end;
    }
    count += static_cast<int>(last - first + 1);
    if (*p == ',') ++p;
  }
  return std::max(count, 1);
}

LastLevelCache probe_last_level_cache() noexcept {
  // sysfs first: it describes the cache the CPU belongs to (an AMD CCX's L3 slice), where glibc's
  // sysconf answers from cpuid and may give the whole package's (320 MiB for 32 MiB on the development VM).
  LastLevelCache best;
  int best_level = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::FILE* f = std::fopen((dir + "level").c_str(), "r");
    if (!f) break;
    int level = 0;
    const int got = std::fscanf(f, "%d", &level);
    std::fclose(f);
    if (got != 1 || level < best_level) continue;
    const std::size_t size = read_sysfs_size(dir + "size");
    if (size > 0 && (level > best_level || size > best.bytes)) {
      best.bytes = size;
      best.cpus = read_sysfs_cpu_count(dir + "shared_cpu_list");
      best_level = level;
    }
  }
  if (best.bytes > 0) return best;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) {
    best.bytes = static_cast<std::size_t>(l3);
    best.cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  }
#endif
  return best;
}

constexpr std::size_t kMiB = std::size_t(1) << 20;

}  // namespace

LastLevelCache last_level_cache() noexcept {
  static const LastLevelCache cache = probe_last_level_cache();
  return cache;
}

std::size_t past_caches_threshold(std::size_t configured) noexcept {
  if (configured) return configured;
  const LastLevelCache llc = last_level_cache();
  const std::size_t bytes = llc.bytes ? llc.bytes : 32 * kMiB;
  return std::max(bytes / 4, kMiB);
}

std::size_t past_caches_threshold(std::size_t configured, int ranks_on_node, int usable_cpus) noexcept {
  if (configured) return configured;
  const LastLevelCache llc = last_level_cache();
  const std::size_t bytes = llc.bytes ? llc.bytes : 32 * kMiB;
  // Ranks per cache: the node's ranks spread over the caches of the CPUs this process may run on (a
  // container limited to 2 CPUs of a large host has one cache's worth), all of them on one cache when
  // they outnumber its CPUs there.
  const long caches = std::max(1L, static_cast<long>(std::max(usable_cpus, 1)) / std::max(1, llc.cpus));
  const long ranks = std::max(1L, (static_cast<long>(ranks_on_node) + caches - 1) / caches);
  return std::max(bytes / static_cast<std::size_t>(ranks), kMiB);
}

// copy_memory's nearly aliased pairs (memory_copy.hpp). Backward, 128 bytes per step: each load is then
// below the stores still in flight, so their page offsets do not collide as a forward loop's would
// (measured, 64 KiB at distance 1-31: forward 24-28 GB/s, backward 25-39, glibc 1.3-2.7).
namespace {
#if defined(__x86_64__)
__attribute__((target("avx2"))) void copy_backward_avx2(unsigned char* d, const unsigned char* s, std::size_t n) noexcept {
  std::size_t i = n;
  const std::size_t rest = n % 128;
  for (; i >= rest + 128; i -= 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i - 32));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i - 64));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i - 96));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i - 128));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i - 32), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i - 64), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i - 96), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i - 128), e);
  }
  std::memcpy(d, s, rest);  // under 128 bytes: no rep movsb
}
#endif
}  // namespace

void copy_memory_aliased(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
#if defined(__x86_64__)
  // FSRM, the slow case's cause, came after AVX2: a CPU without AVX2 has no such case to go around.
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    copy_backward_avx2(d, s, n);
    return;
  }
#endif
  std::memcpy(d, s, n);
}

}  // namespace fabmpi
