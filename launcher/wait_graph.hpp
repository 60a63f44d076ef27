// What mpirun concludes from the ranks' hang reports: each waiting rank names the world ranks it waits
// for ("waiting on world ranks: 1 3 any", Runtime::report_hang); joined with what mpirun knows of every
// rank (exited, finalized, in the PMI barrier, running without a report), the wait-for graph shows
// deadlock cycles and waits on ranks that will never answer. Pure, so it is unit-tested.
#pragma once

#include <string>
#include <vector>

namespace fabmpi::launcher {

struct RankWaitState {
  enum class Kind { waiting, exited, finalized, in_barrier, silent } kind = Kind::silent;
  std::vector<int> waits_for;  // world ranks (waiting only)
  bool any_source = false;     // also a receive from any source
  int exit_code = 0;           // exited
};

// "waiting on world ranks: 1 3 any" -> {1, 3}, any = true. False when the text is not that.
bool parse_wait_summary(const std::string& text, std::vector<int>* ranks, bool* any);

// Lines (without "mpirun: ") naming each deadlock cycle among waiting ranks (first few), then each
// wait on a rank that exited, finalized, or is not in MPI. Empty when nothing conclusive.
std::vector<std::string> explain_waits(const std::vector<RankWaitState>& ranks);

}  // namespace fabmpi::launcher
