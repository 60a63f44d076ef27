// One-sided communication (MPI-3.1 chapter 11): windows, RMA operations, synchronization, window
// attributes, names and error handlers. The work is in rma/window.cpp; this file is handles, argument
// checks and error-handler dispatch (a window call's errors go to the window's handler).
#include <algorithm>
#include <atomic>
#include <cstring>

#include "rma/window.hpp"
#include "runtime/binding/attributes.hpp"
#include "runtime/binding/library.hpp"
#include "runtime/group_ops.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;
using rma::WindowRef;

namespace {

Rc to_window(ApiCall& call, MPI_Win handle, WindowRef* out) {
  FABMPI_TRY(call.require_initialized());
  if (handle == MPI_WIN_NULL) return fail(MPI_ERR_WIN, "MPI_WIN_NULL is not a valid window");
  const WindowRef* found = library().windows.find(handle);
  if (!found) return fail(MPI_ERR_WIN, "invalid window handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  call.report_to_window(out->get());
  return Rc();
}

Rc check_target(const rma::Window& w, int rank) {
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w.comm_size())) return Rc();
  return fail(MPI_ERR_RANK, "invalid target rank %d (the window's group has %d ranks)", rank, w.comm_size());
}

Rc check_assert(int flags, int allowed) {
  if (flags & ~allowed) return fail(MPI_ERR_ASSERT, "invalid assert flags 0x%x", static_cast<unsigned>(flags));
  return Rc();
}

// One side of an operation: a count, a committed datatype, a buffer that holds them.
Rc check_side(const void* buf, int count, MPI_Datatype handle, DatatypeRef* type, const char* side) {
  if (count < 0) return fail(MPI_ERR_COUNT, "negative %s count %d", side, count);
  FABMPI_TRY(to_datatype(handle, type));
  if (buf == nullptr && count > 0 && (*type)->size() > 0 && (*type)->true_lb() == 0)
    return fail(MPI_ERR_BUFFER, "NULL %s buffer with count %d", side, count);
  return Rc();
}

// The target side: a count and a committed datatype (the memory is the target's).
Rc check_target_side(int count, MPI_Datatype handle, DatatypeRef* type) {
  if (count < 0) return fail(MPI_ERR_COUNT, "negative target count %d", count);
  return to_datatype(handle, type);
}

// RMA accumulates take predefined operations only (MPI-3.1 11.3.4), defined on the datatype (when anything
// is accumulated: MPICH accepts any type with count 0, and mpi4py's tests rely on it).
Rc check_rma_op(MPI_Op handle, const Datatype& type, int count, OpRef* op) {
  FABMPI_TRY(to_op(handle, op));
  if (!(*op)->builtin()) return fail(MPI_ERR_OP, "RMA accumulates take predefined operations only");
  if ((*op)->predefined() == MPI_REPLACE || (*op)->predefined() == MPI_NO_OP || count == 0) return Rc();
  return (*op)->check(type);
}

// The window info keys of MPI-3.1 11.2.1 (and MPI-4.0's mpi_accumulate_granularity): what a window
// remembers from an info object; the two with a default in the standard start with it.
constexpr const char* kWindowHintKeys[] = {"no_locks",  "accumulate_ordering",    "accumulate_ops",
                                           "same_size", "same_disp_unit",         "alloc_shared_noncontig",
                                           "mpi_accumulate_granularity"};

void apply_window_hints(const Info* info, std::map<std::string, std::string>* hints) {
  if (hints->empty()) {
    (*hints)["accumulate_ordering"] = "rar,raw,war,waw";
    (*hints)["accumulate_ops"] = "same_op_no_op";
  }
  if (!info) return;
  for (const char* key : kWindowHintKeys)
    if (const std::string* value = info->get(key)) (*hints)[key] = *value;
}

