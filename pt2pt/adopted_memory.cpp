// Adopted send buffers (see adopted_memory.hpp).
#include "pt2pt/adopted_memory.hpp"
#include "common/memory_copy.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/log.hpp"

extern "C" void* __libc_malloc(std::size_t);  // glibc's own malloc, whatever `malloc` resolves to

namespace fabmpi::pt2pt {
namespace {

// PROCMAP_QUERY (linux/fs.h, Linux 6.11): one VMA of the process that opened /proc/<pid>/maps, by address.
// Declared here: the build machines' kernel headers predate it; an older kernel answers ENOTTY / EINVAL.
struct ProcmapQuery {
  std::uint64_t size;
  std::uint64_t query_flags;
  std::uint64_t query_addr;
  std::uint64_t vma_start;
  std::uint64_t vma_end;
  std::uint64_t vma_flags;
  std::uint64_t vma_page_size;
  std::uint64_t vma_offset;
  std::uint64_t inode;
  std::uint32_t dev_major;
  std::uint32_t dev_minor;
  std::uint32_t vma_name_size;
  std::uint32_t build_id_size;
  std::uint64_t vma_name_addr;
  std::uint64_t build_id_addr;
};
constexpr unsigned long kProcmapQuery = _IOWR('f', 17, ProcmapQuery);
constexpr std::uint64_t kVmaReadable = 0x1, kVmaWritable = 0x2, kVmaShared = 0x8;

constexpr char kMemfdPrefix[] = "fabmpi-adopted-";

std::size_t page_size() noexcept { return SharedHeap::header_bytes(); }

// One /proc/<pid>/maps line ("start-end perms offset major:minor inode   name").
struct MapsLine {
  std::uintptr_t start = 0, end = 0;
  char perms[5] = {};
  std::uint64_t offset = 0, inode = 0;
  unsigned major = 0, minor = 0;
  const char* name = nullptr;  // points into the line
};

// No allocation (also used in a forked child).
bool parse_maps_line(const char* line, MapsLine* out) {
  char* p = nullptr;
  out->start = std::strtoull(line, &p, 16);
  if (*p != '-') return false;
  out->end = std::strtoull(p + 1, &p, 16);
  if (*p != ' ') return false;
  ++p;
  for (int i = 0; i < 4; ++i) out->perms[i] = p[i] ? p[i] : '-';
  out->perms[4] = 0;
  p += 4;
  out->offset = std::strtoull(p, &p, 16);
  out->major = static_cast<unsigned>(std::strtoul(p, &p, 16));
  if (*p != ':') return false;
  out->minor = static_cast<unsigned>(std::strtoul(p + 1, &p, 16));
  out->inode = std::strtoull(p, &p, 10);
  while (*p == ' ') ++p;
  out->name = p;
  return true;
}

// Calls `fn(line)` for each line of /proc/self/maps, with a fixed buffer (no allocation; async-signal-safe
// calls only, for the fork child handler). Stops when fn returns false.
template <typename Fn>
void for_each_maps_line(Fn fn) noexcept {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[8192];
  std::size_t have = 0;
  for (;;) {
    const ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
    buf[have] = 0;
    char* line = buf;
    for (char* nl; (nl = std::strchr(line, '\n')) != nullptr; line = nl + 1) {
      *nl = 0;
      if (!fn(static_cast<const char*>(line))) {
        close(fd);
        return;
      }
    }
    have = static_cast<std::size_t>(buf + have - line);
    std::memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;  // a line longer than the buffer (a very long path): skipped
  }
  close(fd);
}

}  // namespace

AdoptedMemory::AdoptedMemory() {
  pthread_atfork(&AdoptedMemory::before_fork, &AdoptedMemory::after_fork_in_parent,
                 &AdoptedMemory::after_fork_in_child);
}

AdoptedMemory& AdoptedMemory::instance() {
  static AdoptedMemory* memory = new AdoptedMemory;  // never destroyed: adopted pages outlive MPI_Finalize
  return *memory;
}

bool AdoptedMemory::process_allows() noexcept {
  // An interposed malloc (jemalloc, tcmalloc, a sanitizer's) may hand out pages it assumes zero after
  // MADV_DONTNEED, which shared pages are not.
  static const bool glibc_malloc = [] {
    void* (*resolved)(std::size_t) = &std::malloc;
    return reinterpret_cast<void*>(resolved) == reinterpret_cast<void*>(&__libc_malloc);
  }();
  if (!glibc_malloc) return false;
  // Host memory registered with CUDA is pinned: the device would keep using the old pages.
  if (void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
    dlclose(cuda);
    return false;
  }
  return true;
}

std::size_t AdoptedMemory::regions() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return regions_.size();
}

