#include "runtime/info.hpp"

#include <algorithm>

namespace fabmpi {

void Info::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries_)
    if (k == key) { v = value; return; }
  entries_.emplace_back(key, value);
}

const std::string* Info::get(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

bool Info::erase(const std::string& key) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

}  // namespace fabmpi
