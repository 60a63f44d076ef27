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

  bool ever_connected(int rank) const { return state(rank).spoke; }
  bool finalized(int rank) const { return state(rank).finalized; }
  bool connected(int rank) const { return state(rank).connected; }
  int ranks_in_barrier() const { return in_barrier_; }
  bool in_barrier(int rank) const { return state(rank).in_barrier; }
  std::size_t kvs_entries() const { return kvs_.size(); }
  // The values fabmpi ranks stored (through their bootstrap layer, which hex-encodes a value and splits
  // it over keys k, k#1, ...: runtime/pmi_client.cpp) under every key that starts with `prefix`; values
  // not in that form are skipped. For mpirun's cleanup after the job.
  std::vector<std::string> bootstrap_values_with_prefix(std::string_view prefix) const;

 private:
  struct RankState {
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
  void release_barrier_if_complete(PmiActions* actions);

  PmiServerConfig config_;
  std::vector<RankState> ranks_;
  std::map<std::string, std::string, std::less<>> kvs_;
  int in_barrier_ = 0;
};

}  // namespace fabmpi::launcher