void AdoptedMemory::use_proc_files_only() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  procmap_query_ = 0;
}

int AdoptedMemory::maps_fd() noexcept {
  if (maps_fd_ < 0) maps_fd_ = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (maps_fd_ >= 0 && procmap_query_ < 0) {
    ProcmapQuery q{};
    q.size = sizeof q;
    q.query_addr = reinterpret_cast<std::uintptr_t>(&regions_);
    procmap_query_ = ioctl(maps_fd_, kProcmapQuery, &q) == 0 ? 1 : 0;
  }
  return maps_fd_;
}

bool AdoptedMemory::vma_of(std::uintptr_t addr, Vma* out) noexcept {
  char name[64] = {};
  if (maps_fd() >= 0 && procmap_query_ == 1) {
    ProcmapQuery q{};
    q.size = sizeof q;
    q.query_addr = addr;
    q.vma_name_addr = reinterpret_cast<std::uintptr_t>(name);
    q.vma_name_size = sizeof name;
    if (ioctl(maps_fd_, kProcmapQuery, &q) != 0) {
      if (errno != ENAMETOOLONG) return false;  // ENOENT: nothing mapped there
      // A long name (a file's path, an adopted region's memfd): not anonymous memory, the rest still counts.
      q.vma_name_addr = 0;
      q.vma_name_size = 0;
      if (ioctl(maps_fd_, kProcmapQuery, &q) != 0) return false;
      name[0] = '?';
      q.vma_name_size = 2;
    }
    out->start = q.vma_start;
    out->end = q.vma_end;
    out->readable = q.vma_flags & kVmaReadable;
    out->writable = q.vma_flags & kVmaWritable;
    out->shared = q.vma_flags & kVmaShared;
    out->offset = q.vma_offset;
    out->inode = q.inode;
    out->dev = makedev(q.dev_major, q.dev_minor);
    out->heap = q.vma_name_size > 0 && std::strcmp(name, "[heap]") == 0;
    out->unnamed = q.vma_name_size == 0 || name[0] == 0;
    return true;
  }
  bool found = false;
  for_each_maps_line([&](const char* line) {
    MapsLine m;
    if (!parse_maps_line(line, &m) || addr < m.start || addr >= m.end) return true;
    out->start = m.start;
    out->end = m.end;
    out->readable = m.perms[0] == 'r';
    out->writable = m.perms[1] == 'w';
    out->shared = m.perms[3] == 's';
    out->offset = m.offset;
    out->inode = m.inode;
    out->dev = makedev(m.major, m.minor);
    out->heap = std::strcmp(m.name, "[heap]") == 0;
    out->unnamed = m.name[0] == 0;
    found = true;
    return false;
  });
  return found;
}

