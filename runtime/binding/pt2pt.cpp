// Point-to-point: blocking and nonblocking sends and receives in every mode, Sendrecv(_replace),
// probes and matched probes, persistent initialization. Buffered sends live in bsend.cpp, request
// completion in requests.cpp.
#include <cstring>
#include <vector>

#include "runtime/binding/pt2pt_common.hpp"

namespace fabmpi::binding {
namespace {

using pt2pt::Channel;
using pt2pt::SendMode;

struct SendArgs {
  CommRef comm;
  DatatypeRef type;
};

Rc check_send(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              SendArgs* out) {
  FABMPI_TRY(call.comm(comm, &out->comm));
  FABMPI_TRY(check_count(count));
  FABMPI_TRY(to_datatype(datatype, &out->type));
  FABMPI_TRY(check_buffer(buf, count, *out->type));
  FABMPI_TRY(check_send_tag(tag));
  FABMPI_TRY(check_dest_rank(*out->comm, dest));
  call.trace_message(*out->comm, dest, tag, static_cast<std::size_t>(count) * out->type->size());
  return Rc();
}

Rc check_recv(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              SendArgs* out) {
  FABMPI_TRY(call.comm(comm, &out->comm));
  FABMPI_TRY(check_count(count));
  FABMPI_TRY(to_datatype(datatype, &out->type));
  FABMPI_TRY(check_buffer(buf, count, *out->type));
  FABMPI_TRY(check_recv_tag(tag));
  FABMPI_TRY(check_source_rank(*out->comm, source));
  call.trace_message(*out->comm, source, tag, static_cast<std::size_t>(count) * out->type->size());
  return Rc();
}

// Blocking calls borrow the communicator through the ApiCall (a reference count is an atomic
// read-modify-write; predefined datatypes' references own nothing, so copying them is free).
struct BlockingArgs {
  const Comm* comm = nullptr;
  DatatypeRef type;
};

[[gnu::always_inline]] inline Rc check_blocking(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                  MPI_Comm comm, bool is_send, BlockingArgs* out) {
  FABMPI_TRY(call.comm(comm, &out->comm));
  FABMPI_TRY(check_count(count));
  FABMPI_TRY(to_datatype(datatype, &out->type));
  FABMPI_TRY(check_buffer(buf, count, *out->type));
  if (is_send) {
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_dest_rank(*out->comm, peer));
  } else {
    FABMPI_TRY(check_recv_tag(tag));
    FABMPI_TRY(check_source_rank(*out->comm, peer));
  }
  call.trace_message(*out->comm, peer, tag, static_cast<std::size_t>(count) * out->type->size());
  return Rc();
}

[[gnu::always_inline]] inline Rc blocking_send(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, SendMode mode) {
  BlockingArgs a;
  FABMPI_TRY(check_blocking(call, buf, count, datatype, dest, tag, comm, true, &a));
  // On the stack: the engine forgets it once it completes, and we wait for that (errors go to the
  // call's communicator). An eager send the transport takes at once completes inside start_send_into.
  Request r(Request::Kind::send);
  FABMPI_TRY(runtime().pt2pt().start_send_into(buf, static_cast<std::size_t>(count), *a.type, dest, tag, *a.comm,
                                               Channel::user, mode, r));
  if (!r.is_complete()) runtime().wait(r);
  return request_error(r);
}

Rc nonblocking_send(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, SendMode mode, MPI_Request* request) {
  SendArgs a;
  FABMPI_TRY(check_send(call, buf, count, datatype, dest, tag, comm, &a));
  FABMPI_TRY(check_out_ptr(request, "request"));
  // The communicator's reference moves into the request: the arguments' copy would be dropped after the
  // send, and an atomic decrement right after writing a ring record waits for that record's stores to
  // reach the receiver's core (perf, np=2 streaming 8 B in the far machine state: half the sender's time).
  auto r = std::make_shared<UserRequest>(Request::Kind::send, std::move(a.comm));
  FABMPI_TRY(runtime().pt2pt().start_send(buf, static_cast<std::size_t>(count), a.type, dest, tag, r->comm,
                                          Channel::user, mode, r));
  *request = new_request_handle(std::move(r));  // moved: no reference count touched after the send
  return Rc();
}

Rc persistent_init(ApiCall& call, const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                   MPI_Comm comm, bool is_send, SendMode mode, MPI_Request* request) {
  SendArgs a;
  if (is_send) FABMPI_TRY(check_send(call, buf, count, datatype, peer, tag, comm, &a));
  else FABMPI_TRY(check_recv(call, buf, count, datatype, peer, tag, comm, &a));
  FABMPI_TRY(check_out_ptr(request, "request"));
  PersistentRequest::Args args{const_cast<void*>(buf), static_cast<std::size_t>(count), a.type, peer, tag,
                               a.comm, is_send, mode};
  auto r = std::make_shared<PersistentRequest>(std::move(args));
  r->self = r;
  *request = new_request_handle(r);
  return Rc();
}

// The status of a probe.
void fill_probe_status(MPI_Status* status, const pt2pt::ProbeInfo& info) {
  if (status == MPI_STATUS_IGNORE || status == nullptr) return;
  Request r(Request::Kind::recv);
  r.source = info.source;
  r.tag = info.tag;
  r.count_bytes = info.bytes;
  r.fill_status(status);
}

Rc probe_args(ApiCall& call, int source, int tag, MPI_Comm comm, CommRef* c) {
  FABMPI_TRY(call.comm(comm, c));
  FABMPI_TRY(check_recv_tag(tag));
  return check_source_rank(**c, source);
}

MPI_Message new_message_handle(const pt2pt::MessageRef& message, const CommRef& comm) {
  if (!message->arrival) return MPI_MESSAGE_NO_PROC;
  return new_request_handle(std::make_shared<MessageHandle>(message, comm));
}

// Takes the message behind a handle out of the table (MPI_Mrecv/MPI_Imrecv).
Rc take_message(ApiCall& call, MPI_Message* handle, pt2pt::MessageRef* message) {
  FABMPI_TRY(check_out_ptr(handle, "message"));
  if (*handle == MPI_MESSAGE_NO_PROC) {
    *message = std::make_shared<pt2pt::MatchedMessage>(
        pt2pt::MatchedMessage{nullptr, pt2pt::ProbeInfo{MPI_PROC_NULL, MPI_ANY_TAG, 0}});
    *handle = MPI_MESSAGE_NULL;
    return Rc();
  }
  const RequestRef* found = library().requests.find(*handle);
  auto* m = found ? as_message(found->get()) : nullptr;
  if (!m) return fail(MPI_ERR_REQUEST, "invalid message handle 0x%x", static_cast<unsigned>(*handle));
  call.report_to(m->comm);
  *message = m->message;
  library().requests.erase(*handle);
  *handle = MPI_MESSAGE_NULL;
  return Rc();
}

}  // namespace
}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;
using fabmpi::pt2pt::Channel;
using fabmpi::pt2pt::SendMode;

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ApiCall call("MPI_Send");
  return call.finish(blocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::standard));
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ApiCall call("MPI_Ssend");
  return call.finish(blocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::synchronous));
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ApiCall call("MPI_Rsend");
  return call.finish(blocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::ready));
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  ApiCall call("MPI_Isend");
  return call.finish(nonblocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::standard, request));
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  ApiCall call("MPI_Issend");
  return call.finish(nonblocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::synchronous, request));
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  ApiCall call("MPI_Irsend");
  return call.finish(nonblocking_send(call, buf, count, datatype, dest, tag, comm, SendMode::ready, request));
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ApiCall call("MPI_Recv");
  return call.finish([&]() -> Rc {
    BlockingArgs a;
    FABMPI_TRY(check_blocking(call, buf, count, datatype, source, tag, comm, false, &a));
    Request r(Request::Kind::recv);  // on the stack, as in blocking_send
    FABMPI_TRY(runtime().pt2pt().start_recv_into(buf, static_cast<std::size_t>(count), a.type, source, tag,
                                                 *a.comm, Channel::user, r));
    if (!r.is_complete()) runtime().wait(r);
    r.fill_status(status);
    return request_error(r);
  }());
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  ApiCall call("MPI_Irecv");
  return call.finish([&]() -> Rc {
    SendArgs a;
    FABMPI_TRY(check_recv(call, buf, count, datatype, source, tag, comm, &a));
    FABMPI_TRY(check_out_ptr(request, "request"));
    auto r = std::make_shared<UserRequest>(Request::Kind::recv, std::move(a.comm));  // as in nonblocking_send
    FABMPI_TRY(runtime().pt2pt().start_recv(buf, static_cast<std::size_t>(count), a.type, source, tag, r->comm,
                                            Channel::user, r));
    *request = new_request_handle(std::move(r));
    return Rc();
  }());
}

