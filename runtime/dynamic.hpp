// Dynamic processes (MPI-3.1 10.3): MPI_Comm_spawn(_multiple) and the spawned side's parent
// intercommunicator.
//
// fabmpi's mpirun numbers the processes of all its jobs in one "universe" (launcher/pmi_server.hpp):
// the first job is 0..n-1, a spawned job of m processes the next m indices. Groups list universe
// indices, so an intercommunicator between two jobs is an ordinary one (runtime/intercomm.hpp) once
// each side can address the other: processes of another job are reached over the network transport,
// whose addresses both jobs publish in mpirun's key-value store (pt2pt::Engine::add_peers).
//
// The spawn: every process of the parent communicator opens its network endpoint; the root asks mpirun
// for the job, handing it the parents' universe indices and the root's as a preput key; the root
// broadcasts the outcome; then the parents and, inside MPI_Init, the children build the
// intercommunicator with MPI_Intercomm_create's machinery, the two leaders (the root and child 0)
// talking over a two-process bridge communicator with a context id reserved for bridges.
#pragma once

#include <vector>

#include "common/pmi_wire.hpp"
#include "runtime/comm.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::dynamic {

// Collective over `comm`; `request` and `root_error` matter at the root only (root_error: the class of
// an argument error found there, which every process then returns, nothing started). On success
// *intercomm joins comm's group (local) and the new processes (remote); *spawned is how many started.
Rc spawn(const CommRef& comm, int root, const pmi::SpawnRequest& request, int root_error, CommRef* intercomm,
         int* spawned);

// Inside MPI_Init, collective over the new MPI_COMM_WORLD: the intercommunicator to the parents, or
// null when this job was not spawned.
Rc connect_to_parents(Runtime& runtime, CommRef* parent);

// ---- ports (MPI-3.1 10.4). A port names its process and a number: "fabmpi-port:<universe index>:<n>".
// MPI_Comm_connect's root sends the accepting root a request (its universe index and the tag the two
// leaders will trade on) on the bridge context; the accepting root takes requests from any process,
// and both sides then run MPI_Intercomm_create's machinery as for a spawn.
Rc open_port(Runtime& runtime, std::string* name);
Rc close_port(Runtime& runtime, const std::string& name);
// `port` matters at the root only.
Rc accept(const CommRef& comm, int root, const std::string& port, CommRef* intercomm);
Rc connect(const CommRef& comm, int root, const std::string& port, CommRef* intercomm);
// MPI_Comm_join: the two processes at the ends of a connected socket trade universe indices over it.
Rc join(Runtime& runtime, int fd, CommRef* intercomm);

// Name service (MPI-3.1 10.4.4) over the launcher's key-value store: names published by any job of
// the mpirun are found by all of them.
Rc publish_name(Runtime& runtime, const std::string& service, const std::string& port);
Rc unpublish_name(Runtime& runtime, const std::string& service, const std::string& port);
Rc lookup_name(Runtime& runtime, const std::string& service, std::string* port);

}  // namespace fabmpi::dynamic
