// A request: the handle of an operation in flight (send, receive, collective, persistent, generalized).
// Completion is published with release semantics so a thread that sees it also sees the status.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <memory>

#include "runtime/rc.hpp"

namespace fabmpi {

class Comm;

class Request {
 public:
  enum class Kind : std::uint8_t {
    send, recv, collective, persistent_send, persistent_recv, persistent_collective, generalized
  };

  // What the binding layer asks of every request it completes, without a dynamic_cast (one costs tens of
  // nanoseconds, a type-name strcmp when it fails): an MPI_Mprobe message in the request table, or a
  // user's generalized request, whose query_fn and free_fn run when it completes. Fixed at construction.
  enum class Role : std::uint8_t { plain, message, user_generalized };

  explicit Request(Kind kind, Role role = Role::plain) noexcept : kind_(kind), role_(role) {}
  virtual ~Request() = default;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  Kind kind() const noexcept { return kind_; }
  Role role() const noexcept { return role_; }
  bool is_complete() const noexcept { return complete_.load(std::memory_order_acquire); }
  void mark_complete() noexcept { complete_.store(true, std::memory_order_release); }
  void reset_for_restart() noexcept { complete_.store(false, std::memory_order_relaxed); cancelled = false; error = MPI_SUCCESS; }

  // Persistent requests: start a new round (MPI_Start). Others: MPI_ERR_REQUEST.
  virtual Rc start() { return Rc(MPI_ERR_REQUEST); }
  // MPI_Cancel. Returns success whether or not the cancel takes effect; a successful cancel sets
  // `cancelled` and completes the request.
  virtual Rc cancel() { return Rc(); }
  // Persistent requests (the persistent kinds) are inactive between rounds. Not virtual: a Waitall
  // asks it of every request on every pass (np=2 streaming 8 B: 8-14 % of each rank's time in the
  // virtual call, one cache miss on a vtable per request).
  bool is_persistent() const noexcept {
    return kind_ == Kind::persistent_send || kind_ == Kind::persistent_recv || kind_ == Kind::persistent_collective;
  }
  virtual bool is_active() const noexcept { return true; }
  // A persistent request's round has been completed by a Wait/Test call: inactive until the next start.
  virtual void deactivate() noexcept {}

  // The communicator whose error handler reports this request's errors (nullptr: MPI_COMM_WORLD's).
  virtual std::shared_ptr<Comm> communicator() const { return nullptr; }

  // Fills an MPI_Status from the fields below.
  void fill_status(MPI_Status* status) const noexcept;

  // Status, valid once complete.
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  int error = MPI_SUCCESS;
  std::size_t count_bytes = 0;
  bool cancelled = false;

  int handle = MPI_REQUEST_NULL;  // set by the binding layer
  // The world rank whose action completes this request, when there is one and the transfer is small (a
  // receive from a named source, a send; FABMPI_COSCHEDULE_MAX): waits on an oversubscribed node spin
  // while it runs (Runtime::wait_for). -1: none.
  int wait_peer = -1;

 private:
  Kind kind_;
  Role role_;
  std::atomic<bool> complete_{false};
};

using RequestRef = std::shared_ptr<Request>;

// A request that is complete from birth (MPI_PROC_NULL operations, zero-size collectives on one rank).
class CompletedRequest final : public Request {
 public:
  explicit CompletedRequest(Kind kind, int source_rank = MPI_PROC_NULL, int msg_tag = MPI_ANY_TAG) noexcept
      : Request(kind) {
    source = source_rank;
    tag = msg_tag;
    mark_complete();
  }
};

}  // namespace fabmpi
