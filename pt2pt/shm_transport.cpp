// The native shared-memory transport (see shm_transport.hpp for the design).
#include "pt2pt/shm_transport.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <random>
#include <unordered_map>
#include <utility>

#include "common/log.hpp"
#include "common/memory_copy.hpp"
#include "common/rate_chooser.hpp"
#include "common/unique_fd.hpp"
#include "pt2pt/adopted_memory.hpp"
#include "pt2pt/shared_heap.hpp"
#include "pt2pt/shm_ring.hpp"

namespace fabmpi::pt2pt {
namespace {

constexpr std::uint64_t kMagic = 0x66616273686d3032ull;  // "fabshm02"
constexpr std::uint64_t kProbeValue = 0x5ca1ab1e0ddba11ull;

// Rendezvous reads stream through the ring (ShmOptions::stream_reads): the owner copies its exposed
// memory into the ring in pieces this size while we copy them out, on two cores in parallel. Measured
// at np=2 against one process_vm_readv: ping-pong 128 KiB 5.1 vs 18 us, 1 MiB 37 vs 106, 4 MiB 158-176
// vs 362-400; bw 1-4 MiB 26-28 vs 12-13 GB/s (pieces of 64 KiB: 6.7 / 41 / 168 us; of half the ring:
// 8.0 / 44 / 180).
constexpr std::size_t kStreamPiece = 16384;
// Stream bytes one pump() writes to a peer before it returns, so that the caller drains its own inbound
// rings in between: a peer that reads as fast as we write kept us streaming megabytes without draining,
// its ring to us filled, and our reads from it stalled into CMA takeovers (np=2 bibw 16 MiB: thousands).
constexpr std::size_t kStreamBudget = 128 * 1024;
// A streamed read whose owner has sent nothing (for any read of ours) for this long is taken over with
// CMA: the owner is computing outside MPI, and a CMA read needs nothing from it.
constexpr std::uint64_t kStreamPatienceNs = 200'000;
// The same for a read streamed while we stream to its owner too (an exchange past the caches, see
// read()): there one takeover's CMA copy (~100-200 us a chunk) silences this rank towards the peer long
// enough for the peer to take over in turn, and so on (np=2 bibw 8-16 MiB: 15,000 takeovers a run at
// 200 us, none at 2 ms; 9.8-11.5 / 7.5-7.8 GB/s against 16.3-18.3 / 13.1-15.3).
constexpr std::uint64_t kStreamPatienceExchangeNs = 2'000'000;

// From this size on a receiver times how each peer's messages reach it, through the ring (eager, or a
// stream) or by CMA, and keeps the faster way per power-of-two size class (ShmOptions::choose_ways).
// Which wins is the machine's: on the development VM with its two cores in the "mid" state (a cache
// line crossing in 40-100 ns) the ring by 2-3x; on a machine where lines cross in ~150 ns, CMA (np=2,
// bw 64 / 128 / 256 KiB 19.5 / 22.3 / 24.5 GB/s against 9.5-12 / 8.7-12 / 8.7-9.4 through the ring;
// nineteenth session, docs/performance.md). Below 16 KiB the ring's lack of a handshake wins anyway.
constexpr std::size_t kWayMin = 16384;
constexpr std::size_t kWayClasses = 11;  // 16-32 KiB, 32-64 KiB, ..., 16 MiB and more
std::size_t way_class(std::size_t bytes) noexcept {
  return std::min<std::size_t>(static_cast<std::size_t>(std::bit_width(bytes)) - 15, kWayClasses - 1);
}

// Assisted reads: a rendezvous read copied out of a mapping of the sender's memory into a receive buffer
// the sender can map too (its whole pages adopted into shared memory, or MPI_Alloc_mem memory) is split
// into chunks that both ranks take in turn from a shared counter: the sender, waiting in MPI for the read
// to finish, copies chunks straight into the receive buffer while the receiver copies the others. Two
// cores copy instead of one, and each keeps its chunks' lines in its own L2 (measured on the development
// VM, two processes copying one buffer's chunks of 64 KiB through shared mappings: 2.0-2.8x one core's
// memcpy at 1-16 MiB). A sender busy outside MPI simply takes no chunk; nothing waits for it.
constexpr std::size_t kAssistChunk = std::size_t{64} << 10;
constexpr std::size_t kAssistSlots = 8;   // per ordered pair (reader, owner): a reader's reads helped at once
// Chunks copied per poll (the rings are drained between polls): a helper takes few, since it only helps; a
// reader more, so a program that polls with MPI_Test while the sender computes still reads a 1 MiB piece
// per call (before assisted reads it copied the whole message in the poll that matched it).
constexpr unsigned kHelpBudget = 4;
constexpr unsigned kReadBudget = 16;

// Record types in the rings (kRecordEmpty and kRecordSkip are the ring's own).
constexpr std::uint32_t kRecordMessage = 1;   // WireHeader + payload
constexpr std::uint32_t kRecordPullAsk = 2;   // PullAsk: "send me these bytes of yours"
constexpr std::uint32_t kRecordPullData = 3;  // PullData + bytes
constexpr std::uint32_t kRecordPullCancel = 5;  // PullCancel: "stop streaming that read, I took it over"
constexpr std::uint32_t kRecordEager = 4;     // EagerHeader + payload: a plain eager message
constexpr std::uint32_t kRecordAssistAsk = 6;  // AssistAsk: "copy chunks of this read of mine too"

// What a plain eager message's WireHeader carries beyond what the ring (the sender) and the record
// (the payload size) imply: 24 bytes instead of 56, so a message of up to 32 bytes takes one cache
// line of the ring instead of two (one line for the receiver to miss on, one to zero on pop).
struct EagerHeader {
  std::uint32_t context_id;
  std::int32_t source;
  std::int32_t tag;
  std::uint32_t seq;
  std::uint8_t channel;
  std::uint8_t pad[7];
};
static_assert(sizeof(EagerHeader) == 24);

struct PullAsk {
  std::uint64_t token;
  std::uint64_t raddr;
  std::uint64_t bytes;
};
struct PullData {
  std::uint64_t token;
  std::uint64_t offset;
};
struct PullCancel {
  std::uint64_t token;
};

// "Take chunks of my read of your memory at src into my memory at dst": claims go through the reader's
// AssistSlot `slot` while it holds `generation` (the reader moves on to a new generation when the read is
// done, so a late ask finds nothing to claim).
struct AssistAsk {
  std::uint64_t src;      // the owner's (the sender's) address of the read's first byte
  std::uint64_t dst;      // the reader's address for it
  std::uint64_t dst_key;  // the reader's shared region holding [dst, dst + bytes) (SharedRegionKey)
  std::uint64_t bytes;
  std::uint32_t slot;
  std::uint32_t generation;
  std::uint32_t past_caches;  // ReadPlacement::memory: non-temporal stores
  std::uint32_t pad;
};

// One assisted read's shared state, in the segment: per ordered pair (reader, owner), kAssistSlots of them.
struct AssistSlot {
  alignas(kRingAlign) std::atomic<std::uint64_t> claim;   // generation << 32 | next chunk to take
  alignas(kRingAlign) std::atomic<std::uint64_t> helped;  // chunks the owner has copied (only it adds)
};

// Takes the next chunk of the read `generation` of `slot` (of `chunks`): false when all are taken or the
// read is over.
bool claim_chunk(AssistSlot& slot, std::uint32_t generation, std::uint32_t chunks, std::uint32_t* chunk) noexcept {
  std::uint64_t c = slot.claim.load(std::memory_order_relaxed);
  for (;;) {
    if (static_cast<std::uint32_t>(c >> 32) != generation || static_cast<std::uint32_t>(c) >= chunks) return false;
    if (slot.claim.compare_exchange_weak(c, c + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      *chunk = static_cast<std::uint32_t>(c);
      return true;
    }
  }
}

struct alignas(kRingAlign) SegmentHeader {
  std::uint64_t magic;
  std::uint32_t local_count;
  std::uint32_t reserved;
  std::uint64_t ring_bytes;
  std::atomic<std::uint32_t> attached;  // ranks that mapped the segment and filled their slot
  std::atomic<std::uint32_t> checked;   // ranks that finished the CMA check
};

// One per local rank.
struct alignas(kRingAlign) RankSlot {
  std::atomic<std::uint32_t> doorbell;  // a futex: bumped by a sender that finds this rank sleeping
  std::atomic<std::uint32_t> sleeping;  // the rank may be waiting on the doorbell: senders must wake it
  std::atomic<std::uint64_t> yielded_ns;  // steady clock of this rank's last idle yield (Runtime::yield_once)
  std::atomic<std::uint32_t> cma_ok;
  std::int32_t pid;
  std::uint64_t probe_addr;  // a word holding kProbeValue in this rank's memory
  // Bumped on each pass of a wait that runs (Runtime::wait_for, oversubscribed): its own line, since the
  // owner writes it every pass and senders read the line above on every send.
  // The CPU it last beat on is in the low 16 bits.
  alignas(kRingAlign) std::atomic<std::uint64_t> heartbeat;
};

std::size_t round_pow2(std::size_t n) {
  std::size_t p = 4096;
  while (p < n) p <<= 1;
  return p;
}

std::size_t segment_bytes(std::size_t local_count, std::size_t ring_bytes) {
  return sizeof(SegmentHeader) + local_count * sizeof(RankSlot) +
         local_count * local_count * (sizeof(RingControl) + ring_bytes + kAssistSlots * sizeof(AssistSlot));
}

class Mapping {
 public:
  Mapping() = default;
  ~Mapping() { if (base_) munmap(base_, bytes_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  Rc map(int fd, std::size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return fail(MPI_ERR_NO_MEM, "shm: mmap of %zu bytes: %s", bytes, strerror(errno));
    base_ = static_cast<unsigned char*>(p);
    bytes_ = bytes;
    return Rc();
  }
  unsigned char* base() const noexcept { return base_; }

 private:
  unsigned char* base_ = nullptr;
  std::size_t bytes_ = 0;
};

// Something waiting for room in the ring to one peer, in the order it was asked for.
struct Outgoing {
  enum class Kind : std::uint8_t { message, pull_ask, pull_data, pull_cancel };
  Kind kind = Kind::message;
  std::uint64_t token = 0;
  WireHeader header{};
  const unsigned char* data = nullptr;  // message payload, or the exposed memory a pull streams from
  std::size_t bytes = 0;
  std::size_t offset = 0;   // pull_data: bytes already streamed
  std::uint64_t raddr = 0;  // pull_ask
};

struct PullRead {
  unsigned char* local = nullptr;
  std::size_t bytes = 0;
  std::size_t received = 0;   // pieces come in order: bytes [0, received) are here
  std::size_t peer = 0;       // local index of the owner
  std::uint64_t raddr = 0;    // the owner's address (for a CMA takeover)
  std::uint64_t asked_ns = 0; // when the read was asked for (CMA allowed only)
  bool past_caches = false;   // ReadPlacement::memory: pieces copied out with non-temporal stores
  bool exchange = false;      // streamed while we stream to the owner too: kStreamPatienceExchangeNs
  bool timed = false;         // its time goes to the peer's way chooser (NativeShm::note_way)
};

// A peer's shared-heap region (pt2pt/shared_heap.hpp) mapped into this process.
struct PeerRegion {
  unsigned char* base = nullptr;  // the region's header page
  std::size_t mapped_bytes = 0;
  SourceCopyChooser copy_chooser;  // how we copy out of it
  unsigned busy = 0;               // assisted reads and help jobs pointing into it: not unmapped meanwhile
  const SharedRegionHeader* header() const noexcept { return reinterpret_cast<const SharedRegionHeader*>(base); }
};

std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}

// A read of ours whose owner may help (see kAssistChunk).
struct AssistedRead {
  std::uint64_t token = 0;
  std::size_t peer = 0;  // the owner
  std::uint32_t slot = kNoSlot, generation = 0, chunks = 0, own_done = 0;
  static constexpr std::uint32_t kNoSlot = ~0u;  // waiting for a free AssistSlot (none copied yet)
  bool claiming = true;  // chunks may be left to take
  bool past_caches = false;
  int rc = MPI_SUCCESS;  // of the parts read() copied itself
  const unsigned char* src = nullptr;  // our mapping of the owner's bytes
  unsigned char* dst = nullptr;
  std::size_t bytes = 0;
  std::uint64_t raddr = 0;    // the owner's address of src
  std::uint64_t dst_key = 0;  // our region holding dst
  PeerRegion* region = nullptr;  // the owner's, mapped (busy while this read lasts)
};

// A peer's read of our memory we help with.
struct HelpJob {
  std::size_t reader = 0;
  AssistSlot* slot = nullptr;
  std::uint32_t generation = 0, chunks = 0;
  const unsigned char* src = nullptr;  // our own bytes
  unsigned char* dst = nullptr;        // in our mapping of the reader's region
  std::size_t bytes = 0;
  bool past_caches = false;
  PeerRegion* region = nullptr;  // the reader's, mapped (busy while the job lasts)
};

class NativeShm final : public ShmTransport {
 public:
  explicit NativeShm(ShmOptions o) : options_(std::move(o)) {
    local_count_ = options_.local_ranks.size();
    for (std::size_t i = 0; i < local_count_; ++i)
      if (options_.local_ranks[i] == options_.world_rank) me_ = i;
    int max_world = 0;
    for (int r : options_.local_ranks) max_world = std::max(max_world, r);
    local_of_world_.assign(static_cast<std::size_t>(max_world) + 1, -1);
    for (std::size_t i = 0; i < local_count_; ++i)
      local_of_world_[static_cast<std::size_t>(options_.local_ranks[i])] = static_cast<int>(i);
    ring_bytes_ = round_pow2(std::max(options_.ring_bytes, 2 * ring_record_size(options_.max_message)));
  }
  ~NativeShm() override {
    if (created_ && !unlinked_) shm_unlink(name_.c_str());  // nobody else attached (startup failed)
    for (auto& regions : peer_regions_)
      for (auto& [key, region] : regions) munmap(region.base, region.mapped_bytes);
  }

  Rc create(Bootstrap& boot);
  Rc attach(Bootstrap& boot) override;
  bool single_copy() const noexcept override { return cma_; }
  const std::string& segment_name() const noexcept override { return name_; }

  const char* name() const noexcept override { return "native-shm"; }
  std::size_t inject_limit() const noexcept override { return options_.max_message - sizeof(WireHeader); }

  Rc send(int peer, const WireHeader& header, const void* payload, std::size_t bytes, std::uint64_t token,
          bool* completed_now) override {
    const int j = local_index(peer);
    if (j < 0) return fail(MPI_ERR_INTERN, "native-shm: rank %d is not on this node", peer);
    if (sizeof header + bytes > options_.max_message)
      return fail(MPI_ERR_INTERN, "native-shm: %zu-byte message exceeds the ring limit", bytes);
    if (header.kind == WireKind::rts) ++rts_unfinished_[static_cast<std::size_t>(j)];
    // Only messages and pull requests must keep their order; streams being served may be overtaken.
    if (ahead_of_streams_[static_cast<std::size_t>(j)] == 0 &&
        write_message(static_cast<std::size_t>(j), header, payload, bytes)) [[likely]] {
      wake_if_sleeping(static_cast<std::size_t>(j));
      *completed_now = true;
      return Rc();
    }
    queue_message(static_cast<std::size_t>(j), header, payload, bytes, token);
    *completed_now = false;
    return Rc();
  }

  // A message the ring cannot take now (full, or others wait before it): sent from poll() in order.
  // Out of line, so send()'s common path saves few registers.
  [[gnu::noinline]] void queue_message(std::size_t j, const WireHeader& header, const void* payload,
                                       std::size_t bytes, std::uint64_t token) {
    Outgoing o;
    o.kind = Outgoing::Kind::message;
    o.token = token;
    o.header = header;
    o.data = static_cast<const unsigned char*>(payload);
    o.bytes = bytes;
    enqueue(j, o);
  }

  Rc expose(const void* buf, std::size_t bytes, Exposure* out, bool application) override {
    // Nothing to register: with CMA the peer reads our address space; without, we stream from it. Memory
    // of the shared heap (MPI_Alloc_mem) carries its region's key: the peer may map it and copy once.
    out->addr = reinterpret_cast<std::uint64_t>(buf);
    out->key = SharedHeap::instance().key_of(buf, bytes);
    // A buffer from malloc sent again and again is adopted into shared memory (adopted_memory.hpp). Only
    // where CMA works: a message larger than its region (until the larger one is adopted) is read partly
    // by CMA.
    if (out->key == 0 && cma_ && options_.mapped_reads)
      out->key = AdoptedMemory::instance().key_for_send(buf, bytes, options_.adoption, application);
    return Rc();
  }

  void begin_receive(int peer, void* local, std::size_t bytes, std::uint64_t rkey, bool application) noexcept override {
    receive_target_ = {};
    const std::size_t min = options_.adoption.receive_min_bytes;
    if (!application || rkey == 0 || min == 0 || bytes < min || !cma_ || !options_.mapped_reads || local_index(peer) < 0)
      return;
    // The receive buffer's part the sender may write: MPI_Alloc_mem memory, or its whole pages once adopted.
    std::uintptr_t range[2] = {reinterpret_cast<std::uintptr_t>(local), reinterpret_cast<std::uintptr_t>(local) + bytes};
    std::uint64_t key = SharedHeap::instance().key_of(local, bytes);
    if (key == 0) key = AdoptedMemory::instance().key_for_receive(local, bytes, options_.adoption, range);
    if (key != 0 && range[1] - range[0] >= 2 * kAssistChunk)
      receive_target_ = {reinterpret_cast<unsigned char*>(range[0]), reinterpret_cast<unsigned char*>(range[1]), key};
  }

  Rc read(int peer, void* local, std::size_t bytes, std::uint64_t raddr, std::uint64_t rkey,
          std::uint64_t token, ReadPlacement placement) override {
    const int j = local_index(peer);
    if (j < 0) return fail(MPI_ERR_INTERN, "native-shm: rank %d is not on this node", peer);
    if (rkey != 0 && options_.mapped_reads) {
      // The sender's bytes are in its shared heap (MPI_Alloc_mem) or adopted memory: one memcpy from our
      // mapping of them, nothing asked of the sender (bw 1-4 MiB at memcpy speed in the caches, against
      // ~22 GB/s streamed on two cores).
      if (PeerRegion* region = mapped_region(static_cast<std::size_t>(j), rkey)) {
        const SharedRegionHeader* h = region->header();
        const std::uint64_t lo = h->user_addr, hi = h->user_addr + h->user_bytes, last = raddr + bytes;
        const std::uint64_t begin = std::max(raddr, lo), end = std::min(last, hi);
        // Outside the region (an adopted buffer's partial first and last pages): from the edge pages, where
        // the sender copied its message's bytes within a page of the region, and beyond those by CMA.
        const std::uint64_t page = SharedHeap::header_bytes();
        const bool edges = h->edge_pages == 2;
        const std::uint64_t head_from = edges ? std::max(raddr, lo - page) : begin;
        const std::uint64_t tail_to = edges ? std::min(last, hi + page) : end;
        if (begin < end && (cma_ || (raddr == head_from && tail_to == last))) {
          auto* dst = static_cast<unsigned char*>(local);
          unsigned char* mapped = region->base + page;
          int rc = MPI_SUCCESS;
          if (raddr < head_from) rc = cma_read(static_cast<std::size_t>(j), dst, head_from - raddr, raddr);
          if (head_from < begin)
            copy_memory(dst + (head_from - raddr), mapped + h->user_bytes + page + (head_from - (lo - page)),
                        begin - head_from);
          // Taking the sender's lines (modified here rather than shared) or not: whichever has been faster
          // from this region (common/memory_copy.hpp SourceCopyChooser).
          const bool past_caches = placement == ReadPlacement::memory;
          unsigned char* d = dst + (begin - raddr);
          unsigned char* const d_end = dst + (end - raddr);
          const unsigned char* const s = mapped + (begin - lo);
          // The part of it inside the announced receive buffer's shared region, which the sender may
          // help copy (kAssistChunk); the rest we copy now. Not for a read past the caches, where memory
          // bandwidth is the limit and two cores' non-temporal copies at once measured slower than one
          // (np=2 ping-pong 16 MiB, 4 interleaved rounds: 1630-1770 us against 1190-1930, medians 1740 /
          // 1355; 8 MiB even).
          unsigned char* a_lo = std::max(d, receive_target_.lo);
          unsigned char* a_hi = std::min(d_end, receive_target_.hi);
          const bool assisted = !past_caches && a_lo < a_hi && static_cast<std::size_t>(a_hi - a_lo) >= 2 * kAssistChunk;
          if (!assisted) a_lo = a_hi = d_end;  // all of it ours, now
          if (d < a_lo) copy_from_peer_source(region->copy_chooser, d, const_cast<unsigned char*>(s), a_lo - d, past_caches);
          if (a_hi < d_end)
            copy_from_peer_source(region->copy_chooser, a_hi, const_cast<unsigned char*>(s + (a_hi - d)), d_end - a_hi,
                                  past_caches);
          if (end < tail_to) copy_memory(dst + (end - raddr), mapped + h->user_bytes + (end - hi), tail_to - end);
          if (rc == MPI_SUCCESS && tail_to < last)
            rc = cma_read(static_cast<std::size_t>(j), dst + (tail_to - raddr), last - tail_to, tail_to);
          ++mapped_reads_;
          if (assisted) {
            start_assisted_read(static_cast<std::size_t>(j), region, s + (a_lo - d), a_lo,
                                static_cast<std::size_t>(a_hi - a_lo), begin + (a_lo - d), past_caches, token, rc);
            return Rc();
          }
          // Reported from the next poll, as for CMA: the engine is still issuing this receive's pieces.
          completions_.emplace_back(token, rc);
          return Rc();
        }
      }
    }
    // Streaming pays two copies per byte for one on each core's side; when the peer pulls from us at
    // the same time (we have large sends to it in flight: exchanges, alltoall, bibw), both cores copy
    // twice and CMA's one copy each wins (np=2, stream vs CMA: allgather 1 MiB 184-360 vs 119-126 us,
    // alltoall 8 MiB 3615-3959 vs 1801-2181, bibw 2-4 MiB often 10-15 vs 19-24 GB/s). Not for a read
    // that goes past the caches (ReadPlacement::memory): those streams win the exchange too, where CMA's
    // copies through the caches evict each other (np=2 bibw 8 / 16 MiB: 15.0-18.4 / 12.4-15.5 GB/s
    // against 6.2-10.2 / 6.2-7.9 with CMA; fourteenth session).
    const bool exchanging =
        rts_unfinished_[static_cast<std::size_t>(j)] > 0 && placement != ReadPlacement::memory;
    bool use_cma = cma_ && (!options_.stream_reads || exchanging);
    const bool timed = choosing_ && bytes >= kWayMin;
    // A message of an eager size that came by rendezvous (we asked for it, or its sender ran out of
    // credits) is read with CMA; a larger one the way the chooser says.
    if (timed && !use_cma) use_cma = bytes <= inject_limit() || ways_[static_cast<std::size_t>(j)][way_class(bytes)].next();
    if (use_cma) {
      // Synchronous single copy; the completion is reported from the next poll, never from inside
      // read() (the engine is still issuing the other chunks of this receive).
      const std::uint64_t started = timed ? steady_ns() : 0;
      const int rc = cma_read(static_cast<std::size_t>(j), local, bytes, raddr);
      if (timed && rc == MPI_SUCCESS) note_way(static_cast<std::size_t>(j), true, bytes, steady_ns() - started);
      completions_.emplace_back(token, rc);
      return Rc();
    }
    pull_reads_[token] = PullRead{static_cast<unsigned char*>(local), bytes, 0, static_cast<std::size_t>(j),
                                  raddr, cma_ ? steady_ns() : 0, placement == ReadPlacement::memory,
                                  rts_unfinished_[static_cast<std::size_t>(j)] > 0, timed};
    Outgoing o;
    o.kind = Outgoing::Kind::pull_ask;
    o.token = token;
    o.raddr = raddr;
    o.bytes = bytes;
    enqueue(static_cast<std::size_t>(j), o);
    pump(static_cast<std::size_t>(j), nullptr);
    return Rc();
  }

  int poll(TransportSink& sink) override;
  // CMA takeover of streamed reads whose owner has been silent for kStreamPatienceNs.
  int take_over_stalled_reads(TransportSink& sink);
  std::size_t pending() const noexcept override {
    return queued_ + pull_reads_.size() + completions_.size() + assisted_.size();
  }
  std::uint64_t mapped_reads() const noexcept override { return mapped_reads_; }
  std::uint64_t assisted_bytes() const noexcept override { return assisted_bytes_; }
  std::size_t advice_min() const noexcept override { return choosing_ ? kWayMin : SIZE_MAX; }
  bool rendezvous_advised(int peer, std::size_t bytes) const noexcept override {
    const int j = local_index(peer);
    return j >= 0 && (ring(me_, static_cast<std::size_t>(j)).first->advice.load(std::memory_order_relaxed) >>
                      way_class(bytes) & 1u) != 0;
  }
  void note_eager_copy(int peer, std::size_t bytes, std::uint64_t ns) noexcept override {
    const int j = local_index(peer);
    if (j < 0 || !choosing_ || bytes < kWayMin) return;
    // The sender copied the message into the ring as well. Where it has nothing else to do (a stream
    // of messages one way, a ping-pong) that copy runs beside ours or is part of the round trip either
    // way; where it is reading a message of ours at the same time (an exchange: our rendezvous send to
    // it is unfinished) its copy delays it as much as ours delays us, and counts as long as ours.
    // Without that, the two ways measured alike in an np=2 alltoall of 64 KiB (15-18 GB/s each), the
    // choice flipped every few calls, and the call took 9-12 us against 7 by CMA alone (Open MPI 6.5).
    // (Counting it whenever we had sent to the peer since its last message also caught ping-pongs,
    // where the ring's lack of a handshake wins: 16 KiB 3.6 against 2.6-2.8 us.)
    const bool sender_busy = rts_unfinished_[static_cast<std::size_t>(j)] > 0;
    note_way(static_cast<std::size_t>(j), false, bytes, sender_busy ? 2 * ns : ns);
  }
  std::size_t mapped_send_min() const noexcept override {
    // The peers map what we send only where cross-memory attach works (pidfd_getfd asks the same
    // permission), and only with mapped reads on (a job-wide setting).
    return cma_ && options_.mapped_reads && options_.mapped_send_min ? options_.mapped_send_min : SIZE_MAX;
  }

 private:
  // A message of `bytes` from peer j reached us in ns, through the ring (cma false) or by CMA. For the
  // size classes it sends eagerly, the peer learns which way we want next from the advice word in its
  // ring to us (bit c: send class c by rendezvous); it reads it on each such send.
  void note_way(std::size_t j, bool cma, std::size_t bytes, std::uint64_t ns) noexcept {
    const std::size_t c = way_class(bytes);
    RateChooser& way = ways_[j][c];
    const bool before = way.current();
    way.record(cma, bytes, ns);
    if (way.current() != before)
      FABMPI_LOG(debug, pt2pt, "native-shm: messages of %zu-%zu KiB from rank %d now %s (%.1f GB/s)",
                 (kWayMin << c) >> 10, (kWayMin << (c + 1)) >> 10, options_.local_ranks[j],
                 way.current() ? "by CMA" : "through the ring", way.rate());
    if (c >= eager_classes_) return;
    const std::uint32_t bit = 1u << c;
    const std::uint32_t want = way.next() ? advised_[j] | bit : advised_[j] & ~bit;
    if (want != advised_[j]) {
      advised_[j] = want;
      ring(j, me_).first->advice.store(want, std::memory_order_relaxed);
    }
  }

  int local_index(int world) const noexcept {
    if (world < 0 || static_cast<std::size_t>(world) >= local_of_world_.size()) return -1;
    return local_of_world_[static_cast<std::size_t>(world)];
  }
  SegmentHeader* header() const noexcept { return reinterpret_cast<SegmentHeader*>(mapping_.base()); }
  RankSlot* slot(std::size_t i) const noexcept {
    return reinterpret_cast<RankSlot*>(mapping_.base() + sizeof(SegmentHeader)) + i;
  }
  AssistSlot* assist_slot(std::size_t reader, std::size_t owner, std::size_t s) const noexcept {
    unsigned char* slots = mapping_.base() + sizeof(SegmentHeader) + local_count_ * sizeof(RankSlot) +
                           local_count_ * local_count_ * (sizeof(RingControl) + ring_bytes_);
    return reinterpret_cast<AssistSlot*>(slots) + (reader * local_count_ + owner) * kAssistSlots + s;
  }
  std::pair<RingControl*, unsigned char*> ring(std::size_t from, std::size_t to) const noexcept {
    unsigned char* rings = mapping_.base() + sizeof(SegmentHeader) + local_count_ * sizeof(RankSlot);
    unsigned char* r = rings + (from * local_count_ + to) * (sizeof(RingControl) + ring_bytes_);
    return {reinterpret_cast<RingControl*>(r), r + sizeof(RingControl)};
  }

  // A Dekker handshake with sleep_until_message: we published (the record type store), fence, read `sleeping`;
  // the sleeper stores `sleeping`, fences, rereads its rings. At least one sees the other, so either it
  // finds our record or we wake it. Without strict_wake there is no fence (see ShmOptions::strict_wake): a
  // sleeper that missed our record finds it when its 1 ms wait ends. An awake receiver costs one load.
  void wake_if_sleeping(std::size_t j) noexcept {
    RankSlot* s = slot(j);
    if (options_.strict_wake) std::atomic_thread_fence(std::memory_order_seq_cst);
    if (s->sleeping.load(std::memory_order_relaxed)) {
      s->doorbell.fetch_add(1, std::memory_order_relaxed);
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s->doorbell), FUTEX_WAKE, 1, nullptr, nullptr, 0);
    }
  }

 public:
  void wake(const int* world_ranks, std::size_t count, bool strict) noexcept override {
    if (strict) std::atomic_thread_fence(std::memory_order_seq_cst);
    for (std::size_t i = 0; i < count; ++i) {
      const int j = local_index(world_ranks[i]);
      if (j < 0 || static_cast<std::size_t>(j) == me_) continue;
      RankSlot* s = slot(static_cast<std::size_t>(j));
      if (s->sleeping.load(std::memory_order_relaxed)) {
        s->doorbell.fetch_add(1, std::memory_order_relaxed);
        syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s->doorbell), FUTEX_WAKE, 1, nullptr, nullptr, 0);
      }
    }
  }

