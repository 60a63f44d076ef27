// Error handlers, error classes/codes/strings.
#include <cstdio>
#include <cstring>

#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

const char* predefined_error_text(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "no error";
    case MPI_ERR_BUFFER: return "invalid buffer pointer";
    case MPI_ERR_COUNT: return "invalid count argument";
    case MPI_ERR_TYPE: return "invalid datatype";
    case MPI_ERR_TAG: return "invalid tag";
    case MPI_ERR_COMM: return "invalid communicator";
    case MPI_ERR_RANK: return "invalid rank";
    case MPI_ERR_ROOT: return "invalid root";
    case MPI_ERR_GROUP: return "invalid group";
    case MPI_ERR_OP: return "invalid reduction operation";
    case MPI_ERR_TOPOLOGY: return "invalid topology";
    case MPI_ERR_DIMS: return "invalid dimension argument";
    case MPI_ERR_ARG: return "invalid argument";
    case MPI_ERR_UNKNOWN: return "unknown error";
    case MPI_ERR_TRUNCATE: return "message truncated on receive";
    case MPI_ERR_OTHER: return "other error";
    case MPI_ERR_INTERN: return "internal error";
    case MPI_ERR_IN_STATUS: return "error code is in status";
    case MPI_ERR_PENDING: return "pending request";
    case MPI_ERR_REQUEST: return "invalid request";
    case MPI_ERR_INFO: return "invalid info object";
    case MPI_ERR_INFO_KEY: return "invalid info key";
    case MPI_ERR_INFO_VALUE: return "invalid info value";
    case MPI_ERR_INFO_NOKEY: return "info key not defined";
    case MPI_ERR_NAME: return "invalid service name";
    case MPI_ERR_NO_MEM: return "out of memory";
    case MPI_ERR_KEYVAL: return "invalid attribute keyval";
    case MPI_ERR_SIZE: return "invalid size";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "unsupported operation";
    case MPI_ERR_PROC_ABORTED: return "peer process aborted";
    case MPI_ERR_VALUE_TOO_LARGE: return "value too large to store";
    // Classes of the parts fabmpi does not implement (I/O, RMA, dynamic processes) still have their
    // strings: MPI_Error_string must describe every predefined class.
    case MPI_ERR_ACCESS: return "permission denied";
    case MPI_ERR_AMODE: return "invalid file access mode";
    case MPI_ERR_BAD_FILE: return "invalid file name";
    case MPI_ERR_CONVERSION: return "data conversion error";
    case MPI_ERR_DUP_DATAREP: return "data representation already defined";
    case MPI_ERR_FILE_EXISTS: return "file exists";
    case MPI_ERR_FILE_IN_USE: return "file in use";
    case MPI_ERR_FILE: return "invalid file handle";
    case MPI_ERR_IO: return "I/O error";
    case MPI_ERR_NOT_SAME: return "collective arguments differ between processes";
    case MPI_ERR_NO_SPACE: return "no space left";
    case MPI_ERR_NO_SUCH_FILE: return "no such file";
    case MPI_ERR_PORT: return "invalid port name";
    case MPI_ERR_QUOTA: return "quota exceeded";
    case MPI_ERR_READ_ONLY: return "read-only file or file system";
    case MPI_ERR_SERVICE: return "invalid service name for unpublish";
    case MPI_ERR_SPAWN: return "spawn error";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "unsupported data representation";
    case MPI_ERR_WIN: return "invalid window";
    case MPI_ERR_BASE: return "invalid base address";
    case MPI_ERR_LOCKTYPE: return "invalid lock type";
    case MPI_ERR_RMA_CONFLICT: return "conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "wrong synchronization of RMA calls";
    case MPI_ERR_DISP: return "invalid displacement";
    case MPI_ERR_ASSERT: return "invalid assert argument";
    case MPI_ERR_RMA_RANGE: return "target memory is outside the window";
    case MPI_ERR_RMA_ATTACH: return "memory cannot be attached";
    case MPI_ERR_RMA_SHARED: return "memory cannot be shared";
    case MPI_ERR_RMA_FLAVOR: return "wrong window flavor";
    case MPI_ERR_SESSION: return "invalid session";
    // The tool information interface's classes (MPI_T functions return them; runtime/binding/mpi_t.cpp).
    case MPI_T_ERR_MEMORY: return "MPI_T: out of memory";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T: the tool interface is not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T: the tool interface cannot be initialized now";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T: invalid variable or category index";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T: invalid enumeration item index";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T: invalid handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T: no more handles available";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T: no more performance variable sessions available";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T: invalid performance variable session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T: the control variable cannot be set";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T: the performance variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T: the performance variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T: the performance variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T: no variable or category of that name";
    case MPI_T_ERR_INVALID: return "MPI_T: invalid use of the tool interface";
    default: return nullptr;
  }
}

}  // namespace

