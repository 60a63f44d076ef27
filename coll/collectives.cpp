// From MPI arguments to algorithm arguments: packed views of the user's buffers (the buffers themselves
// when the datatype is contiguous, else staging copies that are unpacked when the collective
// completes), block layouts, the selection key, and the start of the schedule.
#include "coll/collectives.hpp"
#include "coll/shm_collectives.hpp"

#include <algorithm>
#include <numeric>

namespace fabmpi::coll {
namespace {

std::byte* at(void* buf, MPI_Aint offset) { return static_cast<std::byte*>(buf) + offset; }
const std::byte* at(const void* buf, MPI_Aint offset) { return static_cast<const std::byte*>(buf) + offset; }
std::size_t sz(int count) { return static_cast<std::size_t>(count); }

bool moves_as_bytes(const Datatype& t, std::size_t count) { return t.is_contiguous() || count == 0 || t.size() == 0; }

std::shared_ptr<CollRequest> new_request(const CommRef& comm, std::initializer_list<DatatypeRef> types) {
  auto request = std::make_shared<CollRequest>(comm);
  for (const DatatypeRef& t : types)
    if (t) request->types.push_back(t);
  return request;
}

}  // namespace

SelectionKey call_key(Collective kind, const Comm& comm, std::size_t bytes, const Op* op, bool in_place) {
  SelectionKey key;
  key.collective = kind;
  key.comm_size = comm.size();
  key.bytes = bytes;
  key.commutative = op ? op->commutative() : true;
  key.builtin_op = op ? op->builtin() : true;
  key.in_place = in_place;
  return key;
}

namespace {

SelectionKey make_key(Collective kind, const Comm& comm, std::size_t bytes, const Op* op, bool in_place) {
  SelectionKey key = call_key(kind, comm, bytes, op, in_place);
  const std::vector<int>& node = comm.runtime().node_of_rank();
  const auto node_of = [&](int r) {
    const auto w = static_cast<std::size_t>(comm.world_rank(r));
    return w < node.size() ? node[w] : 0;
  };
  // "single node" stands for "a shared-memory path between all members": with FABMPI_NETMOD=tcp the
  // ranks of one node talk over sockets, and the network rules of the table apply.
  key.single_node = comm.runtime().tunables().netmod != "tcp";
  for (int r = 1; r < comm.size() && key.single_node; ++r) key.single_node = node_of(r) == node_of(0);
  return key;
}

// The packed bytes of `count` elements of `t` at `buf`, for reading.
const std::byte* packed_in(CollRequest& r, const void* buf, std::size_t count, const Datatype& t) {
  if (moves_as_bytes(t, count)) return at(buf, t.true_lb());
  std::byte* staged = r.scratch(count * t.size());
  t.pack(buf, count, 0, staged, count * t.size());
  return staged;
}

// Where the packed result for `count` elements of `t` at `buf` goes; staged results are unpacked on
// completion.
std::byte* packed_out(CollRequest& r, void* buf, std::size_t count, const DatatypeRef& t) {
  if (moves_as_bytes(*t, count)) return at(buf, t->true_lb());
  std::byte* staged = r.scratch(count * t->size());
  r.on_complete.push_back([staged, buf, count, t] { t->unpack(staged, count * t->size(), 0, buf, count); });
  return staged;
}

Rc start(const std::shared_ptr<CollRequest>& request, const SelectionKey& key, const CollArgs& args, RequestRef* out) {
  FABMPI_TRY(engine_of(request->comm->runtime()).start(request, key, args));
  *out = request;
  return Rc();
}

// A rank-indexed set of blocks (count_i elements of type_i at byte displacement displ_i from buf) seen
// as bytes: `base` + offset[i], length[i]. Direct when every type is contiguous (the user's memory), else
// staged in one packed buffer. `packed_order` asks for blocks laid out back to back in rank order.
struct BlockView {
  std::byte* base = nullptr;
  std::vector<std::size_t> offset, length;
  bool staged = false;
};

BlockView view_blocks(CollRequest& r, const void* buf, const std::vector<std::size_t>& counts,
                      const std::vector<MPI_Aint>& byte_displs, const std::vector<const Datatype*>& types,
                      bool packed_order) {
  BlockView v;
  const std::size_t p = counts.size();
  std::vector<MPI_Aint> start(p);
  bool direct = true;
  for (std::size_t i = 0; i < p; ++i) {
    v.length.push_back(counts[i] * types[i]->size());
    start[i] = byte_displs[i] + types[i]->true_lb();
    direct = direct && moves_as_bytes(*types[i], counts[i]);
  }
  if (direct && p > 0) {
    const MPI_Aint origin = packed_order ? start[0] : *std::min_element(start.begin(), start.end());
    for (std::size_t i = 0; i < p && direct; ++i) {
      direct = start[i] >= origin && (!packed_order || i == 0 || start[i] == start[i - 1] + static_cast<MPI_Aint>(v.length[i - 1]));
      v.offset.push_back(static_cast<std::size_t>(start[i] - origin));
    }
    v.base = const_cast<std::byte*>(at(buf, origin));
  }
  if (!direct || p == 0) {
    v.offset.assign(1, 0);
    for (std::size_t i = 0; i + 1 < p; ++i) v.offset.push_back(v.offset.back() + v.length[i]);
    v.base = r.scratch(std::accumulate(v.length.begin(), v.length.end(), std::size_t{0}));
    v.staged = true;
  }
  return v;
}

// Copies block i of a staged view from / to the user's memory.
void stage_in(const BlockView& v, std::size_t i, const void* buf, std::size_t count, MPI_Aint displ, const Datatype& t) {
  t.pack(at(buf, displ), count, 0, v.base + v.offset[i], v.length[i]);
}
void stage_out_on_complete(CollRequest& r, const BlockView& v, std::size_t i, void* buf, std::size_t count,
                           MPI_Aint displ, const DatatypeRef& t) {
  std::byte* src = v.base + v.offset[i];
  const std::size_t bytes = v.length[i];
  r.on_complete.push_back([=] { t->unpack(src, bytes, 0, at(buf, displ), count); });
}

std::vector<std::size_t> counts_of(Counts counts, int p, int uniform) {
  std::vector<std::size_t> out(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) out[static_cast<std::size_t>(i)] = counts.empty() ? sz(uniform) : sz(counts[static_cast<std::size_t>(i)]);
  return out;
}

std::vector<MPI_Aint> displs_of(Counts displs, int p, int uniform, MPI_Aint extent) {
  std::vector<MPI_Aint> out(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i)
    out[static_cast<std::size_t>(i)] =
        (displs.empty() ? static_cast<MPI_Aint>(i) * uniform : static_cast<MPI_Aint>(displs[static_cast<std::size_t>(i)])) * extent;
  return out;
}

Rc size_mismatch(const char* what, std::size_t sent, std::size_t expected) {
  return fail(MPI_ERR_TRUNCATE, "%s: this rank's block is %zu bytes on the send side but %zu on the receive side",
              what, sent, expected);
}

}  // namespace

Rc start_barrier(const CommRef& comm, RequestRef* out) {
  auto request = new_request(comm, {});
  return start(request, make_key(Collective::barrier, *comm, 0, nullptr, false), CollArgs{}, out);
}

Rc start_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, RequestRef* out) {
  auto request = new_request(comm, {type});
  const std::size_t bytes = sz(count) * type->size();
  CollArgs a;
  a.count = bytes;
  a.root = root;
  if (moves_as_bytes(*type, sz(count))) {
    a.recv = at(buf, type->true_lb());
  } else if (comm->rank() == root) {
    a.recv = request->scratch(bytes);
    type->pack(buf, sz(count), 0, a.recv, bytes);
  } else {
    a.recv = packed_out(*request, buf, sz(count), type);
  }
  return start(request, make_key(Collective::bcast, *comm, bytes, nullptr, false), a, out);
}

