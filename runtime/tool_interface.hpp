// The MPI tool information interface, MPI_T (MPI-3.1 14.3): the registry of control variables,
// performance variables and categories, and the cvar handles, pvar sessions and pvar handles tools
// allocate. The C binding (runtime/binding/mpi_t.cpp) checks arguments, converts handles and holds
// the one instance; everything here works with or without a running Runtime (MPI_T is usable before
// MPI_Init and after MPI_Finalize), which is passed to each call that reads a value.
//
// Control variables: one per FABMPI_* tunable (common/tunables.def), named by its environment variable,
// described by its help text, in the category of its subsystem. Values: Bool -> MPI_INT (enum "bool"),
// Int -> MPI_COUNT (signed 64 bits: FABMPI_HANG_DEADLINE holds Unix milliseconds), Size -> MPI_UNSIGNED_LONG_LONG,
// String -> MPI_CHAR (count: length + 1 when the handle is made). The value is the one in effect: the
// running runtime's parsed tunables, else what MPI_Init would read from the environment now. Tunables
// are read once at startup, so they are MPI_T_SCOPE_READONLY and writing them fails with
// MPI_T_ERR_CVAR_SET_NEVER; the exception is FABMPI_LOG, the log level, which the logger reads on every
// message: it is writable while the runtime runs (MPI_T_SCOPE_LOCAL).
//
// Performance variables (category "pt2pt", MPI_T_BIND_NO_OBJECT, MPI_UNSIGNED_LONG_LONG), read from
// the point-to-point engine (pt2pt::Engine::stats): the application's entries in the posted-receive and
// unexpected queues (MPI_T_PVAR_CLASS_LEVEL, readonly, continuous), and counts of eager and rendezvous
// sends (all traffic) and of unexpected user arrivals (MPI_T_PVAR_CLASS_COUNTER, started, stopped,
// reset and written per handle by remembering the engine's count at start/reset; counts of a finished
// runtime are carried over, except MPI_Finalize's own messages). Without a runtime the levels read 0 and
// the counters do not move.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/tunables.hpp"
#include "runtime/rc.hpp"

namespace fabmpi {

class Runtime;

namespace tool {

// An enumeration a variable's values come from (MPI_T_enum).
struct EnumType {
  std::string name;
  std::vector<std::pair<int, std::string>> items;  // (value, name)
};

struct CvarInfo {
  std::string name;
  std::string desc;
  int verbosity = MPI_T_VERBOSITY_USER_BASIC;
  MPI_Datatype datatype = MPI_INT;
  const EnumType* enumtype = nullptr;  // MPI_T_ENUM_NULL
  int scope = MPI_T_SCOPE_READONLY;
  int category = 0;
  std::size_t tunable = 0;  // index in tunable_specs()
};

// Where a performance variable's value comes from.
enum class PvarSource { posted_receives, unexpected_messages, eager_sent, rendezvous_sent, unexpected_arrivals, mapped_reads,
                        assisted_bytes };

struct PvarInfo {
  std::string name;
  std::string desc;
  int verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
  int var_class = MPI_T_PVAR_CLASS_LEVEL;
  MPI_Datatype datatype = MPI_UNSIGNED_LONG_LONG;
  bool readonly = true;
  bool continuous = true;
  bool atomic = false;
  int category = 0;
  PvarSource source = PvarSource::posted_receives;
};

struct CategoryInfo {
  std::string name;
  std::string desc;
  std::vector<int> cvars;
  std::vector<int> pvars;
  std::vector<int> categories;  // subcategories (none so far)
};

struct CvarHandle {
  int index = 0;
  int count = 1;  // elements of the variable's datatype (MPI_CHAR: buffer bytes)
};

class PvarSession;

struct PvarHandle {
  int index = 0;
  PvarSession* session = nullptr;
  bool running = false;
  std::uint64_t accumulated = 0;  // counters: the value when last stopped, reset or written
  std::uint64_t started_at = 0;   // counters: the raw count when last started, reset or written
};

class PvarSession {
 public:
  std::vector<std::unique_ptr<PvarHandle>> handles;
};

class ToolInterface {
 public:
  ToolInterface();

