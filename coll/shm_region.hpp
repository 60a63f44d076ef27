// The shared-memory collectives' region: one POSIX shared-memory object per communicator whose members
// all reach each other over fabmpi's native shm transport, created on the first blocking collective that
// selects an algorithm named `shm` (coll/shm_*.cpp) and freed with the communicator.
//
// Layout (every part cache-line aligned):
//   header                          magic, ranks, slot bytes, depth (checked by every rank when it maps)
//   done[P]     one line each       "rank r has finished reading every slot of collective #s": s + 1
//   waiting[P]  one line each       "rank r waits for rank w's flag or done line (and may sleep)": w + 1
//   waited_on[P] one line each      how many ranks have announced a `waiting` naming rank w: a publisher
//                                   reads only its own (O(1) per call) and scans `waiting` when nonzero
//   slot[P][D]  16 + slot_bytes     rank r's slot k for collectives #s with s % D == k: a flag word "rank r has
//               each, line-aligned  written this slot for / arrived at collective #s" (s + 1), then the
//                                   data from byte 16, so up to 48 bytes travel in the flag's cache line
// Each rank writes only its own lines and slots. 32 slots per rank let a rank run up to 31
// collectives ahead of the others: before writing slot[me][k] it waits only until every rank is done
// with the collective that last used that slot (32 or more collectives back), so rooted loops (bcast,
// gather, scatter, reduce) run at throughput, without a round trip per call. (Measured at np=2, 8 B:
// two slots left the root of a bcast loop waiting for the reader's "done" line on most calls; at np=4
// on 2 cores each refill costs context switches: 4 -> 16 -> 32 slots, bcast 8 B 1.9 -> 0.65 -> 0.42 us.)
//
// The region's sequence counter is its own (not Comm::next_collective_sequence, which names the
// pt2pt engine's tags); it is the same on every rank because MPI orders the collectives of a
// communicator. Waiting keeps the runtime's progress going and follows its idle policy; a rank that
// sleeps on its shm doorbell is woken by whoever publishes the flag it waits for.
//
// A communicator has up to two regions: the slot region above (D = 32, FABMPI_SHM_COLL_SLOT bytes per
// slot) for calls whose data fits one slot, and, created on the first call that selects a `shm_staged`
// algorithm, a staging region (D = 4, FABMPI_SHM_COLL_STAGE bytes per slot) through which larger data
// moves chunk by chunk, each chunk one or two sequence numbers of that region (coll/shm_staged.cpp).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coll/engine.hpp"
#include "common/memory_copy.hpp"

namespace fabmpi::coll {

class ShmRegion final : public CommExtension {
 public:
  static constexpr std::size_t kDepth = 32;         // slots per rank: how far a rank may run ahead
  static constexpr std::size_t kStagedDepth = 4;    // the staging region's: two chunks of two steps
  ~ShmRegion() override;
  ShmRegion(const ShmRegion&) = delete;
  ShmRegion& operator=(const ShmRegion&) = delete;

  // Collective over `comm`: rank 0 creates the object and sends its name over the collective channel,
  // everyone maps it, rank 0 gathers the outcome, unlinks the name and sends the verdict. Sets *out to
  // null (on every rank alike) when any rank failed.
  static Rc create(const CommRef& comm, std::size_t slot_bytes, std::size_t depth, std::unique_ptr<ShmRegion>* out);

  int rank() const noexcept { return me_; }
  int size() const noexcept { return size_; }
  std::size_t slot_bytes() const noexcept { return slot_bytes_; }