Rc start_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                   const DatatypeRef& type, const OpRef& op, int root, RequestRef* out) {
  auto request = new_request(comm, {type});
  request->op = op;
  request->reducer = make_op_reducer(op, type);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::size_t n = sz(count);
  CollArgs a;
  a.count = n;
  a.elem_size = type->size();
  a.reducer = request->reducer.get();
  a.root = kind == Collective::reduce ? root : 0;
  a.send = packed_in(*request, in_place ? recvbuf : sendbuf, n, *type);
  const bool has_result = kind == Collective::reduce ? comm->rank() == root
                                                     : !(kind == Collective::exscan && comm->rank() == 0);
  if (has_result) a.recv = packed_out(*request, recvbuf, n, type);
  else if (kind == Collective::exscan) a.recv = request->scratch(n * type->size());  // rank 0: left alone
  const bool key_in_place = in_place && kind != Collective::reduce;  // only the root knows for reduce
  return start(request, make_key(kind, *comm, n * type->size(), op.get(), key_in_place), a, out);
}

Rc start_reduce_scatter(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, Counts recvcounts,
                        const DatatypeRef& type, const OpRef& op, RequestRef* out) {
  auto request = new_request(comm, {type});
  request->op = op;
  request->reducer = make_op_reducer(op, type);
  const int p = comm->size();
  CollArgs a;
  a.counts = kind == Collective::reduce_scatter_block ? counts_of({}, p, recvcounts[0]) : counts_of(recvcounts, p, 0);
  const std::size_t total = std::accumulate(a.counts.begin(), a.counts.end(), std::size_t{0});
  a.elem_size = type->size();
  a.reducer = request->reducer.get();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place) {  // the input is the whole of recvbuf, which the result overwrites: copy it first
    std::byte* copy = request->scratch(total * type->size());
    type->pack(recvbuf, total, 0, copy, total * type->size());
    a.send = copy;
  } else {
    a.send = packed_in(*request, sendbuf, total, *type);
  }
  a.recv = packed_out(*request, recvbuf, a.counts[static_cast<std::size_t>(comm->rank())], type);
  return start(request, make_key(kind, *comm, total * type->size(), op.get(), in_place), a, out);
}