bool AdoptedMemory::still_mapped(const Region& r) noexcept {
  if (maps_fd() >= 0 && procmap_query_ == 1) {
    ProcmapQuery q{};
    q.size = sizeof q;
    q.query_addr = r.lo;
    if (ioctl(maps_fd_, kProcmapQuery, &q) != 0) return false;
    return q.vma_start <= r.lo && q.vma_end >= r.hi && (q.vma_flags & kVmaShared) && q.inode == r.ino &&
           makedev(q.dev_major, q.dev_minor) == r.dev && q.vma_offset + (r.lo - q.vma_start) == page_size();
  }
  // The mapping of exactly [lo, hi) names the region's memfd ("/memfd:fabmpi-adopted-<id> (deleted)").
  char path[64], target[128], expected[64];
  std::snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", static_cast<unsigned long>(r.lo),
                static_cast<unsigned long>(r.hi));
  const ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = 0;
  const int e = std::snprintf(expected, sizeof expected, "/memfd:%s%llu ", kMemfdPrefix,
                              static_cast<unsigned long long>(SharedRegionKey::id(r.key)));
  return e > 0 && std::strncmp(target, expected, static_cast<std::size_t>(e)) == 0;
}

bool AdoptedMemory::inside_mapped_block(const Vma& vma, std::uintptr_t u, std::size_t bytes) noexcept {
  // Blocks glibc mapped one after another are often one VMA (adjacent anonymous mappings merge), and an
  // adoption splits one in three. So the block holding u is found by walking the blocks from the start of
  // the run of adjacent mappings, anonymous or adopted by us, that ends with u's: each block begins with
  // its chunk header, prev_size 0 and the block's size with IS_MMAPPED set (a memalign'd block's first
  // chunk header stays there too, describing the whole block). Anything else on the way (a mapping that is
  // not malloc's) ends the walk: not adopted.
  constexpr int kMaxSteps = 64;
  const std::size_t page = page_size();
  std::uintptr_t start = vma.start;
  for (int i = 0; i < kMaxSteps && start >= page; ++i) {
    Vma prev;
    if (!vma_of(start - 1, &prev) || prev.end != start) break;
    const auto region = regions_.find(prev.start);
    const bool ours = region != regions_.end() && region->second.hi == prev.end && region->second.ino == prev.inode;
    if (!ours && !(prev.readable && prev.writable && !prev.shared && prev.inode == 0 && prev.unnamed)) break;
    start = prev.start;
  }
  std::uintptr_t block = start;
  for (int i = 0; i < kMaxSteps && block + page <= vma.end; ++i) {
    const auto* header = reinterpret_cast<const std::size_t*>(block);
    const std::size_t size = header[1] & ~std::size_t{7};
    if (header[0] != 0 || (header[1] & 6) != 2 || size == 0 || size % page != 0 || size > (std::size_t{1} << 46))
      return false;
    if (u < block + size) return u >= block + 16 && bytes <= block + size - u;
    block += size;
  }
  return false;
}

bool AdoptedMemory::adoptable(const void* buf, std::size_t bytes, std::uintptr_t* lo_inout, std::uintptr_t hi,
                              const Region* replaced) noexcept {
  std::uintptr_t lo = *lo_inout;
  const auto u = reinterpret_cast<std::uintptr_t>(buf);
  // Whose memory: the VMA holding the buffer's first bytes (and the 16 before them) decides.
  Vma head;
  if (u < 16 || !vma_of(u - 16, &head)) return false;
  auto is_replaced = [&](const Vma& v) {
    return replaced && v.start >= replaced->lo && v.end <= replaced->hi && v.inode == replaced->ino &&
           v.dev == replaced->dev;
  };
  if (head.end <= u) {
    // A page-aligned buffer whose first pages are the region this adoption replaces (a buffer sent with
    // growing sizes: osu-style benchmarks, page-aligned allocations); the 16 bytes before it decide.
    Vma first;
    if (u % page_size() != 0 || !vma_of(u, &first) || !is_replaced(first)) return false;
  }
  // (The region being replaced holds the first page only if it took in a malloc block's header page.)
  const bool head_replaced = is_replaced(head);
  if (!head_replaced && (!head.readable || !head.writable || head.shared || head.inode != 0)) return false;
  const bool heap = !head_replaced && head.heap;
  if (!heap) {
    if (!head_replaced && !head.unnamed) return false;  // [stack], named anonymous memory: not malloc's
    // A block glibc mapped for one request (malloc, or memalign and friends: then its header says how far
    // the block starts before the chunk): prev_size, then the chunk size with IS_MMAPPED (2) set and
    // NON_MAIN_ARENA (4) clear; block start and end page-aligned; the message inside the chunk.
    const auto* header = reinterpret_cast<const std::size_t*>(u - 16);
    const std::size_t lead = header[0], field = header[1];
    const std::size_t chunk = field & ~std::size_t{7};
    const std::uintptr_t p = u - 16;
    if ((field & 6) == 2 && lead <= p && ((p - lead) | (lead + chunk)) % page_size() == 0 && chunk >= bytes + 16) {
      // The block's first page holds nothing but its header before the buffer (written only by malloc and
      // free): it can go along, and the message's first bytes need no CMA. Not when the region would then
      // be the whole block: realloc would mremap it (all one mapping) past the memfd's end.
      const std::uintptr_t block = p - lead;
      if (block + page_size() == lo && hi < block + lead + chunk && head.start <= block)
        lo = block;
    } else if (head_replaced || !inside_mapped_block(head, u, bytes)) {
      return false;
    }
  }
  // Every page of [lo, hi): memory of the same kind (or the region this adoption replaces).
  for (std::uintptr_t a = lo; a < hi;) {
    Vma v;
    if (!vma_of(a, &v)) return false;
    const bool same_kind = v.readable && v.writable && !v.shared && v.inode == 0 && (heap ? v.heap : v.unnamed);
    if (!same_kind && !is_replaced(v)) return false;
    a = v.end;
  }
  *lo_inout = lo;
  return true;
}

