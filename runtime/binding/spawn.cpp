// Dynamic processes (MPI-3.1 10.3-10.5): MPI_Comm_spawn, MPI_Comm_spawn_multiple, MPI_Comm_get_parent,
// MPI_Comm_disconnect, ports (MPI_Open_port, MPI_Close_port, MPI_Comm_accept, MPI_Comm_connect),
// MPI_Comm_join and the name service. The work is runtime/dynamic.cpp's; here are the arguments
// (spawn's and the port's are significant at the root only) and the parent handle.
#include <cstdio>

#include "runtime/binding/library.hpp"
#include "runtime/dynamic.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

// One command of a spawn: program, argv (NULL-terminated; MPI_ARGV_NULL is none), count, info keys
// fabmpi uses ("wdir"; others, like "host" or "soft", are accepted and ignored).
Rc add_command(const char* command, char** argv, int maxprocs, MPI_Info info, pmi::SpawnRequest* request) {
  if (command == nullptr || *command == '\0') return fail(MPI_ERR_SPAWN, "empty command");
  if (maxprocs <= 0) return fail(MPI_ERR_SPAWN, "maxprocs %d: at least one process must be started", maxprocs);
  pmi::SpawnCommand c;
  c.program = command;
  c.maxprocs = maxprocs;
  for (char** a = argv; a != nullptr && *a != nullptr; ++a) c.args.emplace_back(*a);
  if (info != MPI_INFO_NULL) {
    InfoRef i;
    FABMPI_TRY(to_info(info, &i));
    if (const std::string* wdir = i->get("wdir")) c.wdir = *wdir;
  }
  request->commands.push_back(std::move(c));
  return Rc();
}

Rc spawn(ApiCall& call, MPI_Comm comm, int root, MPI_Comm* intercomm, int* errcodes, int expected_at_root,
         const std::function<Rc(pmi::SpawnRequest*)>& build) {
  CommRef c;
  FABMPI_TRY(call.comm(comm, &c));
  FABMPI_TRY(check_intra(*c));
  FABMPI_TRY(check_root(*c, root));
  FABMPI_TRY(check_out_ptr(intercomm, "intercomm"));
  pmi::SpawnRequest request;
  // A bad argument at the root still lets the others through the collective: the root spawns nothing.
  Rc args_rc;
  if (c->rank() == root) args_rc = build(&request);
  CommRef created;
  int spawned = 0;
  Rc rc = dynamic::spawn(c, root, request, args_rc.code(), &created, &spawned);
  const int count = c->rank() == root ? expected_at_root : spawned;
  if (errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < count; ++i) errcodes[i] = rc.ok() ? MPI_SUCCESS : rc.code();
  if (!args_rc.ok()) return args_rc;
  FABMPI_TRY(rc);
  created->errhandler = c->errhandler;
  *intercomm = new_comm_handle(created);
  return Rc();
}

// The parent intercommunicator of a spawned process (until freed or disconnected).
struct Parent {
  std::weak_ptr<Comm> comm;
  MPI_Comm handle = MPI_COMM_NULL;
};
Parent& parent() {
  static Parent p;
  return p;
}

}  // namespace

namespace fabmpi::binding {

// Called at the end of MPI_Init: a spawned job's parent intercommunicator (runtime/binding/env.cpp).
Rc connect_to_parents() {
  CommRef p;
  FABMPI_TRY(dynamic::connect_to_parents(runtime(), &p));
  if (!p) return Rc();
  p->name = "the parent intercommunicator";
  parent().comm = p;
  parent().handle = new_comm_handle(p);
  return Rc();
}

}  // namespace fabmpi::binding

extern "C" {

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
  ApiCall call("MPI_Comm_spawn");
  return call.finish(spawn(call, comm, root, intercomm, array_of_errcodes, maxprocs, [&](pmi::SpawnRequest* r) {
    return add_command(command, argv, maxprocs, info, r);
  }));
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm* intercomm, int array_of_errcodes[]) {
  ApiCall call("MPI_Comm_spawn_multiple");
  int total = 0;
  if (count > 0 && array_of_maxprocs)
    for (int i = 0; i < count; ++i) total += std::max(array_of_maxprocs[i], 0);
  return call.finish(spawn(call, comm, root, intercomm, array_of_errcodes, total, [&](pmi::SpawnRequest* r) -> Rc {
    if (count <= 0) return fail(MPI_ERR_ARG, "count %d: at least one command is needed", count);
    if (array_of_commands == nullptr || array_of_maxprocs == nullptr || array_of_info == nullptr)
      return fail(MPI_ERR_ARG, "NULL pointer passed for the commands, maxprocs or infos");
    for (int i = 0; i < count; ++i)
      FABMPI_TRY(add_command(array_of_commands[i], array_of_argv == MPI_ARGVS_NULL ? nullptr : array_of_argv[i],
                             array_of_maxprocs[i], array_of_info[i], r));
    return Rc();
  }));
}

