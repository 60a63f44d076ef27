// The call guard, error-handler dispatch, handle conversion and argument checks shared by all bindings.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cstdint>

#include "runtime/binding/library.hpp"
#include "rma/window.hpp"

namespace fabmpi::binding {

void ApiCall::lock() {
  library().runtime->api_lock().lock();
  locked_ = true;
}

void ApiCall::unlock() {
  library().runtime->api_lock().unlock();
  locked_ = false;
}

Rc ApiCall::not_initialized() const {
  if (library().state == LibraryState::finalized) return fail(MPI_ERR_OTHER, "called after MPI_Finalize");
  return fail(MPI_ERR_OTHER, "called before MPI_Init or MPI_Init_thread");
}

Rc ApiCall::find_comm(MPI_Comm handle, const CommRef** found) const {
  FABMPI_TRY(require_initialized());
  if (handle == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "MPI_COMM_NULL is not a valid communicator");
  // MPI_COMM_WORLD is the runtime's world (env.cpp registers it so): no table lookup.
  *found = handle == MPI_COMM_WORLD ? &library().runtime->world() : library().comms.find(handle);
  if (!*found) return fail(MPI_ERR_COMM, "invalid communicator handle 0x%x", static_cast<unsigned>(handle));
  return Rc();
}

Rc ApiCall::comm(MPI_Comm handle, CommRef* out) {
  const CommRef* found = nullptr;
  FABMPI_TRY(find_comm(handle, &found));
  *out = *found;
  // A communicator in the table may be freed before finish() (MPI_Comm_free is such a call); the world
  // outlives every call.
  if (handle != MPI_COMM_WORLD) error_comm_owner_ = *found;
  error_comm_ = found->get();
  return Rc();
}

Rc ApiCall::borrow_table_comm(MPI_Comm handle, const CommRef** out) {
  const CommRef* found = nullptr;
  FABMPI_TRY(find_comm(handle, &found));
  error_comm_ = found->get();
  if (handle != MPI_COMM_WORLD && library().runtime->needs_api_lock()) {
    error_comm_owner_ = *found;
    found = &error_comm_owner_;
  }
  *out = found;
  return Rc();
}

namespace {

[[noreturn]] void abort_job(int rank, const char* function, int code, const std::string& reason) {
  const int cls = library().state == LibraryState::initialized ? runtime().errors().class_of(code) : code;
  char line[1024];
  std::snprintf(line, sizeof line, "fabmpi: rank %d: %s: %s [%s]\n", rank, function,
                reason.empty() ? "error" : reason.c_str(), error_class_name(cls < 0 ? MPI_ERR_UNKNOWN : cls));
  ssize_t n = ::write(STDERR_FILENO, line, std::strlen(line));
  (void)n;
  const int exit_code = (cls > 0 && cls < 256) ? cls : 1;
  if (library().state == LibraryState::initialized) runtime().bootstrap().abort(exit_code, line);
  std::_Exit(exit_code);
}

// The rank for the fatal-error line of a call that failed before MPI_Init completed (MPI_Init itself,
// or a call made before it): what the launcher told us (PMI_RANK; RANK under torchrun), else 0 (a
// singleton).
int rank_before_init() {
  for (const char* name : {"PMI_RANK", "RANK"}) {
    const char* value = env_lookup(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < (1L << 30)) return static_cast<int>(rank);
  }
  return 0;
}

}  // namespace

int ApiCall::dispatch_failure(int code) {
  Library& lib = library();
  if (lib.state != LibraryState::initialized) abort_job(rank_before_init(), name_, code, last_failure_reason());
  const Comm* target = error_comm_ ? error_comm_ : lib.runtime->world().get();
  const ErrhandlerRef handler = file_call_      ? (error_file_ ? error_file_->errhandler : lib.file_default_errhandler)
                                : error_session_ ? error_session_->errhandler
                                : error_win_     ? error_win_->errhandler
                                                 : target->errhandler;
  const std::string reason = last_failure_reason();
  clear_failure_reason();
  switch (handler->kind) {
    case Errhandler::Kind::errors_return: return code;
    case Errhandler::Kind::user: {
      // The user's handler may call MPI: let it in.
      if (locked_) unlock();
      if (file_call_ && handler->file_fn) {
        MPI_File f = error_file_ ? reinterpret_cast<MPI_File>(static_cast<std::uintptr_t>(static_cast<unsigned>(error_file_->handle)))
                                 : MPI_FILE_NULL;
        handler->file_fn(&f, &code);
      } else if (error_session_ && handler->session_fn) {
        MPI_Session session = error_session_->handle;
        handler->session_fn(&session, &code);
      } else if (error_win_ && handler->win_fn) {
        MPI_Win w = error_win_->handle;
        handler->win_fn(&w, &code);
      } else if (handler->comm_fn) {
        MPI_Comm h = target->handle;
        handler->comm_fn(&h, &code);
      }
      return code;
    }
    case Errhandler::Kind::are_fatal:
    case Errhandler::Kind::errors_abort:
      abort_job(lib.runtime->world()->rank(), name_, code, reason);
  }
  return code;
}

Rc to_derived_datatype(MPI_Datatype handle, DatatypeRef* out, bool require_committed) {
  if (handle == MPI_DATATYPE_NULL) return fail(MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a valid datatype");
  if (DatatypeRef builtin = builtin_datatype(handle)) {
    *out = std::move(builtin);
    return Rc();
  }
  const DatatypeRef* found = library().datatypes.find(handle);
  if (!found) return fail(MPI_ERR_TYPE, "invalid datatype handle 0x%x", static_cast<unsigned>(handle));
  if (require_committed && !(*found)->committed())
    return fail(MPI_ERR_TYPE, "datatype %s is not committed (call MPI_Type_commit first)",
                (*found)->name.empty() ? "(unnamed)" : (*found)->name.c_str());
  *out = *found;
  return Rc();
}

Rc to_op(MPI_Op handle, OpRef* out) {
  if (handle == MPI_OP_NULL) return fail(MPI_ERR_OP, "MPI_OP_NULL is not a valid operation");
  if (OpRef builtin = builtin_op(handle)) {
    *out = std::move(builtin);
    return Rc();
  }
  const OpRef* found = library().ops.find(handle);
  if (!found) return fail(MPI_ERR_OP, "invalid operation handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  return Rc();
}

Rc to_group(MPI_Group handle, GroupRef* out) {
  if (handle == MPI_GROUP_NULL) return fail(MPI_ERR_GROUP, "MPI_GROUP_NULL is not a valid group");
  const GroupRef* found = library().groups.find(handle);
  if (!found) return fail(MPI_ERR_GROUP, "invalid group handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  return Rc();
}

Rc to_info(MPI_Info handle, InfoRef* out) {
  if (handle == MPI_INFO_NULL) return fail(MPI_ERR_INFO, "MPI_INFO_NULL is not a valid info object");
  const InfoRef* found = library().infos.find(handle);
  if (!found) return fail(MPI_ERR_INFO, "invalid info handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  return Rc();
}

Rc optional_info(MPI_Info handle, InfoRef* out) {
  if (handle == MPI_INFO_NULL) return Rc();
  InfoRef found;
  FABMPI_TRY(to_info(handle, &found));
  if (out) *out = std::move(found);
  return Rc();
}

Rc to_errhandler(MPI_Errhandler handle, ErrhandlerRef* out) {
  if (handle == MPI_ERRHANDLER_NULL) return fail(MPI_ERR_ARG, "MPI_ERRHANDLER_NULL is not a valid error handler");
  const ErrhandlerRef* found = library().errhandlers.find(handle);
  if (!found) return fail(MPI_ERR_ARG, "invalid error handler handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  return Rc();
}

MPI_Comm new_comm_handle(const CommRef& comm) {
  comm->handle = library().comms.insert(comm);
  return comm->handle;
}

MPI_Request new_request_handle(RequestRef request) {
  Request& r = *request;
  r.handle = library().requests.insert(std::move(request));
  return r.handle;
}

MPI_Datatype new_datatype_handle(const DatatypeRef& type) {
  int h = library().datatypes.insert(type);
  const_cast<Datatype&>(*type).handle = h;
  return h;
}

MPI_Group new_group_handle(const GroupRef& group) { return library().groups.insert(group); }

Rc bad_count(int count) { return fail(MPI_ERR_COUNT, "negative count %d", count); }

Rc bad_buffer(int count) { return fail(MPI_ERR_BUFFER, "NULL buffer with count %d", count); }

Rc bad_rank(const Comm& comm, int rank) {
  if (comm.is_inter())
    return fail(MPI_ERR_RANK, "invalid rank %d (the remote group of intercommunicator %s has %d ranks)", rank,
                comm.name.empty() ? "(unnamed)" : comm.name.c_str(), comm.peer_size());
  return fail(MPI_ERR_RANK, "invalid rank %d (communicator %s has %d ranks)", rank,
              comm.name.empty() ? "(unnamed)" : comm.name.c_str(), comm.size());
}

Rc check_root(const Comm& comm, int root) {
  if (comm.is_inter()) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm.peer_size())) return Rc();
    return fail(MPI_ERR_ROOT,
                "invalid root %d (on intercommunicator %s: MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                "group, which has %d)",
                root, comm.name.empty() ? "(unnamed)" : comm.name.c_str(), comm.peer_size());
  }
  if (root < 0 || root >= comm.size())
    return fail(MPI_ERR_ROOT, "invalid root %d (communicator %s has %d ranks)", root,
                comm.name.empty() ? "(unnamed)" : comm.name.c_str(), comm.size());
  return Rc();
}

Rc not_intra(const Comm& comm) {
  return fail(MPI_ERR_COMM, "%s is an intercommunicator; this call needs an intracommunicator",
              comm.name.empty() ? "the communicator" : comm.name.c_str());
}

Rc not_inter(const Comm& comm) {
  return fail(MPI_ERR_COMM, "%s is not an intercommunicator",
              comm.name.empty() ? "the communicator" : comm.name.c_str());
}

Rc bad_tag(int tag) { return fail(MPI_ERR_TAG, "invalid tag %d (tags are 0..MPI_TAG_UB)", tag); }

Rc copy_object_name(const std::string& name, char* out, int* resultlen, const char* what) {
  FABMPI_TRY(check_out_ptr(out, what));
  FABMPI_TRY(check_out_ptr(resultlen, "resultlen"));
  const std::size_t n = std::min<std::size_t>(name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(out, name.data(), n);
  out[n] = '\0';
  *resultlen = static_cast<int>(n);
  return Rc();
}

Rc check_out_ptr(const void* ptr, const char* what) {
  if (ptr == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for %s", what);
  return Rc();
}

const char* error_class_name(int error_class) {
  static const char* const names[] = {
      "MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG", "MPI_ERR_COMM",
      "MPI_ERR_RANK", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS",
      "MPI_ERR_ARG", "MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN",
      "MPI_ERR_IN_STATUS", "MPI_ERR_PENDING", "MPI_ERR_REQUEST", "MPI_ERR_ACCESS", "MPI_ERR_AMODE",
      "MPI_ERR_BAD_FILE", "MPI_ERR_CONVERSION", "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS",
      "MPI_ERR_FILE_IN_USE", "MPI_ERR_FILE", "MPI_ERR_INFO", "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_VALUE",
      "MPI_ERR_INFO_NOKEY", "MPI_ERR_IO", "MPI_ERR_NAME", "MPI_ERR_NO_MEM", "MPI_ERR_NOT_SAME",
      "MPI_ERR_NO_SPACE", "MPI_ERR_NO_SUCH_FILE", "MPI_ERR_PORT", "MPI_ERR_QUOTA", "MPI_ERR_READ_ONLY",
      "MPI_ERR_SERVICE", "MPI_ERR_SPAWN", "MPI_ERR_UNSUPPORTED_DATAREP", "MPI_ERR_UNSUPPORTED_OPERATION",
      "MPI_ERR_WIN", "MPI_ERR_BASE", "MPI_ERR_LOCKTYPE", "MPI_ERR_KEYVAL", "MPI_ERR_RMA_CONFLICT",
      "MPI_ERR_RMA_SYNC", "MPI_ERR_SIZE", "MPI_ERR_DISP", "MPI_ERR_ASSERT", "MPI_ERR_UNKNOWN",
      "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_SHARED", "MPI_ERR_RMA_FLAVOR"};
  if (error_class >= 0 && error_class < static_cast<int>(sizeof names / sizeof names[0]))
    return names[error_class];
  switch (error_class) {
    case MPI_ERR_SESSION: return "MPI_ERR_SESSION";
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T_ERR_PVAR_NO_STARTSTOP";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID";
    case MPI_ERR_PROC_ABORTED: return "MPI_ERR_PROC_ABORTED";
    case MPI_ERR_VALUE_TOO_LARGE: return "MPI_ERR_VALUE_TOO_LARGE";
    default: return "user-defined error class";
  }
}

}  // namespace fabmpi::binding
