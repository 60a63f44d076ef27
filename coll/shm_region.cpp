// The shared-memory collectives' region (see shm_region.hpp for the layout and the protocol).
#include "coll/shm_region.hpp"
#include "common/memory_copy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/log.hpp"
#include "pt2pt/engine.hpp"

namespace fabmpi::coll {
namespace {

constexpr std::uint64_t kMagic = 0x66616263736d3032ull;  // "fabcsm02"
constexpr std::size_t kLine = 64;
constexpr int kPollsPerProgress = 64;
struct alignas(kLine) Header {
  std::uint64_t magic;
  std::uint64_t ranks;
  std::uint64_t slot_bytes;
  std::uint64_t depth;
};

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

std::size_t slot_stride(std::size_t slot_bytes) { return round_up(16 + slot_bytes, kLine); }

std::size_t region_bytes(int ranks, std::size_t slot_bytes, std::size_t depth) {
  const auto p = static_cast<std::size_t>(ranks);
  return sizeof(Header) + 3 * p * kLine + depth * p * slot_stride(slot_bytes);
}

// The staging region's slot size: FABMPI_SHM_COLL_STAGE, less on large communicators so that all
// ranks' slots together stay within kStagedRegionBytes (rounded down to whole cache lines).
constexpr std::size_t kStagedRegionBytes = std::size_t{16} << 20;
std::size_t staged_slot_bytes(std::size_t configured, int ranks) {
  const std::size_t cap = kStagedRegionBytes / (ShmRegion::kStagedDepth * static_cast<std::size_t>(ranks));
  return std::max(kLine, std::min(configured, cap) / kLine * kLine);
}

// Unique per job, communicator and creation: a crashed job's name never collides with a live one. It
// starts with the node's pt2pt segment name, which fabmpi's mpirun knows: after the job it removes
// "<segment>-coll-*" objects that ranks killed during a region's setup (between create and unlink)
// left in /dev/shm.
std::string region_name(const Comm& comm) {
  static std::atomic<unsigned> counter{0};
  std::string prefix = comm.runtime().pt2pt().native_segment_name();
  if (prefix.empty()) prefix = "/fabmpi";
  char name[160];
  std::snprintf(name, sizeof name, "%s-coll-%d-%u-%u", prefix.c_str(), static_cast<int>(getpid()),
                comm.context_id(), counter.fetch_add(1));
  return name;
}

// A staging region (whose pages are reserved at once, see below) takes at most a quarter of what
// /dev/shm has free, so that the collectives of many communicators do not squeeze out the other users
// of a small /dev/shm (Docker's default is 64 MiB; the node's pt2pt segment of a later job, torch's
// DataLoader workers): past that a communicator keeps its pt2pt algorithms.
constexpr std::size_t kStagingShareOfFree = 4;

// Creates, sizes and maps the object; null on failure (logged). `reserve`: allocate every page now
// (posix_fallocate), so that a /dev/shm that fills up later fails this call cleanly instead of killing
// a rank with SIGBUS when it first touches a page; the staging region's pages all get used.
void* create_object(const std::string& name, std::size_t bytes, bool reserve) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    FABMPI_LOG(info, coll, "shm collectives: shm_open(%s): %s", name.c_str(), strerror(errno));
    return nullptr;
  }
  void* p = MAP_FAILED;
  struct statvfs fs{};
  const std::size_t wanted_free = reserve ? kStagingShareOfFree * bytes : bytes;
  if (fstatvfs(fd, &fs) == 0 && static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < wanted_free) {
    FABMPI_LOG(info, coll, "shm collectives: /dev/shm has %llu bytes free, the region needs %zu%s",
               static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize, bytes,
               reserve ? " (a staging region takes at most a quarter of the free space)" : "");
  } else if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    FABMPI_LOG(info, coll, "shm collectives: sizing %s to %zu bytes: %s", name.c_str(), bytes, strerror(errno));
  } else if (const int err = reserve ? posix_fallocate(fd, 0, static_cast<off_t>(bytes)) : 0; err != 0) {
    FABMPI_LOG(info, coll, "shm collectives: reserving %zu bytes for %s: %s", bytes, name.c_str(), strerror(err));
  } else {
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (p == MAP_FAILED) {
    shm_unlink(name.c_str());
    return nullptr;
  }
  return p;
}