Rc create_window(ApiCall& call, void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                 rma::Window::Memory memory, void* baseptr, MPI_Win* win) {
  const bool allocate = memory == rma::Window::Memory::allocated || memory == rma::Window::Memory::shared;
  CommRef c;
  FABMPI_TRY(call.comm(comm, &c));
  FABMPI_TRY(check_intra(*c));
  if (size < 0) return fail(MPI_ERR_SIZE, "negative window size %lld", static_cast<long long>(size));
  if (disp_unit <= 0) return fail(MPI_ERR_DISP, "displacement unit %d (must be positive)", disp_unit);
  InfoRef hints;
  if (info != MPI_INFO_NULL) FABMPI_TRY(to_info(info, &hints));
  FABMPI_TRY(check_out_ptr(win, "win"));
  if (allocate) FABMPI_TRY(check_out_ptr(baseptr, "baseptr"));
  WindowRef w;
  FABMPI_TRY(rma::Window::create(c, base, size, disp_unit, memory, &w));
  w->errhandler = predefined_errhandler(Errhandler::Kind::are_fatal);  // MPI-3.1 8.3: windows start fatal
  apply_window_hints(hints.get(), &w->hints);
  w->handle = library().windows.insert(w);
  if (allocate) {
    void* base_address = w->base();
    std::memcpy(baseptr, &base_address, sizeof base_address);  // baseptr is a void** passed as void*
  }
  *win = w->handle;
  return Rc();
}

// Starts one operation; with `request` (the R forms) it also returns a request for it.
template <class Operation>
Rc run_operation(ApiCall& call, rma::Window& w, int target, MPI_Request* request, Operation&& operation) {
  if (!request) return operation();
  FABMPI_TRY(check_out_ptr(request, "request"));
  FABMPI_TRY(w.begin_request(target, call.name()));
  Rc rc = operation();
  RequestRef r = w.end_request();
  if (!rc.ok()) return rc;
  *request = new_request_handle(r);
  return Rc();
}

Rc put_or_get(ApiCall& call, bool is_put, void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  WindowRef w;
  FABMPI_TRY(to_window(call, win, &w));
  DatatypeRef ot, tt;
  FABMPI_TRY(check_side(origin_addr, origin_count, origin_datatype, &ot, "origin"));
  FABMPI_TRY(check_target_side(target_count, target_datatype, &tt));
  FABMPI_TRY(check_target(*w, target_rank));
  return run_operation(call, *w, target_rank, request, [&] {
    return is_put ? w->put(origin_addr, origin_count, ot, target_rank, target_disp, target_count, tt)
                  : w->get(origin_addr, origin_count, ot, target_rank, target_disp, target_count, tt);
  });
}

Rc accumulate(ApiCall& call, bool fetch, const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  WindowRef w;
  FABMPI_TRY(to_window(call, win, &w));
  DatatypeRef ot, rt, tt;
  FABMPI_TRY(check_target_side(target_count, target_datatype, &tt));
  OpRef o;
  FABMPI_TRY(check_rma_op(op, *tt, target_count, &o));
  // With MPI_NO_OP the origin buffer is ignored (MPI-3.1 11.3.4).
  if (fetch && o->predefined() == MPI_NO_OP) {
    if (origin_count < 0) return fail(MPI_ERR_COUNT, "negative origin count %d", origin_count);
    ot = tt;
  } else {
    FABMPI_TRY(check_side(origin_addr, origin_count, origin_datatype, &ot, "origin"));
  }
  if (fetch) FABMPI_TRY(check_side(result_addr, result_count, result_datatype, &rt, "result"));
  FABMPI_TRY(check_target(*w, target_rank));
  return run_operation(call, *w, target_rank, request, [&] {
    return w->accumulate(origin_addr, origin_count, ot, fetch ? result_addr : nullptr, result_count, rt, target_rank,
                         target_disp, target_count, tt, o);
  });
}

bool is_predefined_window_keyval(int keyval) {
  return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
         keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

Rc delete_window_attribute(rma::Window& w, int keyval, const Comm::Attribute& attr) {
  return run_delete_callback(w.handle, keyval, attr);
}

// Ranks of a group in the window's communicator (PSCW's groups).
Rc window_ranks(const rma::Window& w, MPI_Group handle, std::vector<int>* out) {
  GroupRef g;
  FABMPI_TRY(to_group(handle, &g));
  std::vector<int> ranks(static_cast<std::size_t>(g->size()));
  for (int i = 0; i < g->size(); ++i) ranks[static_cast<std::size_t>(i)] = i;
  out->assign(ranks.size(), MPI_UNDEFINED);
  FABMPI_TRY(group_ops::translate_ranks(*g, ranks, *w.group(), *out));
  if (std::find(out->begin(), out->end(), MPI_UNDEFINED) != out->end())
    return fail(MPI_ERR_GROUP, "the group names processes outside the window's group");
  return Rc();
}

}  // namespace

