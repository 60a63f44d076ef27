#include "common/tunables.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace fabmpi {
namespace {

constexpr TunableSpec kSpecs[] = {
#define FABMPI_TUNABLE(field, env, type, def, subsys, help) \
  {"FABMPI_" #env, TunableType::type, def, subsys, help},
#include "common/tunables.def"
#undef FABMPI_TUNABLE
};

bool parse_int(const std::string& text, long long* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

template <class T>
void assign(T& field, TunableType type, const std::string& text, const char* name, std::string* error,
            bool* ok) {
  *ok = true;
  if constexpr (std::is_same_v<T, bool>) {
    *ok = parse_bool(text, &field);
  } else if constexpr (std::is_same_v<T, long long>) {
    *ok = parse_int(text, &field);
  } else if constexpr (std::is_same_v<T, std::size_t>) {
    *ok = parse_size(text, &field);
  } else {
    field = text;
  }
  if (!*ok && error && error->empty())
    *error = std::string("invalid value '") + text + "' for " + name + "; using the default";
  (void)type;
}

}  // namespace

std::span<const TunableSpec> tunable_specs() { return kSpecs; }

bool parse_size(const std::string& text, std::size_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || text[0] == '-') return false;
  unsigned long long mult = 1;
  std::string suffix(end);
  if (suffix == "" || suffix == "B" || suffix == "b") mult = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KiB") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GiB") mult = 1ull << 30;
  else return false;
  *out = static_cast<std::size_t>(v * mult);
  return true;
}

bool parse_bool(const std::string& text, bool* out) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "1" || t == "true" || t == "yes" || t == "on") { *out = true; return true; }
  if (t == "0" || t == "false" || t == "no" || t == "off") { *out = false; return true; }
  return false;
}

const char* env_lookup(const char* name) { return std::getenv(name); }

Tunables Tunables::defaults() {
  Tunables t;
  bool ok = true;
#define FABMPI_TUNABLE(field, env, type, def, subsys, help) \
  assign(t.field, TunableType::type, def, "FABMPI_" #env, nullptr, &ok);
#include "common/tunables.def"
#undef FABMPI_TUNABLE
  return t;
}

Tunables Tunables::from_environment(std::string* error) {
  Tunables t = defaults();
  bool ok = true;
#define FABMPI_TUNABLE(field, env, type, def, subsys, help)            \
  if (const char* v = std::getenv("FABMPI_" #env)) {                      \
    assign(t.field, TunableType::type, v, "FABMPI_" #env, error, &ok);    \
    if (!ok) assign(t.field, TunableType::type, def, "", nullptr, &ok);   \
  }
#include "common/tunables.def"
#undef FABMPI_TUNABLE
  return t;
}

}  // namespace fabmpi