  // The sequence number of the collective now starting.
  std::uint64_t begin() noexcept { return seq_++; }
  std::byte* slot(int rank, std::uint64_t seq) const noexcept { return slot_base(rank, seq) + kSlotData; }
  // The per-call steps below are inline with their waits out of line: a loop of small collectives
  // spends most of each call here and in the binding (measured np=2, 8 B: ~800 instructions a call
  // before, the store buffer full behind the slot line's transfer).
  // Before writing this rank's slot for `seq`: waits until every rank is done with its previous use.
  void claim_slot(std::uint64_t seq) {
    std::uint64_t& used = slot_used_[seq & depth_mask_];
    const std::uint64_t need = used;
    used = seq + 1;
    if (need == 0) return;
    for (int r = 0; r < size_; ++r)
      if (r != me_ && seen_done_[static_cast<std::size_t>(r)] < need) [[unlikely]] wait_done(r, need);
  }
  // This rank has written its slot for / arrived at `seq` (wakes sleeping ranks). A collective that only
  // publishes (barrier) writes the flag without claiming the slot: a rank still reading the slot's data
  // from 32 collectives back has already seen the flag, and the data stays.
  void publish(std::uint64_t seq) {
    flag(me_, seq).store(seq + 1, std::memory_order_release);
    wake_peers();
    // Start taking the line of a slot this rank writes a few calls from now, once every rank is known
    // to be done with its last use (so no reader loses a line it still reads).
    if (prefetch_ahead_ && min_seen_done_ + depth_ > seq + prefetch_ahead_)
      prefetch_for_writing(slot_base(me_, seq + prefetch_ahead_));
  }
  void wait_arrived(int rank, std::uint64_t seq) {
    if (!arrived(rank, seq)) [[unlikely]] wait_flag(rank, seq);
    // The writer's next slot: in a loop of rooted collectives the root runs ahead and has usually
    // written it by now, and its line then comes over while this rank returns to the application instead
    // of when the next call asks for it (the hardware prefetcher does not cover it: a rank's slots lie a
    // slot apart). Measured at np=2, 8 B, vCPUs far apart (a line crossing in ~245 ns): bcast 0.22-0.25
    // -> 0.15 us, gather 0.22-0.28 -> 0.16 (Open MPI 0.13-0.18 / 0.12-0.14).
    __builtin_prefetch(slot_base(rank, seq + 1));
  }
  // Whether `rank` has published its slot for `seq` (no waiting).
  bool arrived(int rank, std::uint64_t seq) const noexcept {
    return flag(rank, seq).load(std::memory_order_acquire) > seq;
  }
  void wait_all_arrived(std::uint64_t seq);
  // This rank has read everything it reads in `seq`.
  void finish(std::uint64_t seq) {
    done_[me_].value.store(seq + 1, std::memory_order_release);
    wake_peers();
  }

  // Per-call scratch (packed staging), kept between calls: no allocation once warm.
  std::byte* scratch(std::size_t bytes);
  std::vector<int>& rank_list() noexcept { return rank_list_; }  // the same, for lists of ranks

  // The staging region of the same communicator (null until created, or when it could not be).
  ShmRegion* staged() const noexcept { return staged_.get(); }

  // How this rank writes the data other ranks read out of a staging region (coll/shm_staged.cpp):
  // plain stores, or non-temporal ones while plain stores are measured slow.
  struct Writes {
    enum class Policy { automatic, plain, non_temporal };
    Policy policy = Policy::automatic;  // FABMPI_SHM_COLL_STAGE_WRITES
    bool non_temporal = false;          // automatic: the current choice
    double plain_rate = 0;              // automatic: moving average of timed plain writes, bytes/ns
    unsigned chunks_since_check = 0;
    std::uint64_t plain_chunks = 0, non_temporal_chunks = 0;  // slot writes so far (a debug line at the end)
  };
  Writes writes;

  // Whether a collective's results, `destination_bytes` in all, are copied out of a staging region past
  // the caches (non-temporal stores): a receive buffer that large would only evict the chunks in flight.
  bool past_caches(std::size_t destination_bytes) const noexcept { return destination_bytes >= past_caches_min; }
  std::size_t past_caches_min = ~std::size_t(0);  // FABMPI_NT_MIN (common/memory_copy.hpp)

