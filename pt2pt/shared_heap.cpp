// The process's shared heap (see shared_heap.hpp).
#include "pt2pt/shared_heap.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <new>

#include "common/log.hpp"

namespace fabmpi::pt2pt {

SharedHeap::SharedHeap() {
  kept_.reserve(kKeepRegions + 1);  // release() never allocates
  pthread_atfork(&SharedHeap::before_fork, &SharedHeap::after_fork_in_parent, &SharedHeap::after_fork_in_child);
}

void SharedHeap::before_fork() noexcept { instance().mutex_.lock(); }

void SharedHeap::after_fork_in_parent() noexcept { instance().mutex_.unlock(); }

void SharedHeap::after_fork_in_child() noexcept {
  SharedHeap& heap = instance();
  // Each region becomes private memory with the same contents at the same address. The memfds stay open
  // (release() closes them as before); a region that cannot be copied (out of memory) stays shared.
  for (const auto& [user, r] : heap.regions_) make_private_in_place(r.base, r.mapped_bytes);
  for (const Region& r : heap.kept_) make_private_in_place(r.base, r.mapped_bytes);
  heap.mutex_.unlock();
}

bool SharedHeap::make_private_in_place(void* addr, std::size_t bytes) noexcept {
  // A private anonymous copy moved over the shared mapping.
  void* copy = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) return false;
  std::memcpy(copy, addr, bytes);
  if (mremap(copy, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, addr) != MAP_FAILED) return true;
  munmap(copy, bytes);
  return false;
}

SharedHeap& SharedHeap::instance() {
  static SharedHeap heap;  // regions a program never freed stay mapped until exit, like malloc'd memory
  return heap;
}

std::size_t SharedHeap::header_bytes() noexcept {
  static const std::size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return page;
}

std::size_t SharedHeap::largest_region() noexcept {
  static const std::size_t largest = [] {
    // A memfd of any size is created and mapped without reserving memory, so an impossible request would
    // "succeed" and fail later by SIGBUS or the OOM killer: larger than the machine's memory, the request
    // goes to malloc, which refuses it (MPI_ERR_NO_MEM). And ftruncate past RLIMIT_FSIZE raises SIGXFSZ.
    const long pages = sysconf(_SC_PHYS_PAGES);
    std::size_t limit = pages > 0 ? static_cast<std::size_t>(pages) * header_bytes() : (std::size_t{1} << 40);
    rlimit fsize{};
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY)
      limit = std::min(limit, static_cast<std::size_t>(fsize.rlim_cur));
    return limit > 2 * header_bytes() ? limit - 2 * header_bytes() : 0;
  }();
  return largest;
}