Rc start_allgather(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                   void* recvbuf, int recvcount, Counts recvcounts, Counts displs, const DatatypeRef& recvtype,
                   RequestRef* out) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  auto request = new_request(comm, {in_place ? nullptr : sendtype, recvtype});
  const int p = comm->size();
  const auto me = static_cast<std::size_t>(comm->rank());
  const std::vector<std::size_t> counts = counts_of(recvcounts, p, recvcount);
  const std::vector<MPI_Aint> byte_displs = displs_of(displs, p, recvcount, recvtype->extent());
  const std::vector<const Datatype*> types(static_cast<std::size_t>(p), recvtype.get());
  BlockView v = view_blocks(*request, recvbuf, counts, byte_displs, types, true);
  if (in_place) {
    if (v.staged) stage_in(v, me, recvbuf, counts[me], byte_displs[me], *recvtype);
  } else {
    const std::size_t bytes = sz(sendcount) * sendtype->size();
    if (bytes != v.length[me]) return size_mismatch("allgather", bytes, v.length[me]);
    if (moves_as_bytes(*sendtype, sz(sendcount)))
      copy_bytes(v.base + v.offset[me], at(sendbuf, sendtype->true_lb()), bytes);  // large: streaming stores
    else
      sendtype->pack(sendbuf, sz(sendcount), 0, v.base + v.offset[me], bytes);
  }
  if (v.staged)
    for (std::size_t i = 0; i < counts.size(); ++i)
      stage_out_on_complete(*request, v, i, recvbuf, counts[i], byte_displs[i], recvtype);
  CollArgs a;
  a.recv = v.base;
  a.recv_offset = v.offset;
  a.recv_offset.push_back(v.offset.back() + v.length.back());
  if (!in_place && moves_as_bytes(*sendtype, sz(sendcount))) a.send = at(sendbuf, sendtype->true_lb());
  return start(request, make_key(kind, *comm, a.recv_offset.back() - a.recv_offset.front(), nullptr, in_place), a, out);
}

