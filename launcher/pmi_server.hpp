// mpirun's PMI-1 server as a state machine without I/O: the event loop feeds it the bytes each rank's
// connection delivered and sends the replies it produces. Hostile or broken input (malformed lines,
// lines over 1024 bytes, unknown commands, early disconnects) gets an error reply or the client dropped,
// never a crash or a hang.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/pmi_wire.hpp"

namespace fabmpi::launcher {

struct PmiServerConfig {
  int size = 1;                   // ranks in the job
  int universe_size = 1;
  std::string kvsname = "fabmpi_kvs_0";
  std::vector<int> node_of_rank;  // answers PMI_process_mapping; empty: all on node 0
};

// Processes are numbered across jobs ("universe index"): the first job holds 0..size-1, each job
// MPI_Comm_spawn adds takes the next block. Ranks in the API below are universe indices; a job has its
// own key-value space and barrier, and its processes' PMI ranks count from 0.

// What the event loop must do after feeding the server.
struct PmiActions {
  struct Reply {
    int rank;
    std::string line;  // with its '\n'
  };
  std::vector<Reply> replies;
  std::vector<int> drop;  // ranks whose connection must be closed (protocol violation)
  struct Abort {
    int rank;
    int exit_code;
  };
  std::optional<Abort> abort;  // a rank asked to end the job (MPI_Abort)
  // A rank asked for a new job (MPI_Comm_spawn): the launcher starts it (add_job) and answers with
  // answer_spawn.
  struct Spawn {
    int rank;
    pmi::SpawnRequest request;
  };
  std::optional<Spawn> spawn;
  // Human-readable reasons for errors/drops, for the launcher's log.
  std::vector<std::string> diagnostics;
};

class PmiServer {
 public:
  explicit PmiServer(PmiServerConfig config);

  // Bytes that arrived on rank's connection (any split). Complete lines are served in order.
  void feed(int rank, std::string_view bytes, PmiActions* actions);
  // The connection of rank closed (EOF or error). A rank waiting in a barrier leaves it.
  void disconnect(int rank, PmiActions* actions);

  // A new job of `size` processes (MPI_Comm_spawn): its universe base. appnum_of_rank: per process
  // (MPI_APPNUM: the command index of MPI_Comm_spawn_multiple); preput: keys its space starts with.
  int add_job(int size, const std::string& kvsname, const std::vector<int>& appnum_of_rank,
              const std::vector<std::pair<std::string, std::string>>& preput);
  // Replies to a spawn request: the job started (base/size/kvsname) or not (reason).
  void answer_spawn(int rank, bool ok, int base, int size, const std::string& kvsname, const std::string& reason,
                    PmiActions* actions);
  int universe_count() const { return static_cast<int>(ranks_.size()); }
  // The job of a universe index, and the index's rank in it.
  int job_of(int rank) const { return state(rank).job; }

  bool ever_connected(int rank) const { return state(rank).spoke; }
  bool finalized(int rank) const { return state(rank).finalized; }
  bool connected(int rank) const { return state(rank).connected; }
  int ranks_in_barrier() const { return jobs_.front().in_barrier; }  // the first job's
  bool in_barrier(int rank) const { return state(rank).in_barrier; }
  std::size_t kvs_entries() const { return jobs_.front().kvs.size(); }
  // The values fabmpi ranks stored (through their bootstrap layer, which hex-encodes a value and splits
  // it over keys k, k#1, ...: runtime/pmi_client.cpp) under every key that starts with `prefix`; values
  // not in that form are skipped. For mpirun's cleanup after the job.
  std::vector<std::string> bootstrap_values_with_prefix(std::string_view prefix) const;

 private:
  struct RankState {
    int job = 0;
    int job_rank = 0;
    int appnum = 0;
    std::string spawn_data;  // hex of a spawn request being received
    std::string pending;  // bytes of an incomplete line
    bool connected = true;
    bool spoke = false;       // sent at least one line
    bool initialized = false; // sent cmd=init
    bool in_barrier = false;
    bool finalized = false;
    bool dropped = false;
  };

  const RankState& state(int rank) const;
  RankState* mutable_state(int rank);
  void serve_line(int rank, std::string_view line, PmiActions* actions);
  void serve(int rank, const pmi::Message& request, PmiActions* actions);
  void reply(int rank, const pmi::Message& message, PmiActions* actions);
  void drop(int rank, const std::string& reason, PmiActions* actions);
  void release_barrier_if_complete(int job, PmiActions* actions);

  struct Job {
    int base = 0;
    int size = 0;
    std::string kvsname;
    std::map<std::string, std::string, std::less<>> kvs;
    int in_barrier = 0;
  };
  // The job whose space `kvsname` names (the asking rank's when null); null when no job has that name.
  Job* job_named(const std::string* kvsname, int asking_rank);

  PmiServerConfig config_;
  std::vector<RankState> ranks_;
  std::vector<Job> jobs_;
};

}  // namespace fabmpi::launcher
