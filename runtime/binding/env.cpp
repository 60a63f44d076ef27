// The environment part of MPI: initialization, finalization, abort, versions, clocks.
#include <time.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/binding/attributes.hpp"
#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

// Creates the runtime (MPI_Init, MPI_Init_thread, MPIX_Init_with_store, or the first MPI_Session_init).
Rc start_runtime(int required, std::unique_ptr<Bootstrap> bootstrap) {
  Library& lib = library();
  if (lib.state == LibraryState::finalized) return fail(MPI_ERR_OTHER, "MPI cannot be initialized again after MPI_Finalize");
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return fail(MPI_ERR_ARG, "invalid thread level %d", required);
  Runtime::Options options;
  options.required_thread_level = required;
  options.bootstrap = std::move(bootstrap);
  std::unique_ptr<Runtime> rt;
  FABMPI_TRY(Runtime::create(std::move(options), &rt));
  lib.runtime = std::move(rt);
  Runtime& r = *lib.runtime;
  r.set_current_call_source(&lib.current_call);
  lib.comms.add_predefined(MPI_COMM_WORLD, r.world());
  lib.comms.add_predefined(MPI_COMM_SELF, r.self());
  r.world()->handle = MPI_COMM_WORLD;
  r.self()->handle = MPI_COMM_SELF;
  lib.errhandlers.add_predefined(MPI_ERRORS_ARE_FATAL, predefined_errhandler(Errhandler::Kind::are_fatal));
  lib.errhandlers.add_predefined(MPI_ERRORS_RETURN, predefined_errhandler(Errhandler::Kind::errors_return));
  lib.errhandlers.add_predefined(MPI_ERRORS_ABORT, predefined_errhandler(Errhandler::Kind::errors_abort));
  lib.groups.add_predefined(MPI_GROUP_EMPTY, std::make_shared<const Group>());
  lib.state = LibraryState::initialized;
  // MPI_INFO_ENV: the command line from /proc (MPI_Init's argc/argv may be NULL).
  std::vector<std::string> args;
  if (std::FILE* cmdline = std::fopen("/proc/self/cmdline", "rb")) {
    std::string arg;
    for (int c; (c = std::fgetc(cmdline)) != EOF;) {
      if (c == '\0') {
        args.push_back(arg);
        arg.clear();
      } else {
        arg += static_cast<char>(c);
      }
    }
    std::fclose(cmdline);
  }
  auto env = environment_info(args);
  env->handle = MPI_INFO_ENV;
  lib.infos.add_predefined(MPI_INFO_ENV, std::move(env));
  return connect_to_parents();  // a spawned job's intercommunicator to its parents
}

// MPI_Init and friends: the world model. The runtime may exist already (a session started it).
Rc initialize(int required, int* provided, std::unique_ptr<Bootstrap> bootstrap = nullptr) {
  Library& lib = library();
  if (lib.world_initialized) {
    return fail(MPI_ERR_OTHER, lib.world_finalized ? "MPI cannot be initialized again after MPI_Finalize"
                                                   : "MPI is already initialized");
  }
  if (lib.state != LibraryState::initialized) FABMPI_TRY(start_runtime(required, std::move(bootstrap)));
  else if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return fail(MPI_ERR_ARG, "invalid thread level %d", required);
  lib.world_initialized = true;
  if (provided) *provided = lib.runtime->thread_level();
  return Rc();
}

}  // namespace

namespace fabmpi::binding {

int stop_runtime() {
  Library& lib = library();
  {
    ApiCall call("MPI_Finalize");
    mpi_t_runtime_ending(*lib.runtime);  // before the engine goes (MPI_Finalize's own messages uncounted)
    Rc rc = lib.runtime->finalize();
    if (!rc.ok()) return call.finish(rc);
  }
  if (lib.trace) {  // after MPI_Finalize's own event
    const int rank = lib.runtime->world()->rank(), size = lib.runtime->world_size();
    std::string why;
    if (!lib.trace->write(rank, size, &why))
      std::fprintf(stderr, "fabmpi: rank %d: MPI_Finalize: could not write the FABMPI_TRACE timeline: %s\n", rank,
                   why.c_str());
  }
  lib.requests.clear();
  lib.comms.clear();
  lib.groups.clear();
  lib.datatypes.clear();
  lib.ops.clear();
  // Info objects outlive MPI_Finalize: MPI-4.0 lets the MPI_Info functions run before initialization
  // and after finalization.
  lib.keyvals.clear();
  lib.errhandlers.clear();
  lib.sessions.clear();
  lib.files.clear();
  lib.errhandler_extra_refs.clear();
  lib.f90_types.clear();
  lib.state = LibraryState::finalized;
  lib.runtime.reset();
  return MPI_SUCCESS;
}

Rc start_runtime_for_session(int required) { return start_runtime(required, nullptr); }

}  // namespace fabmpi::binding

