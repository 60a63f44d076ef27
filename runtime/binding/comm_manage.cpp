// Communicator management (MPI-3.1 chapter 6): dup, idup, split, split_type, create, create_group,
// free, compare, group, names, info, MPI_Topo_test, and intercommunicators (create, merge, queries).
// The agreement work is in runtime/comm_create.cpp and runtime/intercomm.cpp; this file is handles,
// argument checks, attributes and info.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/binding/attributes.hpp"
#include "runtime/binding/library.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/group_ops.hpp"
#include "runtime/hardware_split.hpp"
#include "runtime/intercomm.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

InfoRef copy_info(const InfoRef& info) { return info ? std::make_shared<Info>(*info) : nullptr; }

// The hints of a user's info object that a communicator keeps (and MPI_Comm_get_info returns): MPI-3.1
// 6.4.4 returns "all hints actually used", so keys fabmpi does not know are dropped, as MPICH drops them.
// Kept: MPI-4.0's assertions (7.4.4), with a boolean value; fabmpi is correct without exploiting them,
// and MPICH and Open MPI report them back.
InfoRef comm_hints(const InfoRef& info) {
  if (!info) return nullptr;
  static constexpr const char* kKnown[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                           "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};
  auto kept = std::make_shared<Info>();
  for (const char* key : kKnown) {
    const std::string* value = info->get(key);
    if (value && (*value == "true" || *value == "false")) kept->set(key, *value);
  }
  return kept;
}

// Optional info argument: MPI_INFO_NULL means no hints.
Rc to_optional_info(MPI_Info handle, InfoRef* out) {
  if (handle == MPI_INFO_NULL) {
    out->reset();
    return Rc();
  }
  InfoRef info;
  FABMPI_TRY(to_info(handle, &info));
  *out = std::move(info);
  return Rc();
}

// Gives a newly created communicator its handle (or MPI_COMM_NULL when this process is not a member).
// Dup and idup first run the parent's attribute copy callbacks; a failing callback frees the new
// communicator and its error is the call's.
Rc publish(const CommRef& parent, const CommRef& created, bool copy_attributes, InfoRef info, MPI_Comm* newcomm) {
  if (!created) {
    *newcomm = MPI_COMM_NULL;
    return Rc();
  }
  if (copy_attributes) {
    created->topology = parent->topology;  // a dup keeps the process topology (MPI-3.1 section 7.4)
    Rc rc = copy_comm_attributes(*parent, *created);
    if (!rc.ok()) {
      (void)delete_comm_attributes(*created);
      *newcomm = MPI_COMM_NULL;  // as MPICH: no half-made communicator
      return rc;
    }
  }
  created->info = std::move(info);
  *newcomm = new_comm_handle(created);
  return Rc();
}

Rc check_subgroup(const Comm& comm, const Group& group) {
  if (!group_ops::is_subset(group, *comm.group()))
    return fail(MPI_ERR_GROUP, "the group (size %d) is not a subset of the communicator's group (size %d)",
                group.size(), comm.size());
  return Rc();
}

// MPI_Comm_idup and MPI_Comm_idup_with_info: the new communicator gets `info` as its hints.
Rc start_idup(const CommRef& c, InfoRef info, MPI_Comm* newcomm, MPI_Request* request) {
  FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
  FABMPI_TRY(check_out_ptr(request, "request"));
  // The new handle is written when the agreement completes (inside progress): the standard forbids
  // reading *newcomm before the request completes.
  auto publish_new = [c, newcomm, info](const CommRef& created) { return publish(c, created, true, info, newcomm); };
  RequestRef req;
  FABMPI_TRY(c->is_inter() ? intercomm::start_dup(c, publish_new, &req) : comm_create::start_dup(c, publish_new, &req));
  *request = new_request_handle(req);
  return Rc();
}

// MPI_COMM_TYPE_HW_UNGUIDED: the coarsest hardware level at which the members of `c` fall into at least
// two groups, every member within one object of it; every member learns every member's colors (one
// allgather), so all choose the same level. No such level: MPI_UNDEFINED everywhere (MPI_COMM_NULL).
Rc unguided_level(const CommRef& c, int node, int* color, std::string* resource) {
  *color = MPI_UNDEFINED;
  if (c->is_inter()) return Rc();  // defined on intracommunicators
  const std::vector<std::string>& levels = hardware::unguided_levels();
  const int n = static_cast<int>(levels.size());
  std::vector<int> mine(levels.size());
  for (int l = 0; l < n; ++l) mine[static_cast<std::size_t>(l)] = hardware::resource_color(levels[static_cast<std::size_t>(l)], node);
  std::vector<int> all(levels.size() * static_cast<std::size_t>(c->size()));
  const int rc = PMPI_Allgather(mine.data(), n, MPI_INT, all.data(), n, MPI_INT, c->handle);
  if (rc != MPI_SUCCESS) return Rc(rc);
  for (int l = 0; l < n; ++l) {
    bool everyone_within = true, split = false;
    const int first = all[static_cast<std::size_t>(l)];
    for (int r = 0; r < c->size(); ++r) {
      const int v = all[static_cast<std::size_t>(r * n + l)];
      everyone_within = everyone_within && v >= 0;
      split = split || v != first;
    }
    if (everyone_within && split) {
      *color = mine[static_cast<std::size_t>(l)];
      *resource = levels[static_cast<std::size_t>(l)];
      return Rc();
    }
  }
  return Rc();
}

Rc split_and_publish(const CommRef& c, int color, int key, MPI_Comm* newcomm) {
  CommRef created;
  FABMPI_TRY(c->is_inter() ? intercomm::split(c, color, key, &created) : comm_create::split(c, color, key, &created));
  return publish(c, created, false, nullptr, newcomm);
}

}  // namespace

