// One MPI job on this node: starts the ranks, runs the event loop (PMI, output, stdin, signals,
// timeout), decides the exit status, and tears the job down so that no process outlives it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "launcher/args.hpp"
#include "launcher/binding.hpp"
#include "launcher/process.hpp"

namespace fabmpi::launcher {

struct JobConfig {
  int np = 1;
  std::vector<std::string> program;
  std::vector<std::string> base_env;   // "NAME=value": mpirun's environment with -x/-genv applied
  std::vector<int> node_of_rank;       // node index per rank (all 0 on one node)
  std::vector<std::string> host_of_rank;  // "" (or empty vector): this machine; else started remotely
  std::string launcher_address;        // how proxies on other hosts reach mpirun (host name or address)
  std::string wdir;
  bool tag_output = false;
  int timeout_seconds = 0;
  int abort_timeout_seconds = 2;       // SIGTERM -> SIGKILL
  std::vector<CoreBinding> bindings;   // empty: unbound; else rank i uses bindings[i % size]
  bool report_bindings = false;
  std::string master_addr;
  int master_port = 0;
  std::string kvsname;
  // With a timeout: when (Unix ms) ranks waiting in MPI print what they wait for, shortly before the
  // job is ended (FABMPI_HANG_DEADLINE; set by run_job).
  long long hang_report_unix_ms = 0;
};

// Blocks SIGCHLD, SIGINT, SIGTERM, SIGHUP and SIGQUIT for the whole mpirun process (the event loop
// reads them from a signalfd) and ignores SIGPIPE/SIGTTIN. Call before any thread or child exists.
void block_job_signals();

// Runs the job to its end; returns mpirun's exit status. Messages go to stderr as "mpirun: ...".
// `remote` starts the ranks whose host_of_rank is not empty (null when there are none).
int run_job(const JobConfig& config, Launcher& launcher, Launcher* remote = nullptr);

// The environment of one rank: base_env without inherited PMI variables, plus the PMI, locality and
// torchrun variables. Exposed for tests.
std::vector<std::string> rank_environment(const JobConfig& config, int rank, int pmi_fd);

}  // namespace fabmpi::launcher
