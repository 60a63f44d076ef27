#include "io/file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "coll/collectives.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::io {
namespace {

// "ufs:name", "nfs:name" (ROMIO's file system prefixes) name the file "name".
std::string strip_prefix(const std::string& filename) {
  const std::size_t colon = filename.find(':');
  if (colon != std::string::npos && colon >= 2 && filename.find('/') > colon) return filename.substr(colon + 1);
  return filename;
}

int error_class_of(int err) {
  switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EISDIR: case ENAMETOOLONG: case ENOTDIR: return MPI_ERR_BAD_FILE;
    default: return MPI_ERR_IO;
  }
}

Rc io_error(int err, const char* what, const std::string& path) {
  return fail(error_class_of(err), "%s '%s': %s", what, path.c_str(), std::strerror(err));
}

Rc barrier(const CommRef& comm) { return coll::run_barrier(comm, "MPI-IO's barrier"); }

Rc bcast(const CommRef& comm, long long* values, int count, int root) {
  return coll::run_bcast(comm, values, count, builtin_datatype(MPI_LONG_LONG), root, "MPI-IO's broadcast");
}

// The largest error class over the communicator (0 when every process succeeded).
Rc agree_on_error(const CommRef& comm, int mine, int* worst) {
  static const OpRef max = builtin_op(MPI_MAX);
  return coll::run_reduction(coll::Collective::allreduce, comm, &mine, worst, 1, builtin_datatype(MPI_INT), max,
                             "MPI-IO's agreement on errors");
}

}  // namespace