namespace fabmpi::binding {

Rc publish_user_errhandler(const void* fn, ErrhandlerRef handler, MPI_Errhandler* errhandler) {
  if (fn == nullptr) return fail(MPI_ERR_ARG, "NULL error handler function");
  FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
  handler->kind = Errhandler::Kind::user;
  handler->handle = library().errhandlers.insert(handler);
  *errhandler = handler->handle;
  return Rc();
}

MPI_Errhandler errhandler_reference(const ErrhandlerRef& eh) {
  if (eh->kind != Errhandler::Kind::user) return eh->handle;  // predefined: never freed
  Library& lib = library();
  // A handler the user freed while it stayed attached gets a fresh handle; else one more reference.
  if (!lib.errhandlers.find(eh->handle)) eh->handle = lib.errhandlers.insert(eh);
  else ++lib.errhandler_extra_refs[eh->handle];
  return eh->handle;
}

}  // namespace fabmpi::binding

extern "C" {

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Comm_create_errhandler");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    auto eh = std::make_shared<Errhandler>();
    eh->comm_fn = fn;
    return publish_user_errhandler(reinterpret_cast<const void*>(fn), std::move(eh), errhandler);
  }());
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  ApiCall call("MPI_Comm_set_errhandler");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    ErrhandlerRef eh;
    FABMPI_TRY(to_errhandler(errhandler, &eh));
    c->errhandler = eh;
    return Rc();
  }());
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Comm_get_errhandler");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
    *errhandler = errhandler_reference(c->errhandler);
    return Rc();
  }());
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  ApiCall call("MPI_Comm_call_errhandler");
  CommRef c;
  Rc rc = call.comm(comm, &c);
  if (!rc.ok()) return call.finish(rc);
  (void)fail(errorcode, "error code %d raised with MPI_Comm_call_errhandler", errorcode);
  int result = call.finish(Rc(errorcode));
  // The standard: returns MPI_SUCCESS when the handler returned (errorcode tells the handler's story).
  return result == errorcode ? MPI_SUCCESS : result;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Errhandler_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
    ErrhandlerRef eh;
    FABMPI_TRY(to_errhandler(*errhandler, &eh));
    Library& lib = library();
    if (auto extra = lib.errhandler_extra_refs.find(*errhandler); extra != lib.errhandler_extra_refs.end()) {
      if (--extra->second == 0) lib.errhandler_extra_refs.erase(extra);  // other references remain
    } else {
      lib.errhandlers.erase(*errhandler);  // predefined handlers are not erased
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  ApiCall call("MPI_Error_string");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(string, "string"));
    FABMPI_TRY(check_out_ptr(resultlen, "resultlen"));
    std::string text;
    if (const char* t = predefined_error_text(errorcode)) {
      text = std::string(error_class_name(errorcode)) + ": " + t;
    } else if (library().state == LibraryState::initialized &&
               runtime().errors().class_of(errorcode) >= 0) {
      const std::string* user = runtime().errors().string_of(errorcode);
      if (user)
        text = *user;
      else if (errorcode <= ErrorRegistry::MPI_ERR_LASTCODE_PREDEFINED)  // a number MPICH reserves
        text = "error class " + std::to_string(errorcode);
    } else {
      return fail(MPI_ERR_ARG, "unknown error code %d", errorcode);
    }
    std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1);
    std::memcpy(string, text.data(), n);
    string[n] = '\0';
    *resultlen = static_cast<int>(n);
    return Rc();
  }());
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int* errorclass) {
  ApiCall call("MPI_Error_class");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(errorclass, "errorclass"));
    int cls = errorcode >= 0 && errorcode <= ErrorRegistry::MPI_ERR_LASTCODE_PREDEFINED ? errorcode : -1;
    if (cls < 0 && library().state == LibraryState::initialized) cls = runtime().errors().class_of(errorcode);
    if (cls < 0) return fail(MPI_ERR_ARG, "unknown error code %d", errorcode);
    *errorclass = cls;
    return Rc();
  }());
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int* errorclass) {
  ApiCall call("MPI_Add_error_class");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(errorclass, "errorclass"));
    *errorclass = runtime().errors().add_class();
    return Rc();
  }());
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int* errorcode) {
  ApiCall call("MPI_Add_error_code");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(errorcode, "errorcode"));
    return runtime().errors().add_code(errorclass, errorcode);
  }());
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char* string) {
  ApiCall call("MPI_Add_error_string");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(string, "string"));
    return runtime().errors().set_string(errorcode, string);
  }());
}

}  // extern "C"
