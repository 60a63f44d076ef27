// Where ranks run: hosts and their slots become one host per rank and a node index per rank (the node
// map every rank learns through PMI_process_mapping). Pure, so it is unit-testable.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "launcher/args.hpp"

namespace fabmpi::launcher {

struct Placement {
  std::vector<std::string> host_of_rank;  // "" for this machine
  std::vector<int> node_of_rank;          // 0.. in order of first appearance
  bool any_remote() const {
    for (const auto& h : host_of_rank)
      if (!h.empty()) return true;
    return false;
  }
};

// Fills the hosts in order, each up to its slots, then starts over (more ranks than slots: every host
// takes more, as MPICH's and Open MPI's --oversubscribe do). No hosts: every rank here. Names for which
// is_local() is true are this machine (one node, however many names it is listed under).
Placement place_ranks(const std::vector<HostSlot>& hosts, int np, const std::function<bool(const std::string&)>& is_local);

// `word` quoted for a POSIX shell (what ssh hands the remote command line to): 'it'\''s'.
std::string shell_quote(const std::string& word);

}  // namespace fabmpi::launcher