Rc File::open(const CommRef& comm, const std::string& filename, int amode, std::shared_ptr<File>* out) {
  const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return fail(MPI_ERR_AMODE, "amode 0x%x: exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR", amode);
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return fail(MPI_ERR_AMODE, "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return fail(MPI_ERR_AMODE, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
  auto f = std::shared_ptr<File>(new File());
  FABMPI_TRY(comm_create::dup(comm, &f->comm_));
  f->comm_->name = "a file's communicator";
  f->path_ = strip_prefix(filename);
  f->amode_ = amode;
  f->etype_ = builtin_datatype(MPI_BYTE);
  f->filetype_ = f->etype_;
  const int flags = (access == MPI_MODE_RDONLY ? O_RDONLY : access == MPI_MODE_WRONLY ? O_WRONLY : O_RDWR) | O_CLOEXEC;
  // Rank 0 creates (so MPI_MODE_EXCL is decided once) and sets up the shared file pointer; then the rest.
  const std::size_t slash = f->path_.rfind('/');
  f->shared_path_ = (slash == std::string::npos ? std::string() : f->path_.substr(0, slash + 1)) + "." +
                    f->path_.substr(slash == std::string::npos ? 0 : slash + 1) + ".fabmpi-shfp";
  f->shared_fallback_ = "/tmp/.fabmpi-shfp-" + std::to_string(std::hash<std::string>{}(f->path_));
  int err = 0;
  if (f->comm_->rank() == 0) {
    const int create = (amode & MPI_MODE_CREATE ? O_CREAT : 0) | (amode & MPI_MODE_EXCL ? O_EXCL : 0);
    f->fd_ = ::open(f->path_.c_str(), flags | create, 0644);
    if (f->fd_ < 0) err = errno;
    // A shared file pointer a crashed run left behind starts this one at 0 again.
    if (!err) f->reset_shared_file();
  }
  long long first[1] = {err};
  FABMPI_TRY(bcast(f->comm_, first, 1, 0));
  if (first[0] != 0) {
    const int e = static_cast<int>(first[0]);
    return fail(error_class_of(e), "MPI_File_open '%s': %s", f->path_.c_str(), std::strerror(e));
  }
  if (f->comm_->rank() != 0) {
    f->fd_ = ::open(f->path_.c_str(), flags);
    if (f->fd_ < 0) err = errno;
  }
  int worst = 0;
  FABMPI_TRY(agree_on_error(f->comm_, err ? error_class_of(err) : 0, &worst));
  if (worst != 0) return fail(worst, "MPI_File_open '%s': a process could not open it", f->path_.c_str());
  if (amode & MPI_MODE_APPEND) {
    MPI_Offset end = 0;
    FABMPI_TRY(f->size(&end));
    f->position = end;
    FABMPI_TRY(f->shared_set(end));
  }
  *out = std::move(f);
  return Rc();
}

Rc File::remove(const std::string& filename) {
  const std::string path = strip_prefix(filename);
  if (::unlink(path.c_str()) != 0) return io_error(errno, "MPI_File_delete", path);
  return Rc();
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
  if (shared_fd_ >= 0) ::close(shared_fd_);
}

Rc File::close() {
  FABMPI_TRY(barrier(comm_));  // every process's accesses are done
  if (fd_ >= 0) ::close(fd_);
  if (shared_fd_ >= 0) ::close(shared_fd_);
  fd_ = shared_fd_ = -1;
  FABMPI_TRY(barrier(comm_));
  if (comm_->rank() == 0) {
    ::unlink(shared_path_.c_str());
    ::unlink(shared_fallback_.c_str());
    if ((amode_ & MPI_MODE_DELETE_ON_CLOSE) && ::unlink(path_.c_str()) != 0 && errno != ENOENT)
      return io_error(errno, "MPI_File_close: deleting", path_);
  }
  return Rc();
}

namespace {

Rc check_view_layout(const Datatype& type, const char* which, bool read_only) {
  std::int64_t previous_start = 0, previous_end = 0;
  bool first = true;
  for (const Block& b : type.blocks()) {
    if (b.offset < 0) return fail(MPI_ERR_IO, "the %s has a negative displacement (%lld)", which, static_cast<long long>(b.offset));
    if (!first && b.offset < previous_start)
      return fail(MPI_ERR_IO, "the %s's displacements decrease (%lld after %lld)", which,
                  static_cast<long long>(b.offset), static_cast<long long>(previous_start));
    if (!first && b.offset < previous_end && !read_only)
      return fail(MPI_ERR_IO, "the %s's blocks overlap at byte %lld (allowed only in a read-only file)", which,
                  static_cast<long long>(b.offset));
    previous_start = b.offset;
    previous_end = std::max(previous_end, b.offset + static_cast<std::int64_t>(b.length));
    first = false;
  }
  return Rc();
}

}  // namespace

Rc File::set_view(MPI_Offset disp, const DatatypeRef& etype, const DatatypeRef& filetype, const std::string& datarep) {
  if (datarep != "native")
    return fail(MPI_ERR_UNSUPPORTED_DATAREP, "data representation '%s' (fabmpi has \"native\" only)", datarep.c_str());
  if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT) return fail(MPI_ERR_ARG, "negative displacement %lld", disp);
  if (etype->size() == 0) return fail(MPI_ERR_TYPE, "the etype has size 0");
  if (filetype->size() % etype->size() != 0)
    return fail(MPI_ERR_TYPE, "the filetype's size (%zu) is not a multiple of the etype's (%zu)", filetype->size(),
                etype->size());
  // Displacements non-negative and nondecreasing, without overlaps where the file can be written
  // (MPI-3.1 13.3). MPI_ERR_IO, the class ROMIO (MPICH, Open MPI) gives these views.
  FABMPI_TRY(check_view_layout(*etype, "etype", (amode_ & MPI_MODE_RDONLY) != 0));
  FABMPI_TRY(check_view_layout(*filetype, "filetype", (amode_ & MPI_MODE_RDONLY) != 0));
  if (filetype->lb() < 0) return fail(MPI_ERR_IO, "the filetype has a negative lower bound");
  if (disp == MPI_DISPLACEMENT_CURRENT && !(amode_ & MPI_MODE_SEQUENTIAL))
    return fail(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs a file opened with MPI_MODE_SEQUENTIAL");
  FABMPI_TRY(barrier(comm_));  // no access of the old view runs while the shared pointer resets
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    // A sequential file has only the shared pointer: the view starts where it is (MPI-3.1 13.3).
    MPI_Offset shared = 0;
    FABMPI_TRY(shared_fetch_add(0, &shared));
    disp = byte_offset(shared);
    FABMPI_TRY(barrier(comm_));  // everyone has read it before rank 0 resets it below
  }
  disp_ = disp;
  etype_ = etype;
  filetype_ = filetype;
  position = 0;
  if (comm_->rank() == 0) reset_shared_file();
  return barrier(comm_);
}

