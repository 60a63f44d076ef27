// Generalized requests (MPI-3.1 section 12.2): MPI_Grequest_start and MPI_Grequest_complete. The
// completing calls (requests.cpp) run query_fn and free_fn through GeneralizedRequest.
#include "runtime/binding/pt2pt_common.hpp"

namespace fabmpi::binding {

int GeneralizedRequest::query() {
  MPI_Status st{};
  st.MPI_SOURCE = MPI_UNDEFINED;
  st.MPI_TAG = MPI_UNDEFINED;
  st.MPI_ERROR = MPI_SUCCESS;
  const int rc = query_fn_ ? query_fn_(extra_state_, &st) : MPI_SUCCESS;
  source = st.MPI_SOURCE;
  tag = st.MPI_TAG;
  const auto hi = static_cast<unsigned long long>(static_cast<unsigned>(st.count_hi_and_cancelled)) >> 1;
  count_bytes = static_cast<std::size_t>((hi << 32) | static_cast<unsigned>(st.count_lo));
  cancelled = (st.count_hi_and_cancelled & 1) != 0;
  return rc;
}

int GeneralizedRequest::release_state() {
  if (state_released_) return MPI_SUCCESS;
  state_released_ = true;
  return free_fn_ ? free_fn_(extra_state_) : MPI_SUCCESS;
}

Rc GeneralizedRequest::cancel() {
  if (!cancel_fn_) return Rc();
  const int rc = cancel_fn_(extra_state_, is_complete() ? 1 : 0);
  if (rc != MPI_SUCCESS) return fail(rc, "the generalized request's cancel_fn returned %d", rc);
  return Rc();
}

}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;

extern "C" {

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  ApiCall call("MPI_Grequest_start");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(request, "request"));
    auto g = std::make_shared<GeneralizedRequest>(query_fn, free_fn, cancel_fn, extra_state);
    *request = new_request_handle(g);
    return Rc();
  }());
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request) {
  ApiCall call("MPI_Grequest_complete");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    RequestRef r;
    FABMPI_TRY(to_request(request, &r));
    if (!as_user_generalized(r.get()))
      return fail(MPI_ERR_REQUEST, "request 0x%x is not a generalized request", static_cast<unsigned>(request));
    if (r->is_complete()) return fail(MPI_ERR_REQUEST, "the generalized request is already complete");
    r->mark_complete();
    return Rc();
  }());
}

}  // extern "C"
