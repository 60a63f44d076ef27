// MPI-4.0 sessions (MPI-4.0 11.3): MPI_Session_init/finalize, process sets, groups from them,
// MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups and the session error handlers.
//
// A session may start the runtime (no MPI_Init needed); the runtime ends with MPI_Finalize or, after
// it, with the last MPI_Session_finalize (env.cpp), or at exit when only sessions ever used it. The
// process sets are "mpi://WORLD" (this job's processes) and "mpi://SELF". A communicator from a group
// is agreed on by the group's members over the world's processes (MPI_Comm_create_group's machinery
// with a tag derived from the string tag), so its group must lie within this job.
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "runtime/binding/library.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/group_ops.hpp"
#include "runtime/intercomm.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

constexpr const char* kWorldPset = "mpi://WORLD";
constexpr const char* kSelfPset = "mpi://SELF";

Rc to_session(ApiCall& call, MPI_Session handle, std::shared_ptr<Session>* out) {
  const std::shared_ptr<Session>* found = library().sessions.find(handle);
  if (!found) return fail(MPI_ERR_SESSION, "invalid session handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  call.report_to_session(out->get());
  return Rc();
}

// MPI_ERRHANDLER_NULL means the default, MPI_ERRORS_ARE_FATAL.
Rc errhandler_arg(MPI_Errhandler handle, ErrhandlerRef* out) {
  if (handle == MPI_ERRHANDLER_NULL) {
    *out = predefined_errhandler(Errhandler::Kind::are_fatal);
    return Rc();
  }
  return to_errhandler(handle, out);
}

// The level a session asks for: MPI-4.1's "mpi_thread_support_level", or MPI-4.0's "thread_level".
// Without either, MPI_THREAD_MULTIPLE: MPI-4.0 11.3.1 discourages a SINGLE default for sessions (a
// library opening its own session cannot know what threads the application runs), and MPICH's default
// is the same.
int thread_level_of(const Info* info) {
  const std::string* level = info ? info->get("mpi_thread_support_level") : nullptr;
  if (level == nullptr && info) level = info->get("thread_level");
  return level ? thread_level_from_name(*level) : MPI_THREAD_MULTIPLE;
}

Rc pset_group(const char* name, GroupRef* out) {
  if (name == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the process set name");
  // The names are matched without regard to case, as MPICH and Open MPI match them ("mpi://self").
  if (strcasecmp(name, kWorldPset) == 0) *out = runtime().world()->group();
  else if (strcasecmp(name, kSelfPset) == 0) *out = runtime().self()->group();
  else return fail(MPI_ERR_ARG, "unknown process set '%.80s' (fabmpi has mpi://WORLD and mpi://SELF)", name);
  return Rc();
}

MPI_Info new_info(std::shared_ptr<Info> info) {
  info->handle = library().infos.insert(info);
  return info->handle;
}

// The tag creating a communicator from a group and a string tag uses (MPI_Comm_create_group's space).
int tag_of(const std::string& stringtag) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : stringtag) h = (h ^ c) * 16777619u;
  return static_cast<int>(h & comm_create::kTagUserMask);
}

// The communicator over `group` (this process a member), agreed among its members over the world.
Rc comm_from_group(const GroupRef& group, const std::string& stringtag, CommRef* out) {
  const CommRef& world = runtime().world();
  if (group->rank_of_world(runtime().world_rank()) == MPI_UNDEFINED)
    return fail(MPI_ERR_GROUP, "this process is not a member of the group");
  if (!group_ops::is_subset(*group, *world->group()))
    return fail(MPI_ERR_GROUP, "the group has processes of another job (spawned or parent): not supported");
  return comm_create::create_group(world, group, tag_of(stringtag), out);
}

}  // namespace