void* open_object(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    FABMPI_LOG(info, coll, "shm collectives: shm_open(%s): %s", name.c_str(), strerror(errno));
    return nullptr;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? nullptr : p;
}

// Blocking point-to-point on the collective channel (region setup only).
Rc send_bytes(const CommRef& comm, const void* buf, std::size_t bytes, int peer, int tag) {
  Runtime& rt = comm->runtime();
  RequestRef r;
  FABMPI_TRY(rt.pt2pt().isend(buf, bytes, builtin_datatype(MPI_BYTE), peer, tag, comm, pt2pt::Channel::collective,
                              pt2pt::SendMode::standard, &r));
  rt.wait(*r);
  if (r->error != MPI_SUCCESS) return fail(r->error, "shm collectives: setup send to rank %d failed", peer);
  return Rc();
}
Rc recv_bytes(const CommRef& comm, void* buf, std::size_t bytes, int peer, int tag) {
  Runtime& rt = comm->runtime();
  RequestRef r;
  FABMPI_TRY(rt.pt2pt().irecv(buf, bytes, builtin_datatype(MPI_BYTE), peer, tag, comm, pt2pt::Channel::collective, &r));
  rt.wait(*r);
  if (r->error != MPI_SUCCESS) return fail(r->error, "shm collectives: setup receive from rank %d failed", peer);
  return Rc();
}

bool all_native(const Comm& comm) {
  pt2pt::Engine& e = comm.runtime().pt2pt();
  for (int r = 0; r < comm.size(); ++r)
    if (r != comm.rank() && !e.reaches_natively(comm.world_rank(r))) return false;
  return true;
}

}  // namespace

ShmRegion::ShmRegion(Runtime& runtime, const Comm& comm) : runtime_(runtime), me_(comm.rank()), size_(comm.size()) {
  for (int r = 0; r < size_; ++r) peer_world_.push_back(comm.world_rank(r));
  comm_text_ = comm.display_name();
  seen_done_.assign(static_cast<std::size_t>(size_), 0);
}

ShmRegion::~ShmRegion() {
  if (depth_ == kStagedDepth && (writes.plain_chunks || writes.non_temporal_chunks))
    FABMPI_LOG(debug, coll,
               "shm staging region: %llu plain / %llu non-temporal slot writes, timed plain writes %.1f GB/s; "
               "results of %zu bytes and more copied out past the caches",
               static_cast<unsigned long long>(writes.plain_chunks),
               static_cast<unsigned long long>(writes.non_temporal_chunks), writes.plain_rate, past_caches_min);
  if (base_) munmap(base_, bytes_);
}

