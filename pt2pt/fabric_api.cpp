#include "pt2pt/fabric_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "runtime/runtime.hpp"

namespace fabmpi::pt2pt::ofi {
namespace {

struct Api {
  decltype(&fi_getinfo) getinfo = nullptr;
  decltype(&fi_freeinfo) freeinfo = nullptr;
  decltype(&fi_dupinfo) dupinfo = nullptr;
  decltype(&fi_fabric) fabric = nullptr;
  decltype(&fi_strerror) strerror = nullptr;
  std::string error;
};

const Api& api() {
  static Api loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    // Never closed: providers keep threads and state until the process ends.
    void* lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      loaded.error = dlerror();
      return;
    }
    drop_infinipath_fault_handlers();
    loaded.getinfo = reinterpret_cast<decltype(&fi_getinfo)>(dlsym(lib, "fi_getinfo"));
    loaded.freeinfo = reinterpret_cast<decltype(&fi_freeinfo)>(dlsym(lib, "fi_freeinfo"));
    loaded.dupinfo = reinterpret_cast<decltype(&fi_dupinfo)>(dlsym(lib, "fi_dupinfo"));
    loaded.fabric = reinterpret_cast<decltype(&fi_fabric)>(dlsym(lib, "fi_fabric"));
    loaded.strerror = reinterpret_cast<decltype(&fi_strerror)>(dlsym(lib, "fi_strerror"));
    if (!loaded.getinfo || !loaded.freeinfo || !loaded.dupinfo || !loaded.fabric || !loaded.strerror)
      loaded.error = "libfabric.so.1 lacks fi_getinfo/fi_freeinfo/fi_dupinfo/fi_fabric/fi_strerror";
  });
  return loaded;
}

}  // namespace

Rc load() {
  const Api& a = api();
  if (!a.error.empty()) return fail(MPI_ERR_OTHER, "cannot load libfabric: %s", a.error.c_str());
  return Rc();
}

int getinfo(uint32_t version, const char* node, const char* service, uint64_t flags, const fi_info* hints,
            fi_info** info) {
  return api().getinfo(version, node, service, flags, hints, info);
}
void freeinfo(fi_info* info) { api().freeinfo(info); }
fi_info* dupinfo(const fi_info* info) { return api().dupinfo(info); }
int fabric(fi_fabric_attr* attr, fid_fabric** fab, void* context) { return api().fabric(attr, fab, context); }
const char* strerror(int errnum) { return api().strerror ? api().strerror(errnum) : "libfabric not loaded"; }

}  // namespace fabmpi::pt2pt::ofi