template <class Fn>
Rc File::for_each_run(std::uint64_t stream_begin, std::size_t length, Fn&& fn) const {
  const std::size_t tile_size = filetype_->size();
  if (length == 0) return Rc();
  if (tile_size == 0) return fail(MPI_ERR_ARG, "the view's filetype holds no data");
  const std::int64_t extent = filetype_->extent();
  const std::vector<Block>& blocks = filetype_->blocks();
  std::uint64_t s = stream_begin;
  std::size_t done = 0;
  // Pending run (merged while contiguous in the file).
  std::int64_t run_file = -1;
  std::size_t run_stream = 0, run_len = 0;
  while (done < length) {
    const std::uint64_t tile = s / tile_size;
    std::size_t within = static_cast<std::size_t>(s % tile_size);
    for (const Block& b : blocks) {
      if (within >= b.length) {
        within -= b.length;
        continue;
      }
      const std::size_t n = std::min(b.length - within, length - done);
      const std::int64_t at = disp_ + static_cast<std::int64_t>(tile) * extent + b.offset + static_cast<std::int64_t>(within);
      if (run_file >= 0 && run_file + static_cast<std::int64_t>(run_len) == at) {
        run_len += n;
      } else {
        if (run_file >= 0) FABMPI_TRY(fn(run_file, run_stream, run_len));
        run_file = at;
        run_stream = done;
        run_len = n;
      }
      done += n;
      s += n;
      within = 0;
      if (done == length) break;
    }
  }
  if (run_file >= 0) FABMPI_TRY(fn(run_file, run_stream, run_len));
  return Rc();
}

Rc File::write_at(MPI_Offset offset, const void* buf, int count, const Datatype& type, std::size_t* bytes) {
  *bytes = 0;
  if ((amode_ & (MPI_MODE_WRONLY | MPI_MODE_RDWR)) == 0)
    return fail(MPI_ERR_READ_ONLY, "the file '%s' was opened MPI_MODE_RDONLY", path_.c_str());
  if (offset < 0) return fail(MPI_ERR_ARG, "negative offset %lld", offset);
  const std::size_t total = static_cast<std::size_t>(count) * type.size();
  std::vector<unsigned char> stream(total);
  if (total) type.pack(buf, static_cast<std::size_t>(count), 0, stream.data(), total);
  FABMPI_TRY(for_each_run(static_cast<std::uint64_t>(offset) * etype_->size(), total,
                          [&](std::int64_t at, std::size_t from, std::size_t n) -> Rc {
                            while (n > 0) {
                              const ssize_t w = ::pwrite(fd_, stream.data() + from, n, at);
                              if (w < 0 && errno == EINTR) continue;
                              if (w <= 0) return io_error(w < 0 ? errno : EIO, "writing", path_);
                              at += w;
                              from += static_cast<std::size_t>(w);
                              n -= static_cast<std::size_t>(w);
                              *bytes += static_cast<std::size_t>(w);
                            }
                            return Rc();
                          }));
  return Rc();
}