  void note_idle_yield(std::uint64_t now_ns) noexcept override {
    slot(me_)->yielded_ns.store(now_ns, std::memory_order_relaxed);
  }

  bool peers_idle_since(std::uint64_t since_ns) const noexcept override {
    for (std::size_t j = 0; j < local_count_; ++j) {
      if (j == me_) continue;
      const RankSlot* s = slot(j);
      if (s->yielded_ns.load(std::memory_order_relaxed) < since_ns && !s->sleeping.load(std::memory_order_relaxed))
        return false;
    }
    return true;
  }

  void beat(int cpu) noexcept override {
    std::atomic<std::uint64_t>& h = slot(me_)->heartbeat;
    const std::uint64_t count = (h.load(std::memory_order_relaxed) >> 16) + 1;
    h.store(count << 16 | (static_cast<std::uint64_t>(cpu) & 0xffff), std::memory_order_relaxed);
  }

  std::uint64_t heartbeat(int world_rank) const noexcept override {
    const int j = local_index(world_rank);
    return j < 0 ? 0 : slot(static_cast<std::size_t>(j))->heartbeat.load(std::memory_order_relaxed);
  }

  int awake_ranks() const noexcept override {
    int awake = 0;
    for (std::size_t j = 0; j < local_count_; ++j)
      if (j == me_ || !slot(j)->sleeping.load(std::memory_order_relaxed)) ++awake;
    return awake;
  }

