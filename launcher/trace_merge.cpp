#include "launcher/trace_merge.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace fabmpi::launcher {

bool merge_rank_traces(const std::string& prefix, int np, const std::string& out_path, std::vector<int>* missing,
                       std::string* error) {
  std::ofstream out(out_path, std::ios::trunc);
  if (!out) {
    *error = out_path + ": " + std::strerror(errno);
    return false;
  }
  out << "{\"traceEvents\":[\n";
  bool first = true;
  for (int rank = 0; rank < np; ++rank) {
    const std::string path = prefix + "." + std::to_string(rank) + ".json";
    std::ifstream in(path);
    if (!in) {
      missing->push_back(rank);
      continue;
    }
    // The rank files hold one event per line, each starting {"name": ... and ending in "}" or "},".
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("{\"name\":", 0) != 0) continue;
      if (!line.empty() && line.back() == ',') line.pop_back();
      out << (first ? "" : ",\n") << line;
      first = false;
    }
    in.close();
    ::unlink(path.c_str());
  }
  out << "\n],\"displayTimeUnit\":\"ns\"}\n";
  out.close();
  if (!out) {
    *error = out_path + ": write failed";
    return false;
  }
  return true;
}

}  // namespace fabmpi::launcher
