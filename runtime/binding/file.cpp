// MPI-IO's C API (io/file.hpp does the work): handles, argument checks, the file pointers' forms of each
// access (explicit offset, individual, shared, ordered), blocking, nonblocking (a completed request) and
// split collective (the access runs in _begin; _end returns its status), and the file error handlers
// (files report to their own handler; MPI_FILE_NULL's, MPI_ERRORS_RETURN by default, covers opening
// and invalid handles).
#include <cstdint>
#include <cstring>

#include "runtime/binding/library.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

MPI_File to_handle(int handle) {
  return reinterpret_cast<MPI_File>(static_cast<std::uintptr_t>(static_cast<unsigned>(handle)));
}

Rc to_file(ApiCall& call, MPI_File fh, io::FileRef* out) {
  call.report_to_file(nullptr);
  if (fh == MPI_FILE_NULL) return fail(MPI_ERR_FILE, "MPI_FILE_NULL is not an open file");
  const auto handle = static_cast<int>(static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(fh)));
  const io::FileRef* found = library().files.find(handle);
  if (!found) return fail(MPI_ERR_FILE, "invalid file handle %p", static_cast<void*>(fh));
  *out = *found;
  call.report_to_file(out->get());
  return Rc();
}

void set_status(MPI_Status* status, std::size_t bytes) {
  CompletedRequest done(Request::Kind::recv, MPI_ANY_SOURCE, MPI_ANY_TAG);
  done.count_bytes = bytes;
  done.fill_status(status);
}

// Where an access starts: an explicit offset, the individual pointer, the shared pointer, or (collective)
// the shared pointer in rank order.
enum class Where { at, individual, shared, ordered };

// One data access; *bytes is what moved.
Rc access(ApiCall& call, MPI_File fh, Where where, MPI_Offset offset, const void* buf, int count,
          MPI_Datatype datatype, bool write, std::size_t* bytes) {
  *bytes = 0;
  io::FileRef f;
  FABMPI_TRY(to_file(call, fh, &f));
  FABMPI_TRY(check_count(count));
  DatatypeRef t;
  FABMPI_TRY(to_datatype(datatype, &t));
  FABMPI_TRY(check_buffer(buf, count, *t));
  const std::size_t esize = f->etype()->size();
  if (t->size() % esize != 0)
    return fail(MPI_ERR_TYPE, "the datatype's size (%zu) is not a multiple of the view's etype size (%zu)", t->size(), esize);
  void* data = const_cast<void*>(buf);
  const MPI_Offset etypes = static_cast<MPI_Offset>(count) * static_cast<MPI_Offset>(t->size() / esize);
  switch (where) {
    case Where::at:
      return write ? f->write_at(offset, data, count, *t, bytes) : f->read_at(offset, data, count, *t, bytes);
    case Where::individual: {
      const MPI_Offset at = f->position;
      Rc rc = write ? f->write_at(at, data, count, *t, bytes) : f->read_at(at, data, count, *t, bytes);
      f->position = at + static_cast<MPI_Offset>(*bytes / esize);
      return rc;
    }
    case Where::shared: {
      MPI_Offset at = 0;
      FABMPI_TRY(f->shared_fetch_add(etypes, &at));
      return write ? f->write_at(at, data, count, *t, bytes) : f->read_at(at, data, count, *t, bytes);
    }
    case Where::ordered: return f->ordered(write, data, count, *t, bytes);
  }
  return Rc();
}

Rc blocking(ApiCall& call, MPI_File fh, Where where, MPI_Offset offset, const void* buf, int count,
            MPI_Datatype datatype, bool write, MPI_Status* status) {
  std::size_t bytes = 0;
  FABMPI_TRY(access(call, fh, where, offset, buf, count, datatype, write, &bytes));
  set_status(status, bytes);
  return Rc();
}

// The nonblocking forms: the access is done now; the request comes back complete with its status.
Rc nonblocking(ApiCall& call, MPI_File fh, Where where, MPI_Offset offset, const void* buf, int count,
               MPI_Datatype datatype, bool write, MPI_Request* request) {
  FABMPI_TRY(check_out_ptr(request, "request"));
  std::size_t bytes = 0;
  FABMPI_TRY(access(call, fh, where, offset, buf, count, datatype, write, &bytes));
  auto done = std::make_shared<CompletedRequest>(Request::Kind::recv, MPI_ANY_SOURCE, MPI_ANY_TAG);
  done->count_bytes = bytes;
  *request = new_request_handle(done);
  return Rc();
}

