// Request completion: MPI_Wait/Test and their any/all/some forms, MPI_Request_free,
// MPI_Request_get_status, MPI_Cancel, MPI_Test_cancelled, MPI_Status_set_cancelled, persistent
// requests (MPI_Start, MPI_Startall).
#include <sched.h>

#include <vector>

#include "runtime/binding/pt2pt_common.hpp"

namespace fabmpi::binding {

// ---- request types

Rc UserRequest::cancel() {
  if (kind() == Kind::recv || kind() == Kind::send) runtime().pt2pt().cancel(*this);
  return Rc();
}

Rc PersistentRequest::start() {
  if (active_) return fail(MPI_ERR_REQUEST, "MPI_Start on a persistent request that is already active");
  RequestRef me = self.lock();
  reset_for_restart();
  active_ = true;
  pt2pt::Engine& engine = runtime().pt2pt();
  if (!args.is_send)
    return engine.start_recv(args.buf, args.count, args.type, args.peer, args.tag, args.comm,
                             pt2pt::Channel::user, me);
  if (args.mode == pt2pt::SendMode::buffered) {
    Rc rc = start_buffered_send(args.buf, static_cast<int>(args.count), args.type, args.peer, args.tag, args.comm);
    error = rc.code();
    mark_complete();
    return rc;
  }
  return engine.start_send(args.buf, args.count, args.type, args.peer, args.tag, args.comm,
                           pt2pt::Channel::user, args.mode, me);
}

Rc PersistentRequest::cancel() {
  if (active_) runtime().pt2pt().cancel(*this);
  return Rc();
}

namespace {

// Completes MPI_Isendrecv requests: a progress source while any is pending (registered with the runtime
// only then, so programs that never call MPI_Isendrecv pay nothing in their progress loop).
class SendrecvTracker final : public ProgressSource {
 public:
  void add(std::shared_ptr<SendrecvRequest> request) {
    if (pending_.empty()) runtime().add_progress_source(this);
    pending_.push_back(std::move(request));
  }
  int progress() override {
    int events = 0;
    for (std::size_t i = 0; i < pending_.size();) {
      if (!complete_if_done(*pending_[i])) {
        ++i;
        continue;
      }
      pending_[i] = std::move(pending_.back());
      pending_.pop_back();
      ++events;
    }
    // Leaving the runtime's list while it iterates it only skips the next source for this one pass.
    if (pending_.empty()) runtime().remove_progress_source(this);
    return events;
  }
  static bool complete_if_done(SendrecvRequest& r) {
    if (!r.recv->is_complete() || !r.send->is_complete()) return false;
    r.source = r.recv->source;
    r.tag = r.recv->tag;
    r.count_bytes = r.recv->count_bytes;
    r.cancelled = r.recv->cancelled;
    r.error = r.recv->error != MPI_SUCCESS ? r.recv->error : r.send->error;
    r.packed.clear();
    r.packed.shrink_to_fit();
    r.mark_complete();
    return true;
  }

 private:
  std::vector<std::shared_ptr<SendrecvRequest>> pending_;
};

SendrecvTracker& sendrecv_tracker() {
  static SendrecvTracker tracker;
  return tracker;
}

}  // namespace

void track_sendrecv(const std::shared_ptr<SendrecvRequest>& request) {
  if (!SendrecvTracker::complete_if_done(*request)) sendrecv_tracker().add(request);
}

CommRef comm_of(const Request& request) {
  if (CommRef comm = request.communicator()) return comm;
  return runtime().world();
}

Rc to_request(MPI_Request handle, RequestRef* out) {
  const RequestRef* found = library().requests.find(handle);
  if (!found || as_message(found->get()))
    return fail(MPI_ERR_REQUEST, "invalid request handle 0x%x", static_cast<unsigned>(handle));
  *out = *found;
  return Rc();
}

void set_empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE || status == nullptr) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

bool is_inert(const RequestRef& request) { return !request || (request->is_persistent() && !request->is_active()); }

