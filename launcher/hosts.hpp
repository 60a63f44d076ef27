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

// Slurm's compressed host lists ("node[01-03,07],gpu5" -> node01 node02 node03 node07 gpu5) and task
// counts ("2(x3),1" -> 2 2 2 1), as in SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE. False on text that
// does not parse.
bool expand_slurm_hostlist(const std::string& text, std::vector<std::string>* hosts);
bool expand_slurm_counts(const std::string& text, std::vector<int>* counts);
// The hosts of the Slurm allocation mpirun runs in, one slot per task Slurm planned for each (empty when
// not in an allocation, or its variables do not parse). `env` looks a variable up (getenv).
std::vector<HostSlot> slurm_allocation(const std::function<const char*(const char*)>& env);

// The agent's argv for `host`: the agent's words with "{host}" replaced by the host, or, without a
// "{host}" word, the host appended (ssh's "ssh [options] HOST COMMAND").
std::vector<std::string> agent_argv(const std::vector<std::string>& agent, const std::string& host);

// `word` quoted for a POSIX shell (what ssh hands the remote command line to): 'it'\''s'.
std::string shell_quote(const std::string& word);

}  // namespace fabmpi::launcher