Rc split_begin(ApiCall& call, MPI_File fh, Where where, MPI_Offset offset, const void* buf, int count,
               MPI_Datatype datatype, bool write) {
  io::FileRef f;
  FABMPI_TRY(to_file(call, fh, &f));
  if (f->split_active) return fail(MPI_ERR_OTHER, "a split collective access is already active on this file");
  std::size_t bytes = 0;
  FABMPI_TRY(access(call, fh, where, offset, buf, count, datatype, write, &bytes));
  f->split_active = true;
  f->split_bytes = bytes;
  return Rc();
}

Rc split_end(ApiCall& call, MPI_File fh, MPI_Status* status) {
  io::FileRef f;
  FABMPI_TRY(to_file(call, fh, &f));
  if (!f->split_active) return fail(MPI_ERR_OTHER, "no split collective access is active on this file");
  f->split_active = false;
  set_status(status, f->split_bytes);
  return Rc();
}

Rc whence_position(io::File& f, MPI_Offset offset, int whence, MPI_Offset current, MPI_Offset* out) {
  MPI_Offset base = 0;
  switch (whence) {
    case MPI_SEEK_SET: break;
    case MPI_SEEK_CUR: base = current; break;
    case MPI_SEEK_END: FABMPI_TRY(f.end_position(&base)); break;
    default: return fail(MPI_ERR_ARG, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
  }
  if (base + offset < 0) return fail(MPI_ERR_ARG, "the position would be negative (%lld)", base + offset);
  *out = base + offset;
  return Rc();
}

}  // namespace

extern "C" {

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  ApiCall call("MPI_File_open");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    CommRef c;
    FABMPI_TRY(call.comm(comm, &c));
    call.report_to_file(nullptr);
    FABMPI_TRY(check_intra(*c));
    if (filename == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the file name");
    FABMPI_TRY(check_out_ptr(fh, "fh"));
    InfoRef i;
    FABMPI_TRY(optional_info(info, &i));
    io::FileRef f;
    FABMPI_TRY(io::File::open(c, filename, amode, &f));
    f->errhandler = library().file_default_errhandler;
    f->info = i ? std::make_shared<Info>(*i) : std::make_shared<Info>();
    f->handle = library().files.insert(f);
    *fh = to_handle(f->handle);
    return Rc();
  }());
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File* fh) {
  ApiCall call("MPI_File_close");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(check_out_ptr(fh, "fh"));
    io::FileRef f;
    FABMPI_TRY(to_file(call, *fh, &f));
    FABMPI_TRY(f->close());
    library().files.erase(f->handle);
    *fh = MPI_FILE_NULL;
    return Rc();
  }());
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char* filename, MPI_Info info) {
  ApiCall call("MPI_File_delete");
  return call.finish([&]() -> Rc {
    call.report_to_file(nullptr);
    FABMPI_TRY(call.require_initialized());
    if (filename == nullptr) return fail(MPI_ERR_ARG, "NULL pointer passed for the file name");
    FABMPI_TRY(optional_info(info));
    return io::File::remove(filename);
  }());
}

