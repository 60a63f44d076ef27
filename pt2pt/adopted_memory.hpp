// Send buffers from malloc that the node's ranks can map: "adopted" memory.
//
// Why: a rendezvous message from private memory reaches a rank on the node by two copies through the ring
// (streaming, ~21-22 GB/s on two cores) or by one kernel copy (CMA, ~12 GB/s here), while a copy out of a
// mapping of the sender's memory runs at memcpy speed in the caches (~40-45 GB/s; MPI_Alloc_mem memory,
// shared_heap.hpp). Most programs send from malloc'd buffers, and send the same ones over and over.
//
// What: once the whole pages inside a send buffer have gone by rendezvous `sends` times, they are moved
// into a memfd in place: copied into a new shared mapping of a memfd, which is then moved over the same
// addresses (mremap), so the program sees the same bytes at the same addresses and its allocator keeps
// owning them. Later sends from those pages carry the memfd's key, as MPI_Alloc_mem memory does (the same
// header page and key, SharedRegionHeader / SharedRegionKey), and the receiver copies them once out of its
// mapping. The bytes in the partial pages at either end of the buffer the sender copies into two "edge"
// pages of the memfd at each send (under 8 KiB; a kernel copy by CMA costs the receiver ~1.5 us each).
//
// Which memory: only what glibc's malloc handed out (its main heap, "[heap]", or a block it mapped for one
// large request that holds the send buffer), only while glibc's malloc is the process's malloc (jemalloc,
// tcmalloc or a sanitizer's allocator may rely on MADV_DONTNEED zeroing private pages, which it does not do
// for shared ones; glibc clears such memory itself before calloc returns it), only in a process that has
// not loaded libcuda (pages pinned for a device must stay where they are), and only the pages inside the
// send buffer: MPI forbids writing those during the send, so no concurrent write is lost in the copy.
// Memory another library has registered for DMA (RDMA verbs, io_uring fixed buffers) and then sends
// repeatedly through MPI must not be adopted: FABMPI_SHM_ADOPT=0.
//
// Validity: free() may unmap the pages (and a new allocation map others there) at any time. Every send
// checks that the mapping at those addresses is still the memfd's (PROCMAP_QUERY, Linux 6.11+, ~0.6 us;
// older kernels: readlink of /proc/self/map_files, ~3.5 us); a region that is not is dropped, and its
// header's live flag tells mapping peers to unmap it.
//
// Receive buffers (key_for_receive): the whole pages of a malloc'd buffer that large rendezvous receives
// fill again and again are adopted the same way, so the sender can copy part of each message into them
// (shm_transport.cpp, assisted reads). MPI forbids the program to touch a receive buffer during the
// receive, as it forbids writing a send buffer during the send.
//
// fork(): the child gets private copies of adopted pages (it looks for them in its /proc/self/maps), as for
// any other private memory.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "pt2pt/shared_heap.hpp"

namespace fabmpi::pt2pt {

struct AdoptionPolicy {
  unsigned sends = 16;                           // rendezvous sends of a buffer before adoption; 0: never
  std::size_t min_bytes = std::size_t{512} << 10;  // smaller sends are neither counted nor adopted
  // The same for the application's own sends (Channel::user): collectives that read a block while a
  // peer reads it from the same, adopted pages were measured slower below 512 KiB; plain point to point
  // was not (docs/performance.md, eighteenth and twenty-second sessions).
  std::size_t application_min_bytes = std::size_t{64} << 10;
  // Receive buffers (key_for_receive): the smallest read of a rendezvous receive counted and adopted, so
  // that its sender can copy part of the message into it (shm_transport.cpp, assisted reads); 0: never.
  std::size_t receive_min_bytes = std::size_t{512} << 10;
};

class AdoptedMemory {
 public:
  AdoptedMemory();
  static AdoptedMemory& instance();

  // The key under which a node peer maps the whole pages of [buf, buf + bytes) (some or all of them: the
  // peer clips to the region its header describes), or 0. Counts the send and adopts when it is due.
  // `application`: the application's own send (AdoptionPolicy::application_min_bytes applies).
  std::uint64_t key_for_send(const void* buf, std::size_t bytes, const AdoptionPolicy& policy,
                             bool application) noexcept;