namespace {

// Sendrecv's two halves, started: the receive first, so a self-exchange finds it posted. `replace`: the
// send goes from a packed copy (kept in *packed) so the receive may overwrite `sendbuf` at once.
struct SendrecvParts {
  std::shared_ptr<UserRequest> send, recv;
};
Rc start_sendrecv(ApiCall& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  std::vector<unsigned char>* packed, SendrecvParts* out) {
  SendArgs s, r;
  FABMPI_TRY(check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, &s));
  FABMPI_TRY(check_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, &r));
  const void* from = sendbuf;
  std::size_t send_count = static_cast<std::size_t>(sendcount);
  DatatypeRef send_type = s.type;
  if (packed) {
    const std::size_t bytes = send_count * s.type->size();
    packed->resize(bytes);
    if (bytes) s.type->pack(sendbuf, send_count, 0, packed->data(), bytes);
    from = packed->data();
    send_count = bytes;
    send_type = builtin_datatype(MPI_BYTE);
  }
  pt2pt::Engine& engine = runtime().pt2pt();
  out->recv = std::make_shared<UserRequest>(Request::Kind::recv, r.comm);
  out->send = std::make_shared<UserRequest>(Request::Kind::send, s.comm);
  FABMPI_TRY(engine.start_recv(recvbuf, static_cast<std::size_t>(recvcount), r.type, source, recvtag, r.comm,
                               Channel::user, out->recv));
  return engine.start_send(from, send_count, send_type, dest, sendtag, s.comm, Channel::user, SendMode::standard,
                           out->send);
}

