// mpirun --trace FILE: the ranks' FABMPI_TRACE timelines (runtime/call_trace.hpp, one JSON file per rank,
// one event per line) merged into one Chrome-trace file for Perfetto or chrome://tracing.
#pragma once

#include <string>
#include <vector>

namespace fabmpi::launcher {

// Reads <prefix>.<rank>.json for ranks 0..np-1 and writes their events, in rank order, to `out_path`.
// A missing or unreadable rank file is listed in *missing (that rank never reached MPI_Finalize, or the
// program does not use MPI); the others are merged anyway. Returns false with *error when `out_path`
// cannot be written. Removes the rank files it merged.
bool merge_rank_traces(const std::string& prefix, int np, const std::string& out_path, std::vector<int>* missing,
                       std::string* error);

}  // namespace fabmpi::launcher