extern "C" {

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_dup");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    CommRef created;
    FABMPI_TRY(c->is_inter() ? intercomm::dup(c, &created) : comm_create::dup(c, &created));
    return publish(c, created, true, copy_info(c->info), newcomm);
  }());
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_dup_with_info");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    InfoRef hints;
    FABMPI_TRY(to_optional_info(info, &hints));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    CommRef created;
    FABMPI_TRY(c->is_inter() ? intercomm::dup(c, &created) : comm_create::dup(c, &created));
    return publish(c, created, true, comm_hints(hints), newcomm);
  }());
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  ApiCall call("MPI_Comm_idup");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    return start_idup(c, copy_info(c->info), newcomm, request);
  }());
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  ApiCall call("MPI_Comm_idup_with_info");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    InfoRef hints;
    FABMPI_TRY(to_optional_info(info, &hints));
    return start_idup(c, comm_hints(hints), newcomm, request);
  }());
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_split");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    if (color < 0 && color != MPI_UNDEFINED)
      return fail(MPI_ERR_ARG, "invalid color %d (colors are >= 0 or MPI_UNDEFINED)", color);
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    return split_and_publish(c, color, key, newcomm);
  }());
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_split_type");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
        split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_UNDEFINED)
      return fail(MPI_ERR_ARG,
                  "invalid split_type %d (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED "
                  "or MPI_UNDEFINED)", split_type);
    InfoRef hints;
    FABMPI_TRY(to_optional_info(info, &hints));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    // The node index the launcher assigned, never the host name (tests emulate several hosts).
    const Runtime& rt = c->runtime();
    const int node = rt.node_of_rank()[static_cast<std::size_t>(rt.world_rank())];
    int color = MPI_UNDEFINED;
    std::string resource;  // HW splits: the resource type the new communicator stands for
    if (split_type == MPI_COMM_TYPE_SHARED) {
      color = node;
    } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
      // No key, or a type this implementation does not know: MPI_COMM_NULL (MPI-4.0 7.4.2).
      const std::string* asked = hints ? hints->get("mpi_hw_resource_type") : nullptr;
      if (asked) {
        if (auto type = hardware::canonical_type(*asked)) {
          const int hw = hardware::resource_color(*type, node);
          if (hw >= 0) color = hw, resource = *asked;
        }
      }
    } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
      FABMPI_TRY(unguided_level(c, node, &color, &resource));
    }
    FABMPI_TRY(split_and_publish(c, color, key, newcomm));
    if (*newcomm != MPI_COMM_NULL && !resource.empty()) {
      // The new communicator's info says which resource it stands for; like MPICH, the caller's info
      // object says it too (HW_UNGUIDED chooses the level).
      CommRef created;
      FABMPI_TRY(call.comm(*newcomm, &created));
      if (!created->info) created->info = std::make_shared<Info>();
      created->info->set("mpi_hw_resource_type", resource);
      if (hints && split_type == MPI_COMM_TYPE_HW_UNGUIDED) hints->set("mpi_hw_resource_type", resource);
    }
    return Rc();
  }());
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_create");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    FABMPI_TRY(check_subgroup(*c, *g));
    if (c->is_inter()) {
      // The group is a subgroup of the local group; the remote group is the one the other side gave.
      const int rank_in_group = g->rank_of_world(c->runtime().world_rank());
      return split_and_publish(c, rank_in_group == MPI_UNDEFINED ? MPI_UNDEFINED : 0, rank_in_group, newcomm);
    }
    CommRef created;
    FABMPI_TRY(comm_create::create(c, g, &created));
    return publish(c, created, false, nullptr, newcomm);
  }());
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_create_group");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_intra(*c));
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    FABMPI_TRY(check_subgroup(*c, *g));
    CommRef created;
    FABMPI_TRY(comm_create::create_group(c, g, tag, &created));
    return publish(c, created, false, nullptr, newcomm);
  }());
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm* comm) {
  ApiCall call("MPI_Comm_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(comm, "comm"));
    CommRef c;
    FABMPI_TRY(call.comm(*comm, &c));
    if (library().comms.is_predefined(*comm))
      return fail(MPI_ERR_COMM, "%s cannot be freed", c->name.c_str());
    FABMPI_TRY(delete_comm_attributes(*c));
    // Requests still holding the communicator keep it (and its context id) alive until they finish.
    library().comms.erase(*comm);
    *comm = MPI_COMM_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  ApiCall call("MPI_Comm_compare");
  return call.finish([&]() -> Rc {
    CommRef a, b;
    FABMPI_TRY(call.comm(comm2, &b));
    FABMPI_TRY(call.comm(comm1, &a));
    FABMPI_TRY(check_out_ptr(result, "result"));
    if (a == b) {
      *result = MPI_IDENT;
      return Rc();
    }
    if (a->is_inter() != b->is_inter()) {
      *result = MPI_UNEQUAL;
      return Rc();
    }
    // Intercommunicators: both the local and the remote groups are compared (MPI-3.1 6.6.1).
    int local = group_ops::compare(*a->group(), *b->group());
    if (a->is_inter() && local != MPI_UNEQUAL) {
      const int remote = group_ops::compare(*a->remote_group(), *b->remote_group());
      if (remote == MPI_UNEQUAL || remote == MPI_SIMILAR) local = remote;
    }
    switch (local) {
      case MPI_IDENT: *result = MPI_CONGRUENT; break;
      case MPI_SIMILAR: *result = MPI_SIMILAR; break;
      default: *result = MPI_UNEQUAL; break;
    }
    return Rc();
  }());
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  ApiCall call("MPI_Comm_group");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(group, "group"));
    *group = new_group_handle(c->group());
    return Rc();
  }());
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  ApiCall call("MPI_Comm_set_name");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(comm_name, "comm_name"));
    // Longer names are truncated (MPI-3.1 section 6.8).
    c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
    c->runtime().context_ids()->set_name(c->context_id(), c->name);  // for hang reports
    return Rc();
  }());
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  ApiCall call("MPI_Comm_get_name");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    return copy_object_name(c->name, comm_name, resultlen, "comm_name");
  }());
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  ApiCall call("MPI_Comm_test_inter");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = c->is_inter() ? 1 : 0;
    return Rc();
  }());
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  ApiCall call("MPI_Comm_remote_size");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(size, "size"));
    FABMPI_TRY(check_inter(*c));
    *size = c->remote_group()->size();
    return Rc();
  }());
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  ApiCall call("MPI_Comm_remote_group");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(group, "group"));
    FABMPI_TRY(check_inter(*c));
    *group = new_group_handle(c->remote_group());
    return Rc();
  }());
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  ApiCall call("MPI_Intercomm_create");
  return call.finish([&]() -> Rc {
    CommRef local;
    FABMPI_TRY(call.comm(local_comm, &local));
    FABMPI_TRY(check_intra(*local));
    if (local_leader < 0 || local_leader >= local->size())
      return fail(MPI_ERR_RANK, "invalid local_leader %d (local_comm has %d ranks)", local_leader, local->size());
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_out_ptr(newintercomm, "newintercomm"));
    // peer_comm and remote_leader are significant at the local leader only.
    CommRef peer;
    if (local->rank() == local_leader) {
      FABMPI_TRY(call.other_comm(peer_comm, &peer));
      if (remote_leader < 0 || remote_leader >= peer->peer_size())
        return fail(MPI_ERR_RANK, "invalid remote_leader %d (peer_comm has %d ranks)", remote_leader,
                    peer->peer_size());
      if (!peer->is_inter() && remote_leader == peer->rank())
        return fail(MPI_ERR_RANK, "remote_leader %d is the local leader itself", remote_leader);
    }
    CommRef created;
    FABMPI_TRY(intercomm::create(local, local_leader, peer, remote_leader, tag, &created));
    return publish(local, created, false, nullptr, newintercomm);
  }());
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  ApiCall call("MPI_Intercomm_merge");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(intercomm, &c));
    FABMPI_TRY(check_out_ptr(newintracomm, "newintracomm"));
    FABMPI_TRY(check_inter(*c));
    CommRef created;
    FABMPI_TRY(intercomm::merge(c, high != 0, &created));
    return publish(c, created, false, nullptr, newintracomm);
  }());
}

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  ApiCall call("MPI_Comm_set_info");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    InfoRef hints;
    FABMPI_TRY(to_info(info, &hints));
    c->info = comm_hints(hints);  // a copy: the user may free `info` right after
    return Rc();
  }());
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  ApiCall call("MPI_Comm_get_info");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(info_used, "info_used"));
    auto copy = c->info ? std::make_shared<Info>(*c->info) : std::make_shared<Info>();
    copy->handle = library().infos.insert(copy);
    *info_used = copy->handle;
    return Rc();
  }());
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int* status) {
  ApiCall call("MPI_Topo_test");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_out_ptr(status, "status"));
    *status = c->topology ? static_cast<int>(c->topology->kind) : MPI_UNDEFINED;
    return Rc();
  }());
}

}  // extern "C"