Rc start_gather(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, const DatatypeRef& sendtype,
                void* recvbuf, int recvcount, Counts recvcounts, Counts displs, const DatatypeRef& recvtype, int root,
                RequestRef* out) {
  const bool is_root = comm->rank() == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  auto request = new_request(comm, {in_place ? nullptr : sendtype, is_root ? recvtype : nullptr});
  const int p = comm->size();
  CollArgs a;
  a.root = root;
  std::size_t key_bytes = 0;
  if (is_root) {
    const auto me = static_cast<std::size_t>(root);
    const std::vector<std::size_t> counts = counts_of(recvcounts, p, recvcount);
    const std::vector<MPI_Aint> byte_displs = displs_of(displs, p, recvcount, recvtype->extent());
    const std::vector<const Datatype*> types(static_cast<std::size_t>(p), recvtype.get());
    BlockView v = view_blocks(*request, recvbuf, counts, byte_displs, types, kind == Collective::gather);
    if (in_place) {
      if (v.staged) stage_in(v, me, recvbuf, counts[me], byte_displs[me], *recvtype);
      a.send = v.base + v.offset[me];
    } else {
      const std::size_t bytes = sz(sendcount) * sendtype->size();
      if (bytes != v.length[me]) return size_mismatch("gather", bytes, v.length[me]);
      a.send = packed_in(*request, sendbuf, sz(sendcount), *sendtype);
    }
    if (v.staged)
      for (std::size_t i = 0; i < counts.size(); ++i)
        if (!(in_place && i == me)) stage_out_on_complete(*request, v, i, recvbuf, counts[i], byte_displs[i], recvtype);
    a.count = v.length[me];
    a.recv = v.base;
    a.recv_offset = v.offset;
    a.recv_length = v.length;
    key_bytes = v.length[me] * static_cast<std::size_t>(p);
  } else {
    a.send = packed_in(*request, sendbuf, sz(sendcount), *sendtype);
    a.count = sz(sendcount) * sendtype->size();
    key_bytes = a.count * static_cast<std::size_t>(p);
  }
  if (kind == Collective::gatherv) key_bytes = 0;  // non-roots cannot know the total
  return start(request, make_key(kind, *comm, key_bytes, nullptr, false), a, out);
}

Rc start_scatter(Collective kind, const CommRef& comm, const void* sendbuf, int sendcount, Counts sendcounts,
                 Counts displs, const DatatypeRef& sendtype, void* recvbuf, int recvcount, const DatatypeRef& recvtype,
                 int root, RequestRef* out) {
  const bool is_root = comm->rank() == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  auto request = new_request(comm, {is_root ? sendtype : nullptr, in_place ? nullptr : recvtype});
  const int p = comm->size();
  CollArgs a;
  a.root = root;
  std::size_t key_bytes = 0;
  if (is_root) {
    const auto me = static_cast<std::size_t>(root);
    const std::vector<std::size_t> counts = counts_of(sendcounts, p, sendcount);
    const std::vector<MPI_Aint> byte_displs = displs_of(displs, p, sendcount, sendtype->extent());
    const std::vector<const Datatype*> types(static_cast<std::size_t>(p), sendtype.get());
    BlockView v = view_blocks(*request, sendbuf, counts, byte_displs, types, kind == Collective::scatter);
    if (v.staged)
      for (std::size_t i = 0; i < counts.size(); ++i) stage_in(v, i, sendbuf, counts[i], byte_displs[i], *sendtype);
    if (in_place) {
      a.recv = v.base + v.offset[me];
    } else {
      const std::size_t bytes = sz(recvcount) * recvtype->size();
      if (bytes != v.length[me]) return size_mismatch("scatter", v.length[me], bytes);
      a.recv = packed_out(*request, recvbuf, sz(recvcount), recvtype);
    }
    a.count = v.length[me];
    a.send = v.base;
    a.send_offset = v.offset;
    a.send_length = v.length;
    key_bytes = v.length[me] * static_cast<std::size_t>(p);
  } else {
    a.recv = packed_out(*request, recvbuf, sz(recvcount), recvtype);
    a.count = sz(recvcount) * recvtype->size();
    key_bytes = a.count * static_cast<std::size_t>(p);
  }
  if (kind == Collective::scatterv) key_bytes = 0;
  return start(request, make_key(kind, *comm, key_bytes, nullptr, false), a, out);
}

