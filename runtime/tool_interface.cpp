// The MPI_T registry, handles and sessions (see tool_interface.hpp for what the variables are).
#include "runtime/tool_interface.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/log.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::tool {
namespace {

constexpr const char* kLogCvar = "FABMPI_LOG";
// FABMPI_LOG's handles hold any level name.
constexpr int kLogCount = 16;
constexpr const char* kLevelNames[] = {"error", "warn", "info", "debug", "trace"};

const char* category_description(std::string_view subsystem) {
  if (subsystem == "core") return "fabmpi's runtime: logging, hang reports, call timelines, waiting";
  if (subsystem == "pt2pt") return "Point-to-point engine: transports, eager and rendezvous protocols, matching queues";
  if (subsystem == "coll") return "Collectives: algorithm selection and shared-memory collectives";
  if (subsystem == "launcher") return "mpirun: remote launch and addresses (read by mpirun, shown here for reference)";
  if (subsystem == "pmi") return "PMI-1 bootstrap";
  if (subsystem == "torch") return "The torch.distributed backend";
  return "fabmpi tunables";
}

// A tunable's value, as MPI_T hands it out.
struct TunableValue {
  TunableType type = TunableType::Int;
  long long integer = 0;            // Bool (0/1), Int
  unsigned long long size = 0;      // Size
  std::string text;                 // String
};

TunableValue make_value(bool v) { return {TunableType::Bool, v ? 1 : 0, 0, {}}; }
TunableValue make_value(long long v) { return {TunableType::Int, v, 0, {}}; }
TunableValue make_value(std::size_t v) { return {TunableType::Size, 0, v, {}}; }
TunableValue make_value(const std::string& v) { return {TunableType::String, 0, 0, v}; }

// Field `index` (declaration order, as tunable_specs()) of `t`.
TunableValue tunable_value(const Tunables& t, std::size_t index) {
  std::size_t i = 0;
#define FABMPI_TUNABLE(field, env, type, def, subsys, help) \
  if (index == i++) return make_value(t.field);
#include "common/tunables.def"
#undef FABMPI_TUNABLE
  return {};
}

// The value in effect: the running runtime's, else what MPI_Init would read now. FABMPI_LOG reads the
// logger's level while the runtime runs (MPI_T may have changed it).
TunableValue current_value(const CvarInfo& cvar, Runtime* rt) {
  if (rt && cvar.name == kLogCvar) {
    const int level = std::clamp(log::g_level.load(std::memory_order_relaxed), 0, 4);
    return make_value(std::string(kLevelNames[level]));
  }
  if (rt) return tunable_value(rt->tunables(), cvar.tunable);
  return tunable_value(Tunables::from_environment(), cvar.tunable);
}

MPI_Datatype datatype_of(TunableType type) {
  switch (type) {
    case TunableType::Bool: return MPI_INT;
    case TunableType::Int: return MPI_COUNT;  // signed 64 bits, and one of the types MPI-3.1 14.3.5 allows
    case TunableType::Size: return MPI_UNSIGNED_LONG_LONG;
    case TunableType::String: return MPI_CHAR;
  }
  return MPI_INT;
}

int verbosity_of(std::string_view subsystem) {
  // What a user sets (logs, hang reports) against what tunes performance.
  return subsystem == "pt2pt" || subsystem == "coll" ? MPI_T_VERBOSITY_TUNER_BASIC : MPI_T_VERBOSITY_USER_BASIC;
}

bool is_counter(const PvarInfo& p) { return p.var_class == MPI_T_PVAR_CLASS_COUNTER; }

}  // namespace