bool AdoptedMemory::adopt(std::uintptr_t lo, std::uintptr_t hi, Region* out) noexcept {
  const std::size_t page = page_size(), bytes = hi - lo;
  // Until the mremap the pages exist twice (the program's and the copy): not for buffers larger than an
  // eighth of the machine's memory.
  if (bytes > SharedHeap::largest_region() / 8) return false;
  const std::uint64_t id = SharedHeap::new_region_id();
  char name[48];
  std::snprintf(name, sizeof name, "%s%llu", kMemfdPrefix, static_cast<unsigned long long>(id));
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  void* header = MAP_FAILED;
  void* copy = MAP_FAILED;
  auto fail = [&](const char* what) {
    FABMPI_LOG(info, pt2pt, "adopting %zu bytes at %#lx: %s: %s", bytes, static_cast<unsigned long>(lo), what,
               strerror(errno));
    if (copy != MAP_FAILED) munmap(copy, bytes);
    if (header != MAP_FAILED) munmap(header, page);
    close(fd);
    return false;
  };
  void* edges = MAP_FAILED;
  // Header page, the pages, two edge pages. Allocated up front: shared memory that cannot be had fails
  // here (ENOSPC, ENOMEM) instead of by SIGBUS in the copy, and in one call rather than a fault per page.
  const std::size_t file_bytes = page + bytes + 2 * page;
  if (ftruncate(fd, static_cast<off_t>(file_bytes)) != 0) return fail("ftruncate");
  if (fallocate(fd, 0, 0, static_cast<off_t>(file_bytes)) != 0) return fail("fallocate");
  if (fstat(fd, &st) != 0) return fail("fstat");
  header = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (header == MAP_FAILED) return fail("mmap");
  edges = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(page + bytes));
  if (edges == MAP_FAILED) return fail("mmap");
  copy = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, static_cast<off_t>(page));
  if (copy == MAP_FAILED) {
    munmap(edges, 2 * page);
    return fail("mmap");
  }
  // The copy is the program's bytes; then it takes their place, page tables and all (no second round of
  // page faults at the program's addresses).
  copy_memory(copy, reinterpret_cast<const void*>(lo), bytes);
  if (mremap(copy, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(lo)) == MAP_FAILED) {
    munmap(edges, 2 * page);
    return fail("mremap");
  }
  auto* h = new (header) SharedRegionHeader{SharedRegionHeader::kMagic, id, lo, bytes, {}, 2};
  h->live.store(1, std::memory_order_release);
  out->lo = lo;
  out->hi = hi;
  out->fd = fd;
  out->dev = st.st_dev;
  out->ino = st.st_ino;
  out->key = SharedRegionKey::make(fd, id);
  out->header = h;
  out->edges = static_cast<unsigned char*>(edges);
  return true;
}

