#include "common/log.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace fabmpi::log {

std::atomic<int> g_level{static_cast<int>(Level::warn)};
std::atomic<unsigned> g_subsys_mask{~0u};

namespace {
std::atomic<int> g_rank{-1};

const char* level_name(Level level) {
  switch (level) {
    case Level::error: return "ERROR";
    case Level::warn: return "WARN";
    case Level::info: return "INFO";
    case Level::debug: return "DEBUG";
    case Level::trace: return "TRACE";
  }
  return "?";
}

struct SubsysName { const char* name; Subsys subsys; };
constexpr SubsysName kSubsysNames[] = {
    {"core", Subsys::core},       {"pmi", Subsys::pmi},           {"pt2pt", Subsys::pt2pt},
    {"coll", Subsys::coll},       {"runtime", Subsys::runtime},   {"launcher", Subsys::launcher},
    {"torch", Subsys::torch},     {"cuda", Subsys::cuda},
};

const char* subsys_name(Subsys s) {
  for (const auto& n : kSubsysNames)
    if (n.subsys == s) return n.name;
  return "?";
}
}  // namespace

Config parse_config(const std::string& level, const std::string& subsys, std::string* error) {
  Config config;
  struct { const char* name; Level level; } levels[] = {
      {"error", Level::error}, {"warn", Level::warn}, {"info", Level::info},
      {"debug", Level::debug}, {"trace", Level::trace}};
  bool found = level.empty();
  for (const auto& l : levels)
    if (level == l.name) { config.level = l.level; found = true; }
  if (!found && error) *error = "unknown FABMPI_LOG level '" + level + "' (use error, warn, info, debug, trace)";
  if (subsys.empty() || subsys == "all") return config;
  config.subsys_mask = 0;
  std::stringstream ss(subsys);
  std::string item;
  while (std::getline(ss, item, ',')) {
    bool known = false;
    for (const auto& n : kSubsysNames)
      if (item == n.name) { config.subsys_mask |= static_cast<unsigned>(n.subsys); known = true; }
    if (!known && error && error->empty()) *error = "unknown FABMPI_LOG_SUBSYS entry '" + item + "'";
  }
  return config;
}

void configure(const Config& config) {
  g_level.store(static_cast<int>(config.level));
  g_subsys_mask.store(config.subsys_mask);
}

void set_rank(int rank) { g_rank.store(rank); }

void write(Level level, Subsys subsys, const char* fmt, ...) {
  char host[64] = "?";
  gethostname(host, sizeof host - 1);
  char line[2048];
  int rank = g_rank.load();
  int n = rank >= 0
              ? std::snprintf(line, sizeof line, "[%s:%d:%d] fabmpi %s %s: ", host, getpid(), rank,
                              level_name(level), subsys_name(subsys))
              : std::snprintf(line, sizeof line, "[%s:%d] fabmpi %s %s: ", host, getpid(),
                              level_name(level), subsys_name(subsys));
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
  va_end(ap);
  std::size_t len = static_cast<std::size_t>(n) + (m < 0 ? 0 : std::min<std::size_t>(m, sizeof line - n - 2));
  line[len++] = '\n';
  ssize_t rc = ::write(STDERR_FILENO, line, len);
  (void)rc;
}

}  // namespace fabmpi::log
