// The MPI tool information interface, MPI_T (MPI-3.1 14.3), over runtime/tool_interface.hpp: argument
// checks and handle conversion. MPI_T works before MPI_Init and after MPI_Finalize (reference-counted
// MPI_T_init_thread/MPI_T_finalize), and its functions return error codes without calling any MPI error
// handler (MPI-3.1 14.3.1). NULL output pointers fail with MPI_ERR_ARG, as in MPICH, except the name and
// description strings, whose conventions (14.3.3) allow NULL.
//
// Threads: every call takes the runtime's API lock when the runtime runs under MPI_THREAD_MULTIPLE (the
// performance variables read the point-to-point engine), then the interface's own mutex, so
// MPI_T_init_thread grants any level, MPI_THREAD_MULTIPLE included.
#include <algorithm>
#include <cstring>
#include <mutex>

#include "runtime/binding/library.hpp"
#include "runtime/tool_interface.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

// MPI_T_PVAR_ALL_HANDLES points at this object; no handle is ever one.
struct MPIR_T_pvar_handle_s {
  char unused;
};

namespace {

MPIR_T_pvar_handle_s g_all_handles{};

struct ToolState {
  std::mutex mutex;
  tool::ToolInterface registry;
};

ToolState& tool_state() {
  // Leaked, like library(): tools may call MPI_T from atexit handlers.
  static ToolState* state = new ToolState();
  return *state;
}

// The guard of every MPI_T function.
class ToolCall {
 public:
  explicit ToolCall(const char* name) : api_(name), lock_(tool_state().mutex) {}
  tool::ToolInterface& registry() { return tool_state().registry; }
  // The running runtime, or null (before MPI_Init, after MPI_Finalize).
  Runtime* runtime() const {
    Library& lib = library();
    return lib.state == LibraryState::initialized ? lib.runtime.get() : nullptr;
  }
  Rc require_initialized() {
    if (registry().initialized()) return Rc();
    return fail(MPI_T_ERR_NOT_INITIALIZED, "%s: MPI_T_init_thread was not called", api_.name());
  }
  // The code itself: MPI_T calls no error handler.
  static int finish(Rc rc) { return rc.code(); }

 private:
  ApiCall api_;
  std::lock_guard<std::mutex> lock_;
};

// MPI-3.1 14.3.3: *len in: the buffer's size; out: the characters written with the NUL. A NULL buffer
// or a zero length asks for the size the whole string needs; a NULL len returns nothing.
void return_string(const std::string& text, char* buf, int* len) {
  if (len == nullptr) return;
  if (buf == nullptr || *len <= 0) {
    *len = static_cast<int>(text.size() + 1);
    return;
  }
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(*len - 1));
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  *len = static_cast<int>(n + 1);
}

template <class T>
void set_if(T* out, T value) {
  if (out) *out = value;
}

template <class V>
Rc check_index(int index, const std::vector<V>& list, const char* what) {
  if (index >= 0 && static_cast<std::size_t>(index) < list.size()) return Rc();
  return fail(MPI_T_ERR_INVALID_INDEX, "invalid %s index %d (there are %zu)", what, index, list.size());
}

Rc check_name(const char* name) { return check_out_ptr(name, "name"); }

tool::EnumType* to_core(MPI_T_enum e) { return reinterpret_cast<tool::EnumType*>(e); }
MPI_T_enum to_handle(const tool::EnumType* e) {
  return reinterpret_cast<MPI_T_enum>(const_cast<tool::EnumType*>(e));
}

Rc to_cvar_handle(ToolCall& call, MPI_T_cvar_handle handle, tool::CvarHandle** out) {
  *out = call.registry().find_cvar_handle(handle);
  if (*out == nullptr) return fail(MPI_T_ERR_INVALID_HANDLE, "invalid control variable handle %p", static_cast<void*>(handle));
  return Rc();
}

Rc to_session(ToolCall& call, MPI_T_pvar_session session, tool::PvarSession** out) {
  *out = call.registry().find_session(session);
  if (*out == nullptr) return fail(MPI_T_ERR_INVALID_SESSION, "invalid pvar session %p", static_cast<void*>(session));
  return Rc();
}

