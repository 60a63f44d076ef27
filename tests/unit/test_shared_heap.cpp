// pt2pt/shared_heap: MPI_Alloc_mem's shared regions without a runtime: keys of ranges inside and across
// regions, the header a mapping peer reads, reuse of freed regions (same key), and that a second mapping
// of the memfd (what a peer gets from pidfd_getfd) sees the owner's bytes.
#include <catch2/catch.hpp>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "pt2pt/shared_heap.hpp"

using fabmpi::pt2pt::SharedHeap;
using fabmpi::pt2pt::SharedRegionHeader;
using fabmpi::pt2pt::SharedRegionKey;

TEST_CASE("shared heap keys name exactly the ranges inside one region", "[shared_heap]") {
  SharedHeap& heap = SharedHeap::instance();
  const std::size_t bytes = 300000;
  auto* p = static_cast<unsigned char*>(heap.allocate(bytes));
  REQUIRE(p != nullptr);
  REQUIRE(reinterpret_cast<std::uintptr_t>(p) % SharedHeap::header_bytes() == 0);
  std::memset(p, 0x5a, bytes);
  const std::uint64_t key = heap.key_of(p, bytes);
  REQUIRE(key != 0);
  CHECK(heap.key_of(p + 1000, 5000) == key);
  CHECK(heap.key_of(p + bytes - 1, 1) == key);
  CHECK(heap.key_of(p + bytes, 0) == key);  // an empty range at the end is still inside
  CHECK(heap.key_of(p, bytes + 1) == 0);      // runs past the end
  CHECK(heap.key_of(p - 1, 2) == 0);          // starts in the header page
  int on_stack = 0;
  CHECK(heap.key_of(&on_stack, sizeof on_stack) == 0);

  // The header a peer reads, through a second mapping of the same memfd.
  const auto* own_header = reinterpret_cast<const SharedRegionHeader*>(p - SharedHeap::header_bytes());
  CHECK(own_header->magic == SharedRegionHeader::kMagic);
  CHECK(own_header->id == SharedRegionKey::id(key));
  CHECK(own_header->user_addr == reinterpret_cast<std::uint64_t>(p));
  CHECK(own_header->user_bytes == bytes);
  CHECK(own_header->live.load() == 1);
  const int fd = SharedRegionKey::fd(key);
  void* again = mmap(nullptr, SharedHeap::header_bytes() + bytes, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(again != MAP_FAILED);
  const auto* seen = static_cast<const unsigned char*>(again) + SharedHeap::header_bytes();
  CHECK(seen[0] == 0x5a);
  p[bytes - 1] = 0x77;
  CHECK(seen[bytes - 1] == 0x77);
  munmap(again, SharedHeap::header_bytes() + bytes);

  // Freed, then allocated again at a size it fits: the same region, the same key.
  REQUIRE(heap.release(p));
  CHECK(heap.key_of(p, 1) == 0);
  auto* q = static_cast<unsigned char*>(heap.allocate(bytes - 1000));
  REQUIRE(q == p);
  CHECK(heap.key_of(q, bytes - 1000) == key);
  CHECK(heap.key_of(q, bytes) == 0);  // the new size bounds it
  REQUIRE(heap.release(q));
}

TEST_CASE("shared heap leaves foreign pointers to the caller", "[shared_heap]") {
  void* p = std::malloc(64);
  CHECK_FALSE(SharedHeap::instance().release(p));
  std::free(p);
}

TEST_CASE("shared heap drops what it cannot keep and marks it freed", "[shared_heap]") {
  SharedHeap& heap = SharedHeap::instance();
  // Larger than the heap keeps: freed for good; a mapping made before sees `live` go to 0.
  const std::size_t bytes = std::size_t{80} << 20;
  auto* p = static_cast<unsigned char*>(heap.allocate(bytes));
  REQUIRE(p != nullptr);
  const std::uint64_t key = heap.key_of(p, bytes);
  REQUIRE(key != 0);
  void* view = mmap(nullptr, SharedHeap::header_bytes(), PROT_READ, MAP_SHARED, SharedRegionKey::fd(key), 0);
  REQUIRE(view != MAP_FAILED);
  const auto* header = static_cast<const SharedRegionHeader*>(view);
  CHECK(header->live.load() == 1);
  REQUIRE(heap.release(p));
  CHECK(header->live.load() == 0);
  munmap(view, SharedHeap::header_bytes());
}

TEST_CASE("shared heap holds a bounded number of descriptors", "[shared_heap]") {
  SharedHeap& heap = SharedHeap::instance();
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) {
    void* p = heap.allocate(65536);
    if (!p) break;
    blocks.push_back(p);
  }
  // The cap is reached (MPI_Alloc_mem then hands out private memory), whatever earlier tests kept.
  CHECK(blocks.size() <= 64);
  CHECK(blocks.size() >= 48);
  CHECK(heap.allocate(65536) == nullptr);
  for (void* p : blocks) REQUIRE(heap.release(p));
  void* again = heap.allocate(65536);
  CHECK(again != nullptr);
  if (again) heap.release(again);
}

TEST_CASE("shared heap leaves impossible sizes to malloc", "[shared_heap]") {
  // A memfd that large would be created and mapped without complaint, and fail only when touched.
  CHECK(SharedHeap::largest_region() > (std::size_t{64} << 20));
  CHECK(SharedHeap::instance().allocate(SharedHeap::largest_region() + 1) == nullptr);
  CHECK(SharedHeap::instance().allocate(std::size_t{1} << 62) == nullptr);
}

TEST_CASE("shared heap serves threads at once", "[shared_heap]") {
  // Four threads allocate, fill, check and free blocks of different sizes (reuse, drops and fresh
  // regions interleaved); a block handed to two threads at once, or freed under one, shows as a mismatch.
  SharedHeap& heap = SharedHeap::instance();
  std::atomic<int> mismatches{0}, shared{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 150; ++i) {
        const std::size_t bytes = std::size_t{65536} * static_cast<std::size_t>(1 + (i * 7 + t) % 9);
        auto* p = static_cast<unsigned char*>(heap.allocate(bytes));
        if (!p) continue;  // the descriptor cap, reached by the other threads' blocks
        ++shared;
        const auto mark = static_cast<unsigned char>(t * 50 + i % 50);
        std::memset(p, mark, bytes);
        if (heap.key_of(p, bytes) == 0) ++mismatches;
        std::this_thread::yield();
        if (p[0] != mark || p[bytes / 2] != mark || p[bytes - 1] != mark) ++mismatches;
        if (!heap.release(p)) ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches.load() == 0);
  CHECK(shared.load() > 0);
}

TEST_CASE("a forked child gets its own copy of shared heap blocks", "[shared_heap]") {
  // As with malloc'd memory: the child sees the parent's bytes, and its writes stay its own.
  SharedHeap& heap = SharedHeap::instance();
  const std::size_t bytes = 200000;
  auto* p = static_cast<unsigned char*>(heap.allocate(bytes));
  REQUIRE(p != nullptr);
  std::memset(p, 0x11, bytes);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const bool saw_parent = p[0] == 0x11 && p[bytes - 1] == 0x11;
    std::memset(p, 0x22, bytes);
    _exit(saw_parent ? 0 : 3);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(p[0] == 0x11);
  CHECK(p[bytes / 2] == 0x11);
  CHECK(p[bytes - 1] == 0x11);
  // The parent's block still works as before: shared, keyed, released.
  CHECK(heap.key_of(p, bytes) != 0);
  REQUIRE(heap.release(p));
}
