#include "launcher/wait_graph.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace fabmpi::launcher {

bool parse_wait_summary(const std::string& text, std::vector<int>* ranks, bool* any) {
  static const std::string kMarker = "waiting on world ranks:";
  ranks->clear();
  *any = false;
  if (text.rfind(kMarker, 0) != 0) return false;
  std::istringstream words(text.substr(kMarker.size()));
  for (std::string w; words >> w;) {
    if (w == "any") {
      *any = true;
      continue;
    }
    if (w.empty() || w.size() > 9 || !std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    ranks->push_back(std::stoi(w));
  }
  return true;
}

namespace {

std::string cycle_text(const std::vector<int>& cycle) {
  if (cycle.size() == 1) return "deadlock: rank " + std::to_string(cycle[0]) + " waits for itself";
  std::string text = "deadlock: rank " + std::to_string(cycle[0]);
  for (std::size_t i = 1; i < cycle.size(); ++i) text += " waits for rank " + std::to_string(cycle[i]) + ", which";
  text += " waits for rank " + std::to_string(cycle[0]);
  return text;
}

}  // namespace

std::vector<std::string> explain_waits(const std::vector<RankWaitState>& ranks) {
  using Kind = RankWaitState::Kind;
  const int n = static_cast<int>(ranks.size());
  const auto valid = [n](int r) { return r >= 0 && r < n; };
  std::vector<std::string> lines;
  // Cycles: follow waits between waiting ranks depth first; a cycle is reported once, from its
  // lowest rank.
  constexpr std::size_t kMostCycles = 5;
  std::set<std::vector<int>> seen;
  std::vector<int> path;
  std::vector<char> on_path(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<int>> cycles;
  const auto dfs = [&](auto&& self, int r) -> void {
    if (cycles.size() >= kMostCycles) return;
    path.push_back(r);
    on_path[static_cast<std::size_t>(r)] = 1;
    for (int next : ranks[static_cast<std::size_t>(r)].waits_for) {
      if (!valid(next) || ranks[static_cast<std::size_t>(next)].kind != Kind::waiting) continue;
      if (on_path[static_cast<std::size_t>(next)]) {
        std::vector<int> cycle(std::find(path.begin(), path.end(), next), path.end());
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        if (seen.insert(cycle).second) cycles.push_back(cycle);
      } else if (path.size() < 64) {
        self(self, next);
      }
    }
    on_path[static_cast<std::size_t>(r)] = 0;
    path.pop_back();
  };
  for (int r = 0; r < n; ++r)
    if (ranks[static_cast<std::size_t>(r)].kind == Kind::waiting) dfs(dfs, r);
  for (const auto& c : cycles) lines.push_back(cycle_text(c));
  // Waits that cannot end: on ranks gone, finalized, or busy outside MPI.
  for (int r = 0; r < n; ++r) {
    const RankWaitState& s = ranks[static_cast<std::size_t>(r)];
    if (s.kind != Kind::waiting) continue;
    for (int t : s.waits_for) {
      if (!valid(t) || t == r) continue;
      const RankWaitState& target = ranks[static_cast<std::size_t>(t)];
      std::string why;
      switch (target.kind) {
        case Kind::exited: why = "which exited (code " + std::to_string(target.exit_code) + ")"; break;
        case Kind::finalized: why = "which has called MPI_Finalize"; break;
        case Kind::in_barrier: why = "which waits in MPI_Init's or MPI_Finalize's job-wide barrier"; break;
        case Kind::silent: why = "which is not waiting in MPI (computing, or blocked outside MPI)"; break;
        case Kind::waiting: break;
      }
      if (!why.empty()) lines.push_back("rank " + std::to_string(r) + " waits for rank " + std::to_string(t) + ", " + why);
    }
  }
  return lines;
}

}  // namespace fabmpi::launcher