  bool sleep_until_message(int timeout_us, bool (*ready)(const void*), const void* ready_arg) override {
    // Only arrivals wake us; a full ring to a peer frees silently, so never sleep on queued sends.
    if (queued_ || more_waiting_ || !completions_.empty() || !assisted_.empty() || !helping_.empty()) return false;
    // A sender may be waiting for the space of a record we left deferred.
    for (std::size_t j = 0; j < local_count_; ++j)
      if (j != me_) consumers_[j].release_deferred();
    RankSlot* s = slot(me_);
    const std::uint32_t bell = s->doorbell.load(std::memory_order_relaxed);
    s->sleeping.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    bool arrived = false;
    for (std::size_t j = 0; j < local_count_ && !arrived; ++j) arrived = j != me_ && consumers_[j].has_data();
    if (!arrived && ready) arrived = ready(ready_arg);
    if (!arrived) {
      timespec ts{timeout_us / 1000000, (timeout_us % 1000000) * 1000L};
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s->doorbell), FUTEX_WAIT, bell, &ts, nullptr, 0);
    }
    s->sleeping.store(0, std::memory_order_relaxed);
    return true;
  }

 private:

  bool write_message(std::size_t j, const WireHeader& h, const void* payload, std::size_t bytes) noexcept {
    if (h.kind == WireKind::eager && sizeof(RecordHeader) + sizeof(EagerHeader) + bytes <= kRingAlign) {
      unsigned char* p = producers_[j].reserve(sizeof(EagerHeader) + bytes, kRecordEager);
      if (!p) return false;
      EagerHeader e{h.context_id, h.source, h.tag, h.seq, h.channel, {}};
      std::memcpy(p, &e, sizeof e);
      if (bytes) copy_memory(p + sizeof e, payload, bytes);
      producers_[j].commit();
      return true;
    }
    unsigned char* p = producers_[j].reserve(sizeof h + bytes, kRecordMessage);
    if (!p) return false;
    if (bytes) copy_memory(p + sizeof h, payload, bytes);  // payload lines first, the header's line last
    std::memcpy(p, &h, sizeof h);
    producers_[j].commit();
    return true;
  }

  // Peer j's shared-heap or adopted region `key` as we map it (mapped on first use), or nullptr when it
  // cannot be mapped (the caller streams or uses CMA instead).
  PeerRegion* mapped_region(std::size_t j, std::uint64_t key) {
    if (mapping_refused_[j]) return nullptr;
    auto it = peer_regions_[j].find(key);
    if (it == peer_regions_[j].end() && !map_peer_region(j, key, &it)) return nullptr;
    return &it->second;
  }
  bool map_peer_region(std::size_t j, std::uint64_t key, std::unordered_map<std::uint64_t, PeerRegion>::iterator* out);
  // Unmaps peer j's regions that their owner freed (their pages live on as long as we map them).
  void sweep_peer_regions(std::size_t j) noexcept {
    auto& regions = peer_regions_[j];
    for (auto it = regions.begin(); it != regions.end();) {
      if (it->second.busy == 0 && it->second.header()->live.load(std::memory_order_acquire) == 0) {
        munmap(it->second.base, it->second.mapped_bytes);
        it = regions.erase(it);
      } else {
        ++it;
      }
    }
  }

  int cma_read(std::size_t j, void* local, std::size_t bytes, std::uint64_t raddr) {
    const std::uint64_t distance = (reinterpret_cast<std::uintptr_t>(local) - raddr) & 4095;
    if (distance != 0 && distance < 32 && bytes >= kAliasedBounceMin) return cma_read_bounced(j, local, bytes, raddr);
    return cma_read_plain(j, local, bytes, raddr);
  }

  // The kernel's copy for process_vm_readv has glibc's near-aliasing case too (common/memory_copy.hpp
  // copy_memory): a destination 1-31 bytes after the source modulo 4096 reads at 1.2-1.7 GB/s instead of
  // 5-8 (measured on the 2-core EPYC VM, 64 KiB-1 MiB). Such reads go through a bounce buffer placed at
  // the source's page offset, a piece at a time, and copy_memory takes each piece on (25-39 GB/s).
  static constexpr std::size_t kAliasedBounceMin = 4096, kBouncePiece = std::size_t{128} << 10;
  int cma_read_bounced(std::size_t j, void* local, std::size_t bytes, std::uint64_t raddr) {
    if (bounce_.empty()) bounce_.resize(kBouncePiece + 2 * 4096);
    auto* page = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(bounce_.data()) + 4095) & ~std::uintptr_t{4095});
    unsigned char* piece = page + (raddr & 4095);
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(kBouncePiece, bytes - done);
      const int rc = cma_read_plain(j, piece, n, raddr + done);
      if (rc != MPI_SUCCESS) return rc;
      copy_memory(static_cast<unsigned char*>(local) + done, piece, n);
      done += n;
    }
    return MPI_SUCCESS;
  }
  int cma_read_plain(std::size_t j, void* local, std::size_t bytes, std::uint64_t raddr) {
    const pid_t pid = slot(j)->pid;
    std::size_t done = 0;
    while (done < bytes) {
      iovec l{static_cast<char*>(local) + done, bytes - done};
      iovec r{reinterpret_cast<void*>(raddr + done), bytes - done};
      ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
      if (n <= 0) {
        FABMPI_LOG(error, pt2pt, "native-shm: process_vm_readv from rank %d (pid %d): %s",
                   options_.local_ranks[j], pid, n < 0 ? strerror(errno) : "no progress");
        return MPI_ERR_OTHER;
      }
      done += static_cast<std::size_t>(n);
    }
    return MPI_SUCCESS;
  }
  std::vector<unsigned char> bounce_;  // cma_read_bounced's pieces

  // Starts an assisted read of peer j's bytes (our mapping: src; the owner's address: raddr) into dst.
  void start_assisted_read(std::size_t j, PeerRegion* region, const unsigned char* src, unsigned char* dst,
                           std::size_t bytes, std::uint64_t raddr, bool past_caches, std::uint64_t token, int rc);
  void ask_for_help(AssistedRead& a);  // takes a free slot of a.peer's for it, asks the owner
  // Copies chunks of assisted reads and help jobs, completes finished reads. Returns events.
  int assist_work(TransportSink& sink);

  // Moves queued items to peer j's ring while they fit. Returns items that left the queue.
  int pump(std::size_t j, TransportSink* sink);
  // Streams (pull_data) queue at the back; everything else goes ahead of them, in order among itself.
  // Why: a peer that asks for many large reads at once (bibw, exchanges) fills our queue with streams,
  // and our own pull requests and messages queued behind them waited until all of it was sent: our
  // reads then stalled and went to CMA one by one (np=2 bibw 8 MiB: 5,000 takeovers in a run).
  void enqueue(std::size_t j, const Outgoing& o) {
    auto& queue = outgoing_[j];
    if (o.kind == Outgoing::Kind::pull_data) {
      queue.push_back(o);
    } else {
      queue.insert(queue.begin() + static_cast<std::ptrdiff_t>(ahead_of_streams_[j]), o);
      ++ahead_of_streams_[j];
    }
    ++queued_;
  }
  // Drops the item of `kind` for `token` from peer j's queue (a pull being withdrawn or cancelled);
  // whether it was there.
  bool unqueue(std::size_t j, Outgoing::Kind kind, std::uint64_t token) {
    auto& queue = outgoing_[j];
    for (auto q = queue.begin(); q != queue.end(); ++q)
      if (q->kind == kind && q->token == token) {
        if (kind != Outgoing::Kind::pull_data) --ahead_of_streams_[j];
        queue.erase(q);
        --queued_;
        return true;
      }
    return false;
  }
  int drain(std::size_t j, TransportSink& sink);

  ShmOptions options_;
  std::string name_;
  bool created_ = false, unlinked_ = false, cma_ = false;
  std::size_t local_count_ = 0, me_ = 0, ring_bytes_ = 0;
  std::vector<int> local_of_world_;
  Mapping mapping_;
  std::vector<RingProducer> producers_;  // index: local rank we send to
  std::vector<RingConsumer> consumers_;  // index: local rank we receive from
  std::vector<std::deque<Outgoing>> outgoing_;
  std::size_t queued_ = 0;  // items in outgoing_ (sends, pull asks, pull streams being served)
  std::vector<std::size_t> ahead_of_streams_;  // per peer: items of outgoing_ before its first stream
  std::vector<std::pair<std::uint64_t, int>> completions_;  // (token, error) to report from poll
  std::unordered_map<std::uint64_t, PullRead> pull_reads_;
  std::vector<std::uint64_t> last_piece_ns_;  // per peer: when its last PullData arrived (CMA allowed only)
  std::vector<std::size_t> rts_unfinished_;   // per peer: our rendezvous sends it has not finished (fin)
  bool more_waiting_ = false;  // a drain stopped at its batch limit
  // Peers' shared-heap regions we mapped (per peer, by key), and how we reach their memfds.
  std::vector<std::unordered_map<std::uint64_t, PeerRegion>> peer_regions_;
  std::vector<UniqueFd> pidfds_;
  std::vector<std::uint8_t> mapping_refused_;  // per peer: pidfd_open / pidfd_getfd not permitted
  std::uint64_t mapped_reads_ = 0;
  // How each peer's messages of kWayMin bytes and more reach us fastest, per size class (false: through
  // the ring, true: CMA); the advice bits we published in its ring to us; when its last timed stream to
  // us completed (a stream's time starts there at the earliest: reads of one receive are asked at once).
  bool choosing_ = false;
  std::size_t eager_classes_ = 0;  // size classes holding eager sizes: those the advice bits cover
  std::vector<std::array<RateChooser, kWayClasses>> ways_;
  std::vector<std::uint32_t> advised_;
  std::vector<std::uint64_t> stream_free_ns_;
  // Assisted reads (kAssistChunk): ours, in the order started; the peers' we help with; per peer, our free
  // AssistSlots (bit s) and each slot's generation; the receive buffer's shared part begin_receive found.
  std::deque<AssistedRead> assisted_;
  std::deque<HelpJob> helping_;
  std::vector<std::uint32_t> assist_free_;
  std::vector<std::array<std::uint32_t, kAssistSlots>> assist_generation_;
  struct ReceiveTarget {
    unsigned char* lo = nullptr;
    unsigned char* hi = nullptr;
    std::uint64_t key = 0;
  } receive_target_;
  std::uint64_t assisted_bytes_ = 0;
  alignas(8) volatile std::uint64_t probe_word_ = kProbeValue;
};

