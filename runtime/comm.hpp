// A communicator: a group, this process's rank in it, a context id that separates its traffic from every
// other communicator's, and the objects a user hangs on it (error handler, name, attributes, info).
// An intercommunicator (MPI-3.1 6.6) also has a remote group: point-to-point ranks name processes of
// the remote group, and a companion intracommunicator over the local group carries the local steps of
// creating communicators from it (runtime/intercomm.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "runtime/attributes.hpp"
#include "runtime/context_ids.hpp"
#include "runtime/errhandler.hpp"
#include "runtime/group.hpp"
#include "runtime/info.hpp"
#include "runtime/topology.hpp"

namespace fabmpi {

class Runtime;

// State a subsystem keeps per communicator and frees with it (the shared-memory collectives' region,
// coll/shm_region.hpp); only its owner looks inside.
class CommExtension {
 public:
  virtual ~CommExtension() = default;
};

class Comm {
 public:
  Comm(Runtime& runtime, std::uint32_t context_id, GroupRef group, int rank)
      : runtime_(runtime), context_id_(context_id), group_(std::move(group)), rank_(rank), peers_(group_.get()) {}
  // Returns the context id to its pool, if the communicator owns one (every one but WORLD and SELF).
  ~Comm() {
    if (context_pool_) context_pool_->release(context_id_);
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  Runtime& runtime() const noexcept { return runtime_; }
  std::uint32_t context_id() const noexcept { return context_id_; }
  const GroupRef& group() const noexcept { return group_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return group_->size(); }
  // The world rank of the process `rank` addresses in point-to-point: a member of the group, or of the
  // remote group on an intercommunicator.
  int world_rank(int rank) const noexcept { return peer_group().world_rank(rank); }

  bool is_inter() const noexcept { return remote_group_ != nullptr; }
  const GroupRef& remote_group() const noexcept { return remote_group_; }
  // How many ranks point-to-point can address: the size, or the remote size on an intercommunicator.
  int peer_size() const noexcept { return peer_group().size(); }
  // Intercommunicators: the companion intracommunicator over the local group (same group and rank).
  const std::shared_ptr<Comm>& local_comm() const noexcept { return local_comm_; }
  void make_inter(GroupRef remote_group, std::shared_ptr<Comm> local_comm) {
    remote_group_ = std::move(remote_group);
    local_comm_ = std::move(local_comm);
    peers_ = remote_group_.get();
    if (context_pool_) context_pool_->set_peers(context_id_, remote_group_);
  }

  // Sequence number of the next collective on this communicator: every member issues collectives in
  // the same order, so (context, sequence) names one collective instance across all ranks.
  std::uint32_t next_collective_sequence() noexcept { return collective_sequence_++; }
  // Same, for the exchanges that create communicators from this one (runtime/comm_create.cpp); a
  // separate count so that they never shift the collectives' numbering.
  std::uint32_t next_creation_sequence() noexcept { return creation_sequence_++; }
  // The pool this communicator's context id goes back to when it is destroyed (set on creation).
  void set_context_id_pool(std::shared_ptr<ContextIdPool> pool) {
    context_pool_ = std::move(pool);
    context_pool_->set_peers(context_id_, remote_group_ ? remote_group_ : group_);
  }

  ErrhandlerRef errhandler;
  std::string name;
  // How messages (hang reports) name it: its name, else its context id.
  std::string display_name() const {
    return name.empty() ? "the communicator with context id " + std::to_string(context_id_) : name;
  }
  InfoRef info;
  using Attribute = fabmpi::Attribute;
  AttributeMap attributes;
  int handle = MPI_COMM_NULL;           // set by the binding layer
  TopologyRef topology;                 // MPI_Cart_create & co.; shared by MPI_Comm_dup
  // Shared-memory collectives (coll/shm_region.hpp): whether this communicator may use them and, once
  // the first one ran, the region they run in. Never copied by MPI_Comm_dup.
  enum class ShmColl : std::uint8_t { unknown, eligible, ready, unavailable };
  ShmColl shm_coll = ShmColl::unknown;
  std::unique_ptr<CommExtension> shm_region;

 private:
  Runtime& runtime_;
  std::uint32_t context_id_;
  GroupRef group_;
  int rank_;
  std::uint32_t collective_sequence_ = 0;
  std::uint32_t creation_sequence_ = 0;
  std::shared_ptr<ContextIdPool> context_pool_;
  GroupRef remote_group_;
  std::shared_ptr<Comm> local_comm_;

  // What point-to-point ranks index (group_ or remote_group_): one load on the send path, no branch.
  const Group* peers_;
  const Group& peer_group() const noexcept { return *peers_; }
};

using CommRef = std::shared_ptr<Comm>;

}  // namespace fabmpi
