// MPI_Info: an ordered list of string key/value pairs.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fabmpi {

class Info {
 public:
  void set(const std::string& key, const std::string& value);
  // nullptr when absent
  const std::string* get(const std::string& key) const;
  bool erase(const std::string& key);
  int size() const noexcept { return static_cast<int>(entries_.size()); }
  const std::string& nth_key(int n) const { return entries_[static_cast<std::size_t>(n)].first; }

  int handle = 0;  // set by the binding layer

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

using InfoRef = std::shared_ptr<Info>;

}  // namespace fabmpi
