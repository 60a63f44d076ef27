// Starting ranks and owning them: file descriptors and child processes as RAII owners, and the
// Launcher interface (local fork/exec here; launcher/remote.hpp for other hosts).
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"

namespace fabmpi::launcher {

// A pipe with both ends close-on-exec. False (errno set) on failure.
bool make_pipe(UniqueFd* read_end, UniqueFd* write_end);
void set_nonblocking(int fd);

// Everything needed to start one rank. The *_child descriptors are the child's ends; they are
// installed as stdin/stdout/stderr (and pmi_fd keeps its number, inherited across exec).
struct RankLaunchSpec {
  int rank = 0;
  std::vector<std::string> argv;
  std::vector<std::string> env;        // "NAME=value", the complete environment
  std::string wdir;                    // "" : inherit
  std::optional<cpu_set_t> cpus;       // bind before exec
  int stdin_child = -1;                // -1: /dev/null
  int stdout_child = -1;
  int stderr_child = -1;
  int pmi_child = -1;                  // -1: none
  // A rank on another host (launcher/remote.hpp): its host, and where and how its proxy reaches
  // mpirun ("ADDRESS:PORT" and the job's key).
  std::string host;
  std::string proxy_contact;
  std::string proxy_key;
};

// One running (or finished) rank. Each rank leads its own process group so the whole group can be
// signalled; the destructor kills the group and reaps the process if that has not happened yet, so
// no rank outlives mpirun even on an error path.
class RankProcess {
 public:
  RankProcess(int rank, pid_t pid) : rank_(rank), pid_(pid) {}
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;
  ~RankProcess();

  int rank() const { return rank_; }
  pid_t pid() const { return pid_; }
  bool exited() const { return exited_; }
  int wait_status() const { return wait_status_; }
  // Signals the rank's process group (also any children it left behind after it exited).
  void signal_group(int sig) const;
  // Non-blocking reap; true when it has exited (now or before).
  bool poll_exit();

 private:
  int rank_;
  pid_t pid_;
  bool exited_ = false;
  int wait_status_ = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Starts one rank. On failure returns nullptr with a one-line reason (e.g. "cannot execute 'foo':
  // No such file or directory") and *exit_code the status mpirun should end with (127, 126, 1).
  virtual std::unique_ptr<RankProcess> launch(const RankLaunchSpec& spec, std::string* error,
                                              int* exit_code) = 0;
};

// fork/exec on this node. The child resets signal handling, leads a new process group, dies with
// mpirun (PR_SET_PDEATHSIG), binds itself, changes directory, and reports a failed exec back through
// a close-on-exec pipe so the launcher can say why.
class LocalLauncher final : public Launcher {
 public:
  std::unique_ptr<RankProcess> launch(const RankLaunchSpec& spec, std::string* error, int* exit_code) override;
};

}  // namespace fabmpi::launcher
