// Attribute caching (MPI-3.1 6.7): keyvals and the attributes communicators, windows and datatypes
// carry. Under the MPICH ABI every handle is an int, so one callback type serves all three kinds.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>

namespace fabmpi {

// A cached attribute key (MPI_Comm/Win/Type_create_keyval).
struct Keyval {
  MPI_Comm_copy_attr_function* copy_fn = nullptr;
  MPI_Comm_delete_attr_function* delete_fn = nullptr;
  void* extra_state = nullptr;
  int handle = MPI_KEYVAL_INVALID;
  bool freed = false;  // *_free_keyval called; the keyval lives on while attributes use it
};
using KeyvalRef = std::shared_ptr<Keyval>;

// When an attribute was set, process-wide: delete callbacks of one object run newest first (MPI-3.1
// 8.7.1 asks for LIFO order on MPI_COMM_SELF at MPI_Finalize; keyval order is creation order, not set
// order).
inline std::uint64_t next_attribute_stamp() noexcept {
  static std::atomic<std::uint64_t> stamps{0};
  return stamps.fetch_add(1, std::memory_order_relaxed) + 1;
}

struct Attribute {
  KeyvalRef keyval;
  void* value;
  std::uint64_t stamp = next_attribute_stamp();
};
// An object's attributes, keyed by keyval handle (keyvals are numbered in creation order).
using AttributeMap = std::map<int, Attribute>;

}  // namespace fabmpi