extern "C" {

#pragma weak MPI_Session_init = PMPI_Session_init
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  ApiCall call("MPI_Session_init");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(session, "session"));
    Library& lib = library();
    if (lib.state == LibraryState::finalized) return fail(MPI_ERR_OTHER, "MPI was finalized: no new session");
    // Info objects exist before any initialization (MPI-4.0 11.4): the requested thread level is read
    // before the runtime starts, since it decides the level the runtime starts with.
    InfoRef given;
    FABMPI_TRY(optional_info(info, &given));
    const int level = thread_level_of(given.get());
    if (lib.state != LibraryState::initialized) {
      FABMPI_TRY(start_runtime_for_session(level));
      // A process that only ever uses sessions still leaves the job cleanly.
      static bool registered = false;
      if (!registered) {
        registered = true;
        std::atexit([] {
          Library& l = library();
          if (l.state == LibraryState::initialized && !l.world_initialized) (void)stop_runtime();
        });
      }
    }
    auto s = std::make_shared<Session>();
    FABMPI_TRY(errhandler_arg(errhandler, &s->errhandler));
    s->thread_level = std::min(level, lib.runtime->thread_level());
    s->info = std::make_shared<Info>();
    s->info->set("mpi_thread_support_level", thread_level_name(s->thread_level));
    s->info->set("thread_level", thread_level_name(s->thread_level));
    s->handle = lib.sessions.insert(s);
    ++lib.open_sessions;
    *session = s->handle;
    return Rc();
  }());
}

#pragma weak MPI_Session_finalize = PMPI_Session_finalize
int PMPI_Session_finalize(MPI_Session* session) {
  bool last = false;
  {
    ApiCall call("MPI_Session_finalize");
    Rc rc = [&]() -> Rc {
      FABMPI_TRY(check_out_ptr(session, "session"));
      std::shared_ptr<Session> s;
      FABMPI_TRY(to_session(call, *session, &s));
      Library& lib = library();
      lib.sessions.erase(*session);
      *session = MPI_SESSION_NULL;
      last = --lib.open_sessions == 0 && lib.world_finalized;
      return Rc();
    }();
    if (!rc.ok()) return call.finish(rc);
  }
  return last ? stop_runtime() : MPI_SUCCESS;  // MPI_Finalize came first: the runtime ends now
}

#pragma weak MPI_Session_get_info = PMPI_Session_get_info
int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  ApiCall call("MPI_Session_get_info");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_out_ptr(info_used, "info_used"));
    *info_used = new_info(std::make_shared<Info>(*s->info));
    return Rc();
  }());
}

#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  ApiCall call("MPI_Session_get_num_psets");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(optional_info(info));
    FABMPI_TRY(check_out_ptr(npset_names, "npset_names"));
    *npset_names = 2;
    return Rc();
  }());
}

#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name) {
  ApiCall call("MPI_Session_get_nth_pset");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(optional_info(info));
    FABMPI_TRY(check_out_ptr(pset_len, "pset_len"));
    if (n < 0 || n > 1) return fail(MPI_ERR_ARG, "process set %d does not exist (there are 2)", n);
    const char* name = n == 0 ? kWorldPset : kSelfPset;
    const int needed = static_cast<int>(std::strlen(name)) + 1;
    // MPI-4.0 11.3.2: *pset_len 0 asks for the length (with the terminating null); else up to that many.
    if (*pset_len == 0) {
      *pset_len = needed;
      return Rc();
    }
    FABMPI_TRY(check_out_ptr(pset_name, "pset_name"));
    const int copy = std::min(*pset_len, needed);
    std::memcpy(pset_name, name, static_cast<std::size_t>(copy - 1));
    pset_name[copy - 1] = '\0';
    *pset_len = needed;
    return Rc();
  }());
}

#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  ApiCall call("MPI_Session_get_pset_info");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_out_ptr(info, "info"));
    GroupRef g;
    FABMPI_TRY(pset_group(pset_name, &g));
    auto i = std::make_shared<Info>();
    i->set("mpi_size", std::to_string(g->size()));
    *info = new_info(std::move(i));
    return Rc();
  }());
}