#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  ApiCall call("MPI_File_set_size");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    return f->set_size(size);
  }());
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  ApiCall call("MPI_File_preallocate");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    return f->preallocate(size);
  }());
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  ApiCall call("MPI_File_get_size");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(size, "size"));
    return f->size(size);
  }());
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  ApiCall call("MPI_File_get_group");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(group, "group"));
    *group = new_group_handle(f->comm()->group());
    return Rc();
  }());
}

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int* amode) {
  ApiCall call("MPI_File_get_amode");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(amode, "amode"));
    *amode = f->amode();
    return Rc();
  }());
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  ApiCall call("MPI_File_set_info");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    InfoRef i;
    FABMPI_TRY(optional_info(info, &i));
    if (i)  // hints are kept (and reported by MPI_File_get_info), not acted on
      for (int k = 0; k < i->size(); ++k) f->info->set(i->nth_key(k), *i->get(i->nth_key(k)));
    return Rc();
  }());
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  ApiCall call("MPI_File_get_info");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(info_used, "info_used"));
    auto copy = std::make_shared<Info>(*f->info);
    copy->handle = library().infos.insert(copy);
    *info_used = copy->handle;
    return Rc();
  }());
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                       MPI_Info info) {
  ApiCall call("MPI_File_set_view");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    DatatypeRef e, t;
    FABMPI_TRY(to_datatype(etype, &e));
    FABMPI_TRY(to_datatype(filetype, &t));
    FABMPI_TRY(optional_info(info));
    return f->set_view(disp, e, t, datarep ? datarep : "native");
  }());
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype, char* datarep) {
  ApiCall call("MPI_File_get_view");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(disp, "disp"));
    FABMPI_TRY(check_out_ptr(etype, "etype"));
    FABMPI_TRY(check_out_ptr(filetype, "filetype"));
    *disp = f->disp();
    // Derived types come back as new handles the caller frees (MPI-3.1 13.3).
    *etype = f->etype()->builtin() ? f->etype()->handle : new_datatype_handle(f->etype());
    *filetype = f->filetype()->builtin() ? f->filetype()->handle : new_datatype_handle(f->filetype());
    if (datarep) std::strcpy(datarep, "native");
    return Rc();
  }());
}

// ---- data access: one function per pointer kind and form (access() above does the work)

#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read_at");
  return call.finish(blocking(call, fh, Where::at, offset, buf, count, datatype, false, status));
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read_at_all");
  return call.finish(blocking(call, fh, Where::at, offset, buf, count, datatype, false, status));
}

#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write_at");
  return call.finish(blocking(call, fh, Where::at, offset, buf, count, datatype, true, status));
}

#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write_at_all");
  return call.finish(blocking(call, fh, Where::at, offset, buf, count, datatype, true, status));
}

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iread_at");
  return call.finish(nonblocking(call, fh, Where::at, offset, buf, count, datatype, false, request));
}

#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iwrite_at");
  return call.finish(nonblocking(call, fh, Where::at, offset, buf, count, datatype, true, request));
}

#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iread_at_all");
  return call.finish(nonblocking(call, fh, Where::at, offset, buf, count, datatype, false, request));
}

#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iwrite_at_all");
  return call.finish(nonblocking(call, fh, Where::at, offset, buf, count, datatype, true, request));
}

#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read");
  return call.finish(blocking(call, fh, Where::individual, 0, buf, count, datatype, false, status));
}

#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read_all");
  return call.finish(blocking(call, fh, Where::individual, 0, buf, count, datatype, false, status));
}

#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write");
  return call.finish(blocking(call, fh, Where::individual, 0, buf, count, datatype, true, status));
}

#pragma weak MPI_File_write_all = PMPI_File_write_all
int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write_all");
  return call.finish(blocking(call, fh, Where::individual, 0, buf, count, datatype, true, status));
}

#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iread");
  return call.finish(nonblocking(call, fh, Where::individual, 0, buf, count, datatype, false, request));
}

#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iwrite");
  return call.finish(nonblocking(call, fh, Where::individual, 0, buf, count, datatype, true, request));
}

#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iread_all");
  return call.finish(nonblocking(call, fh, Where::individual, 0, buf, count, datatype, false, request));
}

#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iwrite_all");
  return call.finish(nonblocking(call, fh, Where::individual, 0, buf, count, datatype, true, request));
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read_shared");
  return call.finish(blocking(call, fh, Where::shared, 0, buf, count, datatype, false, status));
}

#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write_shared");
  return call.finish(blocking(call, fh, Where::shared, 0, buf, count, datatype, true, status));
}

#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iread_shared");
  return call.finish(nonblocking(call, fh, Where::shared, 0, buf, count, datatype, false, request));
}

#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  ApiCall call("MPI_File_iwrite_shared");
  return call.finish(nonblocking(call, fh, Where::shared, 0, buf, count, datatype, true, request));
}

#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_read_ordered");
  return call.finish(blocking(call, fh, Where::ordered, 0, buf, count, datatype, false, status));
}

