// Logging by level and subsystem (FABMPI_LOG, FABMPI_LOG_SUBSYS). Each line: "[host:pid:rank] fabmpi
// LEVEL subsys: message". Messages below the configured level cost one branch.
#pragma once

#include <atomic>
#include <string>

namespace fabmpi::log {

enum class Level : int { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };
enum class Subsys : unsigned { core = 1u << 0, pmi = 1u << 1, pt2pt = 1u << 2, coll = 1u << 3,
                               runtime = 1u << 4, launcher = 1u << 5, torch = 1u << 6, cuda = 1u << 7 };

struct Config {
  Level level = Level::warn;
  unsigned subsys_mask = ~0u;
};

// Parses FABMPI_LOG / FABMPI_LOG_SUBSYS strings. Unknown names are reported in *error.
Config parse_config(const std::string& level, const std::string& subsys, std::string* error = nullptr);

void configure(const Config& config);
// The rank shown in the prefix (-1 until known, e.g. in mpirun).
void set_rank(int rank);

extern std::atomic<int> g_level;
extern std::atomic<unsigned> g_subsys_mask;

inline bool enabled(Level level, Subsys subsys) {
  return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed) &&
         (g_subsys_mask.load(std::memory_order_relaxed) & static_cast<unsigned>(subsys)) != 0;
}

// Writes one whole line to stderr (one write() call, so lines of different ranks never interleave).
void write(Level level, Subsys subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace fabmpi::log

// FABMPI_LOG(info, coll, "allreduce: %s", name) -- arguments are evaluated only when enabled.
#define FABMPI_LOG(level, subsys, ...)                                                                  \
  do {                                                                                                  \
    if (::fabmpi::log::enabled(::fabmpi::log::Level::level, ::fabmpi::log::Subsys::subsys))            \
      ::fabmpi::log::write(::fabmpi::log::Level::level, ::fabmpi::log::Subsys::subsys, __VA_ARGS__);    \
  } while (0)
