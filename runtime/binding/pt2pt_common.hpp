// Shared by the point-to-point bindings (pt2pt.cpp, requests.cpp, bsend.cpp): the request types the
// bindings create, request completion/release, and the wait loop for several requests at once.
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

#include "runtime/binding/library.hpp"

namespace fabmpi::binding {

// A nonblocking point-to-point request started by the C API: remembers its communicator so errors
// found at completion go to that communicator's error handler.
class UserRequest final : public Request {
 public:
  UserRequest(Kind kind, CommRef c) : Request(kind), comm(std::move(c)) {}
  Rc cancel() override;
  CommRef communicator() const override { return comm; }
  CommRef comm;
};

// A persistent request (MPI_Send_init and friends, MPI_Recv_init): inactive until MPI_Start.
class PersistentRequest final : public Request {
 public:
  struct Args {
    void* buf = nullptr;
    std::size_t count = 0;
    DatatypeRef type;
    int peer = MPI_PROC_NULL;
    int tag = 0;
    CommRef comm;
    bool is_send = true;
    pt2pt::SendMode mode = pt2pt::SendMode::standard;
  };
  explicit PersistentRequest(Args a)
      : Request(a.is_send ? Kind::persistent_send : Kind::persistent_recv), args(std::move(a)) {}
  Rc start() override;
  Rc cancel() override;
  bool is_active() const noexcept override { return active_; }
  CommRef communicator() const override { return args.comm; }
  void deactivate() noexcept override { active_ = false; }

  Args args;
  std::weak_ptr<Request> self;  // set right after creation; start() hands the engine a shared_ptr

 private:
  bool active_ = false;
};

// MPI_Isendrecv(_replace): a send and a receive completed as one request whose status is the receive's.
// The binding layer's tracker (a progress source, requests.cpp) completes it once both halves have.
class SendrecvRequest final : public Request {
 public:
  explicit SendrecvRequest(CommRef c) : Request(Kind::recv), comm(std::move(c)) {}
  CommRef communicator() const override { return comm; }
  CommRef comm;
  RequestRef send, recv;
  std::vector<unsigned char> packed;  // _replace: the outgoing copy of the buffer
};

// Completes `request` when both halves have: at once if they already have, else from progress.
void track_sendrecv(const std::shared_ptr<SendrecvRequest>& request);

// A message taken by MPI_Mprobe/MPI_Improbe. MPICH's ABI shares the request handle space with
// messages (MPI_MESSAGE_NULL == MPI_REQUEST_NULL), so messages live in the request table.
class MessageHandle final : public Request {
 public:
  MessageHandle(pt2pt::MessageRef m, CommRef c)
      : Request(Kind::recv, Role::message), message(std::move(m)), comm(std::move(c)) {}
  CommRef communicator() const override { return comm; }
  pt2pt::MessageRef message;
  CommRef comm;
};

// A generalized request (MPI_Grequest_start, runtime/binding/grequest.cpp): the user completes it with
// MPI_Grequest_complete; completing calls (Wait/Test...) ask query_fn for the status, then call free_fn.
class GeneralizedRequest final : public Request {
 public:
  GeneralizedRequest(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
                     MPI_Grequest_cancel_function* cancel, void* extra_state)
      : Request(Kind::generalized, Role::user_generalized),
        query_fn_(query),
        free_fn_(free),
        cancel_fn_(cancel),
        extra_state_(extra_state) {}
  ~GeneralizedRequest() override { (void)release_state(); }
  // Runs query_fn and takes the status it fills as this request's; returns query_fn's error code.
  int query();
  // Runs free_fn once; returns its error code.
  int release_state();
  Rc cancel() override;

 private:
  MPI_Grequest_query_function* query_fn_;
  MPI_Grequest_free_function* free_fn_;
  MPI_Grequest_cancel_function* cancel_fn_;
  void* extra_state_;
  bool state_released_ = false;
};

inline MessageHandle* as_message(Request* r) noexcept {
  return r && r->role() == Request::Role::message ? static_cast<MessageHandle*>(r) : nullptr;
}
inline GeneralizedRequest* as_user_generalized(Request* r) noexcept {
  return r && r->role() == Request::Role::user_generalized ? static_cast<GeneralizedRequest*>(r) : nullptr;
}

// The communicator whose error handler reports a request's errors (world when unknown).
CommRef comm_of(const Request& request);

// Looks a request handle up. MPI_ERR_REQUEST for unknown handles and message handles.
Rc to_request(MPI_Request handle, RequestRef* out);

// The empty status (MPI_REQUEST_NULL, inactive persistent requests).
void set_empty_status(MPI_Status* status);

// For a request known to be complete: fills *status, frees a non-persistent request (handle set to
// MPI_REQUEST_NULL), makes a persistent one inactive. Returns the request's error class.
int release_completed(MPI_Request* handle, const RequestRef& request, MPI_Status* status);

// True when the handle names nothing to wait for (null or inactive persistent).
bool is_inert(const RequestRef& request);

// Progresses until done() is true, spinning briefly then yielding (and, under MPI_THREAD_MULTIPLE,
// letting other threads into the library while yielding); `wait_peer`: see Request::wait_peer.
void progress_until(const std::function<bool()>& done, int wait_peer = -1);

// A request's error as an Rc with a reason (MPI_ERR_TRUNCATE names the buffer size).
Rc request_error(const Request& request);

// Starts a buffered send: packs into the attached buffer and sends from there (bsend.cpp).
Rc start_buffered_send(const void* buf, int count, const DatatypeRef& type, int dest, int tag,
                       const CommRef& comm);

}  // namespace fabmpi::binding
