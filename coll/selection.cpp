#include "coll/selection.hpp"

#include <charconv>
#include <cctype>

#include "common/tunables.hpp"

namespace fabmpi::coll {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep_a, char sep_b) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == sep_a || s[i] == sep_b)) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != sep_a && s[j] != sep_b) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parse_int(std::string_view s, int* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && *out >= 0;
}

bool parse_bytes(std::string_view s, std::size_t* out) { return parse_size(std::string(s), out); }

// "*", "N", "N-M", "N-" (inclusive).
template <class T, class ParseOne>
bool parse_range(std::string_view s, T* lo, T* hi, ParseOne parse_one) {
  if (s == "*") return true;
  const std::size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    if (!parse_one(s, lo)) return false;
    *hi = *lo;
    return true;
  }
  if (!parse_one(s.substr(0, dash), lo)) return false;
  std::string_view upper = s.substr(dash + 1);
  if (upper.empty()) return true;
  return parse_one(upper, hi) && *lo <= *hi;
}

bool predicate_bit(std::string_view name, unsigned* bit) {
  if (name == "pow2") *bit = predicate::pow2;
  else if (name == "commutative") *bit = predicate::commutative;
  else if (name == "builtin_op") *bit = predicate::builtin_op;
  else if (name == "in_place") *bit = predicate::in_place;
  else if (name == "single_node") *bit = predicate::single_node;
  else if (name == "shm") *bit = predicate::shm;
  else if (name == "shm_staged") *bit = predicate::shm_staged;
  else return false;
  return true;
}

unsigned key_predicates(const SelectionKey& key) {
  unsigned bits = 0;
  if (key.pow2()) bits |= predicate::pow2;
  if (key.commutative) bits |= predicate::commutative;
  if (key.builtin_op) bits |= predicate::builtin_op;
  if (key.in_place) bits |= predicate::in_place;
  if (key.single_node) bits |= predicate::single_node;
  if (key.shm) bits |= predicate::shm;
  if (key.shm_staged) bits |= predicate::shm_staged;
  return bits;
}

std::string where(const SelectionTable& table, int line) {
  return table.source + " line " + std::to_string(line);
}

}  // namespace

bool Rule::matches(const SelectionKey& key) const {
  if (key.collective != collective) return false;
  if (key.comm_size < min_ranks || key.comm_size > max_ranks) return false;
  if (key.bytes < min_bytes || key.bytes > max_bytes) return false;
  const unsigned bits = key_predicates(key);
  return (bits & require) == require && (bits & forbid) == 0;
}