ToolInterface::ToolInterface() {
  bool_enum_.name = "bool";
  bool_enum_.items = {{0, "false"}, {1, "true"}};

  auto category_for = [this](std::string_view subsystem) {
    for (std::size_t i = 0; i < categories_.size(); ++i)
      if (categories_[i].name == subsystem) return static_cast<int>(i);
    CategoryInfo c;
    c.name = std::string(subsystem);
    c.desc = category_description(subsystem);
    categories_.push_back(std::move(c));
    return static_cast<int>(categories_.size() - 1);
  };

  const auto specs = tunable_specs();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const TunableSpec& spec = specs[i];
    CvarInfo c;
    c.name = spec.env_name;
    c.desc = spec.help;
    c.desc += " (default: ";
    c.desc += *spec.default_value ? spec.default_value : "empty";
    c.desc += ")";
    c.verbosity = verbosity_of(spec.subsystem);
    c.datatype = datatype_of(spec.type);
    c.enumtype = spec.type == TunableType::Bool ? &bool_enum_ : nullptr;
    c.scope = c.name == kLogCvar ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY;
    c.category = category_for(spec.subsystem);
    c.tunable = i;
    categories_[static_cast<std::size_t>(c.category)].cvars.push_back(static_cast<int>(cvars_.size()));
    cvars_.push_back(std::move(c));
  }

  const int pt2pt = category_for("pt2pt");
  auto add_pvar = [&](const char* name, const char* desc, int var_class, PvarSource source) {
    PvarInfo p;
    p.name = name;
    p.desc = desc;
    p.var_class = var_class;
    p.source = source;
    p.category = pt2pt;
    if (var_class == MPI_T_PVAR_CLASS_COUNTER) {
      // Started, stopped, reset and written per handle (readreset under the interface's lock: atomic).
      p.readonly = false;
      p.continuous = false;
      p.atomic = true;
    }
    categories_[static_cast<std::size_t>(pt2pt)].pvars.push_back(static_cast<int>(pvars_.size()));
    pvars_.push_back(std::move(p));
  };
  add_pvar("posted_recvq_length",
           "Receives the application posted and no message matched yet (point-to-point, all communicators; "
           "the library's own collective and internal traffic is not counted)",
           MPI_T_PVAR_CLASS_LEVEL, PvarSource::posted_receives);
  add_pvar("unexpected_recvq_length",
           "Messages arrived and not yet received by the application (point-to-point, all communicators; "
           "the library's own collective and internal traffic is not counted)",
           MPI_T_PVAR_CLASS_LEVEL, PvarSource::unexpected_messages);
  add_pvar("eager_messages_sent",
           "Messages this process sent eagerly (data with the header; up to the transport's eager limit and "
           "while the receiver grants credits), collective and internal traffic included",
           MPI_T_PVAR_CLASS_COUNTER, PvarSource::eager_sent);
  add_pvar("rendezvous_messages_sent",
           "Messages this process sent by rendezvous (a ready-to-send, then the receiver reads the data), "
           "collective and internal traffic included",
           MPI_T_PVAR_CLASS_COUNTER, PvarSource::rendezvous_sent);
  add_pvar("unexpected_messages_received",
           "Point-to-point messages that arrived before the application posted their receive (they wait in "
           "the unexpected queue; the library's own collective and internal traffic is not counted)",
           MPI_T_PVAR_CLASS_COUNTER, PvarSource::unexpected_arrivals);
  add_pvar("rendezvous_reads_mapped",
           "Rendezvous reads (pieces of up to 1 MiB) this process copied straight out of a mapping of the "
           "sender's memory: messages from MPI_Alloc_mem memory of another rank on the node (native shared "
           "memory; FABMPI_ALLOC_MEM_SHARED_MIN, FABMPI_SHM_MAPPED)",
           MPI_T_PVAR_CLASS_COUNTER, PvarSource::mapped_reads);
  add_pvar("rendezvous_bytes_assisted",
           "Bytes this process copied into the receive buffers of ranks on its node that were reading a "
           "large message of its (native shared memory, assisted reads: FABMPI_SHM_ASSIST_MIN)",
           MPI_T_PVAR_CLASS_COUNTER, PvarSource::assisted_bytes);
}

Rc ToolInterface::finalize() {
  if (init_count_ == 0) return fail(MPI_T_ERR_NOT_INITIALIZED, "MPI_T is not initialized");
  if (--init_count_ == 0) {
    cvar_handles_.clear();
    sessions_.clear();
  }
  return Rc();
}

int ToolInterface::cvar_index(const std::string& name) const noexcept {
  for (std::size_t i = 0; i < cvars_.size(); ++i)
    if (cvars_[i].name == name) return static_cast<int>(i);
  return -1;
}

int ToolInterface::pvar_index(const std::string& name, int var_class) const noexcept {
  for (std::size_t i = 0; i < pvars_.size(); ++i)
    if (pvars_[i].name == name && pvars_[i].var_class == var_class) return static_cast<int>(i);
  return -1;
}

int ToolInterface::category_index(const std::string& name) const noexcept {
  for (std::size_t i = 0; i < categories_.size(); ++i)
    if (categories_[i].name == name) return static_cast<int>(i);
  return -1;
}

// ---- control variables

Rc ToolInterface::cvar_handle_alloc(int index, Runtime* rt, CvarHandle** out, int* count) {
  const CvarInfo& cvar = cvars_[static_cast<std::size_t>(index)];
  auto handle = std::make_unique<CvarHandle>();
  handle->index = index;
  if (cvar.datatype == MPI_CHAR)
    handle->count = cvar.name == kLogCvar ? kLogCount : static_cast<int>(current_value(cvar, rt).text.size() + 1);
  *count = handle->count;
  *out = handle.get();
  cvar_handles_.push_back(std::move(handle));
  return Rc();
}