 private:
  struct alignas(64) Line {
    std::atomic<std::uint64_t> value;
  };
  static constexpr std::size_t kSlotData = 16;  // the flag word, padded so the data is 16-byte aligned
  std::byte* slot_base(int rank, std::uint64_t seq) const noexcept {
    return slots_ + (static_cast<std::size_t>(rank) * depth_ + (seq & depth_mask_)) * slot_stride_;
  }
  std::atomic<std::uint64_t>& flag(int rank, std::uint64_t seq) const noexcept {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(slot_base(rank, seq));
  }
  // After a store other ranks may sleep waiting for: wakes those that announced they wait for this rank.
  // Dekker with the sleeper: we stored the flag, fence (oversubscribed only, see strict_wake_), read
  // `waiting_for`; the sleeper stored `waiting_for` and `sleeping`, fenced, rereads the flag. One of the
  // two sees the other's store.
  void wake_peers() noexcept {
    if (strict_wake_) std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waited_on_[me_].value.load(std::memory_order_relaxed) != 0) [[unlikely]] wake_waiters();
  }
  void wake_waiters() noexcept;  // those whose waiting_for names this rank
  void wake(int rank) noexcept;
  static void prefetch_for_writing(const void* p) noexcept {
#if defined(__x86_64__)
    asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p, 1);
#endif
  }
  std::uint64_t prefetch_ahead_ = 0;  // FABMPI_SHM_COLL_PREFETCH; 0 in the staging region
  std::uint64_t min_seen_done_ = 0;  // the least of seen_done_ over the other ranks
  void wait_done(int rank, std::uint64_t need);
  void wait_flag(int rank, std::uint64_t seq);
  ShmRegion(Runtime& runtime, const Comm& comm);
  // Waits (progress, idle policy) until ready(); `writer` is the rank whose store makes it true.
  template <class Ready> void wait_until(int writer, Ready ready);

  Runtime& runtime_;
  int me_ = 0, size_ = 1;
  std::size_t slot_bytes_ = 0, slot_stride_ = 0;
  // Oversubscribed ranks sleep on their doorbell at once, so a publisher must fence before it looks at
  // their `sleeping` flags; otherwise a rank sleeps only after 50 ms idle and a missed wake-up costs at
  // most the 1 ms sleep, cheaper than a fence on every call.
  bool strict_wake_ = false;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  Line* done_ = nullptr;
  Line* waiting_for_ = nullptr;  // per rank: 1 + the rank it waits for (and may sleep on), 0: none
  Line* waited_on_ = nullptr;    // per rank: how many ranks have announced a waiting_for naming it
  std::byte* slots_ = nullptr;
  std::uint64_t seq_ = 0;
  std::size_t depth_ = kDepth;
  std::size_t depth_mask_ = kDepth - 1;  // depth_ is a power of two
  std::vector<std::uint64_t> slot_used_;  // per slot: 1 + the last collective that wrote our slot, 0: never
  std::vector<std::uint64_t> seen_done_;  // per rank: the last value read from its `done` line
  std::vector<int> peer_world_;           // the members' world ranks (to wake them)
  std::vector<std::byte> scratch_;
  std::vector<int> rank_list_;
  std::string comm_text_;  // the communicator, as hang reports name it
  // Per collective, the last call's selection inputs and outcome in shm_region_for: a loop of calls alike
  // skips selection (measured np=2, 8 B scatter: selection was a fifth of the call's instructions).
  // Selection depends only on these and on settings fixed at MPI_Init.
  struct Choice {
    enum class Use : std::uint8_t { unset, engine, slots, staged };
    Use use = Use::unset;
    bool commutative = true, builtin_op = true, in_place = false, may_stage = false;
    std::size_t bytes = 0, slot_need = 0, stage_unit = 0;
  };
  std::array<Choice, kCollectiveCount> choices_{};
  // The memo of this call's collective when it was last called alike (null otherwise).
  const Choice* choice_for(const SelectionKey& key, std::size_t slot_need, std::size_t stage_unit,
                           bool may_stage) const noexcept {
    const Choice& m = choices_[static_cast<std::size_t>(key.collective)];
    const bool same = m.use != Choice::Use::unset && m.bytes == key.bytes && m.slot_need == slot_need &&
                      m.stage_unit == stage_unit && m.commutative == key.commutative &&
                      m.builtin_op == key.builtin_op && m.in_place == key.in_place && m.may_stage == may_stage;
    return same ? &m : nullptr;
  }
  void remember(const SelectionKey& key, std::size_t slot_need, std::size_t stage_unit, bool may_stage,
                Choice::Use use);
  // The staging region (in the slot region's object, so the communicator holds one extension).
  enum class StagedState { unknown, ready, unavailable };
  StagedState staged_state_ = StagedState::unknown;
  std::unique_ptr<ShmRegion> staged_;
  friend ShmRegion* shm_region_for(const CommRef&, SelectionKey, std::size_t, std::size_t, ShmRegion**);
  friend ShmRegion* shm_region_select(const CommRef&, SelectionKey, std::size_t, std::size_t, ShmRegion**);
};

