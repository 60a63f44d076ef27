// libfabric's exported entry points, reached through dlopen at first use rather than linked.
//
// Why: Debian's libfabric pulls in libpsm-infinipath, whose load-time constructor sleeps ~200 ms looking
// for InfiniPath hardware. Linked into libmpi, every rank paid that before main(), even on one node where
// fabmpi's native shared memory carries all traffic. Loaded on demand, only jobs that open a libfabric
// endpoint (tcp between nodes, FABMPI_NETMOD=ofi-shm|tcp) pay it. Everything else in libfabric's API is
// inline calls through the objects' ops tables and needs no symbol.
#pragma once

#include <rdma/fabric.h>

#include "runtime/rc.hpp"

namespace fabmpi::pt2pt::ofi {

// Loads libfabric.so.1 once (thread-safe); MPI_ERR_OTHER with a reason when it cannot.
Rc load();

int getinfo(uint32_t version, const char* node, const char* service, uint64_t flags, const fi_info* hints,
            fi_info** info);
void freeinfo(fi_info* info);
fi_info* dupinfo(const fi_info* info);
int fabric(fi_fabric_attr* attr, fid_fabric** fabric, void* context);
const char* strerror(int errnum);

}  // namespace fabmpi::pt2pt::ofi