  // Reference-counted initialization (MPI_T_init_thread / MPI_T_finalize). The last finalize frees every
  // handle and session.
  void init() noexcept { ++init_count_; }
  Rc finalize();
  bool initialized() const noexcept { return init_count_ > 0; }

  const std::vector<CvarInfo>& cvars() const noexcept { return cvars_; }
  const std::vector<PvarInfo>& pvars() const noexcept { return pvars_; }
  const std::vector<CategoryInfo>& categories() const noexcept { return categories_; }
  // Index by name (-1: none). A pvar's name and class together name it.
  int cvar_index(const std::string& name) const noexcept;
  int pvar_index(const std::string& name, int var_class) const noexcept;
  int category_index(const std::string& name) const noexcept;
  // True for the enumerations this registry hands out.
  bool is_enum(const EnumType* e) const noexcept { return e == &bool_enum_; }

  // Control variables. `rt`: the running runtime, or null.
  Rc cvar_handle_alloc(int index, Runtime* rt, CvarHandle** out, int* count);
  CvarHandle* find_cvar_handle(const void* handle) const noexcept;
  void cvar_handle_free(CvarHandle* handle) noexcept;
  Rc cvar_read(const CvarHandle& handle, Runtime* rt, void* buf) const;
  Rc cvar_write(const CvarHandle& handle, Runtime* rt, const void* buf);

  // Performance variable sessions and handles.
  PvarSession* session_create();
  PvarSession* find_session(const void* session) const noexcept;
  void session_free(PvarSession* session) noexcept;
  Rc pvar_handle_alloc(PvarSession& session, int index, Runtime* rt, PvarHandle** out, int* count);
  // The handle of `session` behind `handle` (null if it is not one of its handles).
  PvarHandle* find_pvar_handle(const PvarSession& session, const void* handle) const noexcept;
  void pvar_handle_free(PvarSession& session, PvarHandle* handle) noexcept;
  // `handle` null: every handle of the session (MPI_T_PVAR_ALL_HANDLES); those that cannot are skipped.
  Rc pvar_start(PvarSession& session, PvarHandle* handle, Runtime* rt);
  Rc pvar_stop(PvarSession& session, PvarHandle* handle, Runtime* rt);
  Rc pvar_reset(PvarSession& session, PvarHandle* handle, Runtime* rt);
  Rc pvar_read(const PvarHandle& handle, Runtime* rt, void* buf) const;
  Rc pvar_write(PvarHandle& handle, Runtime* rt, const void* buf);
  Rc pvar_readreset(PvarHandle& handle, Runtime* rt, void* buf);

  // The runtime is about to end (MPI_Finalize): its engine's counts are kept, so counters stay monotonic.
  void runtime_ending(Runtime& rt) noexcept;

 private:
  std::uint64_t raw(PvarSource source, Runtime* rt) const noexcept;
  std::uint64_t value(const PvarHandle& handle, Runtime* rt) const noexcept;
  Rc start_one(PvarHandle& handle, Runtime* rt);
  Rc stop_one(PvarHandle& handle, Runtime* rt);
  Rc reset_one(PvarHandle& handle, Runtime* rt);

  int init_count_ = 0;
  EnumType bool_enum_;
  std::vector<CvarInfo> cvars_;
  std::vector<PvarInfo> pvars_;
  std::vector<CategoryInfo> categories_;
  std::vector<std::unique_ptr<CvarHandle>> cvar_handles_;
  std::vector<std::unique_ptr<PvarSession>> sessions_;
  // Counts of runtimes that ended, per PvarSource (index by its value).
  std::uint64_t carried_[7] = {};
};

}  // namespace tool
}  // namespace fabmpi