// A handle of `session`; with `all_allowed`, MPI_T_PVAR_ALL_HANDLES gives *out = null.
Rc to_pvar_handle(ToolCall& call, const tool::PvarSession& session, MPI_T_pvar_handle handle, bool all_allowed,
                  tool::PvarHandle** out) {
  *out = nullptr;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    if (all_allowed) return Rc();
    return fail(MPI_T_ERR_INVALID_HANDLE, "MPI_T_PVAR_ALL_HANDLES is not allowed here");
  }
  *out = call.registry().find_pvar_handle(session, handle);
  if (*out == nullptr)
    return fail(MPI_T_ERR_INVALID_HANDLE, "invalid pvar handle %p (for this session)", static_cast<void*>(handle));
  return Rc();
}

// What every call on one pvar handle of a session checks first: MPI_T initialized, the session, the
// handle (MPI_T_PVAR_ALL_HANDLES with `all_allowed`: *handle_out = null).
Rc pvar_target(ToolCall& call, MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed,
               tool::PvarSession** session_out, tool::PvarHandle** handle_out) {
  FABMPI_TRY(call.require_initialized());
  FABMPI_TRY(to_session(call, session, session_out));
  return to_pvar_handle(call, **session_out, handle, all_allowed, handle_out);
}

Rc copy_indices(const std::vector<int>& list, int len, int indices[]) {
  if (len < 0) return fail(MPI_ERR_ARG, "negative length %d", len);
  if (len > 0) FABMPI_TRY(check_out_ptr(indices, "indices"));
  const std::size_t n = std::min(list.size(), static_cast<std::size_t>(len));
  std::copy_n(list.begin(), n, indices);
  return Rc();
}

}  // namespace

namespace fabmpi::binding {

void mpi_t_runtime_ending(Runtime& rt) {
  std::lock_guard<std::mutex> lock(tool_state().mutex);
  tool_state().registry.runtime_ending(rt);
}

}  // namespace fabmpi::binding

extern "C" {

MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES = &g_all_handles;

// ---- initialization

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int* provided) {
  ToolCall call("MPI_T_init_thread");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(provided, "provided"));
    call.registry().init();
    *provided = std::clamp(required, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
    return Rc();
  }());
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void) {
  ToolCall call("MPI_T_finalize");
  return call.finish(call.registry().finalize());
}

// ---- enumerations

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  ToolCall call("MPI_T_enum_get_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    const tool::EnumType* e = to_core(enumtype);
    if (!call.registry().is_enum(e)) return fail(MPI_T_ERR_INVALID_HANDLE, "invalid enumeration");
    FABMPI_TRY(check_out_ptr(num, "num"));
    *num = static_cast<int>(e->items.size());
    return_string(e->name, name, name_len);
    return Rc();
  }());
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len) {
  ToolCall call("MPI_T_enum_get_item");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    const tool::EnumType* e = to_core(enumtype);
    if (!call.registry().is_enum(e)) return fail(MPI_T_ERR_INVALID_HANDLE, "invalid enumeration");
    if (indx < 0 || static_cast<std::size_t>(indx) >= e->items.size())
      return fail(MPI_T_ERR_INVALID_ITEM, "invalid item %d of enumeration %s", indx, e->name.c_str());
    FABMPI_TRY(check_out_ptr(value, "value"));
    const auto& item = e->items[static_cast<std::size_t>(indx)];
    *value = item.first;
    return_string(item.second, name, name_len);
    return Rc();
  }());
}