void NativeShm::start_assisted_read(std::size_t j, PeerRegion* region, const unsigned char* src, unsigned char* dst,
                                    std::size_t bytes, std::uint64_t raddr, bool past_caches, std::uint64_t token,
                                    int rc) {
  ++region->busy;
  assisted_.push_back(AssistedRead{.token = token,
                                   .peer = j,
                                   .chunks = static_cast<std::uint32_t>((bytes + kAssistChunk - 1) / kAssistChunk),
                                   .past_caches = past_caches,
                                   .rc = rc,
                                   .src = src,
                                   .dst = dst,
                                   .bytes = bytes,
                                   .raddr = raddr,
                                   .dst_key = receive_target_.key,
                                   .region = region});
  // Reads of one receive are started together, and the reads of a window of receives too: those without
  // a slot wait in order for one (assist_work), the first ones ask now.
  if (assist_free_[j] != 0) ask_for_help(assisted_.back());
}

void NativeShm::ask_for_help(AssistedRead& a) {
  const std::size_t j = a.peer;
  const auto s = static_cast<std::uint32_t>(std::countr_zero(assist_free_[j]));
  assist_free_[j] &= ~(1u << s);
  std::uint32_t generation = ++assist_generation_[j][s];
  if (generation == 0) generation = ++assist_generation_[j][s];
  a.slot = s;
  a.generation = generation;
  AssistSlot* slot = assist_slot(me_, j, s);
  slot->helped.store(0, std::memory_order_relaxed);
  slot->claim.store(std::uint64_t{generation} << 32, std::memory_order_release);
  // The ask goes straight into the ring (it needs no order among our other records); a full ring: we copy
  // it all ourselves.
  if (unsigned char* p = producers_[j].reserve(sizeof(AssistAsk), kRecordAssistAsk)) {
    const AssistAsk ask{a.raddr, reinterpret_cast<std::uint64_t>(a.dst), a.dst_key, a.bytes, s, generation,
                        a.past_caches ? 1u : 0u, 0};
    std::memcpy(p, &ask, sizeof ask);
    producers_[j].commit();
    wake_if_sleeping(j);
  }
}