void AdoptedMemory::copy_edges(const Region& r, std::uintptr_t begin, std::uintptr_t end) noexcept {
  // Only the message's own bytes: the rest of those pages may be another thread's to write meanwhile.
  // Messages in flight at once from this region share the bytes they overlap in (MPI forbids changing a
  // send buffer during the send), so concurrent copies store the same values.
  const std::size_t page = page_size();
  if (end > r.hi) {
    const std::uintptr_t stop = std::min(end, r.hi + page);
    std::memcpy(r.edges, reinterpret_cast<const void*>(r.hi), stop - r.hi);
  }
  if (begin < r.lo) {
    const std::uintptr_t start = std::max(begin, r.lo - page);
    std::memcpy(r.edges + page + (start - (r.lo - page)), reinterpret_cast<const void*>(start), r.lo - start);
  }
}

void AdoptedMemory::drop(const Region& r) noexcept {
  // The pages stay where the program has them (shared memory now, for as long as it keeps them mapped);
  // peers that mapped them unmap at their next sweep.
  r.header->live.store(0, std::memory_order_release);
  munmap(r.header, page_size());
  munmap(r.edges, 2 * page_size());
  close(r.fd);
}

void AdoptedMemory::sweep() noexcept {
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (still_mapped(it->second)) {
      ++it;
    } else {
      drop(it->second);
      it = regions_.erase(it);
    }
  }
}

bool AdoptedMemory::count_send(std::uintptr_t lo, unsigned due) noexcept {
  ++uses_;
  Candidate* slot = &candidates_[0];
  for (Candidate& c : candidates_) {
    if (c.lo == lo && c.sends > 0) {
      c.last_use = uses_;
      if (++c.sends < due) return false;
      c = Candidate{};
      return true;
    }
    if (c.last_use < slot->last_use) slot = &c;  // least recently used (or never)
  }
  *slot = Candidate{lo, 1, uses_};
  return due <= 1;
}

std::uint64_t AdoptedMemory::key_for_send(const void* buf, std::size_t bytes, const AdoptionPolicy& policy,
                                          bool application) noexcept {
  return key_for(buf, bytes, application ? policy.application_min_bytes : policy.min_bytes, policy.sends, true,
                 nullptr);
}

std::uint64_t AdoptedMemory::key_for_receive(void* buf, std::size_t bytes, const AdoptionPolicy& policy,
                                             std::uintptr_t range[2]) noexcept {
  return key_for(buf, bytes, policy.receive_min_bytes, policy.sends, false, range);
}