int release_completed(MPI_Request* handle, const RequestRef& request, MPI_Status* status) {
  if (auto* g = as_user_generalized(request.get())) {
    // query_fn's error, else free_fn's, is the completing call's (MPI-3.1 section 12.2).
    const int queried = g->query();
    const int released = g->release_state();
    if (request->error == MPI_SUCCESS) request->error = queried != MPI_SUCCESS ? queried : released;
  }
  request->fill_status(status);
  const int error = request->error;
  if (request->is_persistent()) {
    request->deactivate();
  } else {
    library().requests.erase(*handle);
    *handle = MPI_REQUEST_NULL;
  }
  return error;
}

void progress_until(const std::function<bool()>& done, int wait_peer) { runtime().wait_until(done, wait_peer); }

namespace {
// The peer a wait for several requests co-schedules with: the first pending request's (Request::wait_peer).
int first_wait_peer(const std::vector<RequestRef>& reqs) {
  for (const RequestRef& r : reqs)
    if (!is_inert(r) && !r->is_complete()) return r->wait_peer;
  return -1;
}
}  // namespace

namespace {
// A nonblocking completion call's one look: done() now, or after one progress pass. The outcome feeds
// the hang watch (an application's polling loop is an idle wait too).
template <class Done>
bool look_once(Done done) {
  Runtime& rt = runtime();
  if (done()) {
    rt.note_poll(true, 0);
    return true;
  }
  const int events = rt.progress();
  const bool found = done();
  rt.note_poll(found, events);
  return found;
}
}  // namespace

Rc request_error(const Request& request) {
  if (request.error == MPI_SUCCESS) return Rc();
  if (request.error == MPI_ERR_TRUNCATE)
    return fail(MPI_ERR_TRUNCATE, "message truncated: from rank %d, tag %d; receive buffer holds %zu bytes",
                request.source, request.tag, request.count_bytes);
  return fail(request.error, "request failed");
}

namespace {

// Converts an array of handles; null handles become null refs.
Rc to_requests(int count, const MPI_Request* handles, std::vector<RequestRef>* out) {
  FABMPI_TRY(check_count(count));
  if (count > 0) FABMPI_TRY(check_out_ptr(handles, "array_of_requests"));
  out->assign(static_cast<std::size_t>(count), nullptr);
  for (int i = 0; i < count; ++i)
    if (handles[i] != MPI_REQUEST_NULL) FABMPI_TRY(to_request(handles[i], &(*out)[static_cast<std::size_t>(i)]));
  return Rc();
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Releases every complete, active request among `indices`; error classes in statuses (ERR_IN_STATUS).
Rc release_many(MPI_Request* handles, const std::vector<RequestRef>& reqs, const std::vector<int>& indices,
                MPI_Status* statuses, bool by_position, CommRef* error_comm) {
  bool any_error = false;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const int i = indices[k];
    MPI_Status* st = status_at(statuses, by_position ? i : static_cast<int>(k));
    const RequestRef& r = reqs[static_cast<std::size_t>(i)];
    if (!*error_comm) *error_comm = comm_of(*r);
    const int err = release_completed(&handles[i], r, st);
    if (err != MPI_SUCCESS) any_error = true;
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
  }
  if (any_error) return fail(MPI_ERR_IN_STATUS, "a request completed with an error (see the statuses)");
  return Rc();
}

}  // namespace

}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  ApiCall call("MPI_Wait");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    if (*request == MPI_REQUEST_NULL) return set_empty_status(status), Rc();
    RequestRef r;
    FABMPI_TRY(to_request(*request, &r));
    if (is_inert(r)) return set_empty_status(status), Rc();
    call.report_to(comm_of(*r));
    runtime().wait(*r);
    release_completed(request, r, status);
    return request_error(*r);
  }());
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  ApiCall call("MPI_Test");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = 0;
    RequestRef r;
    if (*request != MPI_REQUEST_NULL) FABMPI_TRY(to_request(*request, &r));
    if (is_inert(r)) return *flag = 1, set_empty_status(status), Rc();
    call.report_to(comm_of(*r));
    if (!look_once([&] { return r->is_complete(); })) return Rc();
    *flag = 1;
    release_completed(request, r, status);
    return request_error(*r);
  }());
}