CvarHandle* ToolInterface::find_cvar_handle(const void* handle) const noexcept {
  for (const auto& h : cvar_handles_)
    if (h.get() == handle) return h.get();
  return nullptr;
}

void ToolInterface::cvar_handle_free(CvarHandle* handle) noexcept {
  std::erase_if(cvar_handles_, [&](const auto& h) { return h.get() == handle; });
}

Rc ToolInterface::cvar_read(const CvarHandle& handle, Runtime* rt, void* buf) const {
  const CvarInfo& cvar = cvars_[static_cast<std::size_t>(handle.index)];
  const TunableValue v = current_value(cvar, rt);
  switch (v.type) {
    case TunableType::Bool: {
      const int i = static_cast<int>(v.integer);
      std::memcpy(buf, &i, sizeof i);
      break;
    }
    case TunableType::Int: std::memcpy(buf, &v.integer, sizeof v.integer); break;
    case TunableType::Size: std::memcpy(buf, &v.size, sizeof v.size); break;
    case TunableType::String: {
      // At most the handle's count bytes (the value may have grown since: a changed environment).
      const std::size_t n = std::min(v.text.size(), static_cast<std::size_t>(handle.count - 1));
      std::memcpy(buf, v.text.data(), n);
      static_cast<char*>(buf)[n] = '\0';
      break;
    }
  }
  return Rc();
}

Rc ToolInterface::cvar_write(const CvarHandle& handle, Runtime* rt, const void* buf) {
  const CvarInfo& cvar = cvars_[static_cast<std::size_t>(handle.index)];
  if (cvar.name != kLogCvar)
    return fail(MPI_T_ERR_CVAR_SET_NEVER, "%s is read once at startup (set it in the environment)", cvar.name.c_str());
  if (!rt)
    return fail(MPI_T_ERR_CVAR_SET_NOT_NOW,
                "%s can be written while MPI runs (before MPI_Init the environment sets it)", cvar.name.c_str());
  const char* text = static_cast<const char*>(buf);
  const std::string level(text, strnlen(text, static_cast<std::size_t>(handle.count)));
  for (int i = 0; i < 5; ++i)
    if (level == kLevelNames[i]) {
      log::g_level.store(i, std::memory_order_relaxed);
      return Rc();
    }
  return fail(MPI_T_ERR_INVALID, "unknown log level '%.40s' (error, warn, info, debug, trace)", level.c_str());
}

// ---- performance variables

PvarSession* ToolInterface::session_create() {
  sessions_.push_back(std::make_unique<PvarSession>());
  return sessions_.back().get();
}

PvarSession* ToolInterface::find_session(const void* session) const noexcept {
  for (const auto& s : sessions_)
    if (s.get() == session) return s.get();
  return nullptr;
}

void ToolInterface::session_free(PvarSession* session) noexcept {
  std::erase_if(sessions_, [&](const auto& s) { return s.get() == session; });
}

Rc ToolInterface::pvar_handle_alloc(PvarSession& session, int index, Runtime* rt, PvarHandle** out,
                                    int* count) {
  auto handle = std::make_unique<PvarHandle>();
  handle->index = index;
  handle->session = &session;
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(index)];
  if (pvar.continuous) handle->running = true;
  handle->started_at = raw(pvar.source, rt);
  *count = 1;
  *out = handle.get();
  session.handles.push_back(std::move(handle));
  return Rc();
}

PvarHandle* ToolInterface::find_pvar_handle(const PvarSession& session, const void* handle) const noexcept {
  for (const auto& h : session.handles)
    if (h.get() == handle) return h.get();
  return nullptr;
}

void ToolInterface::pvar_handle_free(PvarSession& session, PvarHandle* handle) noexcept {
  std::erase_if(session.handles, [&](const auto& h) { return h.get() == handle; });
}

std::uint64_t ToolInterface::raw(PvarSource source, Runtime* rt) const noexcept {
  const std::uint64_t carried = carried_[static_cast<int>(source)];
  if (!rt) return source == PvarSource::posted_receives || source == PvarSource::unexpected_messages ? 0 : carried;
  const pt2pt::Engine::Stats s = rt->pt2pt().stats();
  switch (source) {
    case PvarSource::posted_receives: return s.posted_receives;
    case PvarSource::unexpected_messages: return s.unexpected_messages;
    case PvarSource::eager_sent: return carried + s.eager_sent;
    case PvarSource::rendezvous_sent: return carried + s.rendezvous_sent;
    case PvarSource::unexpected_arrivals: return carried + s.unexpected_arrivals;
    case PvarSource::mapped_reads: return carried + s.mapped_reads;
    case PvarSource::assisted_bytes: return carried + s.assisted_bytes;
  }
  return 0;
}