// shm_region_for's selection and region setup, for a call unlike the communicator's last one of its kind.
ShmRegion* shm_region_select(const CommRef& comm, SelectionKey key, std::size_t slot_need, std::size_t stage_unit,
                             ShmRegion** staged);

// The region for this blocking call when selection picks the collective's `shm` algorithm for it and the
// communicator can have one (created here on first use); null otherwise: the caller then takes the
// engine's path. `key` is filled by the caller except `shm` and `single_node`; `slot_need` is the most
// bytes one rank writes into its slot. The same on every rank (everything it looks at is).
//
// With `staged` set, the call may also take the collective's `shm_staged` algorithm (the caller has one):
// when selection picks that, *staged is the communicator's staging region (created here on first use)
// and the result is null. `stage_unit` is the fewest bytes one chunk slot must hold (one element of a
// reduction, P of them for reduce_scatter_block); a smaller FABMPI_SHM_COLL_STAGE leaves the call to the
// engine.
inline ShmRegion* shm_region_for(const CommRef& comm, SelectionKey key, std::size_t slot_need,
                                 std::size_t stage_unit = 0, ShmRegion** staged = nullptr) {
  const Comm& c = *comm;
  if (c.shm_coll == Comm::ShmColl::ready) [[likely]] {
    auto* region = static_cast<ShmRegion*>(c.shm_region.get());
    if (const ShmRegion::Choice* m = region->choice_for(key, slot_need, stage_unit, staged != nullptr)) [[likely]] {
      if (m->use == ShmRegion::Choice::Use::slots) return region;
      if (m->use == ShmRegion::Choice::Use::staged) *staged = region->staged_.get();
      return nullptr;
    }
  }
  return shm_region_select(comm, key, slot_need, stage_unit, staged);
}

// acc (packed, count elements) = slot[0][..] op ... op slot[P-1][..] of `region`'s collective `seq`,
// each slot read at `offset`: MPI's canonical order (acc = s[P-1]; acc = s[i] op acc for i = P-2 .. 0),
// right for non-commutative and user-defined ops. `own` (when set) replaces this rank's slot; acc may
// alias `own` (reduce in place at the root).
void shm_fold_rank_order(ShmRegion& region, std::uint64_t seq, std::size_t offset, std::size_t count,
                         std::size_t elem_size, const Reducer& reducer, const std::byte* own, std::byte* acc);

// The staged algorithms (coll/shm_staged.cpp), on the staging region shm_region_for handed out; arguments
// as in shm_collectives.hpp. Each sets *done.
Rc shm_staged_reduction(ShmRegion& stage, Collective kind, const void* sendbuf, void* recvbuf, int count,
                        const DatatypeRef& type, const OpRef& op, int root, bool* done);
Rc shm_staged_reduce_scatter_block(ShmRegion& stage, const void* sendbuf, void* recvbuf, int recvcount,
                                   const DatatypeRef& type, const OpRef& op, bool* done);
Rc shm_staged_allgather(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                        void* recvbuf, int recvcount, const DatatypeRef& recvtype, bool* done);
Rc shm_staged_gather(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                     int recvcount, const DatatypeRef& recvtype, int root, bool* done);
Rc shm_staged_bcast(ShmRegion& stage, void* buf, int count, const DatatypeRef& type, int root, bool* done);
Rc shm_staged_alltoall(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                       void* recvbuf, int recvcount, const DatatypeRef& recvtype, bool* done);

// Copies `count` elements of `type` at `buf` to / from packed bytes.
void pack_noncontiguous(std::byte* dst, const void* buf, std::size_t count, const Datatype& type);
void unpack_noncontiguous(const std::byte* src, void* buf, std::size_t count, const Datatype& type);
inline void pack_to(std::byte* dst, const void* buf, std::size_t count, const Datatype& type) {
  if (!type.is_contiguous()) return pack_noncontiguous(dst, buf, count, type);
  if (const std::size_t bytes = count * type.size())
    copy_memory(dst, static_cast<const std::byte*>(buf) + type.true_lb(), bytes);
}
inline void unpack_from(const std::byte* src, void* buf, std::size_t count, const Datatype& type) {
  if (!type.is_contiguous()) return unpack_noncontiguous(src, buf, count, type);
  if (const std::size_t bytes = count * type.size())
    copy_memory(static_cast<std::byte*>(buf) + type.true_lb(), src, bytes);
}

}  // namespace fabmpi::coll
