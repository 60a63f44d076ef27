// Memory the node's other ranks can map: what MPI_Alloc_mem returns for large requests
// (FABMPI_ALLOC_MEM_SHARED_MIN). MPI-3.1 section 8.2 allows MPI_Alloc_mem to return "special memory" on
// which message passing runs faster; here it is a memfd (anonymous shared memory, no name in /dev/shm)
// mapped MAP_SHARED. A rendezvous send from such memory carries the region's key, and a receiver on the
// node duplicates the memfd (pidfd_getfd, allowed where cross-memory attach is: the same ptrace check),
// maps it once, and copies the message out with one memcpy: no kernel copy per message (CMA: ~12 GB/s
// here), no second copy through a ring (streaming: ~26 GB/s on two cores); ~45 GB/s in the caches.
//
// A region is one memfd: a header page (SharedRegionHeader), then the caller's bytes. A process that forks
// gives its child private copies of its regions (as fork does for any private memory), at fork time. The header tells
// a mapping peer where the owner sees the bytes, and whether the owner freed the region (a peer's mapping
// keeps freed pages alive until it unmaps them; it sweeps freed regions whenever it maps a new one).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace fabmpi::pt2pt {

struct SharedRegionHeader {
  static constexpr std::uint64_t kMagic = 0x66616268656170ull;  // "fabheap"
  std::uint64_t magic;
  std::uint64_t id;           // unique in the owner's process for its lifetime (never reused)
  std::uint64_t user_addr;    // where the owner sees the caller's bytes (the header page's end)
  std::uint64_t user_bytes;
  std::atomic<std::uint32_t> live;  // 1 until the owner frees the region
  // Adopted memory (adopted_memory.hpp) only, else 0: two pages after the caller's bytes (user_bytes, a
  // whole number of pages, at the header page's end) hold copies of the partial pages around them, the
  // page after the region first, then the page before it, as far as the sender's current messages cover
  // them.
  std::uint32_t edge_pages;
};

// A region's key as a rendezvous carries it: the owner's memfd number (low 24 bits) and the region's id
// (high 40 bits). 0: not shared memory.
struct SharedRegionKey {
  static constexpr int kFdBits = 24;
  static std::uint64_t make(int fd, std::uint64_t id) noexcept {
    if (fd < 0 || fd >= (1 << kFdBits) || id == 0 || id >= (std::uint64_t{1} << (64 - kFdBits))) return 0;
    return id << kFdBits | static_cast<std::uint64_t>(fd);
  }
  static int fd(std::uint64_t key) noexcept { return static_cast<int>(key & ((1u << kFdBits) - 1)); }
  static std::uint64_t id(std::uint64_t key) noexcept { return key >> kFdBits; }
};

class SharedHeap {
 public:
  SharedHeap();
  // The process's heap (MPI_Alloc_mem's large blocks, and the transports that look keys up).
  static SharedHeap& instance();

  // `bytes` of memory inside a new region (page-aligned), or nullptr when memfd_create or mmap fail
  // (the caller then allocates privately).
  void* allocate(std::size_t bytes) noexcept;
  // Frees a block allocate() returned (kept for reuse within bounds, else marked freed for peers,
  // unmapped and closed). False when `p` is not one (a private allocation), which is left to the caller.
  bool release(void* p) noexcept;
  // The key under which peers map [p, p + bytes), or 0 when that range is not inside one region.
  std::uint64_t key_of(const void* p, std::size_t bytes) const noexcept;

  // The header page's size: the system page size (the caller's bytes start page-aligned after it).
  static std::size_t header_bytes() noexcept;
  // The largest request allocate() takes (the machine's memory, RLIMIT_FSIZE); larger ones are left to malloc.
  static std::size_t largest_region() noexcept;
  // Replaces the shared mapping [addr, addr + bytes) with a private copy of its bytes at the same addresses
  // (what a forked child must have of shared-heap and adopted memory). False, and still shared, when there
  // is no memory for the copy. Async-signal-safe calls only (fork child handlers).
  static bool make_private_in_place(void* addr, std::size_t bytes) noexcept;
  // A region id never used before in this process, by this heap or by adopted memory (adopted_memory.hpp):
  // a peer's mapping is cached by key, and a key must never name two regions.
  static std::uint64_t new_region_id() noexcept;

 private:
  struct Region {
    int fd = -1;
    std::size_t user_bytes = 0;
    std::size_t mapped_bytes = 0;   // header page + the caller's bytes rounded to pages
    unsigned char* base = nullptr;  // the header page
    std::uint64_t key = 0;
  };
  // Freed regions kept for reuse, up to these bounds (oldest dropped first). A program that allocates and
  // frees large buffers in a loop would otherwise pay a fresh memfd's page faults on both sides every
  // time (4 MiB, 500 times between 2 ranks: 2.9 s against 0.2 with malloc, which reuses its heap);
  // a reused region keeps its key, so a peer's mapping of it stays valid too.
  static constexpr std::size_t kKeepRegions = 16;
  // Each region holds a file descriptor, and descriptors are the application's too (RLIMIT_NOFILE bounds
  // their numbers, usually to 1024; select() cannot watch numbers past 1023): beyond this many regions
  // (live and kept), MPI_Alloc_mem hands out private memory.
  static constexpr std::size_t kMaxRegions = 64;
  static constexpr std::size_t kKeepBytes = std::size_t{64} << 20;
  void drop(const Region& r) noexcept;  // marks freed for peers, unmaps, closes
  bool insert(unsigned char* user, const Region& r) noexcept;  // into regions_, under mutex_; false: no memory
  // fork(): a child would share these pages with its parent instead of getting a copy of them (MAP_SHARED).
  // The child handler gives it private copies in place, as for any other memory (pthread_atfork; the
  // prepare and parent handlers hold the lock across fork, so the child finds the registry consistent).
  static void before_fork() noexcept;
  static void after_fork_in_parent() noexcept;
  static void after_fork_in_child() noexcept;

  mutable std::mutex mutex_;
  std::atomic<std::size_t> count_{0};  // regions alive: key_of() skips the lock when none
  std::map<std::uintptr_t, Region> regions_;  // by the caller's address
  std::vector<Region> kept_;                  // freed, oldest first
  std::size_t kept_bytes_ = 0;
};

}  // namespace fabmpi::pt2pt