Rc start_alltoall(Collective kind, const CommRef& comm, const void* sendbuf, const PeerBlocks& send, void* recvbuf,
                  const PeerBlocks& recv, RequestRef* out) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  auto request = new_request(comm, {});
  for (const DatatypeRef& t : recv.types) request->types.push_back(t);
  if (!in_place)
    for (const DatatypeRef& t : send.types) request->types.push_back(t);
  const PeerBlocks& source = in_place ? recv : send;
  const void* source_buf = in_place ? recvbuf : sendbuf;
  const std::size_t p = recv.counts.size();
  std::vector<std::size_t> scounts(p), rcounts(p);
  std::vector<const Datatype*> stypes(p), rtypes(p);
  for (std::size_t i = 0; i < p; ++i) {
    scounts[i] = sz(source.counts[i]);
    rcounts[i] = sz(recv.counts[i]);
    stypes[i] = source.types[i].get();
    rtypes[i] = recv.types[i].get();
  }
  BlockView rv = view_blocks(*request, recvbuf, rcounts, recv.byte_displs, rtypes, false);
  BlockView sv;
  if (in_place) {  // the receives overwrite the data being sent: always send from a copy
    sv.length = rv.length;
    sv.offset.assign(1, 0);
    for (std::size_t i = 0; i + 1 < p; ++i) sv.offset.push_back(sv.offset.back() + sv.length[i]);
    sv.base = request->scratch(std::accumulate(sv.length.begin(), sv.length.end(), std::size_t{0}));
    sv.staged = true;
  } else {
    sv = view_blocks(*request, sendbuf, scounts, source.byte_displs, stypes, false);
  }
  if (sv.staged)
    for (std::size_t i = 0; i < p; ++i) stage_in(sv, i, source_buf, scounts[i], source.byte_displs[i], *stypes[i]);
  if (rv.staged)
    for (std::size_t i = 0; i < p; ++i)
      stage_out_on_complete(*request, rv, i, recvbuf, rcounts[i], recv.byte_displs[i], recv.types[i]);
  const auto me = static_cast<std::size_t>(comm->rank());
  if (sv.length[me] != rv.length[me]) return size_mismatch("alltoall", sv.length[me], rv.length[me]);
  CollArgs a;
  a.send = sv.base;
  a.send_offset = sv.offset;
  a.send_length = sv.length;
  a.recv = rv.base;
  a.recv_offset = rv.offset;
  a.recv_length = rv.length;
  a.count = rv.length[0];
  const std::size_t key_bytes = kind == Collective::alltoall ? rv.length[0] : 0;
  return start(request, make_key(kind, *comm, key_bytes, nullptr, in_place), a, out);
}

namespace {
Rc wait_internal(const CommRef& comm, const RequestRef& request, const char* what) {
  comm->runtime().wait(*request);
  if (request->error != MPI_SUCCESS) return fail(request->error, "%s failed (error class %d)", what, request->error);
  return Rc();
}
}  // namespace

Rc run_barrier(const CommRef& comm, const char* what) {
  RequestRef r;
  FABMPI_TRY(start_barrier(comm, &r));
  return wait_internal(comm, r, what);
}

Rc run_bcast(const CommRef& comm, void* buf, int count, const DatatypeRef& type, int root, const char* what) {
  RequestRef r;
  FABMPI_TRY(start_bcast(comm, buf, count, type, root, &r));
  return wait_internal(comm, r, what);
}

Rc run_reduction(Collective kind, const CommRef& comm, const void* sendbuf, void* recvbuf, int count,
                 const DatatypeRef& type, const OpRef& op, const char* what) {
  RequestRef r;
  FABMPI_TRY(start_reduction(kind, comm, sendbuf, recvbuf, count, type, op, 0, &r));
  return wait_internal(comm, r, what);
}

}  // namespace fabmpi::coll