namespace {

Rc check_name(const char* text, const char* what) {
  if (text == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the %s", what);
  return Rc();
}

// MPI_Comm_accept and MPI_Comm_connect: the shared argument checks and the publication of the result.
Rc port_call(ApiCall& call, const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm,
             bool accepting) {
  CommRef c;
  FABMPI_TRY(call.comm(comm, &c));
  FABMPI_TRY(check_intra(*c));
  FABMPI_TRY(check_root(*c, root));
  FABMPI_TRY(check_out_ptr(newcomm, "newcomm"));
  std::string port;
  if (c->rank() == root) {
    FABMPI_TRY(check_name(port_name, "port name"));
    FABMPI_TRY(optional_info(info));
    port = port_name;
  }
  CommRef created;
  FABMPI_TRY(accepting ? dynamic::accept(c, root, port, &created) : dynamic::connect(c, root, port, &created));
  created->errhandler = c->errhandler;
  *newcomm = new_comm_handle(created);
  return Rc();
}

}  // namespace

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char* port_name) {
  ApiCall call("MPI_Open_port");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(optional_info(info));
    FABMPI_TRY(check_out_ptr(port_name, "port_name"));
    std::string name;
    FABMPI_TRY(dynamic::open_port(runtime(), &name));
    std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", name.c_str());
    return Rc();
  }());
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char* port_name) {
  ApiCall call("MPI_Close_port");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(port_name, "port name"));
    return dynamic::close_port(runtime(), port_name);
  }());
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_accept");
  return call.finish(port_call(call, port_name, info, root, comm, newcomm, true));
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  ApiCall call("MPI_Comm_connect");
  return call.finish(port_call(call, port_name, info, root, comm, newcomm, false));
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  ApiCall call("MPI_Comm_join");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(intercomm, "intercomm"));
    if (fd < 0) return fail(MPI_ERR_ARG, "invalid descriptor %d", fd);
    CommRef created;
    FABMPI_TRY(dynamic::join(runtime(), fd, &created));
    created->errhandler = runtime().self()->errhandler;
    *intercomm = new_comm_handle(created);
    return Rc();
  }());
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  ApiCall call("MPI_Publish_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(service_name, "service name"));
    FABMPI_TRY(check_name(port_name, "port name"));
    FABMPI_TRY(optional_info(info));
    return dynamic::publish_name(runtime(), service_name, port_name);
  }());
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  ApiCall call("MPI_Unpublish_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(service_name, "service name"));
    FABMPI_TRY(check_name(port_name, "port name"));
    FABMPI_TRY(optional_info(info));
    return dynamic::unpublish_name(runtime(), service_name, port_name);
  }());
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  ApiCall call("MPI_Lookup_name");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_name(service_name, "service name"));
    FABMPI_TRY(check_out_ptr(port_name, "port_name"));
    FABMPI_TRY(optional_info(info));
    std::string port;
    FABMPI_TRY(dynamic::lookup_name(runtime(), service_name, &port));
    std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port.c_str());
    return Rc();
  }());
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm* parent_out) {
  ApiCall call("MPI_Comm_get_parent");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(parent_out, "parent"));
    // MPI_COMM_NULL once the handle was freed or disconnected (MPI-3.1 10.3.2).
    const CommRef p = parent().comm.lock();
    const CommRef* current = p ? library().comms.find(parent().handle) : nullptr;
    *parent_out = current && *current == p ? parent().handle : MPI_COMM_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm* comm) {
  {
    ApiCall call("MPI_Comm_disconnect");
    Rc rc = [&]() -> Rc {
      FABMPI_TRY(check_out_ptr(comm, "comm"));
      CommRef c;
      FABMPI_TRY(call.comm(*comm, &c));
      if (library().comms.is_predefined(*comm)) return fail(MPI_ERR_COMM, "%s cannot be disconnected", c->name.c_str());
      return Rc();
    }();
    if (!rc.ok()) return call.finish(rc);
  }
  // Collective: pending communication completes first (MPI-3.1 10.5.4), then the handle goes.
  CommRef c;
  if (const CommRef* found = library().comms.find(*comm)) c = *found;
  const int rc = PMPI_Barrier(*comm);
  if (rc != MPI_SUCCESS) return rc;
  if (c && c->is_inter()) runtime().pt2pt().forget_peers(c->remote_group()->world_ranks());
  return PMPI_Comm_free(comm);
}

}  // extern "C"