int NativeShm::assist_work(TransportSink& sink) {
  int events = 0;
  // Help first: the reader waits for the chunks we take.
  for (unsigned budget = kHelpBudget; !helping_.empty() && budget > 0;) {
    HelpJob& job = helping_.front();
    std::uint32_t c = 0;
    if (!claim_chunk(*job.slot, job.generation, job.chunks, &c)) {
      --job.region->busy;
      helping_.pop_front();
      continue;
    }
    // A chunk taken under the read's generation: the read is not over (the reader waits for it), so our
    // send buffer and its receive buffer are both still there.
    const std::size_t off = std::size_t{c} * kAssistChunk, n = std::min(kAssistChunk, job.bytes - off);
    if (job.past_caches) copy_non_temporal(job.dst + off, job.src + off, n);
    else copy_memory(job.dst + off, job.src + off, n);
    job.slot->helped.fetch_add(1, std::memory_order_release);
    assisted_bytes_ += n;
    --budget;
    ++events;
  }
  // Our reads, oldest first.
  std::vector<std::pair<std::uint64_t, int>> done;
  unsigned budget = kReadBudget;
  for (auto it = assisted_.begin(); it != assisted_.end();) {
    AssistedRead& a = *it;
    if (a.slot == AssistedRead::kNoSlot) {
      if (assist_free_[a.peer] == 0) {
        ++it;
        continue;
      }
      ask_for_help(a);
    }
    AssistSlot* slot = assist_slot(me_, a.peer, a.slot);
    while (a.claiming && budget > 0) {
      std::uint32_t c = 0;
      if (!claim_chunk(*slot, a.generation, a.chunks, &c)) {
        a.claiming = false;
        break;
      }
      const std::size_t off = std::size_t{c} * kAssistChunk, n = std::min(kAssistChunk, a.bytes - off);
      copy_from_peer_source(a.region->copy_chooser, a.dst + off, const_cast<unsigned char*>(a.src + off), n,
                            a.past_caches);
      ++a.own_done;
      --budget;
      ++events;
    }
    if (a.claiming || a.own_done + slot->helped.load(std::memory_order_acquire) < a.chunks) {
      ++it;
      continue;
    }
    // Every chunk is copied (the owner's with release, seen by the acquire above): the slot is free again.
    --a.region->busy;
    assist_free_[a.peer] |= 1u << a.slot;
    done.emplace_back(a.token, a.rc);
    it = assisted_.erase(it);
  }
  // Reported after the loop: the engine may start more reads from on_complete.
  for (auto [token, rc] : done) sink.on_complete(token, rc);
  return events + static_cast<int>(done.size());
}

