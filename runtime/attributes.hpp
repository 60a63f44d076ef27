// Attribute caching (MPI-3.1 6.7): keyvals and the attributes communicators, windows and datatypes
// carry. Under the MPICH ABI every handle is an int, so one callback type serves all three kinds.
#pragma once

#include <mpi.h>

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

struct Attribute {
  KeyvalRef keyval;
  void* value;
};
// An object's attributes, keyed by keyval handle (keyvals are numbered in creation order).
using AttributeMap = std::map<int, Attribute>;

}  // namespace fabmpi
