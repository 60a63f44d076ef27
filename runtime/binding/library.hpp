// The process-wide state behind the C API and the helpers every binding uses: the call guard (locking,
// initialization check, error-handler dispatch), handle conversion and argument checks by parameter kind.
#pragma once

#include <mpi.h>

#include <atomic>
#include <array>
#include <map>
#include <memory>
#include <string>

#include "io/file.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/call_trace.hpp"
#include "runtime/binding/handles.hpp"
#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/errhandler.hpp"
#include "runtime/info.hpp"
#include "runtime/op.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::rma {
class Window;
}

namespace fabmpi::binding {

// `initialized`: the runtime exists (MPI_Init or an MPI_Session_init made it). The world model's own
// state (MPI_Initialized, MPI_Finalized) is Library::world_*.
enum class LibraryState { not_initialized, initialized, finalized };

// An MPI-4 session (runtime/binding/session.cpp): its error handler and the info it was started with.
struct Session {
  ErrhandlerRef errhandler;
  InfoRef info;
  int thread_level = MPI_THREAD_SINGLE;
  int handle = MPI_SESSION_NULL;
};

struct Library {
  LibraryState state = LibraryState::not_initialized;
  std::unique_ptr<Runtime> runtime;
  HandleTable<Comm, ObjectKind::comm> comms;
  HandleTable<const Group, ObjectKind::group> groups;
  HandleTable<const Datatype, ObjectKind::datatype> datatypes;
  HandleTable<Errhandler, ObjectKind::errhandler> errhandlers;
  HandleTable<const Op, ObjectKind::op> ops;
  HandleTable<Info, ObjectKind::info> infos;
  HandleTable<Keyval, ObjectKind::keyval> keyvals;
  HandleTable<Request, ObjectKind::request> requests;
  HandleTable<rma::Window, ObjectKind::win> windows;
  HandleTable<Session, ObjectKind::session> sessions;
  HandleTable<io::File, ObjectKind::file> files;
  // MPI_FILE_NULL's error handler: the one new files start with (MPI_ERRORS_RETURN unless set).
  ErrhandlerRef file_default_errhandler = predefined_errhandler(Errhandler::Kind::errors_return);
  // References MPI_*_get_errhandler handed out beyond the first, per user handler handle: each is one
  // more MPI_Errhandler_free before the handle goes (errhandler_reference).
  std::map<int, int> errhandler_extra_refs;
  // MPI_Type_create_f90_*: one handle per (combiner, p, r), kept for the library's life like a predefined
  // type's (runtime/binding/fortran.cpp).
  std::map<std::array<int, 3>, MPI_Datatype> f90_types;
  bool world_initialized = false;  // MPI_Init(_thread) was called
  bool world_finalized = false;    // MPI_Finalize was called
  int open_sessions = 0;
  // The MPI function the application is in (ApiCall sets and restores it), for hang reports only:
  // with several threads in the library it names one of their calls.
  std::atomic<const char*> current_call{nullptr};
  // The timeline of MPI calls when FABMPI_TRACE is set (runtime/call_trace.hpp), else null.
  CallTrace* const trace = CallTrace::from_environment();
};

// The one instance (the C API is process-wide by definition). Inline: every call starts here.
[[gnu::always_inline]] inline Library& library() {
  // Deliberately leaked: user code may call MPI_Finalized from atexit handlers and static destructors.
  static Library* instance = new Library();
  return *instance;
}
[[gnu::always_inline]] inline Runtime& runtime() { return *library().runtime; }

// Every binding opens with an ApiCall: it takes the API lock under MPI_THREAD_MULTIPLE, and its
// finish() turns an Rc into the return value through the error handler of the communicator involved.
class ApiCall {
 public:
  // `name` is the MPI name ("MPI_Send"), used in error messages.
  // The guard, the checks and the conversions below are inline with their failures out of line: a
  // blocking send's whole binding layer is on the latency path (measured: 100 instructions more in
  // MPI_Send cost a 0-byte ping-pong ~10 ns).
  [[gnu::always_inline]] explicit ApiCall(const char* name) : name_(name) {
    Library& lib = library();
    outer_call_ = lib.current_call.load(std::memory_order_relaxed);
    lib.current_call.store(name, std::memory_order_relaxed);
    if (lib.trace) [[unlikely]] {
      start_ns_ = CallTrace::now_ns();
      trace_args_.set = false;
    }
    if (lib.state == LibraryState::initialized && lib.runtime->needs_api_lock()) lock();
  }
  [[gnu::always_inline]] ~ApiCall() {
    if (start_ns_) [[unlikely]]  // under the lock
      library().trace->record(name_, start_ns_, CallTrace::now_ns(), trace_args_);
    if (locked_) unlock();
    library().current_call.store(outer_call_, std::memory_order_relaxed);
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  // MPI_ERR_OTHER unless MPI is initialized and not yet finalized.
  Rc require_initialized() const {
    return library().state == LibraryState::initialized ? Rc() : not_initialized();
  }
  // Converts a communicator handle and makes it the one whose error handler reports errors.
  Rc comm(MPI_Comm handle, CommRef* out);
  // The same without copying the reference (the pt2pt and collective bindings' path; comm(handle, const
  // Comm**) is this too): *out is the table's (or the world's) owner, valid until the
  // call ends provided the call itself creates and frees no communicator (the collectives). Under
  // MPI_THREAD_MULTIPLE another thread may, so the call then holds its own copy.
  [[gnu::always_inline]] Rc borrow_comm(MPI_Comm handle, const CommRef** out) {
    Library& lib = library();
    if (handle == MPI_COMM_WORLD && lib.state == LibraryState::initialized) [[likely]] {
      *out = &lib.runtime->world();
      error_comm_ = (*out)->get();
      return Rc();
    }
    return borrow_table_comm(handle, out);
  }
  // A second communicator argument (MPI_Intercomm_create's peer_comm): converted, but errors still go to
  // the first one's handler.
  Rc other_comm(MPI_Comm handle, CommRef* out) {
    const CommRef* found = nullptr;
    FABMPI_TRY(find_comm(handle, &found));
    *out = *found;
    return Rc();
  }
  // The same without a second reference: *out is the communicator this call holds until it ends.
  [[gnu::always_inline]] Rc comm(MPI_Comm handle, const Comm** out) {
    const CommRef* borrowed = nullptr;
    FABMPI_TRY(borrow_comm(handle, &borrowed));
    *out = borrowed->get();
    return Rc();
  }
  // Errors of a window call go to the window's handler (rma/window.hpp; the call holds the window).
  void report_to_window(const rma::Window* window) { error_win_ = window; }
  // Errors of a session call go to the session's handler (the call holds the session).
  void report_to_session(const Session* session) { error_session_ = session; }
  // Errors of a file call go to the file's handler, or MPI_FILE_NULL's when there is no valid file.
  void report_to_file(const io::File* file) {
    error_file_ = file;
    file_call_ = true;
  }
  // Errors not tied to a communicator go to MPI_COMM_WORLD's handler (this is also the default).
  void report_to(const CommRef& comm) {
    error_comm_owner_ = comm;
    error_comm_ = comm.get();
  }
  // Dispatches a failure to the error handler; returns the value the C function returns.
  [[gnu::always_inline]] int finish(Rc rc) {
    if (rc.ok()) [[likely]] return MPI_SUCCESS;
    return dispatch_failure(rc.code());
  }
  const char* name() const noexcept { return name_; }
  // For FABMPI_TRACE's timeline: the message this point-to-point call sends or receives (peer: a rank
  // of `comm`, or MPI_ANY_SOURCE / MPI_PROC_NULL; MPI_Sendrecv keeps its send side, the first given).
  // Nothing when not tracing.
  void trace_message(const Comm& comm, int peer, int tag, std::size_t bytes) noexcept {
    if (start_ns_ && !trace_args_.set) [[unlikely]] trace_args_ = {true, false, peer, tag, comm.context_id(), bytes};
  }
  bool tracing() const noexcept { return start_ns_ != 0; }
  // The same for a collective: its root (MPI_PROC_NULL: none) and its size in bytes (docs/debugging.md).
  void trace_collective(const Comm& comm, int root, std::size_t bytes) noexcept {
    if (start_ns_) [[unlikely]] trace_args_ = {true, true, root, 0, comm.context_id(), bytes};
  }

 private:
  void lock();
  void unlock();
  int dispatch_failure(int code);
  Rc not_initialized() const;
  // The communicator behind a handle (initialized library, valid handle), in the table or the world.
  Rc find_comm(MPI_Comm handle, const CommRef** found) const;
  Rc borrow_table_comm(MPI_Comm handle, const CommRef** out);

  const char* name_;
  const char* outer_call_;  // the call this one runs inside (a user callback's), usually none
  std::uint64_t start_ns_ = 0;  // when tracing (Library::trace)
  CallTrace::MessageArgs trace_args_;  // set only while tracing (start_ns_ != 0)
  // The communicator whose handler reports this call's errors (nullptr: MPI_COMM_WORLD's), and a
  // reference that keeps it alive when nothing else is sure to (the world, and any communicator while
  // only one thread can be in the library, are borrowed: no reference count on the fast path).
  const Comm* error_comm_ = nullptr;
  CommRef error_comm_owner_;
  const rma::Window* error_win_ = nullptr;
  const Session* error_session_ = nullptr;
  const io::File* error_file_ = nullptr;
  bool file_call_ = false;
  bool locked_ = false;
};

// ---- handle conversion (each fails with the matching MPI error class and a reason)
// Predefined types inline (every send and receive converts one); the rest looks in the handle table.
Rc to_derived_datatype(MPI_Datatype handle, DatatypeRef* out, bool require_committed);
[[gnu::always_inline]] inline Rc to_datatype(MPI_Datatype handle, DatatypeRef* out, bool require_committed = true) {
  if (const Datatype* predefined = predefined_datatype(handle)) [[likely]] {
    *out = DatatypeRef(DatatypeRef(), predefined);  // owns nothing: predefined types are never freed
    return Rc();
  }
  return to_derived_datatype(handle, out, require_committed);
}
Rc to_op(MPI_Op handle, OpRef* out);
Rc to_group(MPI_Group handle, GroupRef* out);
Rc to_info(MPI_Info handle, InfoRef* out);
// The info value of a thread level ("MPI_THREAD_MULTIPLE"...) and back (unknown names: single).
const char* thread_level_name(int level);
int thread_level_from_name(const std::string& name);
// MPI_INFO_ENV's and MPI_Info_create_env's contents for a process started with `args` (info.cpp).
std::shared_ptr<Info> environment_info(const std::vector<std::string>& args);
// An info argument that may be MPI_INFO_NULL (then *out, if given, stays null).
Rc optional_info(MPI_Info handle, InfoRef* out = nullptr);
Rc to_errhandler(MPI_Errhandler handle, ErrhandlerRef* out);
// Registers a new communicator and returns its handle.
MPI_Comm new_comm_handle(const CommRef& comm);
// MPI_Comm/Win/Session_get_errhandler: a new reference to the handler (the caller frees it); the same
// handle value each time (runtime/binding/errhandler.cpp).
MPI_Errhandler errhandler_reference(const ErrhandlerRef& errhandler);
// MPI_Comm/Win/Session_create_errhandler: registers `handler` (its function already set) as a user handler.
Rc publish_user_errhandler(const void* fn, ErrhandlerRef handler, MPI_Errhandler* errhandler);
// The end of MPI_Init in a spawned job: builds the parent intercommunicator (runtime/binding/spawn.cpp).
Rc connect_to_parents();
// The runtime's life (env.cpp): the first MPI_Session_init may start it; MPI_Finalize, or the last
// MPI_Session_finalize after it, ends it (returns the MPI error code).
Rc start_runtime_for_session(int required);
int stop_runtime();
// MPI_T (mpi_t.cpp): the runtime is about to end; its counts are kept for the performance variables.
void mpi_t_runtime_ending(Runtime& rt);
MPI_Request new_request_handle(RequestRef request);  // pass by std::move where the caller is done with it
MPI_Datatype new_datatype_handle(const DatatypeRef& type);
MPI_Group new_group_handle(const GroupRef& group);

// ---- argument checks by parameter kind (the failures, with their reasons, out of line)
Rc bad_count(int count);
Rc bad_buffer(int count);
Rc bad_rank(const Comm& comm, int rank);
Rc bad_tag(int tag);
inline Rc check_count(int count) { return count >= 0 ? Rc() : bad_count(count); }
[[gnu::always_inline]] inline Rc check_buffer(const void* buf, int count, const Datatype& type) {
  if (buf == nullptr && count > 0 && type.size() > 0 && type.true_lb() == 0) return bad_buffer(count);
  return Rc();
}
// A destination rank: 0..size-1 (of the remote group on an intercommunicator) or MPI_PROC_NULL.
[[gnu::always_inline]] inline Rc check_dest_rank(const Comm& comm, int rank) {
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < comm.peer_size())) return Rc();
  return bad_rank(comm, rank);
}
// A source rank: also MPI_ANY_SOURCE.
inline Rc check_source_rank(const Comm& comm, int rank) {
  return rank == MPI_ANY_SOURCE ? Rc() : check_dest_rank(comm, rank);
}
// A collective's root: a rank; on an intercommunicator also MPI_ROOT or MPI_PROC_NULL (the root's group).
Rc check_root(const Comm& comm, int root);
// Calls defined on one kind of communicator only (MPI_ERR_COMM otherwise).
Rc not_intra(const Comm& comm);
Rc not_inter(const Comm& comm);
inline Rc check_intra(const Comm& comm) { return comm.is_inter() ? not_intra(comm) : Rc(); }
inline Rc check_inter(const Comm& comm) { return comm.is_inter() ? Rc() : not_inter(comm); }
// A send tag: 0..MPI_TAG_UB. A receive tag also allows MPI_ANY_TAG.
inline Rc check_send_tag(int tag) { return tag >= 0 ? Rc() : bad_tag(tag); }
inline Rc check_recv_tag(int tag) { return tag == MPI_ANY_TAG ? Rc() : check_send_tag(tag); }
Rc check_out_ptr(const void* ptr, const char* what);
// MPI_X_get_name: the object's name into `out` (at most MPI_MAX_OBJECT_NAME - 1 characters and a NUL).
Rc copy_object_name(const std::string& name, char* out, int* resultlen, const char* what);

// The largest tag fabmpi accepts (the MPI_TAG_UB attribute).
constexpr int kTagUpperBound = 0x7fffffff;

// Name of an error class as the standard spells it ("MPI_ERR_RANK").
const char* error_class_name(int error_class);

}  // namespace fabmpi::binding
