// The collectives' C API: argument checks by parameter kind, then coll/collectives.hpp. Every blocking
// call is its nonblocking twin followed by a wait (one code path per collective), except where selection
// picks a shared-memory algorithm for a blocking call: that runs straight from here (coll/shm_*.cpp),
// without a request or schedule.
#include "coll/collectives.hpp"
#include "coll/persistent.hpp"
#include "coll/shm_collectives.hpp"
#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;
using fabmpi::coll::Collective;

namespace {

// Ends a collective call: hands out the request (nonblocking), or waits for it (blocking).
Rc finish(const RequestRef& request, MPI_Request* handle_out) {
  if (handle_out) {
    *handle_out = new_request_handle(request);
    return Rc();
  }
  runtime().wait(*request);
  if (request->error != MPI_SUCCESS)
    return fail(request->error, "the collective failed (error class %d)", request->error);
  return Rc();
}

// Where a collective call's request goes: a blocking call waits for it, MPI_I<coll> hands out its
// handle, MPI_<Coll>_init keeps the start function in a persistent request (coll/persistent.hpp) that
// each MPI_Start runs. Converts from the MPI_Request* of the blocking (null) and nonblocking calls.
struct RequestOut {
  enum class Mode : std::uint8_t { blocking, nonblocking, persistent };
  RequestOut(std::nullptr_t) {}  // NOLINT: blocking
  RequestOut(MPI_Request* h) : mode(h ? Mode::nonblocking : Mode::blocking), handle(h) {}  // NOLINT
  static RequestOut persistent(MPI_Request* h) {
    RequestOut out(h);
    out.mode = Mode::persistent;
    return out;
  }
  bool blocking() const { return mode == Mode::blocking; }