namespace {

double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

extern "C" {

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int* argc, char*** argv) {
  ApiCall call("MPI_Init");
  return call.finish(initialize(MPI_THREAD_SINGLE, nullptr));
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  ApiCall call("MPI_Init_thread");
  return call.finish(initialize(required, provided));
}

#pragma weak MPIX_Init_with_store = PMPIX_Init_with_store
int PMPIX_Init_with_store(int* argc, char*** argv, int required, int* provided,
                          const MPIX_Store_bootstrap* bootstrap) {
  ApiCall call("MPIX_Init_with_store");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(bootstrap, "bootstrap"));
    if (library().state != LibraryState::not_initialized)
      return fail(MPI_ERR_OTHER, "MPI is already initialized (or finalized)");
    std::unique_ptr<Bootstrap> store;
    FABMPI_TRY(make_store_bootstrap(*bootstrap, &store));
    return initialize(required, provided, std::move(store));
  }());
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void) {
  Library& lib = library();
  {
    ApiCall call("MPI_Finalize");
    Rc rc = call.require_initialized();
    if (rc.ok() && (!lib.world_initialized || lib.world_finalized))
      rc = fail(MPI_ERR_OTHER, lib.world_finalized ? "MPI_Finalize was already called" : "MPI_Init was not called");
    if (!rc.ok()) return call.finish(rc);
    // First the equivalent of MPI_Comm_free on MPI_COMM_SELF: its attributes' delete callbacks run,
    // newest first, while MPI is fully usable and MPI_Finalized still says no (MPI-3.1 8.7.1); then
    // MPI_COMM_WORLD's, as MPICH does.
    for (MPI_Comm predefined : {MPI_COMM_SELF, MPI_COMM_WORLD}) {
      CommRef c;
      rc = call.comm(predefined, &c);
      if (rc.ok()) rc = delete_comm_attributes(*c);
      if (!rc.ok()) return call.finish(rc);
    }
    lib.world_finalized = true;
    // Sessions still open keep the runtime until the last one is finalized.
    if (lib.open_sessions > 0) return MPI_SUCCESS;
  }
  return stop_runtime();
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int* flag) {
  ApiCall call("MPI_Initialized");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = library().world_initialized;
    return Rc();
  }());
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int* flag) {
  ApiCall call("MPI_Finalized");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = library().world_finalized;
    return Rc();
  }());
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int* provided) {
  ApiCall call("MPI_Query_thread");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(provided, "provided"));
    *provided = runtime().thread_level();
    return Rc();
  }());
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int* flag) {
  ApiCall call("MPI_Is_thread_main");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = runtime().is_main_thread();
    return Rc();
  }());
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode) {
  ApiCall call("MPI_Abort");
  Library& lib = library();
  if (lib.state != LibraryState::initialized) std::_Exit(errorcode);
  char line[256];
  std::snprintf(line, sizeof line, "fabmpi: rank %d: MPI_Abort called with error code %d\n",
                runtime().world()->rank(), errorcode);
  // Every rank of the job ends, not only those of `comm` (as MPICH and Open MPI do).
  runtime().bootstrap().abort(errorcode, line);
  std::_Exit(errorcode);
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int* version, int* subversion) {
  ApiCall call("MPI_Get_version");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(version, "version"));
    FABMPI_TRY(check_out_ptr(subversion, "subversion"));
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return Rc();
  }());
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char* version, int* resultlen) {
  ApiCall call("MPI_Get_library_version");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(version, "version"));
    FABMPI_TRY(check_out_ptr(resultlen, "resultlen"));
    int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                          "fabmpi %s (MPI %d.%d, MPICH ABI, libfabric transport)", FABMPI_VERSION,
                          MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n;
    return Rc();
  }());
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char* name, int* resultlen) {
  ApiCall call("MPI_Get_processor_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(name, "name"));
    FABMPI_TRY(check_out_ptr(resultlen, "resultlen"));
    const std::string& host = runtime().processor_name();
    std::size_t n = std::min<std::size_t>(host.size(), MPI_MAX_PROCESSOR_NAME - 1);
    std::memcpy(name, host.data(), n);
    name[n] = '\0';
    *resultlen = static_cast<int>(n);
    return Rc();
  }());
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void) { return monotonic_seconds(); }

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // extern "C"