Rc NativeShm::create(Bootstrap& boot) {
  const std::string key = "fabmpi-shm-node-" + std::to_string(options_.node);
  if (me_ != 0) return Rc();  // the node's first rank creates; the others read the key after the fence
  std::random_device rd;
  char name[64];
  std::snprintf(name, sizeof name, "/fabmpi-%d-%08x", static_cast<int>(getpid()), rd());
  name_ = name;
  // Published before it exists: if this rank is killed right after creating the segment (a sibling
  // failed in MPI_Init and the launcher tears the job down), fabmpi's mpirun still finds the name in its
  // store and removes what was left in /dev/shm (seen in the fatal_error test: create, then killed
  // before the put).
  FABMPI_TRY(boot.put(key, name_));
  UniqueFd fd(shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
  if (fd.get() < 0) return fail(MPI_ERR_OTHER, "native-shm: shm_open(%s): %s", name_.c_str(), strerror(errno));
  created_ = true;
  const std::size_t bytes = segment_bytes(local_count_, ring_bytes_);
  // Sparse (ftruncate): pages are allocated as pairs actually talk, so an all-pairs layout stays cheap
  // for jobs where ranks talk to few peers. A /dev/shm without room for the whole segment is refused
  // here rather than surfacing as SIGBUS later.
  struct statvfs fs{};
  if (fstatvfs(fd.get(), &fs) == 0 && static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < bytes)
    return fail(MPI_ERR_NO_MEM, "native-shm: /dev/shm has %llu bytes free, the segment needs %zu (try FABMPI_NETMOD=ofi-shm)",
                static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize, bytes);
  if (ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return fail(MPI_ERR_NO_MEM, "native-shm: sizing the segment to %zu bytes: %s", bytes, strerror(errno));
  FABMPI_TRY(mapping_.map(fd.get(), bytes));
  SegmentHeader* h = header();
  h->magic = kMagic;
  h->local_count = static_cast<std::uint32_t>(local_count_);
  h->ring_bytes = ring_bytes_;
  return Rc();
}

namespace {
// Rings populated at MPI_Init up to this many ranks on the node (above: 32 x 31 rings of 256 KiB).
constexpr std::size_t kPopulateMaxRanks = 32;

// Maps the pages of [start, start + bytes) into this process (allocating them in /dev/shm), keeping their
// contents. MADV_POPULATE_WRITE (Linux 5.14) does it in one call; older kernels (EINVAL) take a read of
// each page. Any other failure (/dev/shm filled up since the segment was sized) leaves the pages to be
// touched later, rather than risking SIGBUS here.
void populate(void* start, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(start) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(start) + bytes + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0 || errno != EINVAL) return;
#endif
  for (std::uintptr_t p = begin; p < end; p += page) (void)*reinterpret_cast<volatile const unsigned char*>(p);
}
}  // namespace

bool NativeShm::map_peer_region(std::size_t j, std::uint64_t key,
                                std::unordered_map<std::uint64_t, PeerRegion>::iterator* out) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
  sweep_peer_regions(j);
  auto refuse = [&](const char* what) {
    FABMPI_LOG(info, pt2pt, "native-shm: %s for rank %d: %s; its MPI_Alloc_mem memory is read like any other",
               what, options_.local_ranks[j], strerror(errno));
    mapping_refused_[j] = 1;
    return false;
  };
  if (!pidfds_[j].valid()) {
    pidfds_[j].reset(static_cast<int>(syscall(SYS_pidfd_open, slot(j)->pid, 0)));
    if (!pidfds_[j].valid()) return refuse("pidfd_open");
  }
  UniqueFd fd(static_cast<int>(syscall(SYS_pidfd_getfd, pidfds_[j].get(), SharedRegionKey::fd(key), 0)));
  if (!fd.valid()) {
    if (errno == EPERM || errno == ENOSYS || errno == EACCES) return refuse("pidfd_getfd");
    return false;  // e.g. EBADF: not a region of the peer's any more; read it another way
  }
  // Is this the region the key names (the fd number could have been reused)? Writable: copy_and_own_source
  // stores the bytes it reads back unchanged.
  const std::size_t page = SharedHeap::header_bytes();
  struct stat st{};
  if (fstat(fd.get(), &st) != 0 || static_cast<std::size_t>(st.st_size) < page) return false;
  const auto bytes = static_cast<std::size_t>(st.st_size);
  // Page tables filled at once for regions of up to 16 MiB (about twice as fast as a fault per page, ~2 us
  // each on the development VM), which are usually read whole (adopted buffers are exactly the pages
  // sent); a larger MPI_Alloc_mem block may be sent a piece at a time.
  const int populate = bytes <= page + (std::size_t{16} << 20) ? MAP_POPULATE : 0;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | populate, fd.get(), 0);
  if (p == MAP_FAILED) return false;
  const auto* h = static_cast<const SharedRegionHeader*>(p);
  if (h->magic != SharedRegionHeader::kMagic || h->id != SharedRegionKey::id(key) ||
      h->live.load(std::memory_order_acquire) == 0 || page + h->user_bytes + h->edge_pages * page > bytes) {
    munmap(p, bytes);
    return false;
  }
  *out = peer_regions_[j].emplace(key, PeerRegion{static_cast<unsigned char*>(p), bytes}).first;
  return true;  // the mapping keeps the memory; our duplicate of the fd closes here