bool SelectionTable::parse(std::string_view text, const std::string& source, SelectionTable* out, std::string* error) {
  SelectionTable table;
  table.source = source;
  int line_no = 0;
  auto bad = [&](const std::string& what) {
    *error = source + ":" + std::to_string(line_no) + ": " + what;
    return false;
  };
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::vector<std::string_view> f = split(line, ' ', '\t');
    if (f.size() < 5)
      return bad("expected 'collective ranks bytes predicates algorithm [param=value ...]', got " +
                 std::to_string(f.size()) + " fields");
    Rule rule;
    rule.line = line_no;
    if (!collective_from_name(f[0], &rule.collective)) return bad("unknown collective '" + std::string(f[0]) + "'");
    if (!parse_range<int>(f[1], &rule.min_ranks, &rule.max_ranks, parse_int))
      return bad("bad rank range '" + std::string(f[1]) + "' (use *, N, N-M or N-)");
    if (!parse_range<std::size_t>(f[2], &rule.min_bytes, &rule.max_bytes, parse_bytes))
      return bad("bad byte range '" + std::string(f[2]) + "' (use *, N, N-M or N-, with K/M/G suffixes)");
    if (f[3] != "-") {
      for (std::string_view p : split(f[3], ',', ',')) {
        const bool negate = p.front() == '!';
        if (negate) p.remove_prefix(1);
        unsigned bit = 0;
        if (!predicate_bit(p, &bit))
          return bad("unknown predicate '" + std::string(p) +
                     "' (valid: pow2, commutative, builtin_op, in_place, single_node, shm, shm_staged, each optionally with !)");
        (negate ? rule.forbid : rule.require) |= bit;
      }
    }
    rule.algorithm = find_algorithm(rule.collective, f[4]);
    if (!rule.algorithm)
      return bad("unknown " + std::string(f[0]) + " algorithm '" + std::string(f[4]) +
                 "' (valid: " + algorithm_names(rule.collective) + ")");
    for (std::size_t i = 5; i < f.size(); ++i) {
      const std::size_t eq = f[i].find('=');
      const std::string_view name = f[i].substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? std::string_view() : f[i].substr(eq + 1);
      if (name == "chunk") {
        if (!parse_bytes(value, &rule.params.chunk_bytes) || rule.params.chunk_bytes == 0)
          return bad("bad chunk size '" + std::string(value) + "'");
      } else if (name == "segment") {
        if (!parse_bytes(value, &rule.params.segment_bytes) || rule.params.segment_bytes == 0)
          return bad("bad segment size '" + std::string(value) + "'");
      } else if (name == "window") {
        if (!parse_int(value, &rule.params.window) || rule.params.window == 0)
          return bad("bad window '" + std::string(value) + "'");
      } else {
        return bad("unknown parameter '" + std::string(f[i]) + "' (valid: chunk=SIZE, segment=SIZE, window=N)");
      }
    }
    table.rules.push_back(rule);
  }
  *out = std::move(table);
  return true;
}

bool restrictions_hold(const Algorithm& algorithm, const SelectionKey& key, std::string* why) {
  std::string missing;
  auto need = [&](unsigned bit, bool holds, const char* what) {
    if ((algorithm.restrictions & bit) && !holds) {
      if (!missing.empty()) missing += ", ";
      missing += what;
    }
  };
  need(restriction::pow2, key.pow2(), "needs a power-of-two communicator size");
  need(restriction::commutative, key.commutative, "needs a commutative op");
  need(restriction::builtin_op, key.builtin_op, "needs a predefined op");
  need(restriction::no_in_place, !key.in_place, "does not support MPI_IN_PLACE");
  need(restriction::shm, key.shm, "needs a blocking call on one node's native shared memory with each rank's data within FABMPI_SHM_COLL_SLOT");
  need(restriction::shm_staged, key.shm_staged, "needs a blocking call on one node's native shared memory");
  if (why) *why = missing;
  return missing.empty();
}

Decision select_algorithm(const SelectionTable& table, const SelectionKey& key, const Algorithm* forced) {
  Decision d;
  std::string why;
  if (forced) {
    if (restrictions_hold(*forced, key, &why)) {
      d.algorithm = forced;
      d.reason = std::string("FABMPI_") + collective_name(key.collective) + "_ALGORITHM";
      for (char& c : d.reason) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return d;
    }
    d.warnings.push_back(std::string(collective_name(key.collective)) + " algorithm '" + forced->name +
                         "' (forced) " + why + " (communicator size " + std::to_string(key.comm_size) +
                         "); falling back to the selection table");
  }
  for (const Rule& rule : table.rules) {
    if (!rule.matches(key)) continue;
    if (restrictions_hold(*rule.algorithm, key, &why)) {
      d.algorithm = rule.algorithm;
      d.params = rule.params;
      d.reason = where(table, rule.line);
      return d;
    }
    d.warnings.push_back(std::string(collective_name(key.collective)) + " algorithm '" + rule.algorithm->name +
                         "' from " + where(table, rule.line) + " " + why + "; trying the next rule");
  }
  d.algorithm = &default_algorithm(key.collective);
  d.reason = "default";
  return d;
}

}  // namespace fabmpi::coll
