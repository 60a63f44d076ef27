#include "launcher/binding.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

namespace fabmpi::launcher {

bool load_core_bindings(std::vector<CoreBinding>* cores, std::string* error) {
  cores->clear();
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) {
    *error = "hwloc: cannot initialise the topology";
    return false;
  }
  // Only the PUs this process is allowed to run on (a cgroup or taskset may restrict mpirun).
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    *error = "hwloc: cannot load the topology";
    return false;
  }
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topology));
  int ncores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  hwloc_obj_type_t type = HWLOC_OBJ_CORE;
  if (ncores <= 0) {  // some virtual machines expose PUs only
    type = HWLOC_OBJ_PU;
    ncores = hwloc_get_nbobjs_by_type(topology, type);
  }
  hwloc_bitmap_t usable = hwloc_bitmap_alloc();
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(i));
    if (core == nullptr || core->cpuset == nullptr) continue;
    hwloc_bitmap_and(usable, core->cpuset, allowed);
    if (hwloc_bitmap_iszero(usable)) continue;
    CoreBinding binding{};
    CPU_ZERO(&binding.cpus);
    hwloc_cpuset_to_glibc_sched_affinity(topology, usable, &binding.cpus, sizeof binding.cpus);
    binding.core_index = static_cast<int>(core->logical_index);
    char pus[256];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, usable);
    binding.description = std::string(type == HWLOC_OBJ_CORE ? "core " : "PU ") +
                          std::to_string(binding.core_index) + " (PUs " + pus + ")";
    cores->push_back(binding);
  }
  hwloc_bitmap_free(usable);
  hwloc_bitmap_free(allowed);
  hwloc_topology_destroy(topology);
  if (cores->empty()) {
    *error = "hwloc: no usable core found";
    return false;
  }
  return true;
}

}  // namespace fabmpi::launcher
