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

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

}  // namespace fabmpi::launcher