  Mode mode = Mode::blocking;
  MPI_Request* handle = nullptr;
};

// Runs `start` (a callable filling a RequestRef*: the checked call's coll::start_*) now, or keeps it for
// MPI_Start. Whatever it captures must stay valid for the persistent request's life: it captures
// owners (CommRef, DatatypeRef, OpRef, vectors), never pointers into the caller's argument arrays.
template <class Start>
Rc launch(const RequestOut& out, const CommRef& comm, Start&& start) {
  if (out.mode == RequestOut::Mode::persistent) {
    auto request = std::make_shared<coll::PersistentCollective>(comm, std::forward<Start>(start));
    *out.handle = new_request_handle(request);
    return Rc();
  }
  RequestRef r;
  FABMPI_TRY(start(&r));
  return finish(r, out.handle);
}

Rc check_request_out(MPI_Request* request, bool nonblocking) {
  if (nonblocking && request == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the request");
  return Rc();
}

// A buffer argument: a committed datatype, a non-negative count, a usable pointer.
Rc check_buf(const void* buf, int count, MPI_Datatype handle, DatatypeRef* type, const char* what) {
  FABMPI_TRY(check_count(count));
  FABMPI_TRY(to_datatype(handle, type));
  if (buf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed for the %s here", what);
  return check_buffer(buf, count, **type);
}

Rc check_counts(const int* counts, int n, const char* what) {
  if (counts == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for %s", what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0) return fail(MPI_ERR_COUNT, "negative count %d in %s[%d]", counts[i], what, i);
  return Rc();
}

Rc check_op(MPI_Op handle, const Datatype& type, OpRef* op) {
  FABMPI_TRY(to_op(handle, op));
  return (*op)->check(type);
}

Rc check_no_alias(const void* sendbuf, const void* recvbuf, bool moves_data) {
  if (moves_data && sendbuf == recvbuf && sendbuf != nullptr)
    return fail(MPI_ERR_BUFFER, "send and receive buffers are the same (use MPI_IN_PLACE)");
  return Rc();
}

// A v-collective's count or displacement array, copied: a persistent request outlives the caller's arrays.
std::vector<int> copy_counts(const int* counts, int n) { return std::vector<int>(counts, counts + n); }

// The count a v-collective's buffer is checked with: 1 when some count is positive, else 0 (a NULL
// buffer is fine when every count is zero). `counts` has been checked.
int any_count(const int* counts, int n) {
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) return 1;
  return 0;
}

// One exchange of blocks with the peers (neighbourhood and intercommunicator collectives).
Rc exchange(const CommRef& c, const char* what, const void* sendbuf, std::vector<coll::NeighborBlock> sends,
            void* recvbuf, std::vector<coll::NeighborBlock> recvs, const RequestOut& out);

// The intercommunicator forms (defined below, after the block-list helpers they share with the
// neighbourhood collectives).
Rc inter_barrier(const CommRef& c, const RequestOut& out);
Rc inter_bcast(const CommRef& c, void* buf, int count, MPI_Datatype type, int root, const RequestOut& out);
Rc inter_reduction(Collective kind, const CommRef& c, const void* sendbuf, void* recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, int root, const RequestOut& out);
Rc inter_reduce_scatter(Collective kind, const CommRef& c, const void* sendbuf, void* recvbuf, const int* recvcounts,
                        int recvcount, MPI_Datatype type, MPI_Op op, const RequestOut& out);
Rc inter_gathers(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                 int root, const RequestOut& out);
Rc inter_scatter(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, const int* sendcounts,
                 const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, const RequestOut& out);
Rc inter_alltoall(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, const int* sendcounts,
                  const int* sdispls, MPI_Datatype sendtype, const MPI_Datatype* sendtypes, void* recvbuf,
                  int recvcount, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                  const MPI_Datatype* recvtypes, const RequestOut& out);

// ---- one function per collective, shared by the blocking and nonblocking bindings

Rc barrier(ApiCall& call, MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  call.trace_collective(*c, MPI_PROC_NULL, 0);
  if (c->is_inter()) return inter_barrier(c, out);
  if (out.blocking()) {
    bool done = false;
    FABMPI_TRY(coll::shm_barrier(c, &done));
    if (done) return Rc();
  }
  return launch(out, c, [c](RequestRef* r) { return coll::start_barrier(c, r); });
}

Rc bcast(ApiCall& call, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (c->is_inter()) return inter_bcast(c, buf, count, type, root, out);
  DatatypeRef t;
  FABMPI_TRY(check_buf(buf, count, type, &t, "buffer"));
  FABMPI_TRY(check_root(*c, root));
  call.trace_collective(*c, root, static_cast<std::size_t>(count) * t->size());
  if (out.blocking()) {
    bool done = false;
    FABMPI_TRY(coll::shm_bcast(c, buf, count, t, root, &done));
    if (done) return Rc();
  }
  return launch(out, c, [=](RequestRef* r) { return coll::start_bcast(c, buf, count, t, root, r); });
}

Rc reduction(ApiCall& call, Collective kind, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
             MPI_Op op, int root, MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (c->is_inter()) {
    if (kind == Collective::scan || kind == Collective::exscan) return not_intra(*c);
    return inter_reduction(kind, c, sendbuf, recvbuf, count, type, op, root, out);
  }
  if (kind == Collective::reduce) FABMPI_TRY(check_root(*c, root));
  FABMPI_TRY(check_count(count));
  DatatypeRef t;
  FABMPI_TRY(to_datatype(type, &t));
  OpRef o;
  FABMPI_TRY(check_op(op, *t, &o));
  const bool has_result = kind != Collective::reduce || c->rank() == root;
  if (sendbuf == MPI_IN_PLACE && !has_result)
    return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of MPI_Reduce");
  if (sendbuf != MPI_IN_PLACE) FABMPI_TRY(check_buffer(sendbuf, count, *t));
  if (has_result) {
    if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the receive buffer");
    FABMPI_TRY(check_buffer(recvbuf, count, *t));
    FABMPI_TRY(check_no_alias(sendbuf, recvbuf, count > 0 && t->size() > 0));
  }
  call.trace_collective(*c, kind == Collective::reduce ? root : MPI_PROC_NULL,
                        static_cast<std::size_t>(count) * t->size());
  if (out.blocking() && (kind == Collective::reduce || kind == Collective::allreduce)) {
    bool done = false;
    FABMPI_TRY(coll::shm_reduction(kind, c, sendbuf, recvbuf, count, t, o, root, &done));
    if (done) return Rc();
  }
  return launch(out, c, [=](RequestRef* r) {
    return coll::start_reduction(kind, c, sendbuf, recvbuf, count, t, o, root, r);
  });
}

Rc reduce_scatter(ApiCall& call, Collective kind, const void* sendbuf, void* recvbuf, const int* recvcounts,
                  int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (c->is_inter()) return inter_reduce_scatter(kind, c, sendbuf, recvbuf, recvcounts, recvcount, type, op, out);
  const int p = c->size();
  if (kind == Collective::reduce_scatter) FABMPI_TRY(check_counts(recvcounts, p, "recvcounts"));
  else FABMPI_TRY(check_count(recvcount));
  DatatypeRef t;
  FABMPI_TRY(to_datatype(type, &t));
  OpRef o;
  FABMPI_TRY(check_op(op, *t, &o));
  long long total = 0;
  for (int i = 0; i < p; ++i) total += kind == Collective::reduce_scatter ? recvcounts[i] : recvcount;
  const int mine = kind == Collective::reduce_scatter ? recvcounts[c->rank()] : recvcount;
  if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the receive buffer");
  if (sendbuf != MPI_IN_PLACE) FABMPI_TRY(check_buffer(sendbuf, total > 0 ? 1 : 0, *t));
  FABMPI_TRY(check_buffer(recvbuf, sendbuf == MPI_IN_PLACE ? (total > 0 ? 1 : 0) : mine, *t));
  FABMPI_TRY(check_no_alias(sendbuf, recvbuf, total > 0 && t->size() > 0));
  call.trace_collective(*c, MPI_PROC_NULL, static_cast<std::size_t>(total) * t->size());
  if (out.blocking() && kind == Collective::reduce_scatter_block) {
    bool done = false;
    FABMPI_TRY(coll::shm_reduce_scatter_block(c, sendbuf, recvbuf, recvcount, t, o, &done));
    if (done) return Rc();
  }
  std::vector<int> counts = kind == Collective::reduce_scatter ? copy_counts(recvcounts, p) : std::vector<int>{recvcount};
  return launch(out, c, [=, counts = std::move(counts)](RequestRef* r) {
    return coll::start_reduce_scatter(kind, c, sendbuf, recvbuf, counts, t, o, r);
  });
}

Rc allgather(ApiCall& call, Collective kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
             const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (c->is_inter())
    return inter_gathers(kind, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts, displs, recvtype,
                         MPI_PROC_NULL, out);
  const int p = c->size();
  DatatypeRef st, rt;
  if (sendbuf != MPI_IN_PLACE) FABMPI_TRY(check_buf(sendbuf, sendcount, sendtype, &st, "send buffer"));
  FABMPI_TRY(to_datatype(recvtype, &rt));
  if (kind == Collective::allgatherv) {
    FABMPI_TRY(check_counts(recvcounts, p, "recvcounts"));
    if (displs == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for displs");
  } else {
    FABMPI_TRY(check_count(recvcount));
  }
  if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the receive buffer");
  FABMPI_TRY(check_buffer(recvbuf, kind == Collective::allgatherv ? any_count(recvcounts, p) : recvcount, *rt));
  FABMPI_TRY(check_no_alias(sendbuf, recvbuf, sendcount > 0 && st && st->size() > 0));
  if (call.tracing()) {
    const int own_count = kind == Collective::allgatherv ? recvcounts[c->rank()] : recvcount;  // in place
    call.trace_collective(*c, MPI_PROC_NULL, st ? static_cast<std::size_t>(sendcount) * st->size()
                                                : static_cast<std::size_t>(own_count) * rt->size());
  }
  if (out.blocking() && kind == Collective::allgather) {
    bool done = false;
    FABMPI_TRY(coll::shm_allgather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, &done));
    if (done) return Rc();
  }
  const bool v = kind == Collective::allgatherv;
  std::vector<int> counts = v ? copy_counts(recvcounts, p) : std::vector<int>{};
  std::vector<int> offsets = v ? copy_counts(displs, p) : std::vector<int>{};
  return launch(out, c, [=, counts = std::move(counts), offsets = std::move(offsets)](RequestRef* r) {
    return coll::start_allgather(kind, c, sendbuf, sendcount, st, recvbuf, recvcount, counts, offsets, rt, r);
  });
}

Rc gather(ApiCall& call, Collective kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
          int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
          const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  FABMPI_TRY(check_root(*c, root));
  if (c->is_inter())
    return inter_gathers(kind, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts, displs, recvtype,
                         root, out);
  const int p = c->size();
  const bool is_root = c->rank() == root;
  const bool v = kind == Collective::gatherv;
  DatatypeRef st, rt;
  if (sendbuf == MPI_IN_PLACE && !is_root)
    return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of a gather");
  if (sendbuf != MPI_IN_PLACE) FABMPI_TRY(check_buf(sendbuf, sendcount, sendtype, &st, "send buffer"));
  if (is_root) {
    FABMPI_TRY(to_datatype(recvtype, &rt));
    if (v) {
      FABMPI_TRY(check_counts(recvcounts, p, "recvcounts"));
      if (displs == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for displs");
    } else {
      FABMPI_TRY(check_count(recvcount));
    }
    if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the receive buffer");
    FABMPI_TRY(check_buffer(recvbuf, v ? any_count(recvcounts, p) : recvcount, *rt));
    FABMPI_TRY(check_no_alias(sendbuf, recvbuf, sendcount > 0 && st && st->size() > 0));
  }
  call.trace_collective(*c, root, st ? static_cast<std::size_t>(sendcount) * st->size() : 0);
  if (out.blocking() && !v) {
    bool done = false;
    FABMPI_TRY(coll::shm_gather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, root, &done));
    if (done) return Rc();
  }
  std::vector<int> counts = v && is_root ? copy_counts(recvcounts, p) : std::vector<int>{};
  std::vector<int> offsets = v && is_root ? copy_counts(displs, p) : std::vector<int>{};
  return launch(out, c, [=, counts = std::move(counts), offsets = std::move(offsets)](RequestRef* r) {
    return coll::start_gather(kind, c, sendbuf, sendcount, st, recvbuf, recvcount, counts, offsets, rt, root, r);
  });
}

Rc scatter(ApiCall& call, Collective kind, const void* sendbuf, int sendcount, const int* sendcounts,
           const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
           MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  FABMPI_TRY(check_root(*c, root));
  if (c->is_inter())
    return inter_scatter(kind, c, sendbuf, sendcount, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, out);
  const int p = c->size();
  const bool is_root = c->rank() == root;
  const bool v = kind == Collective::scatterv;
  DatatypeRef st, rt;
  if (recvbuf == MPI_IN_PLACE && !is_root)
    return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of a scatter");
  if (recvbuf != MPI_IN_PLACE) FABMPI_TRY(check_buf(recvbuf, recvcount, recvtype, &rt, "receive buffer"));
  if (is_root) {
    FABMPI_TRY(to_datatype(sendtype, &st));
    if (v) {
      FABMPI_TRY(check_counts(sendcounts, p, "sendcounts"));
      if (displs == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for displs");
    } else {
      FABMPI_TRY(check_count(sendcount));
    }
    if (sendbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the send buffer");
    FABMPI_TRY(check_buffer(sendbuf, v ? any_count(sendcounts, p) : sendcount, *st));
    FABMPI_TRY(check_no_alias(sendbuf, recvbuf, recvcount > 0 && rt && rt->size() > 0));
  }
  call.trace_collective(*c, root, rt ? static_cast<std::size_t>(recvcount) * rt->size() : 0);
  if (out.blocking() && !v) {
    bool done = false;
    FABMPI_TRY(coll::shm_scatter(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, root, &done));
    if (done) return Rc();
  }
  std::vector<int> counts = v && is_root ? copy_counts(sendcounts, p) : std::vector<int>{};
  std::vector<int> offsets = v && is_root ? copy_counts(displs, p) : std::vector<int>{};
  return launch(out, c, [=, counts = std::move(counts), offsets = std::move(offsets)](RequestRef* r) {
    return coll::start_scatter(kind, c, sendbuf, sendcount, counts, offsets, st, recvbuf, recvcount, rt, root, r);
  });
}

// One side of an alltoall: counts (uniform or per peer), displacements in elements (v) or bytes (w).
Rc peer_blocks(int p, int count, const int* counts, const int* displs, MPI_Datatype type, const MPI_Datatype* types,
               bool bytes, coll::PeerBlocks* out, const char* side) {
  if (counts) FABMPI_TRY(check_counts(counts, p, side));
  else FABMPI_TRY(check_count(count));
  if (counts && displs == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the %s displacements", side);
  DatatypeRef shared;
  if (!types) FABMPI_TRY(to_datatype(type, &shared));
  for (int i = 0; i < p; ++i) {
    DatatypeRef t = shared;
    if (types) FABMPI_TRY(to_datatype(types[i], &t));
    const int n = counts ? counts[i] : count;
    const MPI_Aint d = counts ? static_cast<MPI_Aint>(displs[i]) : static_cast<MPI_Aint>(i) * count;
    out->counts.push_back(n);
    out->byte_displs.push_back(bytes ? d : d * t->extent());
    out->types.push_back(std::move(t));
  }
  return Rc();
}

Rc alltoall(ApiCall& call, Collective kind, const void* sendbuf, int sendcount, const int* sendcounts,
            const int* sdispls, MPI_Datatype sendtype, const MPI_Datatype* sendtypes, void* recvbuf, int recvcount,
            const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, const MPI_Datatype* recvtypes,
            MPI_Comm comm, const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (c->is_inter())
    return inter_alltoall(kind, c, sendbuf, sendcount, sendcounts, sdispls, sendtype, sendtypes, recvbuf, recvcount,
                          recvcounts, rdispls, recvtype, recvtypes, out);
  const int p = c->size();
  const bool w = kind == Collective::alltoallw;
  if (kind != Collective::alltoall && (recvcounts == nullptr || (sendbuf != MPI_IN_PLACE && sendcounts == nullptr)))
    return fail(MPI_ERR_ARG, "NULL pointer passed for the counts");
  if (w && (recvtypes == nullptr || (sendbuf != MPI_IN_PLACE && sendtypes == nullptr)))
    return fail(MPI_ERR_ARG, "NULL pointer passed for the datatypes");
  if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid as the receive buffer");
  if (call.tracing()) {  // alltoall: one block; the v and w forms have no one size
    DatatypeRef rt;
    const bool sized = kind == Collective::alltoall && recvcount >= 0 && to_datatype(recvtype, &rt).ok();
    call.trace_collective(*c, MPI_PROC_NULL, sized ? static_cast<std::size_t>(recvcount) * rt->size() : 0);
  }
  if (out.blocking() && kind == Collective::alltoall) {
    // The same checks peer_blocks makes for uniform counts, without building the per-peer vectors.
    DatatypeRef st, rt;
    FABMPI_TRY(check_count(recvcount));
    FABMPI_TRY(to_datatype(recvtype, &rt));
    if (sendbuf != MPI_IN_PLACE) {
      FABMPI_TRY(check_count(sendcount));
      FABMPI_TRY(to_datatype(sendtype, &st));
      const std::size_t bytes = static_cast<std::size_t>(sendcount) * st->size() * static_cast<std::size_t>(p);
      FABMPI_TRY(check_no_alias(sendbuf, recvbuf, bytes > 0));
      if (bytes > 0 && sendbuf == nullptr) return fail(MPI_ERR_BUFFER, "NULL send buffer with count %d", sendcount);
    }
    bool done = false;
    FABMPI_TRY(coll::shm_alltoall(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, &done));
    if (done) return Rc();
  }
  coll::PeerBlocks send, recv;
  FABMPI_TRY(peer_blocks(p, recvcount, recvcounts, rdispls, recvtype, recvtypes, w, &recv, "receive"));
  if (sendbuf != MPI_IN_PLACE) {
    FABMPI_TRY(peer_blocks(p, sendcount, sendcounts, sdispls, sendtype, sendtypes, w, &send, "send"));
    std::size_t bytes = 0;
    for (int i = 0; i < p; ++i) bytes += static_cast<std::size_t>(send.counts[i]) * send.types[i]->size();
    FABMPI_TRY(check_no_alias(sendbuf, recvbuf, bytes > 0));
    if (bytes > 0 && sendbuf == nullptr && kind == Collective::alltoall)
      return fail(MPI_ERR_BUFFER, "NULL send buffer with count %d", sendcount);
  }
  return launch(out, c, [=, send = std::move(send), recv = std::move(recv)](RequestRef* r) {
    return coll::start_alltoall(kind, c, sendbuf, send, recvbuf, recv, r);
  });
}

// ---- neighbourhood collectives (MPI-3.1 7.6)

enum class NeighborKind { allgather, allgatherv, alltoall, alltoallv, alltoallw };

// How one side of a neighbourhood collective lays out its blocks.
enum class BlockLayout {
  same,     // every block is the buffer itself (`count` of `type`): the allgathers' send side
  uniform,  // block i at i * count elements of `type`
  vector,   // counts[i] of `type` at displs[i] elements (of its extent)
  w,        // counts[i] of types[i] at byte_displs[i]
};

// One side's blocks, one per peer in `peers` (block order). Array arguments may be NULL when there are
// no peers.
Rc neighbor_blocks(const std::vector<int>& peers, const void* buf, BlockLayout layout, int count, const int* counts,
                   const int* displs, const MPI_Aint* byte_displs, MPI_Datatype type, const MPI_Datatype* types,
                   std::vector<coll::NeighborBlock>* out, const char* side) {
  const int n = static_cast<int>(peers.size());
  if (buf == MPI_IN_PLACE)
    return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a neighbourhood collective (%s buffer)", side);
  const bool arrays = layout == BlockLayout::vector || layout == BlockLayout::w;
  if (arrays && n > 0) {
    if (counts == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the %s counts", side);
    if ((layout == BlockLayout::vector ? displs == nullptr : byte_displs == nullptr))
      return fail(MPI_ERR_ARG, "NULL pointer passed for the %s displacements", side);
    if (layout == BlockLayout::w && types == nullptr)
      return fail(MPI_ERR_ARG, "NULL pointer passed for the %s datatypes", side);
    FABMPI_TRY(check_counts(counts, n, side));
  }
  if (!arrays) FABMPI_TRY(check_count(count));
  DatatypeRef shared;
  if (layout != BlockLayout::w) FABMPI_TRY(to_datatype(type, &shared));
  bool at_null = false;
  for (int i = 0; i < n; ++i) {
    coll::NeighborBlock b;
    b.peer = peers[static_cast<std::size_t>(i)];
    b.type = shared;
    if (layout == BlockLayout::w) FABMPI_TRY(to_datatype(types[i], &b.type));
    b.count = arrays ? counts[i] : count;
    switch (layout) {
      case BlockLayout::same: b.byte_displ = 0; break;
      case BlockLayout::uniform: b.byte_displ = static_cast<MPI_Aint>(i) * count * b.type->extent(); break;
      case BlockLayout::vector: b.byte_displ = static_cast<MPI_Aint>(displs[i]) * b.type->extent(); break;
      case BlockLayout::w: b.byte_displ = byte_displs[i]; break;
    }
    // A NULL buffer is MPI_BOTTOM: fine with absolute displacements or datatypes, as in check_buffer.
    at_null = at_null || (b.count > 0 && b.type->size() > 0 && b.byte_displ + b.type->true_lb() == 0);
    out->push_back(std::move(b));
  }
  if (at_null && buf == nullptr) return fail(MPI_ERR_BUFFER, "NULL %s buffer with a nonzero count", side);
  return Rc();
}

Rc neighbor(ApiCall& call, NeighborKind kind, const char* what, const void* sendbuf, int sendcount,
            const int* sendcounts, const int* sdispls, const MPI_Aint* sbyte_displs, MPI_Datatype sendtype,
            const MPI_Datatype* sendtypes, void* recvbuf, int recvcount, const int* recvcounts, const int* rdispls,
            const MPI_Aint* rbyte_displs, MPI_Datatype recvtype, const MPI_Datatype* recvtypes, MPI_Comm comm,
            const RequestOut& out) {
  const CommRef* borrowed = nullptr;
  FABMPI_TRY(call.borrow_comm(comm, &borrowed));
  const CommRef& c = *borrowed;
  if (!c->topology)
    return fail(MPI_ERR_TOPOLOGY, "%s needs a communicator with a process topology (MPI_Cart_create, "
                "MPI_Graph_create or MPI_Dist_graph_create)", what);
  const topology::Neighbors n = topology::neighbors(*c->topology, c->rank());
  BlockLayout send_layout = BlockLayout::same, recv_layout = BlockLayout::uniform;
  switch (kind) {
    case NeighborKind::allgather: break;
    case NeighborKind::allgatherv: recv_layout = BlockLayout::vector; break;
    case NeighborKind::alltoall: send_layout = BlockLayout::uniform; break;
    case NeighborKind::alltoallv: send_layout = recv_layout = BlockLayout::vector; break;
    case NeighborKind::alltoallw: send_layout = recv_layout = BlockLayout::w; break;
  }
  std::vector<coll::NeighborBlock> sends, recvs;
  FABMPI_TRY(neighbor_blocks(n.destinations, sendbuf, send_layout, sendcount, sendcounts, sdispls, sbyte_displs,
                             sendtype, sendtypes, &sends, "send"));
  FABMPI_TRY(neighbor_blocks(n.sources, recvbuf, recv_layout, recvcount, recvcounts, rdispls, rbyte_displs, recvtype,
                             recvtypes, &recvs, "receive"));
  if (c->topology->kind == Topology::Kind::cart) {
    // Block 2d goes down dimension d and arrives in the lower neighbour's block 2d+1; block 2d+1 goes up
    // into the upper neighbour's block 2d. When both neighbours are one process (a periodic dimension of
    // one or two), its two messages match in posting order: send up first, as receives go down first.
    for (std::size_t d = 0; d + 1 < sends.size(); d += 2) std::swap(sends[d], sends[d + 1]);
  }
  return exchange(c, what, sendbuf, std::move(sends), recvbuf, std::move(recvs), out);
}

// ---- intercommunicator forms (MPI-3.1 5.2.2): the group holding the root passes MPI_ROOT at the root and
// MPI_PROC_NULL elsewhere, the other group the root's rank; gathering sides' counts are per remote rank;
// MPI_IN_PLACE is not allowed. The data-moving ones are one exchange of blocks with the remote group
// (start_neighbor_exchange), the reductions coll/intercomm.cpp.

Rc no_in_place(const void* buf, const char* side) {
  if (buf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator (%s)", side);
  return Rc();
}

std::vector<int> remote_ranks(const Comm& c) {
  std::vector<int> ranks(static_cast<std::size_t>(c.peer_size()));
  for (int r = 0; r < c.peer_size(); ++r) ranks[static_cast<std::size_t>(r)] = r;
  return ranks;
}

Rc exchange(const CommRef& c, const char* what, const void* sendbuf, std::vector<coll::NeighborBlock> sends,
            void* recvbuf, std::vector<coll::NeighborBlock> recvs, const RequestOut& out) {
  return launch(out, c, [=, sends = std::move(sends), recvs = std::move(recvs)](RequestRef* r) {
    return coll::start_neighbor_exchange(c, what, sendbuf, sends, recvbuf, recvs, r);
  });
}

Rc inter_barrier(const CommRef& c, const RequestOut& out) {
  // Everyone tells every remote process it arrived and waits to hear the same from each of them.
  std::vector<coll::NeighborBlock> blocks;
  for (int r = 0; r < c->peer_size(); ++r) blocks.push_back({r, 0, 0, builtin_datatype(MPI_BYTE)});
  return exchange(c, "MPI_Barrier on an intercommunicator", nullptr, blocks, nullptr, blocks, out);
}

Rc inter_bcast(const CommRef& c, void* buf, int count, MPI_Datatype type, int root, const RequestOut& out) {
  FABMPI_TRY(check_root(*c, root));
  std::vector<coll::NeighborBlock> sends, recvs;
  if (root == MPI_ROOT) {
    FABMPI_TRY(no_in_place(buf, "buffer"));
    FABMPI_TRY(neighbor_blocks(remote_ranks(*c), buf, BlockLayout::same, count, nullptr, nullptr, nullptr, type,
                               nullptr, &sends, "send"));
  } else if (root != MPI_PROC_NULL) {
    FABMPI_TRY(no_in_place(buf, "buffer"));
    FABMPI_TRY(neighbor_blocks({root}, buf, BlockLayout::same, count, nullptr, nullptr, nullptr, type, nullptr, &recvs,
                               "receive"));
  }
  return exchange(c, "MPI_Bcast on an intercommunicator", buf, std::move(sends), buf, std::move(recvs), out);
}

Rc inter_reduction(Collective kind, const CommRef& c, const void* sendbuf, void* recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, int root, const RequestOut& out) {
  if (kind == Collective::reduce) FABMPI_TRY(check_root(*c, root));
  // The rest of the root's group takes no part: none of its arguments are significant (mpi4py passes
  // MPI_BYTE there, with any op).
  if (kind == Collective::reduce && root == MPI_PROC_NULL)
    return exchange(c, "MPI_Reduce on an intercommunicator", nullptr, {}, nullptr, {}, out);
  if (kind == Collective::allreduce) root = 0;  // sends and receives
  FABMPI_TRY(check_count(count));
  DatatypeRef t;
  FABMPI_TRY(to_datatype(type, &t));
  OpRef o;
  FABMPI_TRY(check_op(op, *t, &o));
  const bool sends = kind == Collective::allreduce || root >= 0;
  const bool receives = kind == Collective::allreduce || root == MPI_ROOT;
  if (sends) {
    FABMPI_TRY(no_in_place(sendbuf, "send buffer"));
    FABMPI_TRY(check_buffer(sendbuf, count, *t));
  }
  if (receives) {
    FABMPI_TRY(no_in_place(recvbuf, "receive buffer"));
    FABMPI_TRY(check_buffer(recvbuf, count, *t));
  }
  const int reduce_root = kind == Collective::reduce ? root : 0;
  return launch(out, c, [=](RequestRef* r) {
    return coll::start_inter_reduction(kind, c, sendbuf, recvbuf, count, t, o, reduce_root, r);
  });
}

Rc inter_reduce_scatter(Collective kind, const CommRef& c, const void* sendbuf, void* recvbuf, const int* recvcounts,
                        int recvcount, MPI_Datatype type, MPI_Op op, const RequestOut& out) {
  const int p = c->size();
  const bool block = kind == Collective::reduce_scatter_block;
  if (block) FABMPI_TRY(check_count(recvcount));
  else FABMPI_TRY(check_counts(recvcounts, p, "recvcounts"));
  DatatypeRef t;
  FABMPI_TRY(to_datatype(type, &t));
  OpRef o;
  FABMPI_TRY(check_op(op, *t, &o));
  FABMPI_TRY(no_in_place(sendbuf, "send buffer"));
  FABMPI_TRY(no_in_place(recvbuf, "receive buffer"));
  long long total = 0;
  for (int i = 0; i < p; ++i) total += block ? recvcount : recvcounts[i];
  FABMPI_TRY(check_buffer(sendbuf, total > 0 ? 1 : 0, *t));
  FABMPI_TRY(check_buffer(recvbuf, block ? recvcount : recvcounts[c->rank()], *t));
  std::vector<int> counts = block ? std::vector<int>{recvcount} : copy_counts(recvcounts, p);
  return launch(out, c, [=, counts = std::move(counts)](RequestRef* r) {
    return coll::start_inter_reduce_scatter(kind, c, sendbuf, recvbuf, counts, t, o, r);
  });
}

// Gather(v) and, with root = MPI_PROC_NULL as a marker, allgather(v): each remote rank's block lands at
// its place in recvbuf.
Rc inter_gathers(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                 int root, const RequestOut& out) {
  const bool all = kind == Collective::allgather || kind == Collective::allgatherv;
  const bool v = kind == Collective::gatherv || kind == Collective::allgatherv;
  const bool sends = all || root >= 0;
  const bool receives = all || root == MPI_ROOT;
  const std::vector<int> remote = remote_ranks(*c);
  std::vector<coll::NeighborBlock> send_blocks, recv_blocks;
  if (sends) {
    FABMPI_TRY(no_in_place(sendbuf, "send buffer"));
    FABMPI_TRY(neighbor_blocks(all ? remote : std::vector<int>{root}, sendbuf, BlockLayout::same, sendcount, nullptr,
                               nullptr, nullptr, sendtype, nullptr, &send_blocks, "send"));
  }
  if (receives) {
    FABMPI_TRY(no_in_place(recvbuf, "receive buffer"));
    FABMPI_TRY(neighbor_blocks(remote, recvbuf, v ? BlockLayout::vector : BlockLayout::uniform, recvcount, recvcounts,
                               displs, nullptr, recvtype, nullptr, &recv_blocks, "receive"));
  }
  const char* what = all ? (v ? "MPI_Allgatherv on an intercommunicator" : "MPI_Allgather on an intercommunicator")
                         : (v ? "MPI_Gatherv on an intercommunicator" : "MPI_Gather on an intercommunicator");
  return exchange(c, what, sendbuf, std::move(send_blocks), recvbuf, std::move(recv_blocks), out);
}

Rc inter_scatter(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, const int* sendcounts,
                 const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, const RequestOut& out) {
  const bool v = kind == Collective::scatterv;
  std::vector<coll::NeighborBlock> send_blocks, recv_blocks;
  if (root == MPI_ROOT) {
    FABMPI_TRY(no_in_place(sendbuf, "send buffer"));
    FABMPI_TRY(neighbor_blocks(remote_ranks(*c), sendbuf, v ? BlockLayout::vector : BlockLayout::uniform, sendcount,
                               sendcounts, displs, nullptr, sendtype, nullptr, &send_blocks, "send"));
  } else if (root != MPI_PROC_NULL) {
    FABMPI_TRY(no_in_place(recvbuf, "receive buffer"));
    FABMPI_TRY(neighbor_blocks({root}, recvbuf, BlockLayout::same, recvcount, nullptr, nullptr, nullptr, recvtype,
                               nullptr, &recv_blocks, "receive"));
  }
  return exchange(c, v ? "MPI_Scatterv on an intercommunicator" : "MPI_Scatter on an intercommunicator", sendbuf,
                  std::move(send_blocks), recvbuf, std::move(recv_blocks), out);
}

Rc inter_alltoall(Collective kind, const CommRef& c, const void* sendbuf, int sendcount, const int* sendcounts,
                  const int* sdispls, MPI_Datatype sendtype, const MPI_Datatype* sendtypes, void* recvbuf,
                  int recvcount, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                  const MPI_Datatype* recvtypes, const RequestOut& out) {
  FABMPI_TRY(no_in_place(sendbuf, "send buffer"));
  FABMPI_TRY(no_in_place(recvbuf, "receive buffer"));
  const std::vector<int> remote = remote_ranks(*c);
  const BlockLayout layout = kind == Collective::alltoall    ? BlockLayout::uniform
                             : kind == Collective::alltoallv ? BlockLayout::vector
                                                             : BlockLayout::w;
  // alltoallw's displacements are in bytes (int in MPI_Alltoallw, MPI_Aint in the neighbour form).
  std::vector<MPI_Aint> sbytes, rbytes;
  if (layout == BlockLayout::w) {
    if (sdispls == nullptr || rdispls == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the displacements");
    sbytes.assign(sdispls, sdispls + remote.size());
    rbytes.assign(rdispls, rdispls + remote.size());
  }
  std::vector<coll::NeighborBlock> send_blocks, recv_blocks;
  FABMPI_TRY(neighbor_blocks(remote, sendbuf, layout, sendcount, sendcounts, sdispls,
                             layout == BlockLayout::w ? sbytes.data() : nullptr, sendtype, sendtypes, &send_blocks,
                             "send"));
  FABMPI_TRY(neighbor_blocks(remote, recvbuf, layout, recvcount, recvcounts, rdispls,
                             layout == BlockLayout::w ? rbytes.data() : nullptr, recvtype, recvtypes, &recv_blocks,
                             "receive"));
  const char* what = kind == Collective::alltoall    ? "MPI_Alltoall on an intercommunicator"
                     : kind == Collective::alltoallv ? "MPI_Alltoallv on an intercommunicator"
                                                     : "MPI_Alltoallw on an intercommunicator";
  return exchange(c, what, sendbuf, std::move(send_blocks), recvbuf, std::move(recv_blocks), out);
}

}  // namespace

// ---- the C API

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
  ApiCall call("MPI_Barrier");
  return call.finish(barrier(call, comm, nullptr));
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ibarrier");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(barrier(call, comm, request));
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  ApiCall call("MPI_Bcast");
  return call.finish(bcast(call, buffer, count, datatype, root, comm, nullptr));
}
#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ibcast");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(bcast(call, buffer, count, datatype, root, comm, request));
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  ApiCall call("MPI_Reduce");
  return call.finish(reduction(call, Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr));
}
#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ireduce");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduction(call, Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ApiCall call("MPI_Allreduce");
  return call.finish(reduction(call, Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr));
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iallreduce");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduction(call, Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, request));
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ApiCall call("MPI_Scan");
  return call.finish(reduction(call, Collective::scan, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr));
}
#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iscan");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduction(call, Collective::scan, sendbuf, recvbuf, count, datatype, op, 0, comm, request));
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ApiCall call("MPI_Exscan");
  return call.finish(reduction(call, Collective::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr));
}
#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iexscan");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduction(call, Collective::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm, request));
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ApiCall call("MPI_Reduce_scatter");
  return call.finish(reduce_scatter(call, Collective::reduce_scatter, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, nullptr));
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ireduce_scatter");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduce_scatter(call, Collective::reduce_scatter, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request));
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ApiCall call("MPI_Reduce_scatter_block");
  return call.finish(reduce_scatter(call, Collective::reduce_scatter_block, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, nullptr));
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ireduce_scatter_block");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(reduce_scatter(call, Collective::reduce_scatter_block, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, request));
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Allgather");
  return call.finish(allgather(call, Collective::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, comm, nullptr));
}
#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iallgather");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(allgather(call, Collective::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, comm, request));
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Allgatherv");
  return call.finish(allgather(call, Collective::allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, nullptr));
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iallgatherv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(allgather(call, Collective::allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, request));
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ApiCall call("MPI_Gather");
  return call.finish(gather(call, Collective::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm, nullptr));
}
#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Igather");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(gather(call, Collective::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm, request));
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ApiCall call("MPI_Gatherv");
  return call.finish(gather(call, Collective::gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, nullptr));
}
#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Igatherv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(gather(call, Collective::gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, request));
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ApiCall call("MPI_Scatter");
  return call.finish(scatter(call, Collective::scatter, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr));
}
#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iscatter");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(scatter(call, Collective::scatter, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  ApiCall call("MPI_Scatterv");
  return call.finish(scatter(call, Collective::scatterv, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr));
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Iscatterv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(scatter(call, Collective::scatterv, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Alltoall");
  return call.finish(alltoall(call, Collective::alltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ialltoall");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(alltoall(call, Collective::alltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Alltoallv");
  return call.finish(alltoall(call, Collective::alltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ialltoallv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(alltoall(call, Collective::alltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  ApiCall call("MPI_Alltoallw");
  return call.finish(alltoall(call, Collective::alltoallw, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, nullptr));
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ialltoallw");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(alltoall(call, Collective::alltoallw, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, request));
}

// ---- neighbourhood collectives

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Neighbor_allgather");
  return call.finish(neighbor(call, NeighborKind::allgather, "MPI_Neighbor_allgather", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ineighbor_allgather");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(neighbor(call, NeighborKind::allgather, "MPI_Ineighbor_allgather", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Neighbor_allgatherv");
  return call.finish(neighbor(call, NeighborKind::allgatherv, "MPI_Neighbor_allgatherv", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, displs, nullptr, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ineighbor_allgatherv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(neighbor(call, NeighborKind::allgatherv, "MPI_Ineighbor_allgatherv", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, displs, nullptr, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Neighbor_alltoall");
  return call.finish(neighbor(call, NeighborKind::alltoall, "MPI_Neighbor_alltoall", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ineighbor_alltoall");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(neighbor(call, NeighborKind::alltoall, "MPI_Ineighbor_alltoall", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  ApiCall call("MPI_Neighbor_alltoallv");
  return call.finish(neighbor(call, NeighborKind::alltoallv, "MPI_Neighbor_alltoallv", sendbuf, 0, sendcounts, sdispls, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, nullptr, recvtype, nullptr, comm, nullptr));
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ineighbor_alltoallv");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(neighbor(call, NeighborKind::alltoallv, "MPI_Ineighbor_alltoallv", sendbuf, 0, sendcounts, sdispls, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, nullptr, recvtype, nullptr, comm, request));
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  ApiCall call("MPI_Neighbor_alltoallw");
  return call.finish(neighbor(call, NeighborKind::alltoallw, "MPI_Neighbor_alltoallw", sendbuf, 0, sendcounts, nullptr, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, nullptr, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, nullptr));
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Ineighbor_alltoallw");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish(neighbor(call, NeighborKind::alltoallw, "MPI_Ineighbor_alltoallw", sendbuf, 0, sendcounts, nullptr, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, nullptr, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, request));
}

// ---- persistent collectives (MPI-4.0 6.12): the nonblocking forms' checks, started by MPI_Start

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Barrier_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return barrier(call, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Bcast_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return bcast(call, buffer, count, datatype, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Reduce_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduction(call, Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Allreduce_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduction(call, Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Scan_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduction(call, Collective::scan, sendbuf, recvbuf, count, datatype, op, 0, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Exscan_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduction(call, Collective::exscan, sendbuf, recvbuf, count, datatype, op, 0, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Reduce_scatter_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduce_scatter(call, Collective::reduce_scatter, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Reduce_scatter_block_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return reduce_scatter(call, Collective::reduce_scatter_block, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Allgather_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return allgather(call, Collective::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Allgatherv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return allgather(call, Collective::allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Gather_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return gather(call, Collective::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Gatherv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return gather(call, Collective::gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Scatter_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return scatter(call, Collective::scatter, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Scatterv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return scatter(call, Collective::scatterv, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Alltoall_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return alltoall(call, Collective::alltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Alltoallv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return alltoall(call, Collective::alltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Alltoallw_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return alltoall(call, Collective::alltoallw, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Neighbor_allgather_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return neighbor(call, NeighborKind::allgather, "MPI_Neighbor_allgather_init", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Neighbor_allgatherv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return neighbor(call, NeighborKind::allgatherv, "MPI_Neighbor_allgatherv_init", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, displs, nullptr, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Neighbor_alltoall_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return neighbor(call, NeighborKind::alltoall, "MPI_Neighbor_alltoall_init", sendbuf, sendcount, nullptr, nullptr, nullptr, sendtype, nullptr, recvbuf, recvcount, nullptr, nullptr, nullptr, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Neighbor_alltoallv_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return neighbor(call, NeighborKind::alltoallv, "MPI_Neighbor_alltoallv_init", sendbuf, 0, sendcounts, sdispls, nullptr, sendtype, nullptr, recvbuf, 0, recvcounts, rdispls, nullptr, recvtype, nullptr, comm, RequestOut::persistent(request));
  }());
}

#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Neighbor_alltoallw_init");
  if (!request) return call.finish(check_request_out(request, true));
  return call.finish([&]() -> Rc {
    FABMPI_TRY(optional_info(info));
    return neighbor(call, NeighborKind::alltoallw, "MPI_Neighbor_alltoallw_init", sendbuf, 0, sendcounts, nullptr, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, nullptr, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, RequestOut::persistent(request));
  }());
}
