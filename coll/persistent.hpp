// MPI-4 persistent collectives (MPI_Bcast_init and the rest): a request that keeps a checked call's
// arguments as a start function and runs it at each MPI_Start. Every round is an ordinary nonblocking
// collective (selection, a fresh collective tag: starts must come in the same order on every rank, as
// the standard requires); the round's collective request completes this one when it finishes.
#pragma once

#include <functional>
#include <memory>

#include "coll/engine.hpp"

namespace fabmpi::coll {

class PersistentCollective final : public Request, public std::enable_shared_from_this<PersistentCollective> {
 public:
  // Starts one round: fills *out with the round's request (a CollRequest).
  using Starter = std::function<Rc(RequestRef* out)>;

  PersistentCollective(CommRef comm, Starter start)
      : Request(Kind::persistent_collective), comm_(std::move(comm)), start_(std::move(start)) {}

  Rc start() override;
  bool is_active() const noexcept override { return active_; }
  void deactivate() noexcept override { active_ = false; }
  CommRef communicator() const override { return comm_; }

 private:
  CommRef comm_;
  Starter start_;
  bool active_ = false;
};

}  // namespace fabmpi::coll