#else
  (void)key;
  mapping_refused_[j] = 1;
  (void)out;
  return false;
#endif
}

Rc NativeShm::attach(Bootstrap& boot) {
  const std::size_t bytes = segment_bytes(local_count_, ring_bytes_);
  if (me_ != 0) {
    FABMPI_TRY(boot.get("fabmpi-shm-node-" + std::to_string(options_.node), &name_));
    UniqueFd fd(shm_open(name_.c_str(), O_RDWR, 0));
    if (fd.get() < 0) return fail(MPI_ERR_OTHER, "native-shm: shm_open(%s): %s", name_.c_str(), strerror(errno));
    FABMPI_TRY(mapping_.map(fd.get(), bytes));
    if (header()->magic != kMagic || header()->local_count != local_count_ || header()->ring_bytes != ring_bytes_)
      return fail(MPI_ERR_OTHER, "native-shm: segment %s does not match this rank's settings "
                  "(FABMPI_SHM_EAGER_MAX and FABMPI_SHM_RING must be equal on all ranks)", name_.c_str());
  }
  RankSlot* mine = slot(me_);
  mine->pid = static_cast<std::int32_t>(getpid());
  mine->probe_addr = reinterpret_cast<std::uint64_t>(&probe_word_);
  const auto n = static_cast<std::uint32_t>(local_count_);
  if (header()->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
    shm_unlink(name_.c_str());  // everyone has it mapped: the name is no longer needed
    unlinked_ = true;
  }
  // Every local rank is inside MPI_Init now; wait for the others' slots (bounded).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto wait_for = [&](std::atomic<std::uint32_t>& counter, const char* what) -> Rc {
    while (counter.load(std::memory_order_acquire) < n) {
      if (std::chrono::steady_clock::now() > deadline)
        return fail(MPI_ERR_OTHER, "native-shm: timed out waiting for the node's ranks to %s", what);
      sched_yield();
    }
    return Rc();
  };
  FABMPI_TRY(wait_for(header()->attached, "map the segment"));
  unlinked_ = true;

  // CMA check: read the next local rank's probe word (a sibling, like every real peer).
  bool ok = options_.allow_cma;
  if (ok) {
    const std::size_t next = (me_ + 1) % local_count_;
    std::uint64_t value = 0;
    iovec l{&value, sizeof value};
    iovec r{reinterpret_cast<void*>(slot(next)->probe_addr), sizeof value};
    ssize_t got = process_vm_readv(slot(next)->pid, &l, 1, &r, 1, 0);
    ok = got == static_cast<ssize_t>(sizeof value) && value == kProbeValue;
    if (!ok)
      FABMPI_LOG(warn, pt2pt, "native-shm: cross-memory attach to rank %d denied (%s); large messages are "
                 "copied through shared memory", options_.local_ranks[next], got < 0 ? strerror(errno) : "bad value");
  }
  mine->cma_ok.store(ok ? 1 : 0, std::memory_order_relaxed);
  header()->checked.fetch_add(1, std::memory_order_acq_rel);
  FABMPI_TRY(wait_for(header()->checked, "check cross-memory attach"));
  cma_ = true;
  for (std::size_t i = 0; i < local_count_; ++i) cma_ = cma_ && slot(i)->cma_ok.load(std::memory_order_relaxed);
  choosing_ = cma_ && options_.choose_ways;
  eager_classes_ = inject_limit() >= kWayMin ? way_class(inject_limit()) + 1 : 0;
  ways_.assign(local_count_, {});
  advised_.assign(local_count_, 0);
  stream_free_ns_.assign(local_count_, 0);

  producers_.resize(local_count_);
  consumers_.resize(local_count_);
  last_piece_ns_.assign(local_count_, 0);
  rts_unfinished_.assign(local_count_, 0);
  peer_regions_.resize(local_count_);
  pidfds_.resize(local_count_);
  mapping_refused_.assign(local_count_, 0);
  outgoing_.resize(local_count_);
  ahead_of_streams_.assign(local_count_, 0);
  assist_free_.assign(local_count_, (1u << kAssistSlots) - 1);
  assist_generation_.assign(local_count_, {});
  for (std::size_t j = 0; j < local_count_; ++j) {
    if (j == me_) continue;
    auto [out_ctl, out_data] = ring(me_, j);
    auto [in_ctl, in_data] = ring(j, me_);
    producers_[j] = RingProducer(out_ctl, out_data, ring_bytes_);
    consumers_[j] = RingConsumer(in_ctl, in_data, ring_bytes_);
  }
  // The segment is sparse, and the first lap of a ring would take a page fault every 64 records on
  // each side (measured: 16 faults per 500 round trips at ~5 us each on the development VM, a 1-byte
  // ping-pong at 0.20 us instead of 0.12 for its first ~4000 messages). Populate the rings this rank
  // writes and reads now, in one call each; a node with many ranks keeps pages-as-pairs-talk (all its
  // rings populated would be local_count^2 rings of /dev/shm), and so do oversubscribed ranks (the engine
  // says: their messages wait for the scheduler anyway).
  if (options_.populate_rings && local_count_ <= kPopulateMaxRanks) {
    for (std::size_t j = 0; j < local_count_; ++j) {
      if (j == me_) continue;
      populate(ring(me_, j).first, sizeof(RingControl) + ring_bytes_);
      populate(ring(j, me_).first, sizeof(RingControl) + ring_bytes_);
    }
  }
  FABMPI_LOG(info, pt2pt, "native-shm: %zu local ranks, %zu-byte rings, large messages %s%s", local_count_,
             ring_bytes_, !cma_ ? "copied through the rings"
                          : options_.stream_reads ? "streamed through the rings (CMA for a silent sender)"
                                                  : "single copy (CMA)",
             choosing_ ? "; from 16 KiB each receiver times the ring against CMA per peer and keeps the faster" : "");
  return Rc();
}

int NativeShm::pump(std::size_t j, TransportSink* sink) {
  auto& queue = outgoing_[j];
  int moved = 0;
  bool wrote = false;
  std::size_t streamed = 0;  // stream bytes written by this call (at most kStreamBudget)
  while (!queue.empty()) {
    Outgoing& o = queue.front();
    // Read now: a completion handler below may queue more, and an insert may move the deque's elements
    // (the front item stays the front: new items go behind it).
    const bool stream = o.kind == Outgoing::Kind::pull_data;
    if (o.kind == Outgoing::Kind::message) {
      if (!write_message(j, o.header, o.data, o.bytes)) break;
      if (o.token) {
        if (sink) sink->on_complete(o.token, MPI_SUCCESS);
        else completions_.emplace_back(o.token, MPI_SUCCESS);
      }
    } else if (o.kind == Outgoing::Kind::pull_ask) {
      unsigned char* p = producers_[j].reserve(sizeof(PullAsk), kRecordPullAsk);
      if (!p) break;
      const PullAsk ask{o.token, o.raddr, o.bytes};
      std::memcpy(p, &ask, sizeof ask);
      producers_[j].commit();
    } else if (o.kind == Outgoing::Kind::pull_cancel) {
      unsigned char* p = producers_[j].reserve(sizeof(PullCancel), kRecordPullCancel);
      if (!p) break;
      const PullCancel cancel{o.token};
      std::memcpy(p, &cancel, sizeof cancel);
      producers_[j].commit();
    } else {
      // Stream our exposed memory piece by piece (small pieces: the reader copies one out while we
      // copy the next in).
      const std::size_t piece_max = std::min(kStreamPiece, producers_[j].max_payload() - sizeof(PullData));
      bool blocked = false;
      while (o.offset < o.bytes) {
        if (streamed >= kStreamBudget) {
          blocked = true;
          break;
        }
        const std::size_t n = std::min(piece_max, o.bytes - o.offset);
        unsigned char* p = producers_[j].reserve(sizeof(PullData) + n, kRecordPullData);
        if (!p) {
          blocked = true;
          break;
        }
        const PullData d{o.token, o.offset};
        copy_memory(p + sizeof d, o.data + o.offset, n);  // the header's line last (see commit())
        std::memcpy(p, &d, sizeof d);
        producers_[j].commit();
        o.offset += n;
        streamed += n;
        wrote = true;
      }
      if (blocked) break;
    }
    wrote = true;
    if (!stream) --ahead_of_streams_[j];
    queue.pop_front();
    --queued_;
    ++moved;
  }
  if (wrote) wake_if_sleeping(j);
  return moved;
}