#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  ApiCall call("MPI_Group_from_session_pset");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_out_ptr(newgroup, "newgroup"));
    GroupRef g;
    FABMPI_TRY(pset_group(pset_name, &g));
    *newgroup = new_group_handle(g);
    return Rc();
  }());
}

#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_create_from_group");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    if (stringtag == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the string tag");
    InfoRef i;
    FABMPI_TRY(optional_info(info, &i));
    ErrhandlerRef eh;
    FABMPI_TRY(errhandler_arg(errhandler, &eh));
    FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
    CommRef created;
    FABMPI_TRY(comm_from_group(g, stringtag, &created));
    created->errhandler = eh;
    if (i) created->info = std::make_shared<Info>(*i);
    *newcomm = new_comm_handle(created);
    return Rc();
  }());
}

#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  ApiCall call("MPI_Intercomm_create_from_groups");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef local, remote;
    FABMPI_TRY(to_group(local_group, &local));
    FABMPI_TRY(to_group(remote_group, &remote));
    if (stringtag == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the string tag");
    if (local_leader < 0 || local_leader >= local->size())
      return fail(MPI_ERR_RANK, "invalid local_leader %d (the local group has %d processes)", local_leader,
                  local->size());
    if (remote_leader < 0 || remote_leader >= remote->size())
      return fail(MPI_ERR_RANK, "invalid remote_leader %d (the remote group has %d processes)", remote_leader,
                  remote->size());
    FABMPI_TRY(optional_info(info));
    ErrhandlerRef eh;
    FABMPI_TRY(errhandler_arg(errhandler, &eh));
    FABMPI_TRY(check_out_ptr(newintercomm, "newintercomm"));
    if (!group_ops::is_subset(*remote, *runtime().world()->group()))
      return fail(MPI_ERR_GROUP, "the remote group has processes of another job: not supported");
    // The local part first (its own string tag space), then MPI_Intercomm_create with the world as the
    // peer communicator: both leaders know each other's world rank from the groups.
    CommRef local_comm;
    FABMPI_TRY(comm_from_group(local, std::string(stringtag) + "\n(local part)", &local_comm));
    const int remote_world_rank = remote->world_ranks()[static_cast<std::size_t>(remote_leader)] -
                                  runtime().world_base();
    CommRef created;
    FABMPI_TRY(intercomm::create(local_comm, local_leader, runtime().world(), remote_world_rank, tag_of(stringtag),
                                 &created));
    created->errhandler = eh;
    *newintercomm = new_comm_handle(created);
    return Rc();
  }());
}

#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Session_create_errhandler");
  return call.finish([&]() -> Rc {  // may come before MPI_Session_init (MPI-4.0 11.2.1)
    auto eh = std::make_shared<Errhandler>();
    eh->session_fn = fn;
    return publish_user_errhandler(reinterpret_cast<const void*>(fn), std::move(eh), errhandler);
  }());
}

#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  ApiCall call("MPI_Session_set_errhandler");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    ErrhandlerRef eh;
    FABMPI_TRY(to_errhandler(errhandler, &eh));
    if (eh->kind == Errhandler::Kind::user && !eh->session_fn)
      return fail(MPI_ERR_ARG, "the error handler was not created for sessions (MPI_Session_create_errhandler)");
    s->errhandler = std::move(eh);
    return Rc();
  }());
}

#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_Session_get_errhandler");
  return call.finish([&]() -> Rc {
    std::shared_ptr<Session> s;
    FABMPI_TRY(to_session(call, session, &s));
    FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
    *errhandler = errhandler_reference(s->errhandler);
    return Rc();
  }());
}

#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  ApiCall call("MPI_Session_call_errhandler");
  std::shared_ptr<Session> s;
  if (Rc rc = to_session(call, session, &s); !rc.ok()) return call.finish(rc);
  // The handler runs as for an error of a call on this session; the call itself succeeds.
  (void)call.finish(fail(errorcode, "MPI_Session_call_errhandler"));
  return MPI_SUCCESS;
}

}  // extern "C"
