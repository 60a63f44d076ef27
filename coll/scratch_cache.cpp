#include "coll/scratch_cache.hpp"

#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace fabmpi::coll::scratch {
namespace {

// Each block starts with a header recording its capacity; callers see the memory after it.
constexpr std::size_t kHeader = 64;
constexpr std::align_val_t kAlign{64};

struct Block {
  std::byte* base;
  std::size_t capacity;  // usable bytes after the header
};

std::byte* base_of(void* p) { return static_cast<std::byte*>(p) - kHeader; }
std::size_t capacity_of(void* p) { return *reinterpret_cast<std::size_t*>(base_of(p)); }

class Cache {
 public:
  Cache() {
    // glibc raises its mmap threshold, and its heap trim threshold to twice that, the first time an
    // mmap'ed chunk is freed. Before this cache the per-call multi-MiB temporaries did that as a side
    // effect; without it the trim threshold stays at 128 KiB and other short-lived heap blocks (pt2pt's
    // copies of unexpected 64 KiB eager messages) are trimmed and faulted in again on every message
    // (measured: gather 64 KiB at np=2, 40 us instead of 8.5). Free one large chunk, once, to keep
    // glibc's usual behaviour (elsewhere: one malloc and free).
    void* volatile large = std::malloc(std::size_t{8} << 20);
    std::free(large);
  }
  void* take(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t best = blocks_.size();
    for (std::size_t i = 0; i < blocks_.size(); ++i)  // best fit
      if (blocks_[i].capacity >= bytes && (best == blocks_.size() || blocks_[i].capacity < blocks_[best].capacity))
        best = i;
    if (best == blocks_.size()) return nullptr;
    const Block b = blocks_[best];
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    total_ -= b.capacity;
    return b.base + kHeader;
  }
  void give(std::byte* base, std::size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (capacity <= kMaxCachedBytes) {
        // Make room by dropping the oldest blocks (the front).
        while (!blocks_.empty() && (total_ + capacity > kMaxCachedBytes || blocks_.size() >= kMaxCachedBlocks)) {
          ::operator delete(blocks_.front().base, kAlign);
          total_ -= blocks_.front().capacity;
          blocks_.erase(blocks_.begin());
        }
        blocks_.push_back({base, capacity});
        total_ += capacity;
        return;
      }
    }
    ::operator delete(base, kAlign);
  }
  std::size_t total() {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
  }

 private:
  std::mutex mutex_;
  std::vector<Block> blocks_;
  std::size_t total_ = 0;
};

// Never destroyed: schedules may release buffers from static destructors after MPI_Finalize.
Cache& cache() {
  static Cache* instance = new Cache;
  return *instance;
}

}  // namespace

void* acquire(std::size_t bytes) {
  if (bytes >= kMinCachedBytes)
    if (void* p = cache().take(bytes)) return p;
  auto* base = static_cast<std::byte*>(::operator new(kHeader + bytes, kAlign));
  *reinterpret_cast<std::size_t*>(base) = bytes;
  return base + kHeader;
}

void release(void* p) noexcept {
  if (!p) return;
  const std::size_t capacity = capacity_of(p);
  if (capacity < kMinCachedBytes) {
    ::operator delete(base_of(p), kAlign);
    return;
  }
  cache().give(base_of(p), capacity);
}

void prepare() noexcept { (void)cache(); }

std::size_t cached_bytes() noexcept { return cache().total(); }

}  // namespace fabmpi::coll::scratch
