// MPI-IO (MPI-3.1 chapter 13) over POSIX files: a File is an open file shared by the processes of a
// communicator, with a view (displacement, etype, filetype; the "native" representation only), an
// individual file pointer, and a shared file pointer kept in a small flock-protected side file next to
// the data file (so it works wherever the data file is shared: one node, or a shared file system),
// created on the first shared-pointer access (in /tmp when the file's directory is read-only) and
// removed at close.
//
// Data access maps the caller's packed bytes onto the view: the filetype tiles the file from the
// displacement, and its blocks (in type-map order) hold the data; the bytes between them are holes the
// view skips. Every access is done at once with pread/pwrite: the collective forms (_all, ordered,
// split) run the same independent accesses (their collective part is only the ordering of shared
// pointer accesses), and the nonblocking forms return a completed request.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/info.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::io {

class File {
 public:
  // MPI_File_open: collective over comm (a private duplicate is kept). Errors agree on every process.
  static Rc open(const CommRef& comm, const std::string& filename, int amode, std::shared_ptr<File>* out);
  // MPI_File_delete.
  static Rc remove(const std::string& filename);
  ~File();

  // MPI_File_close: collective; deletes the file when opened with MPI_MODE_DELETE_ON_CLOSE.
  Rc close();

  Rc set_view(MPI_Offset disp, const DatatypeRef& etype, const DatatypeRef& filetype, const std::string& datarep);
  MPI_Offset disp() const noexcept { return disp_; }
  const DatatypeRef& etype() const noexcept { return etype_; }
  const DatatypeRef& filetype() const noexcept { return filetype_; }

  // Moves `count` elements of `type` at `buf` to/from the view at `offset` (in etypes). *bytes: how many
  // bytes moved (a read ends early at the end of the file).
  Rc write_at(MPI_Offset offset, const void* buf, int count, const Datatype& type, std::size_t* bytes);
  Rc read_at(MPI_Offset offset, void* buf, int count, const Datatype& type, std::size_t* bytes);

  // The individual file pointer, in etypes.
  MPI_Offset position = 0;
  // The shared file pointer: *old gets its value, which advances by `delta` etypes (atomically).
  Rc shared_fetch_add(MPI_Offset delta, MPI_Offset* old);
  Rc shared_set(MPI_Offset value);
  // MPI_File_seek_shared (collective; every process passes the same arguments).
  Rc seek_shared(MPI_Offset offset, int whence);
  // MPI_File_read/write_ordered: collective; the processes' data lie one after another in rank order
  // from the shared file pointer, which advances past all of it.
  Rc ordered(bool write, void* buf, int count, const Datatype& type, std::size_t* bytes);
  // The view position (in etypes) of the first byte at or past the end of the file (MPI_SEEK_END).
  Rc end_position(MPI_Offset* out);
  // The absolute byte of view position `offset` (MPI_File_get_byte_offset).
  MPI_Offset byte_offset(MPI_Offset offset) const;

  Rc size(MPI_Offset* out) const;
  Rc set_size(MPI_Offset size);
  Rc preallocate(MPI_Offset size);
  Rc sync();

  const CommRef& comm() const noexcept { return comm_; }
  int amode() const noexcept { return amode_; }
  bool atomicity = false;
  InfoRef info;
  ErrhandlerRef errhandler;
  int handle = 0;  // set by the binding layer
  // A split collective in progress (MPI_File_*_begin): the bytes it moved, for its _end.
  bool split_active = false;
  std::size_t split_bytes = 0;

 private:
  File() = default;
  // Calls fn(file byte offset, stream offset, length) for each contiguous file run of the view's
  // stream bytes [stream_begin, stream_begin + length).
  template <class Fn>
  Rc for_each_run(std::uint64_t stream_begin, std::size_t length, Fn&& fn) const;

  // The shared file pointer's side file: opened on first use; emptied (= 0) by reset_shared_file.
  Rc open_shared_file();
  void reset_shared_file();

  CommRef comm_;
  std::string path_;
  std::string shared_path_;
  std::string shared_fallback_;
  int fd_ = -1;
  int shared_fd_ = -1;
  int amode_ = 0;
  MPI_Offset disp_ = 0;
  DatatypeRef etype_;
  DatatypeRef filetype_;
};

using FileRef = std::shared_ptr<File>;

}  // namespace fabmpi::io
