// MPI-4.0's hardware-guided communicator splits (MPI_COMM_TYPE_HW_GUIDED / HW_UNGUIDED, 7.4.2): which
// hardware resource of a given type this process runs within, read from its CPU binding with hwloc.
//
// A resource type is "mpi_shared_memory" (the node, as MPI_COMM_TYPE_SHARED) or an hwloc object type
// name ("machine", "package" or "socket", "numanode", "l3cache"..."l1cache", "core", "pu" or
// "hwthread"), without regard to case. A process is within an object when its binding (all the PUs it
// may run on) lies inside the object's cpuset; a process bound wider than any one object of the type
// (an unbound process and "core", say) is within none, and gets MPI_COMM_NULL, as the standard asks.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabmpi::hardware {

// The levels HW_UNGUIDED tries, coarse to fine (indices for resource()).
const std::vector<std::string>& unguided_levels();

// The canonical name of a resource type ("package" for "socket"), or nullopt when it is not one.
std::optional<std::string> canonical_type(const std::string& name);

// The index of the object of canonical type `type` this process is within, on `node` (the launcher's
// node index, so hosts emulated on one machine stay apart), as a color >= 0; -1 when it is within none.
int resource_color(const std::string& type, int node);

}  // namespace fabmpi::hardware
