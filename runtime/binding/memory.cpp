// MPI_Alloc_mem / MPI_Free_mem (MPI-3.1 section 8.2). Requests of FABMPI_ALLOC_MEM_SHARED_MIN bytes or
// more come from the shared heap (pt2pt/shared_heap.hpp: memory the node's other ranks can map, so large
// messages sent from it are copied once, by the receiver, from a mapping); smaller ones, and any the heap
// cannot serve, are a plain allocation aligned for any type and for vector loads. No registration: the
// libfabric providers fabmpi uses need none for host memory.
#include <cstdlib>

#include "pt2pt/shared_heap.hpp"
#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {
constexpr std::size_t kAllocAlignment = 64;
}

extern "C" {

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  ApiCall call("MPI_Alloc_mem");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (size < 0) return fail(MPI_ERR_SIZE, "invalid size %ld (must be >= 0)", static_cast<long>(size));
    if (info != MPI_INFO_NULL) {
      InfoRef hints;  // no hint is understood; the handle must still be valid
      FABMPI_TRY(to_info(info, &hints));
    }
    FABMPI_TRY(check_out_ptr(baseptr, "baseptr"));
    const std::size_t shared_min = runtime().tunables().alloc_mem_shared_min;
    if (shared_min != 0 && static_cast<std::size_t>(size) >= shared_min) {
      if (void* p = pt2pt::SharedHeap::instance().allocate(static_cast<std::size_t>(size))) {
        *static_cast<void**>(baseptr) = p;
        return Rc();
      }
    }
    // aligned_alloc wants a multiple of the alignment; a zero-size request still gets a unique pointer.
    const std::size_t bytes = (static_cast<std::size_t>(size) + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
    void* p = std::aligned_alloc(kAllocAlignment, bytes == 0 ? kAllocAlignment : bytes);
    if (!p) return fail(MPI_ERR_NO_MEM, "cannot allocate %ld bytes", static_cast<long>(size));
    *static_cast<void**>(baseptr) = p;
    return Rc();
  }());
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void* base) {
  ApiCall call("MPI_Free_mem");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (!pt2pt::SharedHeap::instance().release(base)) std::free(base);
    return Rc();
  }());
}

}  // extern "C"
