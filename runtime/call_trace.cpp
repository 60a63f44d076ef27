#include "runtime/call_trace.hpp"

#include "common/tunables.hpp"

#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace fabmpi {
namespace {

// A small number per thread that ever called MPI, in order of first call (0 = the first).
std::uint32_t thread_number() {
  static std::atomic<std::uint32_t> next{0};
  thread_local const std::uint32_t mine = next.fetch_add(1, std::memory_order_relaxed);
  return mine;
}

}  // namespace

CallTrace* CallTrace::from_environment() {
  // Through the tunable registry like every FABMPI_* variable (MPI_Init reports a malformed value).
  const Tunables tunables = Tunables::from_environment();
  if (tunables.trace.empty()) return nullptr;
  const auto max_events = static_cast<std::size_t>(tunables.trace_max > 0 ? tunables.trace_max : 1);
  static CallTrace* trace = new CallTrace(tunables.trace, max_events);  // leaked like Library
  return trace;
}

std::uint64_t CallTrace::now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

void CallTrace::record(const char* name, std::uint64_t start_ns, std::uint64_t end_ns, const MessageArgs& args) {
  if (written_ || paused()) return;
  if (events_.size() >= max_events_) {
    ++dropped_;
    return;
  }
  events_.push_back({name, start_ns, end_ns >= start_ns ? end_ns - start_ns : 0, thread_number(), args});
}

bool CallTrace::write(int rank, int size, std::string* why) {
  if (written_) return true;
  written_ = true;
  const std::string path = prefix_ + "." + std::to_string(rank) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *why = path + ": " + std::strerror(errno);
    return false;
  }
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  // One event per line: mpirun --trace merges the ranks' files line by line.
  std::fprintf(f, "{\"traceEvents\":[\n");
  std::fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d of %d (%s, pid %d)\"}},\n",
               rank, rank, size, host, static_cast<int>(getpid()));
  std::fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}},\n", rank, rank);
  for (const Event& e : events_) {
    // Microseconds with nanosecond digits: the format's unit, without losing the clock's resolution.
    std::fprintf(f, "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32 ",\"ts\":%" PRIu64 ".%03" PRIu64
                    ",\"dur\":%" PRIu64 ".%03" PRIu64,
                 e.name, rank, e.thread, e.start_ns / 1000, e.start_ns % 1000, e.duration_ns / 1000,
                 e.duration_ns % 1000);
    if (e.args.set && !e.args.collective)
      std::fprintf(f, ",\"args\":{\"peer\":%" PRId32 ",\"tag\":%" PRId32 ",\"bytes\":%" PRIu64 ",\"context\":%" PRIu32 "}",
                   e.args.peer, e.args.tag, e.args.bytes, e.args.context);
    else if (e.args.set && e.args.peer >= 0)
      std::fprintf(f, ",\"args\":{\"root\":%" PRId32 ",\"bytes\":%" PRIu64 ",\"context\":%" PRIu32 "}", e.args.peer,
                   e.args.bytes, e.args.context);
    else if (e.args.set)
      std::fprintf(f, ",\"args\":{\"bytes\":%" PRIu64 ",\"context\":%" PRIu32 "}", e.args.bytes, e.args.context);
    std::fprintf(f, "},\n");
  }
  std::fprintf(f, "{\"name\":\"trace_summary\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"calls\":%zu,\"dropped\":%" PRIu64
                  ",\"max_events\":%zu}}\n",
               rank, events_.size(), dropped_, max_events_);
  std::fprintf(f, "],\"displayTimeUnit\":\"ns\"}\n");
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  if (std::fclose(f) != 0 || !ok) {
    *why = path + ": write failed: " + std::strerror(errno);
    return false;
  }
  std::vector<Event>().swap(events_);
  return true;
}

}  // namespace fabmpi