Rc ShmRegion::create(const CommRef& comm, std::size_t slot_bytes, std::size_t depth,
                     std::unique_ptr<ShmRegion>* out) {
  out->reset();
  slot_bytes = round_up(std::max<std::size_t>(slot_bytes, kLine), kLine);
  std::unique_ptr<ShmRegion> region(new ShmRegion(comm->runtime(), *comm));
  region->slot_bytes_ = slot_bytes;
  region->slot_stride_ = slot_stride(slot_bytes);
  region->depth_ = depth;
  region->depth_mask_ = depth - 1;
  // The staging region's chunks are many lines each: taking the first early buys nothing there.
  if (depth == kDepth) region->prefetch_ahead_ = static_cast<std::uint64_t>(comm->runtime().tunables().shm_coll_prefetch);
  region->slot_used_.assign(depth, 0);
  region->strict_wake_ = comm->runtime().oversubscribed();
  region->bytes_ = region_bytes(comm->size(), slot_bytes, depth);
  const int tag = static_cast<int>(comm->next_collective_sequence() & 0x3fffffffu);
  const int p = comm->size();
  // 1. Rank 0 creates; the name ("" when it failed) goes to everyone.
  char name[160] = {};
  if (comm->rank() == 0) {
    const std::string n = region_name(*comm);
    region->base_ = create_object(n, region->bytes_, depth == kStagedDepth);
    if (region->base_) {
      std::snprintf(name, sizeof name, "%s", n.c_str());
      auto* h = static_cast<Header*>(region->base_);
      h->magic = kMagic;
      h->ranks = static_cast<std::uint64_t>(p);
      h->slot_bytes = slot_bytes;
      h->depth = depth;
    }
    for (int r = 1; r < p; ++r) FABMPI_TRY(send_bytes(comm, name, sizeof name, r, tag));
  } else {
    FABMPI_TRY(recv_bytes(comm, name, sizeof name, 0, tag));
    if (name[0]) {
      region->base_ = open_object(name, region->bytes_);
      const auto* h = static_cast<const Header*>(region->base_);
      if (h && (h->magic != kMagic || h->ranks != static_cast<std::uint64_t>(p) || h->slot_bytes != slot_bytes ||
                h->depth != depth)) {
        FABMPI_LOG(warn, coll, "shm collectives: region %s does not match this rank's settings "
                   "(FABMPI_SHM_COLL_SLOT and FABMPI_SHM_COLL_STAGE must be equal on all ranks)", name);
        munmap(region->base_, region->bytes_);
        region->base_ = nullptr;
      }
    }
  }
  // 2. Agreement: rank 0 learns who mapped it, unlinks the name (nothing stays in /dev/shm, whatever
  // happens later), and tells everyone whether the region is in use.
  unsigned char ok = region->base_ ? 1 : 0;
  if (comm->rank() == 0) {
    for (int r = 1; r < p; ++r) {
      unsigned char theirs = 0;
      FABMPI_TRY(recv_bytes(comm, &theirs, 1, r, tag));
      ok = ok && theirs;
    }
    if (name[0]) shm_unlink(name);
    for (int r = 1; r < p; ++r) FABMPI_TRY(send_bytes(comm, &ok, 1, r, tag));
  } else {
    FABMPI_TRY(send_bytes(comm, &ok, 1, 0, tag));
    FABMPI_TRY(recv_bytes(comm, &ok, 1, 0, tag));
  }
  if (!ok) {
    if (comm->rank() == 0)
      FABMPI_LOG(info, coll, "shm collectives: no %s for communicator %u (%d ranks); its %scollectives use the "
                 "point-to-point algorithms", depth == kStagedDepth ? "staging region" : "shared-memory region",
                 comm->context_id(), p, depth == kStagedDepth ? "large " : "");
    return Rc();
  }
  auto* bytes = static_cast<std::byte*>(region->base_);
  region->done_ = reinterpret_cast<Line*>(bytes + sizeof(Header));
  region->waiting_for_ = region->done_ + p;
  region->waited_on_ = region->waiting_for_ + p;
  region->slots_ = reinterpret_cast<std::byte*>(region->waited_on_ + p);
  FABMPI_LOG(debug, coll, "shm collectives: communicator %u: %d ranks, %zu slots of %zu bytes each",
             comm->context_id(), p, depth, slot_bytes);
  *out = std::move(region);
  return Rc();
}

template <class Ready>
void ShmRegion::wait_until(int writer, Ready ready) {
  if (ready()) return;
  // Before a step that may sleep, tell `writer` that we wait for it: a publisher wakes only the ranks
  // that wait for it (waking every sleeping rank on every flag sent oversubscribed ranks through futex
  // round trips for nothing). Published before the transport's `sleeping` flag and its fence, and
  // counted in the writer's `waited_on` line, which is all a publisher reads while nobody sleeps.
  Line& mine = waiting_for_[me_];
  Line& counted = waited_on_[writer];
  bool announced = false;
  struct Clear {
    Line& line;
    Line& counted;
    bool& announced;
    ~Clear() {
      if (!announced) return;
      line.value.store(0, std::memory_order_relaxed);
      counted.value.fetch_sub(1, std::memory_order_relaxed);
    }
  } clear{mine, counted, announced};
  Runtime::IdleSpin spin(runtime_);
  for (;;) {
    // Other traffic (pt2pt, nonblocking collectives) may depend on this rank's progress; but a pass
    // over every progress source takes longer than the flag usually needs, so poll the flag a few
    // times in between, and first (measured: bcast/scatter 8 B at np=2 saw the flag a progress pass late).
    for (int i = 0; i < kPollsPerProgress; ++i)
      if (ready()) return;
    if (runtime_.progress() > 0) spin.reset();
    if (!spin.spin()) {
      // The runtime's idle policy (Runtime::yield_once): yield, or sleep on the doorbell; only a rank
      // that may sleep tells the writer to wake it.
      const auto idle = spin.idle_time();
      if (!runtime_.yields_instead_of_sleeping(idle)) {
        mine.value.store(static_cast<std::uint64_t>(writer) + 1, std::memory_order_relaxed);
        if (!announced) counted.value.fetch_add(1, std::memory_order_relaxed);  // after `mine`: TSO keeps the order
        announced = true;
      }
      // For a hang report made in yield_once.
      runtime_.note_shared_memory_wait(&comm_text_, writer, peer_world_[static_cast<std::size_t>(writer)]);
      runtime_.yield_once(idle, [](const void* r) { return (*static_cast<const Ready*>(r))(); }, &ready);
      runtime_.note_shared_memory_wait(nullptr, -1);
      if (ready()) return;
    }
  }
}

