// Forwarding the ranks' output line by line: each rank's stdout and stderr are pipes read with poll();
// partial lines wait in a buffer until their '\n' arrives, so a line of one rank is never cut by a
// line of another. A final line without '\n' is completed at EOF.
#pragma once

#include <string>
#include <string_view>

namespace fabmpi::launcher {

// Writes all of bytes to fd (retrying short writes and EINTR). False when the fd is gone.
bool write_all(int fd, std::string_view bytes);

class LineForwarder {
 public:
  // Lines go to out_fd, each preceded by prefix (e.g. "[3] " for --tag-output, or "").
  LineForwarder(int out_fd, std::string prefix) : out_fd_(out_fd), prefix_(std::move(prefix)) {}

  // Bytes read from the rank's pipe; every complete line is written out now.
  void consume(std::string_view bytes);
  // End of stream: a pending partial line is written with a '\n' added.
  void finish();
  std::size_t pending_bytes() const { return partial_.size(); }
  // Remembers whether a forwarded line contained `needle` (mpirun notes which ranks printed a hang
  // report).
  void watch_for(std::string needle) { needle_ = std::move(needle); }
  bool saw_needle() const { return saw_needle_; }
  // Keeps the last forwarded line that contains `marker`, from the marker on without its '\n' (the
  // wait summary of a hang report: "waiting on world ranks: 1 3").
  void capture(std::string marker) { capture_marker_ = std::move(marker); }
  const std::string& captured() const { return captured_; }

  // A partial line longer than this is written out without waiting for its end.
  static constexpr std::size_t kMaxPartialLine = 1 << 20;

 private:
  void emit(std::string_view line_with_newline);

  int out_fd_;
  std::string prefix_;
  std::string partial_;
  std::string needle_;
  bool saw_needle_ = false;
  std::string capture_marker_;
  std::string captured_;
};

}  // namespace fabmpi::launcher
