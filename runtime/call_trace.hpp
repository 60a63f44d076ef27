// A timeline of a rank's MPI calls (docs/debugging.md, "Timelines"): when FABMPI_TRACE names a file
// prefix, every MPI call's start and duration is recorded in memory and written at MPI_Finalize as
// <prefix>.<rank>.json in the Chrome trace event format (one "complete" event per call, pid = rank,
// tid = the calling thread's number), which Perfetto (ui.perfetto.dev) and chrome://tracing display.
// `mpirun --trace FILE` sets the prefix and merges the ranks' files into one. Timestamps are
// CLOCK_MONOTONIC, shared by the ranks of one node. MPI_Pcontrol(0) pauses the recording, MPI_Pcontrol(1)
// resumes it (the standard's profiling-control call).
//
// Point-to-point calls also record their peer, tag, communicator and size (ApiCall::trace_message).
//
// Cost when off: ApiCall tests one pointer. When on: two clock reads and one append per call.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace fabmpi {

class CallTrace {
 public:
  // The recorder for this process when FABMPI_TRACE is set (non-empty), else nullptr. Read once.
  static CallTrace* from_environment();

  static std::uint64_t now_ns() noexcept;

  // What a point-to-point call names: the peer (rank in the communicator, or MPI_ANY_SOURCE), the tag
  // (or MPI_ANY_TAG) and the bytes of its buffer; `context` identifies the communicator. Unset: no args.
  // A collective names its root (MPI_PROC_NULL when it has none) in `peer` and its size in `bytes`
  // (docs/debugging.md says which size for which collective).
  // No initializers: every MPI call's ApiCall holds one and fills it only while tracing.
  struct MessageArgs {
    bool set;
    bool collective;
    std::int32_t peer;
    std::int32_t tag;
    std::uint32_t context;
    std::uint64_t bytes;
  };

  // One call, [start_ns, end_ns]; `name` is a string literal (the binding's MPI name). Callers hold the
  // API lock or are the only thread in the library (MPI_THREAD_SERIALIZED and below).
  void record(const char* name, std::uint64_t start_ns, std::uint64_t end_ns, const MessageArgs& args);
  void set_paused(bool paused) noexcept { paused_.store(paused, std::memory_order_relaxed); }
  bool paused() const noexcept { return paused_.load(std::memory_order_relaxed); }

  // Writes <prefix>.<rank>.json (once; later calls do nothing). Returns false with *why on failure.
  bool write(int rank, int size, std::string* why);
  const std::string& prefix() const noexcept { return prefix_; }

 private:
  CallTrace(std::string prefix, std::size_t max_events) : prefix_(std::move(prefix)), max_events_(max_events) {}
  struct Event {
    const char* name;
    std::uint64_t start_ns;
    std::uint64_t duration_ns;
    std::uint32_t thread;
    MessageArgs args;
  };
  std::string prefix_;
  std::size_t max_events_;
  std::vector<Event> events_;
  std::uint64_t dropped_ = 0;
  std::atomic<bool> paused_{false};
  bool written_ = false;
};

}  // namespace fabmpi