// ---- control variables

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int* num_cvar) {
  ToolCall call("MPI_T_cvar_get_num");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(num_cvar, "num_cvar"));
    *num_cvar = static_cast<int>(call.registry().cvars().size());
    return Rc();
  }());
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  ToolCall call("MPI_T_cvar_get_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    const auto& cvars = call.registry().cvars();
    FABMPI_TRY(check_index(cvar_index, cvars, "control variable"));
    const tool::CvarInfo& c = cvars[static_cast<std::size_t>(cvar_index)];
    return_string(c.name, name, name_len);
    set_if(verbosity, c.verbosity);
    set_if(datatype, c.datatype);
    set_if(enumtype, to_handle(c.enumtype));
    return_string(c.desc, desc, desc_len);
    set_if(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
    set_if(scope, c.scope);
    return Rc();
  }());
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  ToolCall call("MPI_T_cvar_get_index");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(name));
    FABMPI_TRY(check_out_ptr(cvar_index, "cvar_index"));
    const int index = call.registry().cvar_index(name);
    if (index < 0) return fail(MPI_T_ERR_INVALID_NAME, "no control variable named '%.80s'", name);
    *cvar_index = index;
    return Rc();
  }());
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  ToolCall call("MPI_T_cvar_handle_alloc");
  return call.finish([&]() -> Rc {
    (void)obj_handle;  // every variable is MPI_T_BIND_NO_OBJECT: ignored
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_index(cvar_index, call.registry().cvars(), "control variable"));
    FABMPI_TRY(check_out_ptr(handle, "handle"));
    FABMPI_TRY(check_out_ptr(count, "count"));
    tool::CvarHandle* h = nullptr;
    FABMPI_TRY(call.registry().cvar_handle_alloc(cvar_index, call.runtime(), &h, count));
    *handle = reinterpret_cast<MPI_T_cvar_handle>(h);
    return Rc();
  }());
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  ToolCall call("MPI_T_cvar_handle_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(handle, "handle"));
    tool::CvarHandle* h = nullptr;
    FABMPI_TRY(to_cvar_handle(call, *handle, &h));
    call.registry().cvar_handle_free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return Rc();
  }());
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  ToolCall call("MPI_T_cvar_read");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    tool::CvarHandle* h = nullptr;
    FABMPI_TRY(to_cvar_handle(call, handle, &h));
    FABMPI_TRY(check_out_ptr(buf, "buf"));
    return call.registry().cvar_read(*h, call.runtime(), buf);
  }());
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  ToolCall call("MPI_T_cvar_write");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    tool::CvarHandle* h = nullptr;
    FABMPI_TRY(to_cvar_handle(call, handle, &h));
    FABMPI_TRY(check_out_ptr(buf, "buf"));
    return call.registry().cvar_write(*h, call.runtime(), buf);
  }());
}

// ---- performance variables

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int* num_pvar) {
  ToolCall call("MPI_T_pvar_get_num");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(num_pvar, "num_pvar"));
    *num_pvar = static_cast<int>(call.registry().pvars().size());
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  ToolCall call("MPI_T_pvar_get_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    const auto& pvars = call.registry().pvars();
    FABMPI_TRY(check_index(pvar_index, pvars, "performance variable"));
    const tool::PvarInfo& p = pvars[static_cast<std::size_t>(pvar_index)];
    return_string(p.name, name, name_len);
    set_if(verbosity, p.verbosity);
    set_if(var_class, p.var_class);
    set_if(datatype, p.datatype);
    set_if(enumtype, MPI_T_ENUM_NULL);
    return_string(p.desc, desc, desc_len);
    set_if(bind, static_cast<int>(MPI_T_BIND_NO_OBJECT));
    set_if(readonly, p.readonly ? 1 : 0);
    set_if(continuous, p.continuous ? 1 : 0);
    set_if(atomic, p.atomic ? 1 : 0);
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  ToolCall call("MPI_T_pvar_get_index");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(name));
    FABMPI_TRY(check_out_ptr(pvar_index, "pvar_index"));
    const int index = call.registry().pvar_index(name, var_class);
    if (index < 0) return fail(MPI_T_ERR_INVALID_NAME, "no performance variable '%.80s' of class %d", name, var_class);
    *pvar_index = index;
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  ToolCall call("MPI_T_pvar_session_create");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(session, "session"));
    *session = reinterpret_cast<MPI_T_pvar_session>(call.registry().session_create());
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  ToolCall call("MPI_T_pvar_session_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(session, "session"));
    tool::PvarSession* s = nullptr;
    FABMPI_TRY(to_session(call, *session, &s));
    call.registry().session_free(s);  // and its handles
    *session = MPI_T_PVAR_SESSION_NULL;
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle, MPI_T_pvar_handle* handle,
                             int* count) {
  ToolCall call("MPI_T_pvar_handle_alloc");
  return call.finish([&]() -> Rc {
    (void)obj_handle;  // every variable is MPI_T_BIND_NO_OBJECT: ignored
    FABMPI_TRY(call.require_initialized());
    tool::PvarSession* s = nullptr;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_index(pvar_index, call.registry().pvars(), "performance variable"));
    FABMPI_TRY(check_out_ptr(handle, "handle"));
    FABMPI_TRY(check_out_ptr(count, "count"));
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(call.registry().pvar_handle_alloc(*s, pvar_index, call.runtime(), &h, count));
    *handle = reinterpret_cast<MPI_T_pvar_handle>(h);
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  ToolCall call("MPI_T_pvar_handle_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    tool::PvarSession* s = nullptr;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_out_ptr(handle, "handle"));
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(to_pvar_handle(call, *s, *handle, false, &h));
    call.registry().pvar_handle_free(*s, h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return Rc();
  }());
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  ToolCall call("MPI_T_pvar_start");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, true, &s, &h));
    return call.registry().pvar_start(*s, h, call.runtime());
  }());
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  ToolCall call("MPI_T_pvar_stop");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, true, &s, &h));
    return call.registry().pvar_stop(*s, h, call.runtime());
  }());
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  ToolCall call("MPI_T_pvar_reset");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, true, &s, &h));
    return call.registry().pvar_reset(*s, h, call.runtime());
  }());
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  ToolCall call("MPI_T_pvar_read");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, false, &s, &h));
    FABMPI_TRY(check_out_ptr(buf, "buf"));
    return call.registry().pvar_read(*h, call.runtime(), buf);
  }());
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  ToolCall call("MPI_T_pvar_write");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, false, &s, &h));
    FABMPI_TRY(check_out_ptr(buf, "buf"));
    return call.registry().pvar_write(*h, call.runtime(), buf);
  }());
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  ToolCall call("MPI_T_pvar_readreset");
  return call.finish([&]() -> Rc {
    tool::PvarSession* s = nullptr;
    tool::PvarHandle* h = nullptr;
    FABMPI_TRY(pvar_target(call, session, handle, false, &s, &h));
    FABMPI_TRY(check_out_ptr(buf, "buf"));
    return call.registry().pvar_readreset(*h, call.runtime(), buf);
  }());
}

