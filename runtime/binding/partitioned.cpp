// MPI-4 partitioned communication: MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range, _list),
// MPI_Parrived. The protocol is pt2pt/partitioned.{hpp,cpp}; rounds are started by MPI_Start(all) and
// completed by the usual Wait/Test calls (the requests are persistent).
#include "pt2pt/partitioned.hpp"
#include "runtime/binding/pt2pt_common.hpp"

namespace fabmpi::binding {
namespace {

using pt2pt::PartitionedRequest;

Rc partitioned_init(ApiCall& call, const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int peer,
                    int tag, MPI_Comm comm, MPI_Info info, bool is_send, MPI_Request* request) {
  CommRef c;
  FABMPI_TRY(call.comm(comm, &c));
  if (partitions < 1) return fail(MPI_ERR_ARG, "partitions must be at least 1 (got %d)", partitions);
  if (count < 0) return fail(MPI_ERR_COUNT, "negative count %lld", static_cast<long long>(count));
  DatatypeRef type;
  FABMPI_TRY(to_datatype(datatype, &type));
  const auto elements = static_cast<unsigned long long>(count) * static_cast<unsigned long long>(partitions);
  if (type->size() > 0 && elements > (1ull << 62) / type->size())
    return fail(MPI_ERR_COUNT, "%d partitions of %lld elements is too large a message", partitions,
                static_cast<long long>(count));
  FABMPI_TRY(check_buffer(buf, count > 0 ? 1 : 0, *type));
  if (is_send) {
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_dest_rank(*c, peer));
  } else {
    if (peer == MPI_ANY_SOURCE) return fail(MPI_ERR_RANK, "MPI_Precv_init does not take MPI_ANY_SOURCE");
    if (tag == MPI_ANY_TAG) return fail(MPI_ERR_TAG, "MPI_Precv_init does not take MPI_ANY_TAG");
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_dest_rank(*c, peer));
  }
  FABMPI_TRY(optional_info(info));
  FABMPI_TRY(check_out_ptr(request, "request"));
  PartitionedRequest::Args args{const_cast<void*>(buf), partitions, static_cast<std::size_t>(count), std::move(type),
                                peer, tag, c, is_send};
  std::shared_ptr<PartitionedRequest> r;
  FABMPI_TRY(PartitionedRequest::create(std::move(args), &r));
  *request = new_request_handle(r);
  return Rc();
}

// The partitioned request behind a handle; its communicator reports the call's errors.
Rc to_partitioned(ApiCall& call, MPI_Request handle, std::shared_ptr<PartitionedRequest>* out) {
  RequestRef r;
  FABMPI_TRY(to_request(handle, &r));
  auto p = std::dynamic_pointer_cast<PartitionedRequest>(r);
  if (!p) return fail(MPI_ERR_REQUEST, "request 0x%x is not a partitioned request", static_cast<unsigned>(handle));
  call.report_to(p->communicator());
  *out = std::move(p);
  return Rc();
}

}  // namespace
}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;

#pragma weak MPI_Psend_init = PMPI_Psend_init
int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Psend_init");
  return call.finish(partitioned_init(call, buf, partitions, count, datatype, dest, tag, comm, info, true, request));
}

#pragma weak MPI_Precv_init = PMPI_Precv_init
int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ApiCall call("MPI_Precv_init");
  return call.finish(partitioned_init(call, buf, partitions, count, datatype, source, tag, comm, info, false, request));
}

#pragma weak MPI_Pready = PMPI_Pready
int PMPI_Pready(int partition, MPI_Request request) {
  ApiCall call("MPI_Pready");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    std::shared_ptr<pt2pt::PartitionedRequest> r;
    FABMPI_TRY(to_partitioned(call, request, &r));
    return r->mark_ready(partition);
  }());
}

#pragma weak MPI_Pready_range = PMPI_Pready_range
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  ApiCall call("MPI_Pready_range");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    std::shared_ptr<pt2pt::PartitionedRequest> r;
    FABMPI_TRY(to_partitioned(call, request, &r));
    if (partition_low > partition_high)
      return fail(MPI_ERR_ARG, "partition_low %d is above partition_high %d", partition_low, partition_high);
    for (int p = partition_low; p <= partition_high; ++p) FABMPI_TRY(r->mark_ready(p));
    return Rc();
  }());
}

#pragma weak MPI_Pready_list = PMPI_Pready_list
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  ApiCall call("MPI_Pready_list");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    std::shared_ptr<pt2pt::PartitionedRequest> r;
    FABMPI_TRY(to_partitioned(call, request, &r));
    if (length < 0) return fail(MPI_ERR_ARG, "negative length %d", length);
    if (length > 0) FABMPI_TRY(check_out_ptr(array_of_partitions, "array_of_partitions"));
    for (int i = 0; i < length; ++i) FABMPI_TRY(r->mark_ready(array_of_partitions[i]));
    return Rc();
  }());
}

#pragma weak MPI_Parrived = PMPI_Parrived
int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  ApiCall call("MPI_Parrived");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    if (request == MPI_REQUEST_NULL) {  // like MPI_Test (MPI-4.1 section 5.2.2)
      *flag = 1;
      return Rc();
    }
    std::shared_ptr<pt2pt::PartitionedRequest> r;
    FABMPI_TRY(to_partitioned(call, request, &r));
    bool arrived = false;
    FABMPI_TRY(r->arrived(partition, &arrived));
    *flag = arrived ? 1 : 0;
    return Rc();
  }());
}
