// The registry of FABMPI_* tunables: declared once in tunables.def, read once from the environment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace fabmpi {

enum class TunableType { Bool, Int, Size, String };

struct TunableSpec {
  const char* env_name;       // "FABMPI_EAGER_MAX"
  TunableType type;
  const char* default_value;  // as a user would write it
  const char* subsystem;
  const char* help;
};

// Parsed values, one field per tunable. Bool -> bool, Int -> long long, Size -> std::size_t,
// String -> std::string.
struct Tunables {
#define FABMPI_TUNABLE_FIELD_Bool bool
#define FABMPI_TUNABLE_FIELD_Int long long
#define FABMPI_TUNABLE_FIELD_Size std::size_t
#define FABMPI_TUNABLE_FIELD_String std::string
#define FABMPI_TUNABLE(field, env, type, def, subsys, help) FABMPI_TUNABLE_FIELD_##type field{};
#include "common/tunables.def"
#undef FABMPI_TUNABLE

  // Reads every FABMPI_* variable from the environment. A malformed value falls back to the default
  // and is reported in *error (first problem only), so the caller can log it.
  static Tunables from_environment(std::string* error = nullptr);
  static Tunables defaults();
};

// Every declared tunable, in declaration order (for `mpirun --help-params` and the man page).
std::span<const TunableSpec> tunable_specs();

// Parses "64K", "1M", "1048576" into bytes. Returns false on a malformed value.
bool parse_size(const std::string& text, std::size_t* out);
bool parse_bool(const std::string& text, bool* out);

// The one place outside the tunable registry that reads the environment: for variables that are not
// fabmpi tunables (PMI_*, torchrun variables). Returns nullptr when unset.
const char* env_lookup(const char* name);

}  // namespace fabmpi
