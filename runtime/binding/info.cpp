// MPI_Info objects. MPI-4.0 (11.2.1) lets programs use them before MPI is initialized (to pass to
// MPI_Session_init) and after it is finalized, so nothing here needs the runtime.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

Rc check_key(const char* key) {
  if (key == nullptr) return fail(MPI_ERR_INFO_KEY, "NULL info key");
  std::size_t n = std::strlen(key);
  if (n == 0) return fail(MPI_ERR_INFO_KEY, "empty info key");
  if (n > MPI_MAX_INFO_KEY) return fail(MPI_ERR_INFO_KEY, "info key longer than MPI_MAX_INFO_KEY (%d)", MPI_MAX_INFO_KEY);
  return Rc();
}

}  // namespace

namespace fabmpi::binding {

namespace {
constexpr const char* kThreadLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE"};
}  // namespace

const char* thread_level_name(int level) {
  return kThreadLevels[std::clamp(level, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE)];
}

int thread_level_from_name(const std::string& name) {
  for (int level = MPI_THREAD_SINGLE; level <= MPI_THREAD_MULTIPLE; ++level)
    if (name == kThreadLevels[level]) return level;
  return MPI_THREAD_SINGLE;
}

// MPI-4.0 11.4 / MPI-3.1 10.3.2: the keys MPI_Comm_spawn takes, as they describe this process (those it
// knows: command, argv, maxprocs, host, wdir, thread_level).
std::shared_ptr<Info> environment_info(const std::vector<std::string>& args) {
  auto obj = std::make_shared<Info>();
  if (!args.empty()) obj->set("command", args[0]);
  std::string joined;
  for (std::size_t i = 1; i < args.size(); ++i) joined += (i > 1 ? " " : "") + args[i];
  if (args.size() > 1) obj->set("argv", joined);
  // The same keys before MPI_Init, during and after MPI_Finalize (MPI-4.0 lets MPI_Info_create_env run at
  // any time; MPICH's infocreateenv compares them): the size the launcher gave (PMI_SIZE; alone: 1), this
  // host, and the level the runtime has or, without one, what MPI_Init would give.
  Library& lib = library();
  const bool running = lib.state == LibraryState::initialized;
  const char* launched_size = std::getenv("PMI_SIZE");
  obj->set("maxprocs", running ? std::to_string(lib.runtime->world_size())
                               : (launched_size && *launched_size ? std::string(launched_size) : std::string("1")));
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  ::gethostname(host, sizeof host - 1);
  obj->set("host", running ? lib.runtime->processor_name() : std::string(host));
  obj->set("thread_level", thread_level_name(running ? lib.runtime->thread_level() : MPI_THREAD_SINGLE));
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) obj->set("wdir", cwd);
  return obj;
}

}  // namespace fabmpi::binding

extern "C" {

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info* info) {
  ApiCall call("MPI_Info_create");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(info, "info"));
    auto obj = std::make_shared<Info>();
    obj->handle = library().infos.insert(obj);
    *info = obj->handle;
    return Rc();
  }());
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  ApiCall call("MPI_Info_create_env");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(info, "info"));
    if (argc < 0) return fail(MPI_ERR_ARG, "negative argc %d", argc);
    if (argc > 0 && argv == nullptr) return fail(MPI_ERR_ARG, "NULL argv with argc %d", argc);
    std::vector<std::string> args;
    for (int i = 0; i < argc && argv[i]; ++i) args.emplace_back(argv[i]);
    auto obj = environment_info(args);
    obj->handle = library().infos.insert(obj);
    *info = obj->handle;
    return Rc();
  }());
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  ApiCall call("MPI_Info_set");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_key(key));
    if (value == nullptr) return fail(MPI_ERR_INFO_VALUE, "NULL info value");
    if (std::strlen(value) > MPI_MAX_INFO_VAL)
      return fail(MPI_ERR_INFO_VALUE, "info value longer than MPI_MAX_INFO_VAL (%d)", MPI_MAX_INFO_VAL);
    obj->set(key, value);
    return Rc();
  }());
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  ApiCall call("MPI_Info_get");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_key(key));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    if (valuelen < 0) return fail(MPI_ERR_ARG, "negative valuelen %d", valuelen);
    const std::string* v = obj->get(key);
    *flag = v != nullptr;
    if (v) {
      FABMPI_TRY(check_out_ptr(value, "value"));
      // valuelen excludes the terminating NUL (the buffer holds valuelen + 1 chars).
      std::size_t n = std::min<std::size_t>(v->size(), static_cast<std::size_t>(valuelen));
      std::memcpy(value, v->data(), n);
      value[n] = '\0';
    }
    return Rc();
  }());
}

// MPI-4.0 10.1: the value and its length in one call. *buflen in: the buffer's size, NUL included (0:
// only ask for the length); out: the value's length plus one. A longer value comes back truncated.
#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  ApiCall call("MPI_Info_get_string");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_key(key));
    FABMPI_TRY(check_out_ptr(buflen, "buflen"));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    if (*buflen < 0) return fail(MPI_ERR_ARG, "negative buflen %d", *buflen);
    const std::string* v = obj->get(key);
    *flag = v != nullptr;
    if (!v) return Rc();
    if (*buflen > 0) {
      FABMPI_TRY(check_out_ptr(value, "value"));
      const std::size_t n = std::min<std::size_t>(v->size(), static_cast<std::size_t>(*buflen) - 1);
      std::memcpy(value, v->data(), n);
      value[n] = '\0';
    }
    *buflen = static_cast<int>(v->size()) + 1;
    return Rc();
  }());
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  ApiCall call("MPI_Info_get_valuelen");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_key(key));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    FABMPI_TRY(check_out_ptr(valuelen, "valuelen"));
    const std::string* v = obj->get(key);
    *flag = v != nullptr;
    if (v) *valuelen = static_cast<int>(v->size());
    return Rc();
  }());
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  ApiCall call("MPI_Info_get_nkeys");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_out_ptr(nkeys, "nkeys"));
    *nkeys = obj->size();
    return Rc();
  }());
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  ApiCall call("MPI_Info_get_nthkey");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_out_ptr(key, "key"));
    if (n < 0 || n >= obj->size())
      return fail(MPI_ERR_ARG, "key index %d out of range (the info object has %d keys)", n, obj->size());
    const std::string& k = obj->nth_key(n);
    std::memcpy(key, k.c_str(), k.size() + 1);
    return Rc();
  }());
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char* key) {
  ApiCall call("MPI_Info_delete");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_key(key));
    if (!obj->erase(key)) return fail(MPI_ERR_INFO_NOKEY, "info key '%s' is not set", key);
    return Rc();
  }());
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  ApiCall call("MPI_Info_dup");
  return call.finish([&]() -> Rc {
    InfoRef obj;
    FABMPI_TRY(to_info(info, &obj));
    FABMPI_TRY(check_out_ptr(newinfo, "newinfo"));
    auto copy = std::make_shared<Info>(*obj);
    copy->handle = library().infos.insert(copy);
    *newinfo = copy->handle;
    return Rc();
  }());
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info* info) {
  ApiCall call("MPI_Info_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(info, "info"));
    InfoRef obj;
    FABMPI_TRY(to_info(*info, &obj));
    library().infos.erase(*info);
    *info = MPI_INFO_NULL;
    return Rc();
  }());
}

}  // extern "C"
