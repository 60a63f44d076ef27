// pt2pt/adopted_memory: malloc'd send buffers moved into shared memory in place, without a runtime. The
// program's bytes must never change (at adoption, after it, in a forked child), a freed buffer's key must
// never be handed out again, and only glibc malloc's memory is taken.
#include <catch2/catch.hpp>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "pt2pt/adopted_memory.hpp"

using fabmpi::pt2pt::AdoptedMemory;
using fabmpi::pt2pt::AdoptionPolicy;
using fabmpi::pt2pt::SharedHeap;
using fabmpi::pt2pt::SharedRegionHeader;
using fabmpi::pt2pt::SharedRegionKey;

namespace {

constexpr AdoptionPolicy kThreeSends{3, std::size_t{512} << 10};

void fill(unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(seed * 131 + (i * 2654435761u >> 9));
}
bool holds(const unsigned char* p, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != static_cast<unsigned char>(seed * 131 + (i * 2654435761u >> 9))) return false;
  return true;
}
// The /proc/self/maps line of the mapping holding `addr` ("" if none).
std::string mapping_of(const void* addr) {
  std::ifstream maps("/proc/self/maps");
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  for (std::string line; std::getline(maps, line);) {
    const std::uintptr_t start = std::stoull(line, nullptr, 16);
    const std::uintptr_t end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (a >= start && a < end) return line;
  }
  return "";
}
// Whether /proc/self/maps shows an adopted memfd mapping holding `addr`.
bool adopted_at(const void* addr) {
  std::ifstream maps("/proc/self/maps");
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  for (std::string line; std::getline(maps, line);) {
    const std::uintptr_t start = std::stoull(line, nullptr, 16);
    const std::uintptr_t end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (a >= start && a < end) return line.find("/memfd:fabmpi-adopted-") != std::string::npos;
  }
  return false;
}
std::uint64_t send_times(const void* p, std::size_t n, int times, const AdoptionPolicy& policy = kThreeSends) {
  std::uint64_t key = 0;
  for (int i = 0; i < times; ++i) key = AdoptedMemory::instance().key_for_send(p, n, policy, false);
  return key;
}

}  // namespace


void adopt_use_free() {
  if (!AdoptedMemory::process_allows()) {
    WARN("malloc is not glibc's here (a sanitizer?): adoption is off by design");
    return;
  }
  AdoptedMemory& memory = AdoptedMemory::instance();
  const std::size_t n = (std::size_t{2} << 20) + 100;
  auto* buf = static_cast<unsigned char*>(std::malloc(n));  // a block glibc maps for this request
  REQUIRE(buf != nullptr);
  fill(buf, n, 1);
  const std::size_t before = memory.regions();
  CHECK(memory.key_for_send(buf, n, kThreeSends, false) == 0);
  CHECK(memory.key_for_send(buf, n, kThreeSends, false) == 0);
  const std::uint64_t key = memory.key_for_send(buf, n, kThreeSends, false);
  REQUIRE(key != 0);
  CHECK(memory.regions() == before + 1);
  CHECK(holds(buf, n, 1));  // the program's bytes, unchanged
  CHECK(adopted_at(buf + n / 2));
  CHECK(memory.key_for_send(buf, n, kThreeSends, false) == key);
  CHECK(memory.key_for_send(buf + 8192, n - 16384, kThreeSends, false) == key);  // pages inside: the same region

  // What a peer maps (the memfd behind the key): the header, then the program's bytes as it writes them.
  const std::size_t page = SharedHeap::header_bytes();
  auto* header = static_cast<SharedRegionHeader*>(
      mmap(nullptr, page, PROT_READ, MAP_SHARED, SharedRegionKey::fd(key), 0));
  REQUIRE(header != MAP_FAILED);
  CHECK(header->magic == SharedRegionHeader::kMagic);
  CHECK(header->id == SharedRegionKey::id(key));
  CHECK(header->live.load() == 1);
  const auto user = reinterpret_cast<unsigned char*>(header->user_addr);
  // The block's header page came along (the buffer starts 16 bytes into it); the partial last page did not.
  CHECK(user <= buf);
  CHECK(buf - user < static_cast<std::ptrdiff_t>(page));
  CHECK(user + header->user_bytes <= buf + n);
  CHECK(buf + n - (user + header->user_bytes) < static_cast<std::ptrdiff_t>(page));
  auto* view = static_cast<unsigned char*>(
      mmap(nullptr, header->user_bytes, PROT_READ, MAP_SHARED, SharedRegionKey::fd(key), static_cast<off_t>(page)));
  REQUIRE(view != MAP_FAILED);
  fill(buf, n, 2);
  CHECK(std::memcmp(view, user, header->user_bytes) == 0);

  // Freed: the key is never handed out again, and the region's header says so.
  std::free(buf);
  auto* again = static_cast<unsigned char*>(std::malloc(n));  // often the same addresses
  fill(again, n, 3);
  CHECK(memory.key_for_send(again, n, kThreeSends, false) != key);
  // The freed region is found out at a later send from it, or by the sweep every 64 sends.
  for (int i = 0; i < 64; ++i) CHECK(memory.key_for_send(again, n, kThreeSends, false) != key);
  CHECK(header->live.load() == 0);
  CHECK(holds(again, n, 3));
  munmap(view, header->user_bytes);
  munmap(header, page);
  std::free(again);
}