namespace {

// Waitany/Testany share this: `block` chooses between them.
Rc any_impl(ApiCall& call, int count, MPI_Request* handles, int* index, int* flag, MPI_Status* status, bool block) {
  FABMPI_TRY(call.require_initialized());
  FABMPI_TRY(check_out_ptr(index, "index"));
  std::vector<RequestRef> reqs;
  FABMPI_TRY(to_requests(count, handles, &reqs));
  *index = MPI_UNDEFINED;
  if (flag) *flag = 0;
  bool any_active = false;
  for (const RequestRef& r : reqs) any_active |= !is_inert(r);
  if (!any_active) {
    if (flag) *flag = 1;
    set_empty_status(status);
    return Rc();
  }
  int found = -1;
  auto scan = [&] {
    for (int i = 0; i < count; ++i) {
      const RequestRef& r = reqs[static_cast<std::size_t>(i)];
      if (!is_inert(r) && r->is_complete()) {
        found = i;
        return true;
      }
    }
    return false;
  };
  if (block) progress_until(scan, first_wait_peer(reqs));
  else if (!look_once(scan)) return Rc();
  if (flag) *flag = 1;
  *index = found;
  RequestRef r = reqs[static_cast<std::size_t>(found)];
  call.report_to(comm_of(*r));
  release_completed(&handles[found], r, status);
  return request_error(*r);
}

// Waitsome/Testsome.
Rc some_impl(ApiCall& call, int incount, MPI_Request* handles, int* outcount, int* indices, MPI_Status* statuses,
             bool block) {
  FABMPI_TRY(call.require_initialized());
  FABMPI_TRY(check_out_ptr(outcount, "outcount"));
  std::vector<RequestRef> reqs;
  FABMPI_TRY(to_requests(incount, handles, &reqs));
  bool any_active = false;
  for (const RequestRef& r : reqs) any_active |= !is_inert(r);
  if (!any_active) {
    *outcount = MPI_UNDEFINED;
    return Rc();
  }
  if (incount > 0) FABMPI_TRY(check_out_ptr(indices, "array_of_indices"));
  std::vector<int> done;
  auto scan = [&] {
    done.clear();
    for (int i = 0; i < incount; ++i) {
      const RequestRef& r = reqs[static_cast<std::size_t>(i)];
      if (!is_inert(r) && r->is_complete()) done.push_back(i);
    }
    return !done.empty();
  };
  if (block) progress_until(scan, first_wait_peer(reqs));
  else look_once(scan);
  *outcount = static_cast<int>(done.size());
  for (std::size_t k = 0; k < done.size(); ++k) indices[k] = done[k];
  CommRef error_comm;
  Rc rc = release_many(handles, reqs, done, statuses, false, &error_comm);
  if (error_comm) call.report_to(error_comm);
  return rc;
}

// Waitall/Testall.
Rc all_impl(ApiCall& call, int count, MPI_Request* handles, int* flag, MPI_Status* statuses, bool block) {
  FABMPI_TRY(call.require_initialized());
  std::vector<RequestRef> reqs;
  FABMPI_TRY(to_requests(count, handles, &reqs));
  // reqs[0, settled) are complete or inert, which they stay during this call: each look starts at the
  // first one that was not (a window of 64 was rescanned from the start on every progress pass).
  std::size_t settled = 0;
  auto all_done = [&] {
    for (; settled < reqs.size(); ++settled) {
      const RequestRef& r = reqs[settled];
      if (!is_inert(r) && !r->is_complete()) return false;
    }
    return true;
  };
  if (flag) *flag = 0;
  if (block) progress_until(all_done, first_wait_peer(reqs));
  else if (!look_once(all_done)) return Rc();
  if (flag) *flag = 1;
  std::vector<int> active;
  for (int i = 0; i < count; ++i) {
    if (is_inert(reqs[static_cast<std::size_t>(i)])) set_empty_status(status_at(statuses, i));
    else active.push_back(i);
  }
  CommRef error_comm;
  Rc rc = release_many(handles, reqs, active, statuses, true, &error_comm);
  if (error_comm) call.report_to(error_comm);
  return rc;
}

}  // namespace

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  ApiCall call("MPI_Waitany");
  return call.finish(any_impl(call, count, array_of_requests, index, nullptr, status, true));
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  ApiCall call("MPI_Testany");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    return any_impl(call, count, array_of_requests, index, flag, status, false);
  }());
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  ApiCall call("MPI_Waitall");
  return call.finish(all_impl(call, count, array_of_requests, nullptr, array_of_statuses, true));
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  ApiCall call("MPI_Testall");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    return all_impl(call, count, array_of_requests, flag, array_of_statuses, false);
  }());
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  ApiCall call("MPI_Waitsome");
  return call.finish(some_impl(call, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true));
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  ApiCall call("MPI_Testsome");
  return call.finish(some_impl(call, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false));
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request* request) {
  ApiCall call("MPI_Request_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    if (*request == MPI_REQUEST_NULL) return fail(MPI_ERR_REQUEST, "MPI_Request_free of MPI_REQUEST_NULL");
    RequestRef r;
    FABMPI_TRY(to_request(*request, &r));
    // The operation goes on; the engine holds the request until it completes.
    library().requests.erase(*request);
    *request = MPI_REQUEST_NULL;
    return Rc();
  }());
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  ApiCall call("MPI_Request_get_status");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    RequestRef r;
    if (request != MPI_REQUEST_NULL) FABMPI_TRY(to_request(request, &r));
    if (is_inert(r)) return *flag = 1, set_empty_status(status), Rc();
    *flag = look_once([&] { return r->is_complete(); }) ? 1 : 0;
    if (!*flag) return Rc();
    if (auto* g = as_user_generalized(r.get())) {
      const int queried = g->query();
      if (queried != MPI_SUCCESS) return fail(queried, "the generalized request's query_fn returned %d", queried);
    }
    r->fill_status(status);
    return Rc();
  }());
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request* request) {
  ApiCall call("MPI_Cancel");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    if (*request == MPI_REQUEST_NULL) return fail(MPI_ERR_REQUEST, "MPI_Cancel of MPI_REQUEST_NULL");
    RequestRef r;
    FABMPI_TRY(to_request(*request, &r));
    call.report_to(comm_of(*r));
    // A generalized request's cancel_fn runs even when it is complete (it is told so: MPI-3.1 12.2).
    if (r->is_complete() && r->kind() != Request::Kind::generalized) return Rc();
    return r->cancel();
  }());
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  ApiCall call("MPI_Test_cancelled");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(status, "status"));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    if (status == MPI_STATUS_IGNORE) return fail(MPI_ERR_ARG, "MPI_STATUS_IGNORE passed to MPI_Test_cancelled");
    *flag = status->count_hi_and_cancelled & 1;
    return Rc();
  }());
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  ApiCall call("MPI_Status_set_cancelled");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(status, "status"));
    if (status == MPI_STATUS_IGNORE) return fail(MPI_ERR_ARG, "MPI_STATUS_IGNORE passed to MPI_Status_set_cancelled");
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return Rc();
  }());
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request* request) {
  ApiCall call("MPI_Start");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    RequestRef r;
    FABMPI_TRY(to_request(*request, &r));
    if (!r->is_persistent()) return fail(MPI_ERR_REQUEST, "MPI_Start on a request that is not persistent");
    call.report_to(comm_of(*r));
    return r->start();
  }());
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  ApiCall call("MPI_Startall");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    std::vector<RequestRef> reqs;
    FABMPI_TRY(to_requests(count, array_of_requests, &reqs));
    for (const RequestRef& r : reqs)
      if (!r || !r->is_persistent()) return fail(MPI_ERR_REQUEST, "MPI_Startall on a request that is not persistent");
    for (const RequestRef& r : reqs)
      if (r->is_active()) return fail(MPI_ERR_REQUEST, "MPI_Startall on a persistent request that is already active");
    for (const RequestRef& r : reqs) FABMPI_TRY(r->start());
    return Rc();
  }());
}
