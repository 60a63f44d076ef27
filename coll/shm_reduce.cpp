// reduce and allreduce, shm: every rank packs its contribution into its slot and publishes; the root
// (reduce) or every rank (allreduce) folds the P slots in rank order, slot P-1 first:
//   acc = s[P-1]; acc = s[i] op acc for i = P-2 .. 0   =>   s[0] op s[1] op ... op s[P-1]
// so non-commutative and user-defined ops get MPI's canonical order. Cost: one copy in, P-1 reductions
// of the whole vector per reducing rank (allreduce: the same P-1 on every rank, in parallel), no
// messages. Non-roots of a reduce never wait for the root except to reuse a slot four calls later; the
// root of a reduce writes nothing: its own contribution is read from its buffer.
#include "coll/shm_collectives.hpp"
#include "coll/shm_region.hpp"

#include <cstring>

namespace fabmpi::coll {
Rc shm_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                 const DatatypeRef& type, const OpRef& op, int root, bool* done) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t bytes = n * type->size();
  const bool key_in_place = in_place && kind != Collective::reduce;  // only the root knows for reduce
  ShmRegion* staged = nullptr;
  ShmRegion* region =
      shm_region_for(comm, call_key(kind, *comm, bytes, op.get(), key_in_place), bytes, type->size(), &staged);
  if (staged) return shm_staged_reduction(*staged, kind, sendbuf, recvbuf, count, type, op, root, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  const int me = region->rank();
  const bool direct = type->is_contiguous();
  if (kind == Collective::reduce && me == root) {
    region->wait_all_arrived(seq);
    if (bytes > 0) {
      const OpReducer reducer(*op, *type);
      std::byte* acc = direct ? static_cast<std::byte*>(recvbuf) + type->true_lb() : region->scratch(2 * bytes);
      const std::byte* own = acc;  // in place, contiguous: the contribution is already in acc
      if (!in_place || !direct) {
        std::byte* staged = direct ? region->scratch(bytes) : acc + bytes;
        pack_to(staged, in_place ? recvbuf : sendbuf, n, *type);
        own = staged;
      }
      shm_fold_rank_order(*region, seq, 0, n, type->size(), reducer, own, acc);
      if (!direct) unpack_from(acc, recvbuf, n, *type);
    }
    region->finish(seq);
    *done = true;
    return Rc();
  }
  region->claim_slot(seq);
  pack_to(region->slot(me, seq), in_place ? recvbuf : sendbuf, n, *type);
  region->publish(seq);
  if (kind == Collective::allreduce) {
    region->wait_all_arrived(seq);
    if (bytes > 0) {
      const OpReducer reducer(*op, *type);
      std::byte* acc = direct ? static_cast<std::byte*>(recvbuf) + type->true_lb() : region->scratch(bytes);
      shm_fold_rank_order(*region, seq, 0, n, type->size(), reducer, nullptr, acc);
      if (!direct) unpack_from(acc, recvbuf, n, *type);
    }
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

// reduce_scatter_block, shm: every rank packs its whole vector (P blocks) into its slot; rank r folds
// block r of every slot in rank order. Cost: one copy of P blocks in, P-1 block reductions per rank.
Rc shm_reduce_scatter_block(const CommRef& comm, const void* sendbuf, void* recvbuf, int recvcount,
                            const DatatypeRef& type, const OpRef& op, bool* done) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto p = static_cast<std::size_t>(comm->size());
  const std::size_t n = static_cast<std::size_t>(recvcount);
  const std::size_t block = n * type->size();
  ShmRegion* staged = nullptr;
  ShmRegion* region = shm_region_for(comm, call_key(Collective::reduce_scatter_block, *comm, block * p, op.get(), in_place),
                                     block * p, p * type->size(), &staged);
  if (staged) return shm_staged_reduce_scatter_block(*staged, sendbuf, recvbuf, recvcount, type, op, done);
  if (!region) return Rc();
  const std::uint64_t seq = region->begin();
  const int me = region->rank();
  region->claim_slot(seq);
  pack_to(region->slot(me, seq), in_place ? recvbuf : sendbuf, n * p, *type);
  region->publish(seq);
  region->wait_all_arrived(seq);
  if (block > 0) {
    const OpReducer reducer(*op, *type);
    const bool direct = type->is_contiguous();
    std::byte* acc = direct ? static_cast<std::byte*>(recvbuf) + type->true_lb() : region->scratch(block);
    shm_fold_rank_order(*region, seq, static_cast<std::size_t>(me) * block, n, type->size(), reducer, nullptr, acc);
    if (!direct) unpack_from(acc, recvbuf, n, *type);
  }
  region->finish(seq);
  *done = true;
  return Rc();
}

}  // namespace fabmpi::coll