Rc finish_sendrecv(const SendrecvParts& parts, MPI_Status* status) {
  runtime().wait(*parts.send);
  runtime().wait(*parts.recv);
  parts.recv->fill_status(status);
  FABMPI_TRY(request_error(*parts.send));
  return request_error(*parts.recv);
}

// The nonblocking forms: one request over both halves (SendrecvRequest, completed by the tracker).
Rc start_isendrecv(ApiCall& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   bool replace, MPI_Request* request) {
  FABMPI_TRY(check_out_ptr(request, "request"));
  std::vector<unsigned char> packed;
  SendrecvParts parts;
  FABMPI_TRY(start_sendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                            recvtag, comm, replace ? &packed : nullptr, &parts));
  auto r = std::make_shared<SendrecvRequest>(parts.recv->comm);
  r->packed = std::move(packed);  // the send reads its heap block, which moves with it
  r->send = std::move(parts.send);
  r->recv = std::move(parts.recv);
  track_sendrecv(r);
  *request = new_request_handle(r);
  return Rc();
}

}  // namespace

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  ApiCall call("MPI_Sendrecv");
  return call.finish([&]() -> Rc {
    SendrecvParts parts;
    FABMPI_TRY(start_sendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, nullptr, &parts));
    return finish_sendrecv(parts, status);
  }());
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status* status) {
  ApiCall call("MPI_Sendrecv_replace");
  return call.finish([&]() -> Rc {
    std::vector<unsigned char> packed;
    SendrecvParts parts;
    FABMPI_TRY(start_sendrecv(call, buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm,
                              &packed, &parts));
    return finish_sendrecv(parts, status);
  }());
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Isendrecv");
  return call.finish(start_isendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                     source, recvtag, comm, false, request));
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request* request) {
  ApiCall call("MPI_Isendrecv_replace");
  return call.finish(start_isendrecv(call, buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag,
                                     comm, true, request));
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  ApiCall call("MPI_Iprobe");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(probe_args(call, source, tag, comm, &c));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    bool found = false;
    pt2pt::ProbeInfo info;
    FABMPI_TRY(runtime().pt2pt().iprobe(source, tag, c, Channel::user, &found, &info));
    runtime().note_poll(found, 0);
    *flag = found ? 1 : 0;
    if (found) fill_probe_status(status, info);
    return Rc();
  }());
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ApiCall call("MPI_Probe");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(probe_args(call, source, tag, comm, &c));
    bool found = false;
    pt2pt::ProbeInfo info;
    Rc rc;
    progress_until([&] {
      rc = runtime().pt2pt().iprobe(source, tag, c, Channel::user, &found, &info);
      return found || !rc.ok();
    });
    FABMPI_TRY(rc);
    fill_probe_status(status, info);
    return Rc();
  }());
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  ApiCall call("MPI_Improbe");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(probe_args(call, source, tag, comm, &c));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    FABMPI_TRY(check_out_ptr(message, "message"));
    bool found = false;
    pt2pt::MessageRef m;
    FABMPI_TRY(runtime().pt2pt().improbe(source, tag, c, Channel::user, &found, &m));
    *flag = found ? 1 : 0;
    if (found) {
      *message = new_message_handle(m, c);
      fill_probe_status(status, m->info);
    }
    return Rc();
  }());
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  ApiCall call("MPI_Mprobe");
  return call.finish([&]() -> Rc {
    CommRef c;
    FABMPI_TRY(probe_args(call, source, tag, comm, &c));
    FABMPI_TRY(check_out_ptr(message, "message"));
    bool found = false;
    pt2pt::MessageRef m;
    Rc rc;
    progress_until([&] {
      rc = runtime().pt2pt().improbe(source, tag, c, Channel::user, &found, &m);
      return found || !rc.ok();
    });
    FABMPI_TRY(rc);
    *message = new_message_handle(m, c);
    fill_probe_status(status, m->info);
    return Rc();
  }());
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  ApiCall call("MPI_Imrecv");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_buffer(buf, count, *type));
    FABMPI_TRY(check_out_ptr(request, "request"));
    pt2pt::MessageRef m;
    FABMPI_TRY(take_message(call, message, &m));
    RequestRef r;
    FABMPI_TRY(runtime().pt2pt().imrecv(buf, static_cast<std::size_t>(count), type, m, &r));
    *request = new_request_handle(r);
    return Rc();
  }());
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  ApiCall call("MPI_Mrecv");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_count(count));
    DatatypeRef type;
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_buffer(buf, count, *type));
    pt2pt::MessageRef m;
    FABMPI_TRY(take_message(call, message, &m));
    RequestRef r;
    FABMPI_TRY(runtime().pt2pt().imrecv(buf, static_cast<std::size_t>(count), type, m, &r));
    runtime().wait(*r);
    r->fill_status(status);
    return request_error(*r);
  }());
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  ApiCall call("MPI_Send_init");
  return call.finish(persistent_init(call, buf, count, datatype, dest, tag, comm, true, SendMode::standard, request));
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  ApiCall call("MPI_Ssend_init");
  return call.finish(persistent_init(call, buf, count, datatype, dest, tag, comm, true, SendMode::synchronous, request));
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  ApiCall call("MPI_Rsend_init");
  return call.finish(persistent_init(call, buf, count, datatype, dest, tag, comm, true, SendMode::ready, request));
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  ApiCall call("MPI_Bsend_init");
  return call.finish(persistent_init(call, buf, count, datatype, dest, tag, comm, true, SendMode::buffered, request));
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  ApiCall call("MPI_Recv_init");
  return call.finish(persistent_init(call, buf, count, datatype, source, tag, comm, false, SendMode::standard, request));
}
