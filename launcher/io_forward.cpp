#include "launcher/io_forward.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace fabmpi::launcher {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {  // a non-blocking stdout: wait until it drains
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void LineForwarder::emit(std::string_view line_with_newline) {
  if (!needle_.empty() && !saw_needle_ && line_with_newline.find(needle_) != std::string_view::npos)
    saw_needle_ = true;
  if (!capture_marker_.empty()) {
    if (auto at = line_with_newline.find(capture_marker_); at != std::string_view::npos) {
      std::string_view rest = line_with_newline.substr(at);
      if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
      captured_.assign(rest);
    }
  }
  if (prefix_.empty()) {
    write_all(out_fd_, line_with_newline);
    return;
  }
  // One write per line so lines from mpirun's own messages do not split it either.
  std::string line;
  line.reserve(prefix_.size() + line_with_newline.size());
  line += prefix_;
  line += line_with_newline;
  write_all(out_fd_, line);
}

void LineForwarder::consume(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      partial_.append(bytes);
      if (partial_.size() >= kMaxPartialLine) {
        emit(partial_);
        partial_.clear();
      }
      return;
    }
    if (partial_.empty()) {
      emit(bytes.substr(0, nl + 1));
    } else {
      partial_.append(bytes.substr(0, nl + 1));
      emit(partial_);
      partial_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
}

void LineForwarder::finish() {
  if (partial_.empty()) return;
  partial_ += '\n';
  emit(partial_);
  partial_.clear();
}

}  // namespace fabmpi::launcher