std::uint64_t AdoptedMemory::key_for(const void* buf, std::size_t bytes, std::size_t min_bytes, unsigned sends,
                                     bool edges, std::uintptr_t range[2]) noexcept {
  if (sends == 0 || min_bytes == 0 || bytes < min_bytes || bytes < 2 * page_size()) return 0;
  const std::size_t page = page_size();
  const auto u = reinterpret_cast<std::uintptr_t>(buf);
  const std::uintptr_t lo = (u + page - 1) / page * page, hi = (u + bytes) / page * page;
  if (hi <= lo || hi - lo < min_bytes / 2) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (forked_child_) return 0;
  // Regions whose buffers were freed keep their pages alive in the peers that map them until dropped.
  if (++sends_seen_ % kSweepEvery == 0) sweep();
  // The region holding the message's first page, or else the first one starting inside the message.
  auto it = regions_.upper_bound(lo);
  if (it != regions_.begin() && std::prev(it)->second.hi > lo) --it;
  if (it != regions_.end() && it->first >= hi) it = regions_.end();
  if (it != regions_.end() && !still_mapped(it->second)) {
    drop(it->second);
    regions_.erase(it);
    it = regions_.end();
  }
  const Region* found = it != regions_.end() ? &it->second : nullptr;
  const std::uintptr_t end = u + bytes;
  auto hand_out = [&](const Region* r) -> std::uint64_t {
    if (!r) return 0;
    if (edges) copy_edges(*r, u, end);
    if (range) {
      range[0] = std::max(r->lo, u);
      range[1] = std::min(r->hi, end);
    }
    return r->key;
  };
  if (found && found->lo <= lo && found->hi >= hi) return hand_out(found);
  // Not (all) adopted yet: count the send; when due, adopt its pages (taking in a region they contain).
  // (An earlier adoption may have taken the page before the message too: a malloc block's header page.)
  const bool replace = found && lo - page <= found->lo && found->hi <= hi;
  if (!count_send(lo, sends) || (found && !replace)) return hand_out(found);
  if (regions_.size() >= kMaxRegions) {
    const std::uintptr_t found_lo = found ? found->lo : 0;
    sweep();  // `found` was just checked, so it stays; the iterator may not
    if (found) {
      it = regions_.find(found_lo);
      if (it == regions_.end()) return 0;
      found = &it->second;
    }
  }
  std::uintptr_t adopt_lo = lo;
  if (regions_.size() >= kMaxRegions + (replace ? 1 : 0) || !process_allows() || !adoptable(buf, bytes, &adopt_lo, hi, found))
    return hand_out(found);
  Region r;
  const auto started = std::chrono::steady_clock::now();
  if (!adopt(adopt_lo, hi, &r)) return hand_out(found);
  const auto took_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  adopted_any_ = true;
  if (replace) {  // its pages are the new region's now
    drop(*found);
    regions_.erase(it);
  }
  try {
    regions_.emplace(r.lo, r);
  } catch (...) {  // no memory for the map node: the pages stay adopted, unknown to peers
    drop(r);
    return 0;
  }
  FABMPI_LOG(debug, pt2pt, "adopted %zu bytes at %#lx in %lld us (key %#llx)", r.hi - r.lo,
             static_cast<unsigned long>(r.lo), static_cast<long long>(took_us.count()),
             static_cast<unsigned long long>(r.key));
  return hand_out(&r);
}

void AdoptedMemory::before_fork() noexcept { instance().mutex_.lock(); }

void AdoptedMemory::after_fork_in_parent() noexcept { instance().mutex_.unlock(); }

void AdoptedMemory::after_fork_in_child() noexcept {
  AdoptedMemory& memory = instance();
  memory.forked_child_ = true;
  // The maps descriptor describes the parent's address space.
  if (memory.maps_fd_ >= 0) close(memory.maps_fd_);
  memory.maps_fd_ = -1;
  if (memory.adopted_any_) {
    // Every adopted mapping (also those dropped but still mapped) becomes private memory with the same
    // contents at the same address. Collected first, then changed: /proc/self/maps is read while the
    // mappings stay as they are.
    constexpr std::size_t kBatch = 256;
    for (bool more = true; more;) {
      std::uintptr_t starts[kBatch], ends[kBatch];
      std::size_t found = 0;
      more = false;
      for_each_maps_line([&](const char* line) {
        MapsLine m;
        if (parse_maps_line(line, &m) && m.perms[3] == 's' && std::strncmp(m.name, "/memfd:", 7) == 0 &&
            std::strncmp(m.name + 7, kMemfdPrefix, sizeof kMemfdPrefix - 1) == 0) {
          if (found == kBatch) {
            more = true;
            return false;
          }
          starts[found] = m.start;
          ends[found++] = m.end;
        }
        return true;
      });
      std::size_t privatized = 0;
      for (std::size_t i = 0; i < found; ++i) {
        // (Out of memory: that mapping stays shared, as it was.)
        if (SharedHeap::make_private_in_place(reinterpret_cast<void*>(starts[i]), ends[i] - starts[i]))
          ++privatized;
      }
      if (privatized == 0) break;  // nothing changed: another pass would find the same mappings
    }
  }
  memory.mutex_.unlock();
}

}  // namespace fabmpi::pt2pt