void grow_prefixes() {
  if (!AdoptedMemory::process_allows()) return;
  AdoptedMemory& memory = AdoptedMemory::instance();
  const std::size_t n = std::size_t{6} << 20;
  auto* buf = static_cast<unsigned char*>(std::malloc(n));
  REQUIRE(buf != nullptr);
  fill(buf, n, 4);
  const std::size_t before = memory.regions();
  const std::uint64_t small = send_times(buf, std::size_t{1} << 20, 3);
  REQUIRE(small != 0);
  CHECK(memory.regions() == before + 1);
  // Larger sends from the same start: the small region serves their first pages until they are adopted,
  // and the new region takes it in.
  CHECK(memory.key_for_send(buf, std::size_t{4} << 20, kThreeSends, false) == small);
  const std::uint64_t large = send_times(buf, std::size_t{4} << 20, 2);
  REQUIRE(large != 0);
  CHECK(large != small);
  CHECK(memory.regions() == before + 1);
  CHECK(memory.key_for_send(buf, std::size_t{1} << 20, kThreeSends, false) == large);
  CHECK(holds(buf, n, 4));
  // realloc cannot move the block's mappings in one piece any more; glibc copies instead.
  buf = static_cast<unsigned char*>(std::realloc(buf, 2 * n));
  REQUIRE(buf != nullptr);
  CHECK(holds(buf, n, 4));
  std::free(buf);
}

// A page-aligned buffer inside a mapped block (osu-style benchmarks, page-aligned allocations) sent with
// growing sizes: its first page is the region's, a VMA of its own, so the 16 bytes before the buffer lie in
// another mapping. Each larger size must still be adopted, taking in the smaller region.
void grow_page_aligned_prefixes() {
  if (!AdoptedMemory::process_allows()) return;
  AdoptedMemory& memory = AdoptedMemory::instance();
  const std::size_t n = std::size_t{4} << 20, page = SharedHeap::header_bytes();
  auto* block = static_cast<unsigned char*>(std::malloc(n + 2 * page));
  REQUIRE(block != nullptr);
  auto* buf = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(block) + page - 1) & ~(page - 1)) + page;
  fill(buf, n, 6);
  const std::size_t before = memory.regions();
  std::uint64_t last = 0;
  for (std::size_t size = std::size_t{512} << 10; size <= n; size *= 2) {
    const std::uint64_t key = send_times(buf, size, 3);
    INFO("size " << size);
    REQUIRE(key != 0);
    CHECK(key != last);
    CHECK(memory.regions() == before + 1);
    CHECK(adopted_at(buf + size - 1));
    last = key;
  }
  CHECK(holds(buf, n, 6));
  std::free(block);
}

