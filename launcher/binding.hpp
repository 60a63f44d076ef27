// --bind-to core with hwloc: rank i of a node gets core (i mod cores), as a cpu_set_t applied by the
// child before exec, and a description for --report-bindings.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace fabmpi::launcher {

struct CoreBinding {
  cpu_set_t cpus;
  int core_index;            // logical index of the core
  std::string description;   // "core 1 (PUs 1,3)"
};

// The cores this process may use (hwloc's view, restricted to mpirun's own allowed cpuset).
// False with a reason when hwloc cannot load the topology or finds no core.
bool load_core_bindings(std::vector<CoreBinding>* cores, std::string* error);

}  // namespace fabmpi::launcher
