// Communicator queries and attribute caching (predefined attributes and user keyvals).
#include "runtime/binding/library.hpp"
#include "runtime/binding/attributes.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

// Predefined attribute values: the caller receives a pointer to one of these ints.
struct PredefinedAttributes {
  int tag_ub = kTagUpperBound;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;  // every rank can do I/O
  int wtime_is_global = 0;
  int universe_size = 1;
  int lastusedcode = 0;
  int appnum = 0;
};
PredefinedAttributes g_predefined;

bool predefined_attribute(int keyval, void* attribute_val) {
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &g_predefined.tag_ub; break;
    case MPI_HOST: value = &g_predefined.host; break;
    case MPI_IO: value = &g_predefined.io; break;
    case MPI_WTIME_IS_GLOBAL: value = &g_predefined.wtime_is_global; break;
    case MPI_UNIVERSE_SIZE:
      g_predefined.universe_size = runtime().bootstrap().universe_size();
      value = &g_predefined.universe_size;
      break;
    case MPI_LASTUSEDCODE:
      g_predefined.lastusedcode = runtime().errors().last_used();
      value = &g_predefined.lastusedcode;
      break;
    case MPI_APPNUM:
      g_predefined.appnum = runtime().bootstrap().appnum();
      value = &g_predefined.appnum;
      break;
    default: return false;
  }
  *static_cast<int**>(attribute_val) = value;
  return true;
}

bool is_predefined_keyval(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM: return true;
    default: return false;
  }
}

}  // namespace

namespace fabmpi::binding {

Rc to_keyval(int handle, KeyvalRef* out) {
  const KeyvalRef* found = library().keyvals.find(handle);
  if (!found) return fail(MPI_ERR_KEYVAL, "invalid attribute keyval %d", handle);
  *out = *found;
  return Rc();
}

Rc run_delete_callback(int object, int keyval, const Comm::Attribute& attr) {
  if (attr.keyval->delete_fn) {
    int rc = attr.keyval->delete_fn(object, keyval, attr.value, attr.keyval->extra_state);
    if (rc != MPI_SUCCESS) return fail(rc, "attribute delete callback for keyval %d returned %d", keyval, rc);
  }
  return Rc();
}

Rc create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, void* extra_state,
                 int* keyval) {
  FABMPI_TRY(check_out_ptr(keyval, "keyval"));
  auto kv = std::make_shared<Keyval>();
  kv->copy_fn = copy_fn;
  kv->delete_fn = delete_fn;
  kv->extra_state = extra_state;
  kv->handle = library().keyvals.insert(kv);
  *keyval = kv->handle;
  return Rc();
}

Rc free_keyval(int* keyval) {
  FABMPI_TRY(check_out_ptr(keyval, "keyval"));
  if (is_predefined_keyval(*keyval)) return fail(MPI_ERR_KEYVAL, "predefined keyval %d cannot be freed", *keyval);
  KeyvalRef kv;
  FABMPI_TRY(to_keyval(*keyval, &kv));
  kv->freed = true;  // attributes still holding it keep it alive
  library().keyvals.erase(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return Rc();
}

Rc copy_attributes(int from_handle, const AttributeMap& from, AttributeMap& to) {
  for (const auto& [keyval, attr] : from) {
    if (!attr.keyval->copy_fn) continue;  // MPI_*_NULL_COPY_FN: not copied
    void* out = nullptr;
    int flag = 0;
    int rc = attr.keyval->copy_fn(from_handle, keyval, attr.keyval->extra_state, attr.value, &out, &flag);
    if (rc != MPI_SUCCESS) return fail(rc, "attribute copy callback for keyval %d returned %d", keyval, rc);
    if (flag) to[keyval] = Attribute{attr.keyval, out, attr.stamp};  // the copies keep their relative order
  }
  return Rc();
}

Rc delete_attributes(int handle, AttributeMap& attributes) {
  // One at a time, the most recently set first (a callback may touch the others).
  while (!attributes.empty()) {
    auto it = attributes.begin();
    for (auto k = attributes.begin(); k != attributes.end(); ++k)
      if (k->second.stamp > it->second.stamp) it = k;
    Attribute attr = it->second;
    int keyval = it->first;
    attributes.erase(it);
    FABMPI_TRY(run_delete_callback(handle, keyval, attr));
  }
  return Rc();
}

}  // namespace fabmpi::binding

extern "C" {

int MPIR_Dup_fn(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  ApiCall call("MPI_Comm_rank");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(rank, "rank"));
    *rank = c->rank();
    return Rc();
  }());
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int* size) {
  ApiCall call("MPI_Comm_size");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(size, "size"));
    *size = c->size();
    return Rc();
  }());
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  ApiCall call("MPI_Comm_get_attr");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    FABMPI_TRY(check_out_ptr(attribute_val, "attribute_val"));
    if (is_predefined_keyval(comm_keyval)) {
      // Predefined attributes hang on MPI_COMM_WORLD only (MPICH and Open MPI answer on every comm).
      *flag = predefined_attribute(comm_keyval, attribute_val);
      return Rc();
    }
    KeyvalRef kv;
    FABMPI_TRY(to_keyval(comm_keyval, &kv));
    auto it = c->attributes.find(comm_keyval);
    *flag = it != c->attributes.end();
    if (*flag) *static_cast<void**>(attribute_val) = it->second.value;
    return Rc();
  }());
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                            int* comm_keyval, void* extra_state) {
  ApiCall call("MPI_Comm_create_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return create_keyval(copy_fn, delete_fn, extra_state, comm_keyval);
  }());
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int* comm_keyval) {
  ApiCall call("MPI_Comm_free_keyval");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    return free_keyval(comm_keyval);
  }());
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  ApiCall call("MPI_Comm_set_attr");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    if (is_predefined_keyval(comm_keyval))
      return fail(MPI_ERR_KEYVAL, "predefined attribute %d cannot be set", comm_keyval);
    KeyvalRef kv;
    FABMPI_TRY(to_keyval(comm_keyval, &kv));
    auto it = c->attributes.find(comm_keyval);
    if (it != c->attributes.end()) {
      Comm::Attribute old = it->second;
      FABMPI_TRY(run_delete_callback(c->handle, comm_keyval, old));
    }
    c->attributes[comm_keyval] = Comm::Attribute{kv, attribute_val};
    return Rc();
  }());
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  ApiCall call("MPI_Comm_delete_attr");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    auto it = c->attributes.find(comm_keyval);  // a freed keyval still names its attributes
    if (it == c->attributes.end()) {
      KeyvalRef kv;
      FABMPI_TRY(to_keyval(comm_keyval, &kv));
      return fail(MPI_ERR_KEYVAL, "no attribute for keyval %d on this communicator", comm_keyval);
    }
    const Comm::Attribute attr = it->second;
    // The callback runs first: when it fails the attribute stays (MPI-3.1 6.7.2).
    FABMPI_TRY(run_delete_callback(c->handle, comm_keyval, attr));
    c->attributes.erase(comm_keyval);
    return Rc();
  }());
}

}  // extern "C"
