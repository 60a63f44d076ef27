// Ranks on other hosts. mpirun starts each through a launch agent (ssh by default: "AGENT HOST COMMAND"),
// and COMMAND runs fabmpi's mpirun on that host as a rank proxy (`mpirun --fabmpi-proxy ...`) which
//   - connects back to mpirun over TCP and names itself (handshake line "fabmpi-proxy KEY RANK"),
//   - starts the rank with PMI_FD on a socket pair and relays the PMI bytes over that connection, so
//     mpirun serves a remote rank exactly as a local one,
//   - ends the rank when the connection closes (mpirun tears the job down or died), forwards the
//     signals it gets, and exits with the rank's status (ssh returns it to mpirun).
// The rank's stdin/stdout/stderr are the proxy's, i.e. the agent's pipes in mpirun.
#pragma once

#include <string>
#include <vector>

#include "launcher/process.hpp"

namespace fabmpi::launcher {

// Starts RankLaunchSpec::host's ranks through `agent` (split on spaces, e.g. "ssh -x"). The spec's env
// is the rank's; the agent itself runs with mpirun's environment. `mpirun_path` is this mpirun, which
// must exist at the same path on the other hosts (as with MPICH's and Open MPI's launchers).
class RemoteLauncher final : public Launcher {
 public:
  RemoteLauncher(std::vector<std::string> agent, std::string mpirun_path, std::vector<std::string> own_env)
      : agent_(std::move(agent)), mpirun_path_(std::move(mpirun_path)), own_env_(std::move(own_env)) {}
  std::unique_ptr<RankProcess> launch(const RankLaunchSpec& spec, std::string* error, int* exit_code) override;

  // The agent's argv for one rank (exposed for tests).
  std::vector<std::string> agent_command(const RankLaunchSpec& spec) const;

 private:
  std::vector<std::string> agent_;
  std::string mpirun_path_;
  std::vector<std::string> own_env_;
  LocalLauncher local_;
};

// Variables of the rank's environment that describe mpirun's host rather than the job; not sent.
bool is_host_specific_variable(const std::string& entry);

// `mpirun --fabmpi-proxy CONTACT KEY RANK WDIR N VAR=VAL*N PROGRAM ARGS...` (args after the flag).
int proxy_main(const std::vector<std::string>& args);

}  // namespace fabmpi::launcher