  // The same for a receive buffer that a rendezvous read from a node peer fills: counted toward adoption as
  // sends are (AdoptionPolicy::receive_min_bytes), its whole pages moved into shared memory when due, so the
  // sender can map them and copy part of the message itself. The receive is in progress, so MPI forbids
  // the program to touch those pages, as it does a send buffer's. With a key, range[0..1] is the part of
  // [buf, buf + bytes) inside the region (whole pages of the buffer, or more where an earlier region that
  // still holds these addresses covers more). No edge copies: the receiver writes the rest itself.
  std::uint64_t key_for_receive(void* buf, std::size_t bytes, const AdoptionPolicy& policy,
                                std::uintptr_t range[2]) noexcept;

  // Regions currently adopted (tests).
  std::size_t regions() const noexcept;
  // Tests: find mappings as on kernels before 6.11 (no PROCMAP_QUERY): /proc/self/maps and map_files.
  void use_proc_files_only() noexcept;
  // Whether this process may adopt at all: glibc's malloc is malloc, libcuda is not loaded.
  static bool process_allows() noexcept;

 private:
  struct Region {
    std::uintptr_t lo = 0, hi = 0;  // the pages, where the program sees them
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
    std::uint64_t key = 0;
    SharedRegionHeader* header = nullptr;  // our own mapping of the header page
    unsigned char* edges = nullptr;        // and of the edge pages (SharedRegionHeader::edge_pages)
  };
  struct Candidate {
    std::uintptr_t lo = 0;
    unsigned sends = 0;
    std::uint64_t last_use = 0;
  };
  struct Vma {
    std::uintptr_t start = 0, end = 0;
    bool readable = false, writable = false, shared = false;
    std::uint64_t offset = 0, inode = 0;
    dev_t dev = 0;
    bool heap = false;     // "[heap]": glibc's main arena (brk)
    bool unnamed = false;  // anonymous without a name
  };
  static constexpr std::size_t kMaxRegions = 32;  // each holds a descriptor (see SharedHeap::kMaxRegions)
  static constexpr std::size_t kCandidates = 8;
  static constexpr std::uint64_t kSweepEvery = 64;  // key_for_send calls between checks of every region

  // key_for_send and key_for_receive: `edges`, copy the message's bytes in the partial pages around the
  // region into its edge pages; `range` (may be null): where the region meets the buffer.
  std::uint64_t key_for(const void* buf, std::size_t bytes, std::size_t min_bytes, unsigned sends, bool edges,
                        std::uintptr_t range[2]) noexcept;
  bool vma_of(std::uintptr_t addr, Vma* out) noexcept;
  bool still_mapped(const Region& r) noexcept;
  // Whether the pages [*lo, hi) of a send from `buf` may be adopted (lowers *lo to take in a malloc
  // block's header page). `replaced`: a region inside them that the adoption would take in.
  bool adoptable(const void* buf, std::size_t bytes, std::uintptr_t* lo, std::uintptr_t hi,
                 const Region* replaced) noexcept;
  // Whether [u, u + bytes) lies inside one block glibc mapped for one request (`vma` holds u).
  bool inside_mapped_block(const Vma& vma, std::uintptr_t u, std::size_t bytes) noexcept;
  bool adopt(std::uintptr_t lo, std::uintptr_t hi, Region* out) noexcept;
  void drop(const Region& r) noexcept;
  void sweep() noexcept;  // drops every region that is no longer mapped
  bool count_send(std::uintptr_t lo, unsigned due) noexcept;  // true: this send makes `due`
  // Copies the message's bytes in the partial pages just before and after region r into its edge pages.
  static void copy_edges(const Region& r, std::uintptr_t begin, std::uintptr_t end) noexcept;
  int maps_fd() noexcept;

  static void before_fork() noexcept;
  static void after_fork_in_parent() noexcept;
  static void after_fork_in_child() noexcept;

  mutable std::mutex mutex_;
  std::map<std::uintptr_t, Region> regions_;  // by lo
  std::array<Candidate, kCandidates> candidates_{};
  std::uint64_t uses_ = 0;
  std::uint64_t sends_seen_ = 0;
  int maps_fd_ = -1;       // /proc/self/maps, for PROCMAP_QUERY
  int procmap_query_ = -1;  // -1 not probed, 0 unsupported, 1 supported
  bool adopted_any_ = false;
  bool forked_child_ = false;  // a forked child adopts nothing (its header pages are its parent's)
};

}  // namespace fabmpi::pt2pt