// Receive buffers: counted and adopted like send buffers (AdoptionPolicy::receive_min_bytes); the range
// said is the buffer's part in the region, and the buffer's bytes stay as they were. (Larger than the
// blocks freed by the tests before: glibc maps it afresh instead of reusing memory adopted there.)
void adopt_receive_buffer() {
  if (!AdoptedMemory::process_allows()) return;
  AdoptedMemory& memory = AdoptedMemory::instance();
  const std::size_t n = (std::size_t{20} << 20) + 777, page = SharedHeap::header_bytes();
  auto* buf = static_cast<unsigned char*>(std::malloc(n));
  REQUIRE(buf != nullptr);
  fill(buf, n, 7);
  std::uintptr_t range[2] = {};
  CHECK(memory.key_for_receive(buf, n, kThreeSends, range) == 0);
  CHECK(memory.key_for_receive(buf, n, kThreeSends, range) == 0);
  const std::uint64_t key = memory.key_for_receive(buf, n, kThreeSends, range);
  REQUIRE(key != 0);
  const auto u = reinterpret_cast<std::uintptr_t>(buf);
  // From the buffer's first byte (the block's header page came along) or its first whole page, to the end
  // of its last whole page.
  CHECK(range[0] >= u);
  CHECK(range[0] - u < page);
  CHECK((range[0] == u || range[0] % page == 0));
  CHECK(range[1] <= u + n);
  CHECK(u + n - range[1] < page);
  CHECK(range[1] % page == 0);
  CHECK(adopted_at(buf + n / 2));
  CHECK(holds(buf, n, 7));
  CHECK(memory.key_for_receive(buf, n, kThreeSends, range) == key);
  // Off (receive_min_bytes 0): no key.
  AdoptionPolicy off = kThreeSends;
  off.receive_min_bytes = 0;
  CHECK(memory.key_for_receive(buf, n, off, range) == 0);
  std::free(buf);
}

TEST_CASE("a malloc'd buffer sent again and again is adopted in place", "[adopted_memory]") { adopt_use_free(); }

TEST_CASE("a buffer sent in growing prefixes ends up in one region", "[adopted_memory]") { grow_prefixes(); }


void inside_mapped_blocks() {
  if (!AdoptedMemory::process_allows()) return;
  // Blocks mapped one after another usually share one mapping (VMA); the second half of the upper one is
  // what rank 0 of a two-rank MPI_Alltoall sends.
  mallopt(M_MMAP_THRESHOLD, 128 << 10);  // fixed: earlier frees in this process may have raised it
  const std::size_t n = std::size_t{4} << 20;
  auto* lower = static_cast<unsigned char*>(std::malloc(n));
  auto* upper = static_cast<unsigned char*>(std::malloc(n));
  REQUIRE(lower != nullptr);
  REQUIRE(upper != nullptr);
  fill(lower, n, 6);
  fill(upper, n, 7);
  if (mapping_of(upper).find("[heap]") != std::string::npos) {
    WARN("glibc served these from its heap here: nothing to walk");
  } else {
    for (unsigned char* half : {upper + n / 2, lower + n / 2, lower + 5000}) {
      const std::uint64_t key = send_times(half, n / 2 - 5000, 3);
      CHECK(key != 0);
      CHECK(adopted_at(half + n / 4));
      CHECK(!adopted_at(half - 4096));  // nothing before the buffer's pages
    }
    CHECK(holds(lower, n, 6));
    CHECK(holds(upper, n, 7));
  }
  // realloc of a block partly adopted copies it (its mapping is in pieces now).
  upper = static_cast<unsigned char*>(std::realloc(upper, 2 * n));
  REQUIRE(upper != nullptr);
  CHECK(holds(upper, n, 7));
  std::free(upper);
  std::free(lower);
}

TEST_CASE("a buffer inside a block malloc mapped is adopted, found among its neighbours", "[adopted_memory]") {
  inside_mapped_blocks();
}