void ToolInterface::runtime_ending(Runtime& rt) noexcept {
  const pt2pt::Engine::Stats s = rt.pt2pt().stats();
  carried_[static_cast<int>(PvarSource::eager_sent)] += s.eager_sent;
  carried_[static_cast<int>(PvarSource::rendezvous_sent)] += s.rendezvous_sent;
  carried_[static_cast<int>(PvarSource::unexpected_arrivals)] += s.unexpected_arrivals;
  carried_[static_cast<int>(PvarSource::mapped_reads)] += s.mapped_reads;
  carried_[static_cast<int>(PvarSource::assisted_bytes)] += s.assisted_bytes;
}

std::uint64_t ToolInterface::value(const PvarHandle& handle, Runtime* rt) const noexcept {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  const std::uint64_t now = raw(pvar.source, rt);
  if (!is_counter(pvar)) return now;
  return handle.running ? handle.accumulated + (now - handle.started_at) : handle.accumulated;
}

Rc ToolInterface::start_one(PvarHandle& handle, Runtime* rt) {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  if (pvar.continuous) return fail(MPI_T_ERR_PVAR_NO_STARTSTOP, "%s is continuous: it cannot be started", pvar.name.c_str());
  if (!handle.running) {
    handle.started_at = raw(pvar.source, rt);
    handle.running = true;
  }
  return Rc();
}

Rc ToolInterface::stop_one(PvarHandle& handle, Runtime* rt) {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  if (pvar.continuous) return fail(MPI_T_ERR_PVAR_NO_STARTSTOP, "%s is continuous: it cannot be stopped", pvar.name.c_str());
  if (handle.running) {
    handle.accumulated = value(handle, rt);
    handle.running = false;
  }
  return Rc();
}

Rc ToolInterface::reset_one(PvarHandle& handle, Runtime* rt) {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  if (pvar.readonly) return fail(MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only: it cannot be reset", pvar.name.c_str());
  handle.accumulated = 0;
  handle.started_at = raw(pvar.source, rt);
  return Rc();
}

// MPI-3.1 14.3.7: with MPI_T_PVAR_ALL_HANDLES, the handles that cannot take the operation are skipped.
Rc ToolInterface::pvar_start(PvarSession& session, PvarHandle* handle, Runtime* rt) {
  if (handle) return start_one(*handle, rt);
  for (const auto& h : session.handles)
    if (!pvars_[static_cast<std::size_t>(h->index)].continuous) FABMPI_TRY(start_one(*h, rt));
  return Rc();
}

Rc ToolInterface::pvar_stop(PvarSession& session, PvarHandle* handle, Runtime* rt) {
  if (handle) return stop_one(*handle, rt);
  for (const auto& h : session.handles)
    if (!pvars_[static_cast<std::size_t>(h->index)].continuous) FABMPI_TRY(stop_one(*h, rt));
  return Rc();
}

Rc ToolInterface::pvar_reset(PvarSession& session, PvarHandle* handle, Runtime* rt) {
  if (handle) return reset_one(*handle, rt);
  for (const auto& h : session.handles)
    if (!pvars_[static_cast<std::size_t>(h->index)].readonly) FABMPI_TRY(reset_one(*h, rt));
  return Rc();
}

Rc ToolInterface::pvar_read(const PvarHandle& handle, Runtime* rt, void* buf) const {
  const unsigned long long v = value(handle, rt);
  std::memcpy(buf, &v, sizeof v);
  return Rc();
}

Rc ToolInterface::pvar_write(PvarHandle& handle, Runtime* rt, const void* buf) {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  if (pvar.readonly) return fail(MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only", pvar.name.c_str());
  unsigned long long v = 0;
  std::memcpy(&v, buf, sizeof v);
  // The handle counts on from the written value.
  handle.accumulated = v;
  handle.started_at = raw(pvar.source, rt);
  return Rc();
}

Rc ToolInterface::pvar_readreset(PvarHandle& handle, Runtime* rt, void* buf) {
  const PvarInfo& pvar = pvars_[static_cast<std::size_t>(handle.index)];
  if (pvar.readonly) return fail(MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only: it cannot be reset", pvar.name.c_str());
  if (!pvar.atomic) return fail(MPI_T_ERR_PVAR_NO_ATOMIC, "%s cannot be read and reset atomically", pvar.name.c_str());
  FABMPI_TRY(pvar_read(handle, rt, buf));
  return reset_one(handle, rt);
}

}  // namespace fabmpi::tool
