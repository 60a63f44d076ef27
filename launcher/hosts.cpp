#include "launcher/hosts.hpp"

#include <map>

namespace fabmpi::launcher {

Placement place_ranks(const std::vector<HostSlot>& hosts, int np, const std::function<bool(const std::string&)>& is_local) {
  Placement p;
  p.host_of_rank.reserve(static_cast<std::size_t>(np));
  int total = 0;
  for (const auto& h : hosts) total += h.slots > 0 ? h.slots : 1;
  std::map<std::string, int> node_of_host;
  const auto node_index = [&](const std::string& key) {
    auto [it, added] = node_of_host.emplace(key, static_cast<int>(node_of_host.size()));
    (void)added;
    return it->second;
  };
  for (int r = 0; r < np; ++r) {
    std::string host;
    if (total > 0) {
      int slot = r % total;
      for (const auto& h : hosts) {
        const int n = h.slots > 0 ? h.slots : 1;
        if (slot < n) {
          host = is_local(h.name) ? "" : h.name;
          break;
        }
        slot -= n;
      }
    }
    p.node_of_rank.push_back(node_index(host));
    p.host_of_rank.push_back(std::move(host));
  }
  return p;
}

namespace {

bool parse_number(const std::string& text, long* out) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *out = std::stol(text);
  return true;
}

// Splits at commas outside brackets.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

}  // namespace

bool expand_slurm_hostlist(const std::string& text, std::vector<std::string>* hosts) {
  hosts->clear();
  for (const std::string& part : split_top_level(text)) {
    if (part.empty()) return false;
    const auto open = part.find('[');
    if (open == std::string::npos) {
      if (part.find(']') != std::string::npos) return false;
      hosts->push_back(part);
      continue;
    }
    const auto close = part.find(']', open);
    if (close == std::string::npos) return false;
    // One bracket group (node[01-03]suffix); Slurm's multi-dimensional lists are not handled.
    const std::string prefix = part.substr(0, open), suffix = part.substr(close + 1);
    if (suffix.find('[') != std::string::npos) return false;
    std::string ranges = part.substr(open + 1, close - open - 1);
    std::size_t start = 0;
    while (start <= ranges.size()) {
      std::size_t comma = ranges.find(',', start);
      if (comma == std::string::npos) comma = ranges.size();
      const std::string range = ranges.substr(start, comma - start);
      const auto dash = range.find('-');
      const std::string first = range.substr(0, dash);
      const std::string last = dash == std::string::npos ? first : range.substr(dash + 1);
      long lo = 0, hi = 0;
      if (!parse_number(first, &lo) || !parse_number(last, &hi) || hi < lo || hi - lo > 100000) return false;
      for (long n = lo; n <= hi; ++n) {
        std::string digits = std::to_string(n);
        if (digits.size() < first.size()) digits.insert(0, first.size() - digits.size(), '0');  // node01
        hosts->push_back(prefix + digits + suffix);
      }
      start = comma + 1;
    }
  }
  return !hosts->empty();
}

bool expand_slurm_counts(const std::string& text, std::vector<int>* counts) {
  counts->clear();
  for (const std::string& part : split_top_level(text)) {
    const auto x = part.find("(x");
    long count = 0, repeat = 1;
    if (x == std::string::npos) {
      if (!parse_number(part, &count)) return false;
    } else {
      if (part.back() != ')' || !parse_number(part.substr(0, x), &count) ||
          !parse_number(part.substr(x + 2, part.size() - x - 3), &repeat))
        return false;
    }
    if (count < 1 || repeat < 1 || repeat > 100000) return false;
    counts->insert(counts->end(), static_cast<std::size_t>(repeat), static_cast<int>(count));
  }
  return !counts->empty();
}

std::vector<HostSlot> slurm_allocation(const std::function<const char*(const char*)>& env) {
  const char* nodelist = env("SLURM_JOB_NODELIST");
  if (!nodelist) nodelist = env("SLURM_NODELIST");
  const char* tasks = env("SLURM_TASKS_PER_NODE");
  if (!tasks) tasks = env("SLURM_JOB_CPUS_PER_NODE");
  std::vector<std::string> names;
  std::vector<int> counts;
  if (!nodelist || !tasks || !expand_slurm_hostlist(nodelist, &names) || !expand_slurm_counts(tasks, &counts) ||
      counts.size() != names.size())
    return {};
  std::vector<HostSlot> hosts;
  for (std::size_t i = 0; i < names.size(); ++i) hosts.push_back({names[i], counts[i]});
  return hosts;
}

std::vector<std::string> agent_argv(const std::vector<std::string>& agent, const std::string& host) {
  std::vector<std::string> argv;
  bool placed = false;
  for (const std::string& word : agent) {
    std::string w = word;
    for (auto at = w.find("{host}"); at != std::string::npos; at = w.find("{host}", at + host.size())) {
      w.replace(at, 6, host);
      placed = true;
    }
    argv.push_back(std::move(w));
  }
  if (!placed) argv.push_back(host);
  return argv;
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

}  // namespace fabmpi::launcher