#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  ApiCall call("MPI_File_write_ordered");
  return call.finish(blocking(call, fh, Where::ordered, 0, buf, count, datatype, true, status));
}

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_read_at_all_begin");
  return call.finish(split_begin(call, fh, Where::at, offset, buf, count, datatype, false));
}
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_read_at_all_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_write_at_all_begin");
  return call.finish(split_begin(call, fh, Where::at, offset, buf, count, datatype, true));
}
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_write_at_all_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_read_all_begin");
  return call.finish(split_begin(call, fh, Where::individual, 0, buf, count, datatype, false));
}
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
int PMPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_read_all_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_write_all_begin");
  return call.finish(split_begin(call, fh, Where::individual, 0, buf, count, datatype, true));
}
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
int PMPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_write_all_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_read_ordered_begin");
  return call.finish(split_begin(call, fh, Where::ordered, 0, buf, count, datatype, false));
}
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
int PMPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_read_ordered_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  ApiCall call("MPI_File_write_ordered_begin");
  return call.finish(split_begin(call, fh, Where::ordered, 0, buf, count, datatype, true));
}
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
int PMPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;  // the access ran in _begin
  ApiCall call("MPI_File_write_ordered_end");
  return call.finish(split_end(call, fh, status));
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  ApiCall call("MPI_File_seek");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    return whence_position(*f, offset, whence, f->position, &f->position);
  }());
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  ApiCall call("MPI_File_get_position");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(offset, "offset"));
    *offset = f->position;
    return Rc();
  }());
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  ApiCall call("MPI_File_get_byte_offset");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(disp, "disp"));
    if (offset < 0) return fail(MPI_ERR_ARG, "negative offset %lld", offset);
    *disp = f->byte_offset(offset);
    return Rc();
  }());
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  ApiCall call("MPI_File_seek_shared");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
      return fail(MPI_ERR_ARG, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
    return f->seek_shared(offset, whence);
  }());
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  ApiCall call("MPI_File_get_position_shared");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(offset, "offset"));
    return f->shared_fetch_add(0, offset);
  }());
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  ApiCall call("MPI_File_get_type_extent");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    DatatypeRef t;
    FABMPI_TRY(to_datatype(datatype, &t, false));
    FABMPI_TRY(check_out_ptr(extent, "extent"));
    *extent = t->extent();  // "native": the file holds the memory representation
    return Rc();
  }());
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  ApiCall call("MPI_File_set_atomicity");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    f->atomicity = flag != 0;  // each access is one pwrite/pread per run: atomic on a local file system
    return Rc();
  }());
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  ApiCall call("MPI_File_get_atomicity");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    FABMPI_TRY(check_out_ptr(flag, "flag"));
    *flag = f->atomicity ? 1 : 0;
    return Rc();
  }());
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh) {
  ApiCall call("MPI_File_sync");
  return call.finish([&]() -> Rc {
    io::FileRef f;
    FABMPI_TRY(to_file(call, fh, &f));
    return f->sync();
  }());
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function* fn, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_File_create_errhandler");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    auto eh = std::make_shared<Errhandler>();
    eh->file_fn = fn;
    return publish_user_errhandler(reinterpret_cast<const void*>(fn), std::move(eh), errhandler);
  }());
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  ApiCall call("MPI_File_set_errhandler");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    ErrhandlerRef eh;
    io::FileRef f;
    if (file != MPI_FILE_NULL) FABMPI_TRY(to_file(call, file, &f));
    else call.report_to_file(nullptr);
    FABMPI_TRY(to_errhandler(errhandler, &eh));
    if (eh->kind == Errhandler::Kind::user && !eh->file_fn)
      return fail(MPI_ERR_ARG, "the error handler was not created for files (MPI_File_create_errhandler)");
    (f ? f->errhandler : library().file_default_errhandler) = std::move(eh);
    return Rc();
  }());
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  ApiCall call("MPI_File_get_errhandler");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    io::FileRef f;
    if (file != MPI_FILE_NULL) FABMPI_TRY(to_file(call, file, &f));
    else call.report_to_file(nullptr);
    FABMPI_TRY(check_out_ptr(errhandler, "errhandler"));
    *errhandler = errhandler_reference(f ? f->errhandler : library().file_default_errhandler);
    return Rc();
  }());
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  ApiCall call("MPI_File_call_errhandler");
  io::FileRef f;
  if (fh != MPI_FILE_NULL) {
    if (Rc rc = to_file(call, fh, &f); !rc.ok()) return call.finish(rc);
  } else {
    call.report_to_file(nullptr);
  }
  (void)call.finish(fail(errorcode, "MPI_File_call_errhandler"));
  return MPI_SUCCESS;
}

}  // extern "C"