std::uint64_t SharedHeap::new_region_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void* SharedHeap::allocate(std::size_t bytes) noexcept {
  const std::size_t page = header_bytes();
  if (bytes > largest_region()) return nullptr;
  const std::size_t mapped = page + (bytes + page - 1) / page * page;
  {
    // A kept region that fits, not more than twice as large (the smallest such).
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.empty() && regions_.size() >= kMaxRegions) return nullptr;
    auto best = kept_.end();
    for (auto k = kept_.begin(); k != kept_.end(); ++k)
      if (k->mapped_bytes >= mapped && k->mapped_bytes - page <= 2 * (mapped - page) &&
          (best == kept_.end() || k->mapped_bytes < best->mapped_bytes))
        best = k;
    if (best != kept_.end()) {
      Region r = *best;
      kept_.erase(best);
      kept_bytes_ -= r.mapped_bytes;
      r.user_bytes = bytes;
      unsigned char* user = r.base + page;
      reinterpret_cast<SharedRegionHeader*>(r.base)->user_bytes = bytes;
      if (!insert(user, r)) {
        drop(r);
        return nullptr;
      }
      return user;
    }
  }
  // MFD_CLOEXEC: a program that execs keeps no hold on it. No name in /dev/shm: nothing to clean up when
  // the process dies, and /dev/shm's size limit does not apply.
  const int fd = memfd_create("fabmpi-alloc-mem", MFD_CLOEXEC);
  if (fd < 0) {
    FABMPI_LOG(info, pt2pt, "MPI_Alloc_mem: memfd_create: %s; private memory instead", strerror(errno));
    return nullptr;
  }
  if (ftruncate(fd, static_cast<off_t>(mapped)) != 0) {
    FABMPI_LOG(info, pt2pt, "MPI_Alloc_mem: sizing a %zu-byte memfd: %s; private memory instead", mapped,
               strerror(errno));
    close(fd);
    return nullptr;
  }
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    FABMPI_LOG(info, pt2pt, "MPI_Alloc_mem: mapping a %zu-byte memfd: %s; private memory instead", mapped,
               strerror(errno));
    close(fd);
    return nullptr;
  }
  auto* base = static_cast<unsigned char*>(p);
  unsigned char* user = base + page;
  std::lock_guard<std::mutex> lock(mutex_);
  if (regions_.size() + kept_.size() >= kMaxRegions) {
    // Another thread took the last slot meanwhile; or kept regions fill it: drop the oldest.
    if (kept_.empty()) {
      munmap(p, mapped);
      close(fd);
      return nullptr;
    }
    drop(kept_.front());
    kept_bytes_ -= kept_.front().mapped_bytes;
    kept_.erase(kept_.begin());
  }
  const std::uint64_t id = new_region_id();
  auto* header = new (base) SharedRegionHeader{SharedRegionHeader::kMagic, id,
                                               reinterpret_cast<std::uint64_t>(user), bytes, {}, 0};
  header->live.store(1, std::memory_order_release);
  Region r;
  r.fd = fd;
  r.user_bytes = bytes;
  r.mapped_bytes = mapped;
  r.base = base;
  r.key = SharedRegionKey::make(fd, id);  // 0 (never mapped by peers) for fds past 2^24
  if (!insert(user, r)) {
    drop(r);
    return nullptr;
  }
  return user;
}

bool SharedHeap::insert(unsigned char* user, const Region& r) noexcept {
  try {
    regions_.emplace(reinterpret_cast<std::uintptr_t>(user), r);
  } catch (...) {  // out of memory for the map node
    return false;
  }
  count_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool SharedHeap::release(void* p) noexcept {
  if (count_.load(std::memory_order_relaxed) == 0) return false;
  // At most the kept regions and this one leave at once; no allocation here (noexcept).
  std::array<Region, kKeepRegions + 1> dropped;
  std::size_t drops = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = regions_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == regions_.end()) return false;
    Region r = it->second;
    regions_.erase(it);
    count_.fetch_sub(1, std::memory_order_relaxed);
    if (r.mapped_bytes > kKeepBytes) {
      dropped[drops++] = r;
    } else {
      kept_.push_back(r);
      kept_bytes_ += r.mapped_bytes;
      while (kept_.size() > kKeepRegions || kept_bytes_ > kKeepBytes) {
        dropped[drops++] = kept_.front();
        kept_bytes_ -= kept_.front().mapped_bytes;
        kept_.erase(kept_.begin());
      }
    }
  }
  for (std::size_t i = 0; i < drops; ++i) drop(dropped[i]);
  return true;
}

void SharedHeap::drop(const Region& r) noexcept {
  // Peers that mapped the region see this and unmap it at their next sweep; until then its pages live on.
  reinterpret_cast<SharedRegionHeader*>(r.base)->live.store(0, std::memory_order_release);
  munmap(r.base, r.mapped_bytes);
  close(r.fd);
}

std::uint64_t SharedHeap::key_of(const void* p, std::size_t bytes) const noexcept {
  if (count_.load(std::memory_order_relaxed) == 0) return 0;
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.upper_bound(addr);  // the first region starting after addr
  if (it == regions_.begin()) return 0;
  --it;
  const std::uintptr_t start = it->first;
  if (addr - start > it->second.user_bytes || bytes > it->second.user_bytes - (addr - start)) return 0;
  return it->second.key;
}

}  // namespace fabmpi::pt2pt