int NativeShm::drain(std::size_t j, TransportSink& sink) {
  constexpr int kBatch = 64;  // per ring and poll, so one chatty peer cannot starve the others
  RingConsumer& in = consumers_[j];
  // The last record of the previous drain was left deferred: free it now, after this rank went back to
  // its caller (a ping-pong's reply went out before the zeroing stores, measured below).
  in.release_deferred();
  int events = 0;
  while (events < kBatch) {
    const RecordHeader* r = in.peek();
    if (!r) return events;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(r + 1);
    // Ask for every line of a short record at once: they come over from the sender's cache in parallel
    // while we match, instead of one after another during the copy out.
    if (r->bytes <= 1024)
      for (std::size_t off = kRingAlign; off < sizeof(RecordHeader) + r->bytes; off += kRingAlign)
        __builtin_prefetch(reinterpret_cast<const unsigned char*>(r) + off);
    switch (r->type) {
      case kRecordMessage: {
        WireHeader h;
        std::memcpy(&h, p, sizeof h);
        // A rendezvous ends with its fin, or with a cancel reply that dropped the rts.
        if ((h.kind == WireKind::fin || (h.kind == WireKind::cancel_reply && h.rkey == 2)) && rts_unfinished_[j] > 0)
          --rts_unfinished_[j];
        sink.on_message(h, p + sizeof h, r->bytes - sizeof h);
        break;
      }
      case kRecordEager: {
        EagerHeader e;
        std::memcpy(&e, p, sizeof e);
        WireHeader h{};
        h.kind = WireKind::eager;
        h.channel = e.channel;
        h.context_id = e.context_id;
        h.source = e.source;
        h.tag = e.tag;
        h.src_world = options_.local_ranks[j];
        h.seq = e.seq;
        h.size = r->bytes - sizeof e;
        sink.on_message(h, p + sizeof e, r->bytes - sizeof e);
        break;
      }
      case kRecordPullAsk: {
        PullAsk ask;
        std::memcpy(&ask, p, sizeof ask);
        Outgoing o;
        o.kind = Outgoing::Kind::pull_data;
        o.token = ask.token;
        o.data = reinterpret_cast<const unsigned char*>(ask.raddr);
        o.bytes = ask.bytes;
        enqueue(j, o);
        break;
      }
      case kRecordAssistAsk: {
        AssistAsk ask;
        std::memcpy(&ask, p, sizeof ask);
        // Help only where we can write the reader's buffer: its region mapped, the range inside it.
        PeerRegion* region = ask.slot < kAssistSlots ? mapped_region(j, ask.dst_key) : nullptr;
        if (region) {
          const SharedRegionHeader* rh = region->header();
          if (ask.dst >= rh->user_addr && ask.bytes <= rh->user_bytes && ask.dst - rh->user_addr <= rh->user_bytes - ask.bytes) {
            ++region->busy;
            helping_.push_back(HelpJob{j, assist_slot(j, me_, ask.slot), ask.generation,
                                       static_cast<std::uint32_t>((ask.bytes + kAssistChunk - 1) / kAssistChunk),
                                       reinterpret_cast<const unsigned char*>(ask.src),
                                       region->base + SharedHeap::header_bytes() + (ask.dst - rh->user_addr), ask.bytes,
                                       ask.past_caches != 0, region});
          }
        }
        break;
      }
      case kRecordPullCancel: {
        // The reader took this read over with CMA: stop streaming it (it may be in the queue still).
        PullCancel cancel;
        std::memcpy(&cancel, p, sizeof cancel);
        unqueue(j, Outgoing::Kind::pull_data, cancel.token);
        break;
      }
      case kRecordPullData: {
        PullData d;
        std::memcpy(&d, p, sizeof d);
        const std::size_t n = r->bytes - sizeof d;
        if (cma_) last_piece_ns_[j] = steady_ns();
        auto it = pull_reads_.find(d.token);  // absent: a read we took over (or cancelled) meanwhile
        if (it != pull_reads_.end()) {
          // A destination larger than the caches (ReadPlacement::memory) takes non-temporal stores: plain
          // ones first read each line in and evict the ring's and the sender's lines for it (np=2,
          // streaming bandwidth 16 MiB 7.0-7.9 -> 16.8-18.1 GB/s, ping-pong 16 MiB 2074-2358 -> 1003-1157 us).
          if (it->second.past_caches) copy_non_temporal(it->second.local + d.offset, p + sizeof d, n);
          else copy_memory(it->second.local + d.offset, p + sizeof d, n);
          if ((it->second.received += n) >= it->second.bytes) {
            if (it->second.timed) {
              const std::uint64_t now = steady_ns();
              note_way(j, false, it->second.bytes, now - std::max(it->second.asked_ns, stream_free_ns_[j]));
              stream_free_ns_[j] = now;
            }
            pull_reads_.erase(it);
            in.pop(r);
            sink.on_complete(d.token, MPI_SUCCESS);
            ++events;
            continue;
          }
        }
        break;
      }
      default: FABMPI_LOG(error, pt2pt, "native-shm: dropping a record of unknown type %u", r->type);
    }
    in.pop_deferred(r);
    ++events;
  }
  more_waiting_ = true;
  return events;
}

int NativeShm::poll(TransportSink& sink) {
  int events = 0;
  if (!completions_.empty()) {
    auto done = std::move(completions_);
    completions_.clear();
    for (auto [token, error] : done) sink.on_complete(token, error);
    events += static_cast<int>(done.size());
  }
  if (queued_) {
    for (std::size_t j = 0; j < local_count_; ++j)
      if (!outgoing_[j].empty()) events += pump(j, &sink);
  }
  // Polling every inbound ring costs one load per idle peer (the head record's line stays shared
  // until the peer writes), cheaper than a shared doorbell every sender would have to bounce.
  more_waiting_ = false;
  for (std::size_t j = 0; j < local_count_; ++j)
    if (j != me_) events += drain(j, sink);
  // Pull requests that arrived just now: start streaming at once.
  if (queued_) {
    for (std::size_t j = 0; j < local_count_; ++j)
      if (!outgoing_[j].empty()) events += pump(j, &sink);
  }
  if (!assisted_.empty() || !helping_.empty()) events += assist_work(sink);
  if (cma_ && !pull_reads_.empty()) events += take_over_stalled_reads(sink);
  return events;
}

int NativeShm::take_over_stalled_reads(TransportSink& sink) {
  const std::uint64_t now = steady_ns();
  std::vector<std::uint64_t> stalled;  // first collect: completing a read may start others (rehash)
  for (const auto& [token, pr] : pull_reads_) {
    const std::uint64_t patience = pr.exchange ? kStreamPatienceExchangeNs : kStreamPatienceNs;
    if (now - std::max(pr.asked_ns, last_piece_ns_[pr.peer]) >= patience) stalled.push_back(token);
  }
  for (std::uint64_t token : stalled) {
    auto it = pull_reads_.find(token);
    if (it == pull_reads_.end()) continue;
    const PullRead pr = it->second;
    pull_reads_.erase(it);
    // Not asked yet (our ring to the owner was full): withdraw the ask; else tell the owner to stop,
    // ahead of the FIN the engine sends once this read completes (the owner must not read the send
    // buffer after that). Pieces already on their way are dropped on arrival (unknown token).
    if (!unqueue(pr.peer, Outgoing::Kind::pull_ask, token)) {
      Outgoing o;
      o.kind = Outgoing::Kind::pull_cancel;
      o.token = token;
      enqueue(pr.peer, o);
      pump(pr.peer, &sink);
    }
    FABMPI_LOG(debug, pt2pt, "native-shm: rank %d silent for %llu us, reading %zu bytes with CMA",
               options_.local_ranks[pr.peer],
               static_cast<unsigned long long>((now - std::max(pr.asked_ns, last_piece_ns_[pr.peer])) / 1000),
               pr.bytes - pr.received);
    sink.on_complete(token, cma_read(pr.peer, pr.local + pr.received, pr.bytes - pr.received,
                                     pr.raddr + pr.received));
  }
  return static_cast<int>(stalled.size());
}

}  // namespace

Rc ShmTransport::prepare(const ShmOptions& options, Bootstrap& boot, std::unique_ptr<ShmTransport>* out) {
  auto t = std::make_unique<NativeShm>(options);
  FABMPI_TRY(t->create(boot));
  *out = std::move(t);
  return Rc();
}

}  // namespace fabmpi::pt2pt