extern "C" {

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  ApiCall call("MPI_Win_create");
  return call.finish(create_window(call, base, size, disp_unit, info, comm, rma::Window::Memory::given, nullptr, win));
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  ApiCall call("MPI_Win_allocate");
  return call.finish(
      create_window(call, nullptr, size, disp_unit, info, comm, rma::Window::Memory::allocated, baseptr, win));
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  ApiCall call("MPI_Win_create_dynamic");
  return call.finish(create_window(call, nullptr, 0, 1, info, comm, rma::Window::Memory::dynamic, nullptr, win));
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  ApiCall call("MPI_Win_attach");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    if (base == nullptr && size > 0) return fail(MPI_ERR_BUFFER, "NULL base with size %lld", static_cast<long long>(size));
    return w->attach(base, size);
  }());
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void* base) {
  ApiCall call("MPI_Win_detach");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->detach(base);
  }());
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  ApiCall call("MPI_Win_allocate_shared");
  return call.finish(
      create_window(call, nullptr, size, disp_unit, info, comm, rma::Window::Memory::shared, baseptr, win));
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  ApiCall call("MPI_Win_shared_query");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_target(*w, rank));
    FABMPI_TRY(check_out_ptr(size, "size"));
    FABMPI_TRY(check_out_ptr(disp_unit, "disp_unit"));
    FABMPI_TRY(check_out_ptr(baseptr, "baseptr"));
    void* base = nullptr;
    FABMPI_TRY(w->shared_query(rank, size, disp_unit, &base));
    std::memcpy(baseptr, &base, sizeof base);  // baseptr is a void** passed as void*
    return Rc();
  }());
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win* win) {
  ApiCall call("MPI_Win_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(win, "win"));
    WindowRef w;
    FABMPI_TRY(to_window(call, *win, &w));
    FABMPI_TRY(w->free_collective());
    // The attributes' delete callbacks run as the window goes (MPI-3.1 6.7.2).
    for (auto it = w->attributes.begin(); it != w->attributes.end(); it = w->attributes.erase(it))
      FABMPI_TRY(delete_window_attribute(*w, it->first, it->second));
    library().windows.erase(*win);
    *win = MPI_WIN_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win) {
  ApiCall call("MPI_Win_fence");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_assert(assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED));
    return w->fence(assert);
  }());
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  ApiCall call("MPI_Put");
  return call.finish(put_or_get(call, true, const_cast<void*>(origin_addr), origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, nullptr));
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  ApiCall call("MPI_Rput");
  return call.finish(put_or_get(call, true, const_cast<void*>(origin_addr), origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, request));
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  ApiCall call("MPI_Get");
  return call.finish(put_or_get(call, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                target_count, target_datatype, win, nullptr));
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  ApiCall call("MPI_Rget");
  return call.finish(put_or_get(call, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                target_count, target_datatype, win, request));
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  ApiCall call("MPI_Accumulate");
  return call.finish(accumulate(call, false, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
                                target_rank, target_disp, target_count, target_datatype, op, win, nullptr));
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  ApiCall call("MPI_Raccumulate");
  return call.finish(accumulate(call, false, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
                                target_rank, target_disp, target_count, target_datatype, op, win, request));
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  ApiCall call("MPI_Get_accumulate");
  return call.finish(accumulate(call, true, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                result_datatype, target_rank, target_disp, target_count, target_datatype, op, win,
                                nullptr));
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  ApiCall call("MPI_Rget_accumulate");
  return call.finish(accumulate(call, true, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                result_datatype, target_rank, target_disp, target_count, target_datatype, op, win,
                                request));
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  ApiCall call("MPI_Fetch_and_op");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    DatatypeRef t;
    FABMPI_TRY(check_side(result_addr, 1, datatype, &t, "result"));
    if (!t->builtin()) return fail(MPI_ERR_TYPE, "MPI_Fetch_and_op takes a predefined datatype");
    OpRef o;
    FABMPI_TRY(check_rma_op(op, *t, 1, &o));
    if (o->predefined() != MPI_NO_OP && origin_addr == nullptr && t->size() > 0)
      return fail(MPI_ERR_BUFFER, "NULL origin buffer");
    FABMPI_TRY(check_target(*w, target_rank));
    return w->accumulate(origin_addr, 1, t, result_addr, 1, t, target_rank, target_disp, 1, t, o);
  }());
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  ApiCall call("MPI_Compare_and_swap");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    DatatypeRef t;
    FABMPI_TRY(check_side(result_addr, 1, datatype, &t, "result"));
    if (!t->builtin()) return fail(MPI_ERR_TYPE, "MPI_Compare_and_swap takes a predefined datatype");
    if ((origin_addr == nullptr || compare_addr == nullptr) && t->size() > 0)
      return fail(MPI_ERR_BUFFER, "NULL origin or compare buffer");
    FABMPI_TRY(check_target(*w, target_rank));
    return w->compare_and_swap(origin_addr, compare_addr, result_addr, t, target_rank, target_disp);
  }());
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  ApiCall call("MPI_Win_lock");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
      return fail(MPI_ERR_LOCKTYPE, "invalid lock type %d (MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED)", lock_type);
    FABMPI_TRY(check_target(*w, rank));
    FABMPI_TRY(check_assert(assert, MPI_MODE_NOCHECK));
    return w->lock(lock_type, rank, assert);
  }());
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win) {
  ApiCall call("MPI_Win_unlock");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_target(*w, rank));
    return w->unlock(rank);
  }());
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win) {
  ApiCall call("MPI_Win_lock_all");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_assert(assert, MPI_MODE_NOCHECK));
    return w->lock_all(assert);
  }());
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win) {
  ApiCall call("MPI_Win_unlock_all");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->unlock_all();
  }());
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win) {
  ApiCall call("MPI_Win_flush");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_target(*w, rank));
    return w->flush(rank);
  }());
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win) {
  ApiCall call("MPI_Win_flush_all");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->flush_all();
  }());
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win) {
  ApiCall call("MPI_Win_flush_local");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_target(*w, rank));
    return w->flush_local(rank);
  }());
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win) {
  ApiCall call("MPI_Win_flush_local_all");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->flush_local_all();
  }());
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win) {
  ApiCall call("MPI_Win_sync");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    // The target writes window memory from this process's own progress: ordering loads and stores
    // around the call is all the (unified-like) memory needs.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return Rc();
  }());
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  ApiCall call("MPI_Win_get_group");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(group, "group"));
    *group = new_group_handle(w->group());
    return Rc();
  }());
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  ApiCall call("MPI_Win_get_attr");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(attribute_val, "attribute_val"));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    // MPI-3.1 11.2.6: the base is the attribute's value; the others are pointers to it.
    const void* value = nullptr;
    switch (win_keyval) {
      case MPI_WIN_BASE: value = w->base(); break;
      case MPI_WIN_SIZE: value = &w->size_attribute; break;
      case MPI_WIN_DISP_UNIT: value = &w->disp_unit_attribute; break;
      case MPI_WIN_CREATE_FLAVOR: value = &w->flavor_attribute; break;
      case MPI_WIN_MODEL: value = &w->model_attribute; break;
      default: {
        const KeyvalRef* kv = library().keyvals.find(win_keyval);
        if (!kv) return fail(MPI_ERR_KEYVAL, "invalid window attribute keyval %d", win_keyval);
        auto it = w->attributes.find(win_keyval);
        *flag = it != w->attributes.end() ? 1 : 0;
        if (*flag) std::memcpy(attribute_val, &it->second.value, sizeof(void*));
        return Rc();
      }
    }
    std::memcpy(attribute_val, &value, sizeof value);
    *flag = 1;
    return Rc();
  }());
}

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn, MPI_Win_delete_attr_function* win_delete_attr_fn,
                           int* win_keyval, void* extra_state) {
  ApiCall call("MPI_Win_create_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    // Under the MPICH ABI MPI_Win and MPI_Comm are both int: the callback types coincide.
    return create_keyval(win_copy_attr_fn, win_delete_attr_fn, extra_state, win_keyval);
  }());
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int* win_keyval) {
  ApiCall call("MPI_Win_free_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return free_keyval(win_keyval);  // predefined window keyvals are not in the table: MPI_ERR_KEYVAL
  }());
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  ApiCall call("MPI_Win_set_attr");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    if (is_predefined_window_keyval(win_keyval))
      return fail(MPI_ERR_KEYVAL, "predefined attribute 0x%x cannot be set", static_cast<unsigned>(win_keyval));
    const KeyvalRef* kv = library().keyvals.find(win_keyval);
    if (!kv) return fail(MPI_ERR_KEYVAL, "invalid window attribute keyval %d", win_keyval);
    auto it = w->attributes.find(win_keyval);
    if (it != w->attributes.end()) FABMPI_TRY(delete_window_attribute(*w, win_keyval, it->second));
    w->attributes[win_keyval] = Comm::Attribute{*kv, attribute_val};
    return Rc();
  }());
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  ApiCall call("MPI_Win_delete_attr");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    if (!library().keyvals.find(win_keyval))
      return fail(MPI_ERR_KEYVAL, "invalid window attribute keyval %d", win_keyval);
    auto it = w->attributes.find(win_keyval);
    if (it == w->attributes.end()) return Rc();
    FABMPI_TRY(delete_window_attribute(*w, win_keyval, it->second));
    w->attributes.erase(it);
    return Rc();
  }());
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  ApiCall call("MPI_Win_set_name");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(win_name, "win_name"));
    w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
    return Rc();
  }());
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  ApiCall call("MPI_Win_get_name");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return copy_object_name(w->name, win_name, resultlen, "win_name");
  }());
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Win_create_errhandler");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    auto eh = std::make_shared<Errhandler>();
    eh->win_fn = fn;
    return publish_user_errhandler(reinterpret_cast<const void*>(fn), std::move(eh), errhandler);
  }());
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  ApiCall call("MPI_Win_set_errhandler");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    ErrhandlerRef eh;
    FABMPI_TRY(to_errhandler(errhandler, &eh));
    if (eh->kind == Errhandler::Kind::user && !eh->win_fn)
      return fail(MPI_ERR_ARG, "the error handler was made for communicators, not windows");
    w->errhandler = eh;
    return Rc();
  }());
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Win_get_errhandler");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
    *errhandler = errhandler_reference(w->errhandler);
    return Rc();
  }());
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  ApiCall call("MPI_Win_call_errhandler");
  WindowRef w;
  Rc rc = to_window(call, win, &w);
  if (!rc.ok()) return call.finish(rc);
  // The window's handler runs as for an error of this call; the call itself succeeds (MPI-3.1 8.3.3)
  // unless the handler is MPI_ERRORS_ARE_FATAL.
  (void)call.finish(fail(errorcode, "MPI_Win_call_errhandler with error code %d", errorcode));
  return MPI_SUCCESS;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  ApiCall call("MPI_Win_post");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_assert(assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT));
    std::vector<int> origins;
    FABMPI_TRY(window_ranks(*w, group, &origins));
    return w->post(origins);
  }());
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  ApiCall call("MPI_Win_start");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_assert(assert, MPI_MODE_NOCHECK));
    std::vector<int> targets;
    FABMPI_TRY(window_ranks(*w, group, &targets));
    return w->start(targets);
  }());
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win) {
  ApiCall call("MPI_Win_complete");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->complete();
  }());
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win) {
  ApiCall call("MPI_Win_wait");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    return w->wait_exposure();
  }());
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int* flag) {
  ApiCall call("MPI_Win_test");
  return call.finish([&]() -> Rc {
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    bool done = false;
    FABMPI_TRY(w->test_exposure(&done));
    *flag = done ? 1 : 0;
    return Rc();
  }());
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  ApiCall call("MPI_Win_set_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    InfoRef hints;
    if (info != MPI_INFO_NULL) FABMPI_TRY(to_info(info, &hints));
    apply_window_hints(hints.get(), &w->hints);
    return Rc();
  }());
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  ApiCall call("MPI_Win_get_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    WindowRef w;
    FABMPI_TRY(to_window(call, win, &w));
    FABMPI_TRY(check_out_ptr(info_used, "info_used"));
    auto copy = std::make_shared<Info>();
    for (const auto& [key, value] : w->hints) copy->set(key, value);
    copy->handle = library().infos.insert(copy);
    *info_used = copy->handle;
    return Rc();
  }());
}

}  // extern "C"