// A reader's "done" is usually far enough along by the last value read (it runs up to 32 collectives
// ahead of what a writer needs), so most claims do not pull the reader's line over: it stays in its cache.
void ShmRegion::wait_done(int rank, std::uint64_t need) {
  std::uint64_t& seen = seen_done_[static_cast<std::size_t>(rank)];
  const Line& d = done_[rank];
  wait_until(rank, [&d, &seen, need] { return (seen = d.value.load(std::memory_order_acquire)) >= need; });
  std::uint64_t least = ~std::uint64_t(0);
  for (int r = 0; r < size_; ++r)
    if (r != me_) least = std::min(least, seen_done_[static_cast<std::size_t>(r)]);
  min_seen_done_ = least;
}

void ShmRegion::wait_flag(int rank, std::uint64_t seq) {
  const std::atomic<std::uint64_t>& f = flag(rank, seq);
  wait_until(rank, [&f, seq] { return f.load(std::memory_order_acquire) > seq; });
}

void ShmRegion::wake_waiters() noexcept {
  const auto me = static_cast<std::uint64_t>(me_) + 1;
  for (int r = 0; r < size_; ++r)
    if (r != me_ && waiting_for_[r].value.load(std::memory_order_relaxed) == me) wake(r);
}

void ShmRegion::wake(int rank) noexcept {
  // Take the announcement back, so that the next flags do not wake it again (a futex syscall each)
  // before it has even run; it announces again before it next may sleep.
  std::uint64_t expected = static_cast<std::uint64_t>(me_) + 1;
  if (!waiting_for_[rank].value.compare_exchange_strong(expected, 0, std::memory_order_relaxed)) return;
  const int world = peer_world_[static_cast<std::size_t>(rank)];
  runtime_.pt2pt().wake_native(&world, 1, false);
}

void ShmRegion::wait_all_arrived(std::uint64_t seq) {
  for (int r = 0; r < size_; ++r)
    if (r != me_) wait_arrived(r, seq);
}

