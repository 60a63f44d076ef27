#include "runtime/hardware_split.hpp"

#include <hwloc.h>
#include <strings.h>

namespace fabmpi::hardware {
namespace {

struct Synonym {
  const char* given;
  const char* canonical;
};
// What hwloc's own names do not cover: MPI's node level, and the spellings MPICH also accepts.
constexpr Synonym kSynonyms[] = {{"mpi_shared_memory", "mpi_shared_memory"}, {"socket", "package"},
                                 {"hwthread", "pu"},  {"l1ucache", "l1cache"}, {"l1dcache", "l1cache"},
                                 {"l2ucache", "l2cache"}, {"l2dcache", "l2cache"}, {"l3ucache", "l3cache"},
                                 {"l3dcache", "l3cache"}};
constexpr const char* kTypes[] = {"machine", "package", "numanode", "l3cache", "l2cache", "l1cache",
                                  "l1icache", "l2icache", "l3icache", "core", "pu"};

// The machine's topology and this process's binding, read once.
class Machine {
 public:
  static const Machine& get() {
    static Machine machine;
    return machine;
  }
  ~Machine() {
    if (binding_) hwloc_bitmap_free(binding_);
    if (loaded_) hwloc_topology_destroy(topology_);
  }

  // The logical index of the object of `type` whose cpuset holds the whole binding, or -1. (hwloc's
  // traversal of a loaded topology is read-only: threads may ask at once.)
  int object_containing_binding(hwloc_obj_type_t type) const {
    if (!loaded_ || !binding_ || hwloc_bitmap_iszero(binding_)) return -1;
    const int n = hwloc_get_nbobjs_by_type(topology_, type);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, type, static_cast<unsigned>(i));
      if (obj && obj->cpuset && hwloc_bitmap_isincluded(binding_, obj->cpuset))
        return static_cast<int>(obj->logical_index);
    }
    return -1;
  }

 private:
  Machine() {
    if (hwloc_topology_init(&topology_) != 0) return;
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      return;
    }
    loaded_ = true;
    binding_ = hwloc_bitmap_alloc();
    // The process's binding; where the OS will not say, every PU it may use.
    if (hwloc_get_cpubind(topology_, binding_, HWLOC_CPUBIND_PROCESS) != 0)
      hwloc_bitmap_copy(binding_, hwloc_topology_get_allowed_cpuset(topology_));
  }

  hwloc_topology_t topology_{};
  hwloc_bitmap_t binding_ = nullptr;
  bool loaded_ = false;
};

}  // namespace

const std::vector<std::string>& unguided_levels() {
  static const std::vector<std::string> levels = {"mpi_shared_memory", "package", "numanode", "l3cache",
                                                  "l2cache",           "l1cache", "core",     "pu"};
  return levels;
}

std::optional<std::string> canonical_type(const std::string& name) {
  for (const Synonym& s : kSynonyms)
    if (strcasecmp(name.c_str(), s.given) == 0) return std::string(s.canonical);
  for (const char* t : kTypes)
    if (strcasecmp(name.c_str(), t) == 0) return std::string(t);
  return std::nullopt;
}

int resource_color(const std::string& type, int node) {
  // Every process of a node shares its memory and its machine: the node is the color.
  if (type == "mpi_shared_memory" || type == "machine") return node;
  hwloc_obj_type_t hw = HWLOC_OBJ_PU;
  if (type == "package") hw = HWLOC_OBJ_PACKAGE;
  else if (type == "numanode") hw = HWLOC_OBJ_NUMANODE;
  else if (type == "core") hw = HWLOC_OBJ_CORE;
  else if (type == "pu") hw = HWLOC_OBJ_PU;
  else if (type == "l1cache") hw = HWLOC_OBJ_L1CACHE;
  else if (type == "l2cache") hw = HWLOC_OBJ_L2CACHE;
  else if (type == "l3cache") hw = HWLOC_OBJ_L3CACHE;
  else if (type == "l1icache") hw = HWLOC_OBJ_L1ICACHE;
  else if (type == "l2icache") hw = HWLOC_OBJ_L2ICACHE;
  else if (type == "l3icache") hw = HWLOC_OBJ_L3ICACHE;
  else return -1;
  const int index = Machine::get().object_containing_binding(hw);
  if (index < 0) return -1;
  // Objects of one node, then the next node's (logical indexes stay far below 2^16).
  return node * 65536 + index;
}

}  // namespace fabmpi::hardware