// ---- categories

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int* num_cat) {
  ToolCall call("MPI_T_category_get_num");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(num_cat, "num_cat"));
    *num_cat = static_cast<int>(call.registry().categories().size());
    return Rc();
  }());
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  ToolCall call("MPI_T_category_get_info");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    const auto& categories = call.registry().categories();
    FABMPI_TRY(check_index(cat_index, categories, "category"));
    const tool::CategoryInfo& c = categories[static_cast<std::size_t>(cat_index)];
    return_string(c.name, name, name_len);
    return_string(c.desc, desc, desc_len);
    set_if(num_cvars, static_cast<int>(c.cvars.size()));
    set_if(num_pvars, static_cast<int>(c.pvars.size()));
    set_if(num_categories, static_cast<int>(c.categories.size()));
    return Rc();
  }());
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char* name, int* cat_index) {
  ToolCall call("MPI_T_category_get_index");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(name));
    FABMPI_TRY(check_out_ptr(cat_index, "cat_index"));
    const int index = call.registry().category_index(name);
    if (index < 0) return fail(MPI_T_ERR_INVALID_NAME, "no category named '%.80s'", name);
    *cat_index = index;
    return Rc();
  }());
}

}  // extern "C"

namespace {

// MPI_T_category_get_cvars/_pvars/_categories: the indices of one kind of member of a category.
Rc category_members(ToolCall& call, int cat_index, std::vector<int> tool::CategoryInfo::*members, int len,
                    int indices[]) {
  FABMPI_TRY(call.require_initialized());
  const auto& categories = call.registry().categories();
  FABMPI_TRY(check_index(cat_index, categories, "category"));
  return copy_indices(categories[static_cast<std::size_t>(cat_index)].*members, len, indices);
}

}  // namespace

extern "C" {

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  ToolCall call("MPI_T_category_get_cvars");
  return call.finish(category_members(call, cat_index, &tool::CategoryInfo::cvars, len, indices));
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  ToolCall call("MPI_T_category_get_pvars");
  return call.finish(category_members(call, cat_index, &tool::CategoryInfo::pvars, len, indices));
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  ToolCall call("MPI_T_category_get_categories");
  return call.finish(category_members(call, cat_index, &tool::CategoryInfo::categories, len, indices));
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int* update_number) {
  ToolCall call("MPI_T_category_changed");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(update_number, "update_number"));
    *update_number = 0;  // the variables and categories are fixed for the library's life
    return Rc();
  }());
}

}  // extern "C"