std::byte* ShmRegion::scratch(std::size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

void pack_noncontiguous(std::byte* dst, const void* buf, std::size_t count, const Datatype& type) {
  const std::size_t bytes = count * type.size();
  if (bytes != 0) type.pack(buf, count, 0, dst, bytes);
}

void unpack_noncontiguous(const std::byte* src, void* buf, std::size_t count, const Datatype& type) {
  const std::size_t bytes = count * type.size();
  if (bytes != 0) type.unpack(src, bytes, 0, buf, count);
}

void shm_fold_rank_order(ShmRegion& region, std::uint64_t seq, std::size_t offset, std::size_t count,
                         std::size_t elem_size, const Reducer& reducer, const std::byte* own, std::byte* acc) {
  const int p = region.size();
  const int me = region.rank();
  auto input = [&](int r) -> const std::byte* { return own && r == me ? own : region.slot(r, seq) + offset; };
  if (own && me == p - 1 && own == acc) {
    // acc already holds the last contribution
  } else if (own && own == acc) {
    // acc holds this rank's contribution, which is needed later in the fold: keep a copy
    std::byte* copy = region.scratch(count * elem_size);
    copy_memory(copy, own, count * elem_size);
    own = copy;
    copy_memory(acc, input(p - 1), count * elem_size);
  } else {
    copy_memory(acc, input(p - 1), count * elem_size);
  }
  for (int r = p - 2; r >= 0; --r) reducer.reduce(input(r), acc, count);
}

// The call's outcome, kept for the next call alike; not while selection is logged (each call logs its choice).
void ShmRegion::remember(const SelectionKey& key, std::size_t slot_need, std::size_t stage_unit, bool may_stage,
                         Choice::Use use) {
  if (log::enabled(log::Level::info, log::Subsys::coll)) return;
  Choice& m = choices_[static_cast<std::size_t>(key.collective)];
  m.use = use;
  m.commutative = key.commutative;
  m.builtin_op = key.builtin_op;
  m.in_place = key.in_place;
  m.may_stage = may_stage;
  m.bytes = key.bytes;
  m.slot_need = slot_need;
  m.stage_unit = stage_unit;
}

ShmRegion* shm_region_select(const CommRef& comm, SelectionKey key, std::size_t slot_need, std::size_t stage_unit,
                             ShmRegion** staged) {
  Comm& c = *comm;
  using Use = ShmRegion::Choice::Use;
  const bool may_stage = staged != nullptr;
  if (c.shm_coll == Comm::ShmColl::unavailable) return nullptr;
  Runtime& rt = c.runtime();
  const std::size_t slot_bytes = rt.tunables().shm_coll_slot;
  // Only calls that could take a staged algorithm look at the staging region's slot size.
  const std::size_t stage_bytes = staged ? staged_slot_bytes(rt.tunables().shm_coll_stage, c.size()) : 0;
  key.shm = slot_need <= round_up(std::max<std::size_t>(slot_bytes, kLine), kLine);
  key.shm_staged = staged && stage_unit <= stage_bytes;
  if (!key.shm && !key.shm_staged) return nullptr;
  if (c.shm_coll == Comm::ShmColl::unknown) {
    if (!all_native(c)) {
      c.shm_coll = Comm::ShmColl::unavailable;
      return nullptr;
    }
    c.shm_coll = Comm::ShmColl::eligible;
  }
  if (key.shm_staged && c.shm_coll == Comm::ShmColl::ready &&
      static_cast<ShmRegion*>(c.shm_region.get())->staged_state_ == ShmRegion::StagedState::unavailable)
    key.shm_staged = false;
  key.single_node = true;
  const Algorithm* a = engine_of(rt).choose(key, nullptr);
  const bool use_slots = a->restrictions & restriction::shm;
  const bool use_staged = a->restrictions & restriction::shm_staged;
  if (!use_slots && !use_staged) {
    if (c.shm_coll == Comm::ShmColl::ready)
      static_cast<ShmRegion*>(c.shm_region.get())->remember(key, slot_need, stage_unit, may_stage, Use::engine);
    return nullptr;
  }
  if (c.shm_coll == Comm::ShmColl::eligible) {
    std::unique_ptr<ShmRegion> region;
    const Rc rc = ShmRegion::create(comm, slot_bytes, ShmRegion::kDepth, &region);
    if (!rc.ok() || !region) {
      c.shm_coll = Comm::ShmColl::unavailable;
      return nullptr;
    }
    c.shm_region = std::move(region);
    c.shm_coll = Comm::ShmColl::ready;
  }
  auto* region = static_cast<ShmRegion*>(c.shm_region.get());
  if (use_slots) {
    region->remember(key, slot_need, stage_unit, may_stage, Use::slots);
    return region;
  }
  // The staging region, created by every member on the same call (selection is the same everywhere).
  if (region->staged_state_ == ShmRegion::StagedState::unknown) {
    std::unique_ptr<ShmRegion> stage;
    const Rc rc = ShmRegion::create(comm, stage_bytes, ShmRegion::kStagedDepth, &stage);
    region->staged_state_ = rc.ok() && stage ? ShmRegion::StagedState::ready : ShmRegion::StagedState::unavailable;
    if (stage) {
      const std::string& writes = rt.tunables().shm_coll_stage_writes;  // checked by coll::Engine::create
      using Policy = ShmRegion::Writes::Policy;
      stage->writes.policy = writes == "plain" ? Policy::plain
                             : writes == "non_temporal" ? Policy::non_temporal : Policy::automatic;
      stage->past_caches_min =
          past_caches_threshold(rt.tunables().nt_min, std::max(c.size(), rt.local_ranks()), rt.cores());
    }
    region->staged_ = std::move(stage);
  }
  // A staging region that could not be made leaves this call (and every later one) to the engine.
  if (region->staged_) *staged = region->staged_.get();
  region->remember(key, slot_need, stage_unit, may_stage, region->staged_ ? Use::staged : Use::engine);
  return nullptr;
}

}  // namespace fabmpi::coll