Rc File::read_at(MPI_Offset offset, void* buf, int count, const Datatype& type, std::size_t* bytes) {
  *bytes = 0;
  if (amode_ & MPI_MODE_WRONLY) return fail(MPI_ERR_ACCESS, "the file '%s' was opened MPI_MODE_WRONLY", path_.c_str());
  if (offset < 0) return fail(MPI_ERR_ARG, "negative offset %lld", offset);
  const std::size_t total = static_cast<std::size_t>(count) * type.size();
  std::vector<unsigned char> stream(total);
  bool at_end = false;
  FABMPI_TRY(for_each_run(static_cast<std::uint64_t>(offset) * etype_->size(), total,
                          [&](std::int64_t at, std::size_t from, std::size_t n) -> Rc {
                            while (n > 0 && !at_end) {
                              const ssize_t r = ::pread(fd_, stream.data() + from, n, at);
                              if (r < 0 && errno == EINTR) continue;
                              if (r < 0) return io_error(errno, "reading", path_);
                              if (r == 0) {
                                at_end = true;  // the data ends here: what follows is not read
                                break;
                              }
                              at += r;
                              from += static_cast<std::size_t>(r);
                              n -= static_cast<std::size_t>(r);
                              *bytes += static_cast<std::size_t>(r);
                            }
                            return Rc();
                          }));
  if (*bytes) type.unpack(stream.data(), *bytes, 0, buf, static_cast<std::size_t>(count));
  return Rc();
}

