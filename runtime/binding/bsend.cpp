// Buffered sends: MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend (MPI_Bsend_init is in pt2pt.cpp).
// A buffered send packs its data into the attached buffer (charging MPI_BSEND_OVERHEAD per message)
// and sends from there; its space is reused once the underlying send has completed.
#include <cstdint>
#include <list>

#include "runtime/binding/pt2pt_common.hpp"

namespace fabmpi::binding {
namespace {

struct Segment {
  std::size_t offset;
  std::size_t length;  // packed bytes + MPI_BSEND_OVERHEAD
  RequestRef send;
};

struct AttachedBuffer {
  unsigned char* base = nullptr;
  std::size_t size = 0;
  std::list<Segment> in_use;  // sorted by offset
};

AttachedBuffer& attached() {
  static AttachedBuffer buffer;  // MPI has one attached buffer per process
  return buffer;
}

void reap() {
  auto& in_use = attached().in_use;
  for (auto it = in_use.begin(); it != in_use.end();)
    it = it->send->is_complete() ? in_use.erase(it) : std::next(it);
}

// First fit over the gaps between segments; nullopt-like (SIZE_MAX) when nothing fits.
std::size_t find_space(std::size_t length, std::list<Segment>::iterator* before) {
  AttachedBuffer& b = attached();
  std::size_t cursor = 0;
  for (auto it = b.in_use.begin(); it != b.in_use.end(); ++it) {
    if (it->offset - cursor >= length) {
      *before = it;
      return cursor;
    }
    cursor = it->offset + it->length;
  }
  if (b.size >= cursor && b.size - cursor >= length) {
    *before = b.in_use.end();
    return cursor;
  }
  return SIZE_MAX;
}

}  // namespace

Rc start_buffered_send(const void* buf, int count, const DatatypeRef& type, int dest, int tag, const CommRef& comm) {
  if (dest == MPI_PROC_NULL) return Rc();
  AttachedBuffer& b = attached();
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size();
  // Exactly packed size + overhead, no rounding: MPI-3.1 section 3.6.1 promises that a buffer of the sum of
  // these fits (the data is sent as bytes, so nothing needs aligning).
  const std::size_t length = bytes + MPI_BSEND_OVERHEAD;
  reap();
  std::list<Segment>::iterator before;
  std::size_t offset = find_space(length, &before);
  if (offset == SIZE_MAX) {
    runtime().progress();
    reap();
    offset = find_space(length, &before);
  }
  if (offset == SIZE_MAX)
    return fail(MPI_ERR_BUFFER, "buffered send of %zu bytes (+%d overhead) does not fit the attached buffer (%zu bytes%s)",
                bytes, MPI_BSEND_OVERHEAD, b.size, b.base ? "" : ", none attached");
  unsigned char* data = b.base + offset;
  if (bytes) type->pack(buf, static_cast<std::size_t>(count), 0, data, bytes);
  auto send = std::make_shared<Request>(Request::Kind::send);
  FABMPI_TRY(runtime().pt2pt().start_send(data, bytes, builtin_datatype(MPI_BYTE), dest, tag, comm,
                                          pt2pt::Channel::user, pt2pt::SendMode::buffered, send));
  b.in_use.insert(before, Segment{offset, length, std::move(send)});
  return Rc();
}

}  // namespace fabmpi::binding

using namespace fabmpi;
using namespace fabmpi::binding;

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void* buffer, int size) {
  ApiCall call("MPI_Buffer_attach");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    if (size < 0) return fail(MPI_ERR_ARG, "negative buffer size %d", size);
    if (buffer == nullptr && size > 0) return fail(MPI_ERR_BUFFER, "NULL buffer of size %d", size);
    AttachedBuffer& b = attached();
    if (b.base) return fail(MPI_ERR_BUFFER, "a buffer is already attached (detach it first)");
    b.base = static_cast<unsigned char*>(buffer);
    b.size = static_cast<std::size_t>(size);
    return Rc();
  }());
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  ApiCall call("MPI_Buffer_detach");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(buffer_addr, "buffer_addr"));
    FABMPI_TRY(check_out_ptr(size, "size"));
    AttachedBuffer& b = attached();
    // Blocks until every message in the buffer has been sent.
    progress_until([&] {
      reap();
      return b.in_use.empty();
    });
    *static_cast<void**>(buffer_addr) = b.base;
    *size = static_cast<int>(b.size);
    b.base = nullptr;
    b.size = 0;
    return Rc();
  }());
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ApiCall call("MPI_Bsend");
  return call.finish([&]() -> Rc {
    CommRef c;
    DatatypeRef type;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_buffer(buf, count, *type));
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_dest_rank(*c, dest));
    return start_buffered_send(buf, count, type, dest, tag, c);
  }());
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  ApiCall call("MPI_Ibsend");
  return call.finish([&]() -> Rc {
    CommRef c;
    DatatypeRef type;
    FABMPI_TRY(call.comm(comm, &c));
    FABMPI_TRY(check_count(count));
    FABMPI_TRY(to_datatype(datatype, &type));
    FABMPI_TRY(check_buffer(buf, count, *type));
    FABMPI_TRY(check_send_tag(tag));
    FABMPI_TRY(check_dest_rank(*c, dest));
    FABMPI_TRY(check_out_ptr(request, "request"));
    FABMPI_TRY(start_buffered_send(buf, count, type, dest, tag, c));
    // The data is in the attached buffer: the user's buffer is free at once.
    auto r = std::make_shared<UserRequest>(Request::Kind::send, c);
    r->mark_complete();
    *request = new_request_handle(r);
    return Rc();
  }());
}