TEST_CASE("memory that is not a glibc malloc block's is never adopted", "[adopted_memory]") {
  const std::size_t n = std::size_t{2} << 20;
  // Memory the program mapped itself: at the buffer's start, inside it, and behind a malloc'd block in the
  // same mapping (the walk over blocks ends at it).
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* own = static_cast<unsigned char*>(
      mmap(nullptr, 2 * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(own != MAP_FAILED);
  std::memset(own, 2, 2 * n);
  CHECK(send_times(own + 16, n - 64, 5) == 0);
  CHECK(send_times(own + n / 2, n - 64, 5) == 0);
  // A malloc-like header at the start of the program's own memory, but a block size that is not one.
  reinterpret_cast<std::size_t*>(own)[0] = 0;
  reinterpret_cast<std::size_t*>(own)[1] = (n + 100) | 2;
  CHECK(send_times(own + n / 2, n / 2, 5) == 0);
  // One that describes the first half, then the program's own bytes: the walk stops there.
  reinterpret_cast<std::size_t*>(own)[1] = n | 2;
  CHECK(send_times(own + n + page, n / 2, 5) == 0);
  CHECK(!adopted_at(own + n + 2 * page));
  munmap(own, 2 * n);
  // Too small for the policy, or adoption off.
  auto* small = static_cast<unsigned char*>(std::malloc(n));
  CHECK(send_times(small, 256 << 10, 5) == 0);
  CHECK(send_times(small, n, 5, AdoptionPolicy{0, 0}) == 0);
  std::free(small);
}

TEST_CASE("a forked child gets private copies of adopted pages", "[adopted_memory]") {
  if (!AdoptedMemory::process_allows()) return;
  const std::size_t n = std::size_t{3} << 20;
  auto* buf = static_cast<unsigned char*>(std::malloc(n));
  REQUIRE(buf != nullptr);
  fill(buf, n, 5);
  REQUIRE(send_times(buf, n, 3) != 0);
  REQUIRE(adopted_at(buf + n / 2));
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Same bytes, private now: writing them must not reach the parent.
    const bool same = holds(buf, n, 5) && !adopted_at(buf + n / 2);
    std::memset(buf, 0xee, n);
    _exit(same ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(holds(buf, n, 5));
  CHECK(adopted_at(buf + n / 2));
  std::free(buf);
}

// A process of its own (tests/unit/meson.build runs the "[proc_files]" tests separately: adoption leaves
// state behind, and this changes the process-wide instance for good).
TEST_CASE("without PROCMAP_QUERY (kernels before 6.11), /proc/self/maps and map_files do", "[.proc_files]") {
  AdoptedMemory::instance().use_proc_files_only();
  adopt_use_free();
  grow_prefixes();
  inside_mapped_blocks();
}

// Last in the file: a region this test leaves behind (found out only at a later send or sweep) would
// change the region counts the tests above check.
TEST_CASE("the application's sends are adopted from a smaller size than collectives'", "[adopted_memory]") {
  if (!AdoptedMemory::process_allows()) return;
  AdoptedMemory& memory = AdoptedMemory::instance();
  const std::size_t n = (std::size_t{256} << 10) + 100;  // under kThreeSends' 512 KiB, over its 64 KiB
  auto* buf = static_cast<unsigned char*>(std::malloc(n));  // may lie in memory adopted earlier: still shared
  REQUIRE(buf != nullptr);
  fill(buf, n, 7);
  // A collective's sends of it are neither counted nor given a key.
  for (int i = 0; i < 8; ++i) CHECK(memory.key_for_send(buf, n, kThreeSends, false) == 0);
  std::uint64_t key = 0;
  for (int i = 0; i < 3; ++i) key = memory.key_for_send(buf, n, kThreeSends, true);
  REQUIRE(key != 0);  // the application's third send at the latest
  CHECK(memory.key_for_send(buf, n, kThreeSends, true) == key);
  CHECK(memory.key_for_send(buf, n, kThreeSends, false) == 0);  // collectives still read it by CMA
  CHECK(holds(buf, n, 7));
  std::free(buf);
}

// Last: the regions these leave behind (freed, found out later) would change the counts the cases above
// check.
TEST_CASE("a page-aligned buffer sent in growing sizes is adopted at each", "[adopted_memory]") {
  grow_page_aligned_prefixes();
}

TEST_CASE("a receive buffer filled again and again is adopted, its part in whole pages", "[adopted_memory]") {
  adopt_receive_buffer();
}
