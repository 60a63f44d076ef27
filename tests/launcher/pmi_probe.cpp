// A rank that uses only the library's PMI-1 client (runtime/pmi_client.cpp), not libmpi: lets the
// launcher tests and the hydra interop test run before the MPI library links.
//   pmi_probe MODE [VICTIM] [marker...]
// MODE ok: put a long value, fence, read the neighbour's, check it, finalize, print one line.
// MODE exit3|segv|abort7|exit0|sleep: every rank connects and fences; VICTIM (default 1) then exits
// with 3 / segfaults / asks PMI to abort with 7 / exits 0 before finalize / does nothing special; the
// other ranks sleep until torn down.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/bootstrap.hpp"

using fabmpi::Bootstrap;

static std::string value_of(int rank) {
  std::string v;
  for (int i = 0; i < 3000; ++i) v += static_cast<char>((rank * 31 + i) % 256);  // binary, > one PMI line
  return v;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  const int victim = argc > 2 ? std::atoi(argv[2]) : 1;
  std::unique_ptr<Bootstrap> boot;
  fabmpi::Rc rc = fabmpi::make_bootstrap_from_environment(&boot);
  if (!rc.ok()) {
    std::fprintf(stderr, "pmi_probe: bootstrap failed: %s\n", fabmpi::last_failure_reason().c_str());
    return 2;
  }
  const int rank = boot->rank(), size = boot->size();
  if (mode == "ok") {
    if (!boot->put("probe." + std::to_string(rank), value_of(rank)).ok() || !boot->fence().ok()) {
      std::fprintf(stderr, "pmi_probe: put/fence failed: %s\n", fabmpi::last_failure_reason().c_str());
      return 2;
    }
    const int peer = (rank + 1) % size;
    std::string got;
    if (!boot->get("probe." + std::to_string(peer), &got).ok() || got != value_of(peer)) {
      std::fprintf(stderr, "pmi_probe: rank %d: wrong value from %d: %s\n", rank, peer,
                   fabmpi::last_failure_reason().c_str());
      return 2;
    }
    std::string missing;
    if (boot->get("probe.none", &missing).ok()) {
      std::fprintf(stderr, "pmi_probe: a missing key was found\n");
      return 2;
    }
    auto nodes = boot->node_of_rank();
    std::printf("probe rank %d size %d node %d ok\n", rank, size, nodes.empty() ? -1 : nodes[rank]);
    std::fflush(stdout);
    return boot->finalize().ok() ? 0 : 2;
  }
  if (!boot->fence().ok()) return 2;
  if (rank == victim) {
    if (mode == "exit3") std::exit(3);
    if (mode == "exit0") std::exit(0);
    if (mode == "segv") raise(SIGSEGV);
    if (mode == "abort7") boot->abort(7, "probe abort");
  }
  for (int i = 0; i < 600; ++i) sleep(1);  // until the launcher tears the job down
  return 0;
}