void File::reset_shared_file() {
  for (const std::string* p : {&shared_path_, &shared_fallback_}) {
    const int fd = ::open(p->c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    (void)::flock(fd, LOCK_EX);
    (void)::ftruncate(fd, 0);
    (void)::flock(fd, LOCK_UN);
    ::close(fd);
  }
}

Rc File::open_shared_file() {
  if (shared_fd_ >= 0) return Rc();
  // Next to the data file (so it is shared wherever the file is), else (a read-only directory) in /tmp.
  shared_fd_ = ::open(shared_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (shared_fd_ < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
    shared_fd_ = ::open(shared_fallback_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (shared_fd_ < 0) return io_error(errno, "creating the shared file pointer of", path_);
  return Rc();
}

Rc File::shared_fetch_add(MPI_Offset delta, MPI_Offset* old) {
  FABMPI_TRY(open_shared_file());
  if (::flock(shared_fd_, LOCK_EX) != 0) return io_error(errno, "locking the shared file pointer of", path_);
  long long value = 0;  // an empty file: 0
  Rc rc;
  if (::pread(shared_fd_, &value, sizeof value, 0) < 0) rc = io_error(errno, "reading the shared file pointer of", path_);
  const long long next = value + delta;
  if (rc.ok() && delta != 0 && ::pwrite(shared_fd_, &next, sizeof next, 0) != sizeof next)
    rc = io_error(errno ? errno : EIO, "writing the shared file pointer of", path_);
  ::flock(shared_fd_, LOCK_UN);
  *old = value;
  return rc;
}

Rc File::shared_set(MPI_Offset value) {
  FABMPI_TRY(open_shared_file());
  if (::flock(shared_fd_, LOCK_EX) != 0) return io_error(errno, "locking the shared file pointer of", path_);
  const long long v = value;
  const bool ok = ::pwrite(shared_fd_, &v, sizeof v, 0) == sizeof v;
  ::flock(shared_fd_, LOCK_UN);
  if (!ok) return io_error(errno ? errno : EIO, "writing the shared file pointer of", path_);
  return Rc();
}

Rc File::seek_shared(MPI_Offset offset, int whence) {
  int err = MPI_SUCCESS;
  if (comm_->rank() == 0) {
    MPI_Offset base = 0;
    if (whence == MPI_SEEK_CUR) FABMPI_TRY(shared_fetch_add(0, &base));
    else if (whence == MPI_SEEK_END) FABMPI_TRY(end_position(&base));
    if (base + offset < 0) err = MPI_ERR_ARG;
    else FABMPI_TRY(shared_set(base + offset));
  }
  int worst = 0;
  FABMPI_TRY(agree_on_error(comm_, err, &worst));
  if (worst) return fail(worst, "MPI_File_seek_shared: the position would be negative");
  return Rc();
}

Rc File::ordered(bool write, void* buf, int count, const Datatype& type, std::size_t* bytes) {
  const long long mine = static_cast<long long>(count) * static_cast<long long>(type.size() / etype_->size());
  long long before = 0, total = 0;
  static const OpRef sum = builtin_op(MPI_SUM);
  const DatatypeRef ll = builtin_datatype(MPI_LONG_LONG);
  FABMPI_TRY(coll::run_reduction(coll::Collective::exscan, comm_, &mine, &before, 1, ll, sum, "an ordered access"));
  if (comm_->rank() == 0) before = 0;  // exscan leaves rank 0's result undefined
  FABMPI_TRY(coll::run_reduction(coll::Collective::allreduce, comm_, &mine, &total, 1, ll, sum, "an ordered access"));
  long long base[1] = {0};
  if (comm_->rank() == 0) {
    MPI_Offset old = 0;
    FABMPI_TRY(shared_fetch_add(total, &old));
    base[0] = old;
  }
  FABMPI_TRY(bcast(comm_, base, 1, 0));
  return write ? write_at(base[0] + before, buf, count, type, bytes) : read_at(base[0] + before, buf, count, type, bytes);
}

MPI_Offset File::byte_offset(MPI_Offset offset) const {
  const std::uint64_t s = static_cast<std::uint64_t>(offset) * etype_->size();
  const std::size_t tile_size = filetype_->size();
  if (tile_size == 0) return disp_;
  const std::uint64_t tile = s / tile_size;
  std::size_t within = static_cast<std::size_t>(s % tile_size);
  for (const Block& b : filetype_->blocks()) {
    if (within < b.length) return disp_ + static_cast<MPI_Offset>(tile) * filetype_->extent() + b.offset + within;
    within -= b.length;
  }
  return disp_ + static_cast<MPI_Offset>(tile + 1) * filetype_->extent();
}

Rc File::end_position(MPI_Offset* out) {
  MPI_Offset bytes = 0;
  FABMPI_TRY(size(&bytes));
  const std::size_t tile_size = filetype_->size();
  const std::int64_t extent = filetype_->extent();
  if (bytes <= disp_ || tile_size == 0 || extent <= 0) {
    *out = 0;
    return Rc();
  }
  const std::int64_t past = bytes - disp_;
  const std::int64_t tiles = past / extent;
  std::int64_t data = tiles * static_cast<std::int64_t>(tile_size);
  const std::int64_t rest = past % extent;
  for (const Block& b : filetype_->blocks())  // data of the last, partial tile below the end
    if (b.offset < rest) data += std::min<std::int64_t>(static_cast<std::int64_t>(b.length), rest - b.offset);
  const auto esize = static_cast<std::int64_t>(etype_->size());
  *out = (data + esize - 1) / esize;
  return Rc();
}

Rc File::size(MPI_Offset* out) const {
  struct stat st{};
  if (::fstat(fd_, &st) != 0) return io_error(errno, "MPI_File_get_size", path_);
  *out = st.st_size;
  return Rc();
}

Rc File::set_size(MPI_Offset size) {
  if (size < 0) return fail(MPI_ERR_ARG, "negative size %lld", size);
  int err = 0;
  if (comm_->rank() == 0 && ::ftruncate(fd_, size) != 0) err = errno;
  int worst = 0;
  FABMPI_TRY(agree_on_error(comm_, err ? error_class_of(err) : 0, &worst));
  if (worst) return fail(worst, "MPI_File_set_size '%s' to %lld failed", path_.c_str(), size);
  return Rc();
}

Rc File::preallocate(MPI_Offset size) {
  if (size < 0) return fail(MPI_ERR_ARG, "negative size %lld", size);
  int err = 0;
  MPI_Offset now = 0;
  FABMPI_TRY(this->size(&now));
  if (comm_->rank() == 0 && size > now) {
    err = ::posix_fallocate(fd_, 0, size);
    if (err == EOPNOTSUPP || err == EINVAL) err = ::ftruncate(fd_, size) == 0 ? 0 : errno;
  }
  int worst = 0;
  FABMPI_TRY(agree_on_error(comm_, err ? error_class_of(err) : 0, &worst));
  if (worst) return fail(worst, "MPI_File_preallocate '%s' to %lld failed", path_.c_str(), size);
  return Rc();
}

Rc File::sync() {
  if (::fsync(fd_) != 0 && errno != EINVAL) return io_error(errno, "MPI_File_sync", path_);
  return Rc();
}

}  // namespace fabmpi::io
