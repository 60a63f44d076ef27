// The staged shared-memory collectives (`shm_staged`): data larger than a slot of the shm algorithms
// moves through the communicator's staging region (coll/shm_region.hpp: 4 slots of
// FABMPI_SHM_COLL_STAGE bytes per rank) one chunk at a time, each chunk one or two sequence numbers of
// that region. Every copy is a plain memcpy out of shared memory, and the work of a reduction is split
// evenly: each rank folds a 1/P slice of every chunk. Why (docs/performance.md, twelfth session): the
// point-to-point trees leave the reductions to a few ranks (binomial reduce at np=4: ranks 0 and 2 copy
// and fold everything while 1 and 3 wait), and when ranks outnumber cores the scheduler decides whether
// those few share a core: per-call times then alternate between two levels, 1.5x apart.
//
// Results go into a receive buffer of FABMPI_NT_MIN bytes or more with non-temporal stores (by default
// the last-level cache's share of one rank: 16 MiB at np=2 and 8 MiB at np=4 on the development VM's
// 32 MiB L3), in bcast, allgather, gather and alltoall. Measured (fourteenth session): np=2 allgather /
// gather / alltoall 8 MiB 1.57x / 1.90x / 1.26x faster, np=4 allgather 4-8 MiB 1.23-1.27x, gather
// 1.32-1.49x; below those sizes plain stores win (np=4 bcast 1 MiB 79 -> 180 us).
//
//   reduce, allreduce (two steps per chunk):
//     A: every rank packs its chunk into its slot      -> rank r folds slice r of all P slots (rank order)
//     B: rank r publishes its folded slice in its slot -> the root (reduce) / everyone (allreduce) copies
//        the P slices out
//   reduce_scatter_block (one step per chunk): a chunk is the same element range of each of the P blocks;
//     rank r folds block r's part of all P slots straight into its receive buffer.
//   allgather (one step per chunk): every rank packs a chunk of its block, everyone copies all chunks out.
//   gather (one step per chunk): the same, only the root copies out.
//   bcast (one step per chunk): the root packs a chunk into its slot, every other rank copies it out.
//   alltoall (one step per chunk): a slot holds P pieces, piece j a chunk of the block for rank j; rank r
//     copies piece r out of every other rank's slot.
// A rank may run two chunks ahead (4 slots: claim_slot waits until everyone is done with the slot's
// previous use), so ranks that arrive at different times overlap their copies.
//
// Writing into a slot means writing lines the other ranks have read (their previous chunk from it), and
// each store must first take its line back from their caches. On the development VM that costs little
// while the vCPUs sit close (cache-line probe ~60 ns: plain stores 10-30 GB/s) and dominates when they
// are far apart (~250 ns: 2-7 GB/s, every staged collective 3-5x slower). Non-temporal stores skip the
// fetch (np=2 allgather 1 MiB far: 578 -> 177 us) but send the data through memory, which costs 2x when
// the vCPUs are close. So each rank times its plain writes of a chunk (from 64 KiB: smaller copies
// time too noisily) and switches to non-temporal stores while their moving average runs below 6 GB/s
// (measured: 10-30 GB/s close, 2-7 far), going back to a plain write every 64th chunk to see whether
// the machine has changed. The choice is local to a rank
// and changes only how the bytes get there.
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"
#include "common/memory_copy.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace fabmpi::coll {
namespace {

constexpr std::size_t kTimedWriteBytes = 64 * 1024;
constexpr double kSlowWriteBytesPerNs = 6.0;  // 6 GB/s, against the moving average below
constexpr double kRateWeight = 0.25;          // weight of the newest sample in that average
constexpr unsigned kRecheckEvery = 64;

// Writes `bytes` of packed data into this rank's slot `dst` by the rank's current policy (see above).
// `fill(to)` produces the bytes at `to`; it is called once, unless the bytes lie contiguous at `source`
// (not null), which non-temporal stores then read directly. Only copies (`is_copy`) are timed: a
// reduction's output rate says nothing about the stores.
template <class Fill>
void write_slot(ShmRegion& stage, std::byte* dst, std::size_t bytes, const std::byte* source, bool is_copy, Fill fill) {
  ShmRegion::Writes& w = stage.writes;
  using Policy = ShmRegion::Writes::Policy;
  const bool timed = is_copy && w.policy == Policy::automatic && bytes >= kTimedWriteBytes;
  bool non_temporal = w.policy == Policy::non_temporal || (w.policy == Policy::automatic && w.non_temporal);
  if (non_temporal && timed && ++w.chunks_since_check >= kRecheckEvery) {
    w.chunks_since_check = 0;
    non_temporal = false;  // a plain write, timed below: has the machine changed?
  }
  ++(non_temporal ? w.non_temporal_chunks : w.plain_chunks);
  if (non_temporal) {
    if (!source) {
      std::byte* staged = stage.scratch(bytes);
      fill(staged);
      source = staged;
    }
    copy_non_temporal(dst, source, bytes);
    return;
  }
  if (!timed) {
    fill(dst);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  fill(dst);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(bytes) / std::max(ns, 1.0);
  w.plain_rate = w.plain_rate > 0 ? (1 - kRateWeight) * w.plain_rate + kRateWeight * rate : rate;
  w.non_temporal = w.plain_rate < kSlowWriteBytesPerNs;
}

// `bytes` bytes of the packed stream of `count` elements of `type` at `buf`, from stream offset
// `offset`, to / from `dst` / `src`.
void pack_range(std::byte* dst, const void* buf, std::size_t count, const Datatype& type, std::size_t offset,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (type.is_contiguous()) copy_memory(dst, static_cast<const std::byte*>(buf) + type.true_lb() + offset, bytes);
  else type.pack(buf, count, offset, dst, bytes);
}
// `past_caches`: a contiguous destination is written with non-temporal stores (ShmRegion::past_caches).
void unpack_range(const std::byte* src, void* buf, std::size_t count, const Datatype& type, std::size_t offset,
                  std::size_t bytes, bool past_caches) {
  if (bytes == 0) return;
  if (!type.is_contiguous()) {
    type.unpack(src, bytes, offset, buf, count);
    return;
  }
  std::byte* dst = static_cast<std::byte*>(buf) + type.true_lb() + offset;
  if (past_caches) copy_non_temporal(dst, src, bytes);
  else copy_memory(dst, src, bytes);
}

// Where bytes [offset, offset + ...) of the packed stream of `type` at `buf` lie, when they lie
// contiguous in memory; null otherwise.
const std::byte* contiguous_at(const void* buf, const Datatype& type, std::size_t offset) {
  return type.is_contiguous() ? static_cast<const std::byte*>(buf) + type.true_lb() + offset : nullptr;
}

// Bytes [first, first + c) of this rank's own block, from the packed stream of (`buf`, `count`, `type`)
// to the same range of (`out`, `rn`, `recvtype`): straight across when the source is contiguous, else
// packed through scratch. Never out of this rank's slot: reading that back while the other ranks read
// it was slow (np=2 allgather 1 MiB 171 -> 101 us when taken from the send buffer instead).
void copy_own_range(ShmRegion& stage, const void* buf, std::size_t count, const Datatype& type, std::size_t first,
                    std::size_t c, std::byte* out, std::size_t rn, const Datatype& recvtype, bool past_caches) {
  const std::byte* from = contiguous_at(buf, type, first);
  if (!from) {
    std::byte* packed = stage.scratch(c);
    pack_range(packed, buf, count, type, first, c);
    from = packed;
  }
  unpack_range(from, out, rn, recvtype, first, c, past_caches);
}

// Runs copy(r) for every rank r but `skip` (-1: none) once r has published its slot for `a`, in the
// order they arrive, scanning from the rank after `from` (so that not every reader pulls the same slot
// first). Waits only when none of the remaining ones has arrived. Why not in rank order: with ranks
// outnumbering cores the next rank in order may be the one descheduled on this rank's core while the
// others' chunks are ready (np=4 on 2 cores, 8 rounds: allgather 64K 38.5 -> 35.4 us, 1M 1226 -> 990;
// alltoall 8K 12.0 -> 10.3, 64K 42.4 -> 36.2). Not for the slices of a reduction, which every rank
// reads from every slot: taken as they arrive, all ranks pull the first finished slice at once
// (allreduce 1M 303 -> 353 us), so those keep the staggered rank order.
template <class Copy>
void each_arrived(ShmRegion& stage, std::uint64_t a, int from, int skip, Copy copy) {
  const int p = stage.size();
  std::vector<int>& pending = stage.rank_list();
  pending.clear();
  for (int k = 1; k <= p; ++k)
    if (const int r = (from + k) % p; r != skip) pending.push_back(r);
  while (!pending.empty()) {
    std::size_t kept = 0;
    for (const int r : pending) {
      if (stage.arrived(r, a)) copy(r);
      else pending[kept++] = r;
    }
    if (kept == pending.size()) stage.wait_arrived(pending.front(), a);  // copied on the next pass
    pending.resize(kept);
  }
}

// Copies bytes [first, first + c) of every other rank's block, as it appears in that rank's slot of
// step `a`, into block r of `out` (`rn` elements of `recvtype` each, `stride` bytes apart).
void copy_out_others(ShmRegion& stage, std::uint64_t a, int from, std::byte* out, MPI_Aint stride, std::size_t rn,
                     const Datatype& recvtype, std::size_t first, std::size_t c, bool past_caches) {
  each_arrived(stage, a, from, from, [&](int r) {
    unpack_range(stage.slot(r, a), out + r * stride, rn, recvtype, first, c, past_caches);
  });
}

// Rank r's slice of a chunk of `count` elements: [lo, hi).
std::size_t slice_start(std::size_t count, int r, int p) {
  return count * static_cast<std::size_t>(r) / static_cast<std::size_t>(p);
}

}  // namespace

Rc shm_staged_reduction(ShmRegion& stage, Collective kind, const void* sendbuf, void* recvbuf, int count,
                        const DatatypeRef& type, const OpRef& op, int root, bool* done) {
  *done = true;
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t elem = type->size();
  if (n == 0 || elem == 0) return Rc();
  const int me = stage.rank();
  const int p = stage.size();
  const bool gets_result = kind == Collective::allreduce || me == root;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const OpReducer reducer(*op, *type);
  const std::size_t per_chunk = stage.slot_bytes() / elem;
  for (std::size_t first = 0; first < n; first += per_chunk) {
    const std::size_t c = std::min(per_chunk, n - first);
    // A: contributions in.
    const std::uint64_t a = stage.begin();
    stage.claim_slot(a);
    write_slot(stage, stage.slot(me, a), c * elem, contiguous_at(source, *type, first * elem), true,
               [&](std::byte* to) { pack_range(to, source, n, *type, first * elem, c * elem); });
    stage.publish(a);
    stage.wait_all_arrived(a);
    // B: this rank's slice, folded in rank order, out through its slot.
    const std::uint64_t b = stage.begin();
    const std::size_t lo = slice_start(c, me, p), hi = slice_start(c, me + 1, p);
    stage.claim_slot(b);
    // A rank that gets the result and whose buffer is contiguous folds its slice straight into it and,
    // for allreduce, copies it from there into its slot (reading it back out of the slot, which the
    // others are reading too, was slower: see copy_own_range); the root of a reduce publishes nothing.
    std::byte* direct = gets_result && type->is_contiguous()
                            ? static_cast<std::byte*>(recvbuf) + type->true_lb() + static_cast<MPI_Aint>((first + lo) * elem)
                            : nullptr;
    if (hi > lo && direct) {
      shm_fold_rank_order(stage, a, lo * elem, hi - lo, elem, reducer, nullptr, direct);
      if (kind == Collective::allreduce)
        write_slot(stage, stage.slot(me, b), (hi - lo) * elem, direct, true,
                   [&](std::byte* to) { copy_memory(to, direct, (hi - lo) * elem); });
    } else if (hi > lo) {
      write_slot(stage, stage.slot(me, b), (hi - lo) * elem, nullptr, false, [&](std::byte* to) {
        shm_fold_rank_order(stage, a, lo * elem, hi - lo, elem, reducer, nullptr, to);
      });
    }
    stage.finish(a);
    stage.publish(b);
    if (gets_result) {
      for (int k = direct ? 1 : 0; k < p; ++k) {  // from our own slice on: not every rank reads rank 0's first
        const int r = (me + k) % p;
        const std::size_t rlo = slice_start(c, r, p), rhi = slice_start(c, r + 1, p);
        if (r != me) stage.wait_arrived(r, b);
        // Plain stores even into a large result: the copies past the caches measured no better here
        // (np=2 reduce 8 MiB 1184 -> 1349 us, np=4 0.79-1.3x, allreduce 0.99-1.06x; fourteenth session).
        unpack_range(stage.slot(r, b), recvbuf, n, *type, (first + rlo) * elem, (rhi - rlo) * elem, false);
      }
    }
    stage.finish(b);
  }
  return Rc();
}

Rc shm_staged_reduce_scatter_block(ShmRegion& stage, const void* sendbuf, void* recvbuf, int recvcount,
                                   const DatatypeRef& type, const OpRef& op, bool* done) {
  *done = true;
  const std::size_t n = static_cast<std::size_t>(recvcount);
  const std::size_t elem = type->size();
  if (n == 0 || elem == 0) return Rc();
  const int me = stage.rank();
  const auto p = static_cast<std::size_t>(stage.size());
  // In place, the vector is in recvbuf and the result goes to its first block: chunk k of the result
  // overwrites chunk k of block 0, which was staged in the same step before.
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const OpReducer reducer(*op, *type);
  const std::size_t per_chunk = stage.slot_bytes() / (p * elem);
  for (std::size_t first = 0; first < n; first += per_chunk) {
    const std::size_t c = std::min(per_chunk, n - first);
    const std::uint64_t a = stage.begin();
    stage.claim_slot(a);
    write_slot(stage, stage.slot(me, a), p * c * elem, nullptr, true, [&](std::byte* to) {
      for (std::size_t block = 0; block < p; ++block)
        pack_range(to + block * c * elem, source, n * p, *type, (block * n + first) * elem, c * elem);
    });
    stage.publish(a);
    stage.wait_all_arrived(a);
    // Scratch only now: write_slot may have used (and grown) it.
    std::byte* folded = type->is_contiguous() ? nullptr : stage.scratch(c * elem);
    std::byte* acc = folded ? folded
                            : static_cast<std::byte*>(recvbuf) + type->true_lb() + static_cast<MPI_Aint>(first * elem);
    shm_fold_rank_order(stage, a, static_cast<std::size_t>(me) * c * elem, c, elem, reducer, nullptr, acc);
    if (folded) unpack_range(folded, recvbuf, n, *type, first * elem, c * elem, false);
    stage.finish(a);
  }
  return Rc();
}

Rc shm_staged_allgather(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                        void* recvbuf, int recvcount, const DatatypeRef& recvtype, bool* done) {
  *done = true;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int me = stage.rank();
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  const std::size_t block = rn * recvtype->size();
  const MPI_Aint stride = static_cast<MPI_Aint>(rn) * recvtype->extent();
  auto* out = static_cast<std::byte*>(recvbuf);
  const void* source = in_place ? static_cast<const void*>(out + me * stride) : sendbuf;
  const std::size_t source_count = in_place ? rn : static_cast<std::size_t>(sendcount);
  const Datatype& source_type = in_place ? *recvtype : *sendtype;
  const bool past_caches = stage.past_caches(block * static_cast<std::size_t>(stage.size()));
  const std::size_t per_chunk = stage.slot_bytes();
  for (std::size_t first = 0; first < block; first += per_chunk) {
    const std::size_t c = std::min(per_chunk, block - first);
    const std::uint64_t a = stage.begin();
    stage.claim_slot(a);
    write_slot(stage, stage.slot(me, a), c, contiguous_at(source, source_type, first), true,
               [&](std::byte* to) { pack_range(to, source, source_count, source_type, first, c); });
    stage.publish(a);
    if (!in_place)
      copy_own_range(stage, source, source_count, source_type, first, c, out + me * stride, rn, *recvtype, past_caches);
    copy_out_others(stage, a, me, out, stride, rn, *recvtype, first, c, past_caches);
    stage.finish(a);
  }
  return Rc();
}

Rc shm_staged_gather(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype, void* recvbuf,
                     int recvcount, const DatatypeRef& recvtype, int root, bool* done) {
  *done = true;
  const int me = stage.rank();
  const bool is_root = me == root;
  const std::size_t block = is_root ? static_cast<std::size_t>(recvcount) * recvtype->size()
                                    : static_cast<std::size_t>(sendcount) * sendtype->size();
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  const MPI_Aint stride = is_root ? static_cast<MPI_Aint>(rn) * recvtype->extent() : 0;
  auto* out = static_cast<std::byte*>(recvbuf);
  const bool past_caches = is_root && stage.past_caches(block * static_cast<std::size_t>(stage.size()));
  const std::size_t per_chunk = stage.slot_bytes();
  for (std::size_t first = 0; first < block; first += per_chunk) {
    const std::size_t c = std::min(per_chunk, block - first);
    const std::uint64_t a = stage.begin();
    if (!is_root) {
      stage.claim_slot(a);
      write_slot(stage, stage.slot(me, a), c, contiguous_at(sendbuf, *sendtype, first), true, [&](std::byte* to) {
        pack_range(to, sendbuf, static_cast<std::size_t>(sendcount), *sendtype, first, c);
      });
      stage.publish(a);
    } else {
      if (sendbuf != MPI_IN_PLACE)
        copy_own_range(stage, sendbuf, static_cast<std::size_t>(sendcount), *sendtype, first, c, out + root * stride,
                       rn, *recvtype, past_caches);
      copy_out_others(stage, a, root, out, stride, rn, *recvtype, first, c, past_caches);
    }
    stage.finish(a);
  }
  return Rc();
}

Rc shm_staged_bcast(ShmRegion& stage, void* buf, int count, const DatatypeRef& type, int root, bool* done) {
  *done = true;
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t bytes = n * type->size();
  const bool is_root = stage.rank() == root;
  const bool past_caches = stage.past_caches(bytes);
  const std::size_t per_chunk = stage.slot_bytes();
  for (std::size_t first = 0; first < bytes; first += per_chunk) {
    const std::size_t c = std::min(per_chunk, bytes - first);
    const std::uint64_t a = stage.begin();
    if (is_root) {
      stage.claim_slot(a);
      write_slot(stage, stage.slot(root, a), c, contiguous_at(buf, *type, first), true,
                 [&](std::byte* to) { pack_range(to, buf, n, *type, first, c); });
      stage.publish(a);
    } else {
      stage.wait_arrived(root, a);
      unpack_range(stage.slot(root, a), buf, n, *type, first, c, past_caches);
    }
    stage.finish(a);
  }
  return Rc();
}

Rc shm_staged_alltoall(ShmRegion& stage, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                       void* recvbuf, int recvcount, const DatatypeRef& recvtype, bool* done) {
  *done = true;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int me = stage.rank();
  const int p = stage.size();
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  const std::size_t sn = in_place ? rn : static_cast<std::size_t>(sendcount);
  const Datatype& st = in_place ? *recvtype : *sendtype;
  const std::size_t block = sn * st.size();
  const MPI_Aint sstride = static_cast<MPI_Aint>(sn) * st.extent();
  const MPI_Aint rstride = static_cast<MPI_Aint>(rn) * recvtype->extent();
  const auto* in = static_cast<const std::byte*>(in_place ? recvbuf : sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  // Pieces start on cache lines where the slot allows (shm_region_for made sure it holds P bytes).
  std::size_t piece = stage.slot_bytes() / static_cast<std::size_t>(p);
  if (piece >= 64) piece -= piece % 64;
  const bool past_caches = stage.past_caches(rn * recvtype->size() * static_cast<std::size_t>(p));
  for (std::size_t first = 0; first < block; first += piece) {
    const std::size_t c = std::min(piece, block - first);
    const std::uint64_t a = stage.begin();
    stage.claim_slot(a);
    std::byte* mine = stage.slot(me, a);
    for (int k = 1; k < p; ++k) {  // from the next rank on, the order the others read in
      const int j = (me + k) % p;
      const std::byte* from = in + j * sstride;
      write_slot(stage, mine + static_cast<std::size_t>(j) * piece, c, contiguous_at(from, st, first), true,
                 [&](std::byte* to) { pack_range(to, from, sn, st, first, c); });
    }
    stage.publish(a);
    // This rank's own block, straight across (in place it is already where it belongs). Every piece of
    // this chunk is in the slot before any part of the receive buffer is written, so in place is safe.
    if (!in_place)
      copy_own_range(stage, in + me * sstride, sn, st, first, c, out + me * rstride, rn, *recvtype, past_caches);
    each_arrived(stage, a, me, me, [&](int r) {
      unpack_range(stage.slot(r, a) + static_cast<std::size_t>(me) * piece, out + r * rstride, rn, *recvtype, first, c,
                   past_caches);
    });
    stage.finish(a);
  }
  return Rc();
}

}  // namespace fabmpi::coll
