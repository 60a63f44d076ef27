// How a process learns its rank and exchanges endpoint addresses with its peers before any fabric is up.
// PMI-1 (mpirun, mpiexec.hydra, srun) is one implementation; a singleton world is another; a key-value
// store handed over by torch.distributed (torchrun) will be a third.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/pmi_wire.hpp"
#include "runtime/rc.hpp"

#include <mpi.h>

namespace fabmpi {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int appnum() const { return 0; }
  virtual int universe_size() const { return size(); }
  // Publishes key=value for this process (visible to others after the next fence()).
  virtual Rc put(const std::string& key, const std::string& value) = 0;
  // Collective over all processes: every put() before it is visible to every get() after it.
  virtual Rc fence() = 0;
  // Reads a key put by any process before the last fence. MPI_ERR_OTHER if missing.
  virtual Rc get(const std::string& key, std::string* value) = 0;
  // Node index (0..nnodes-1) of every rank, from the launcher's map (not from hostnames).
  virtual std::vector<int> node_of_rank() = 0;
  // Asks the launcher to end the whole job with this exit code. Does not return on success.
  virtual void abort(int exit_code, const std::string& message) = 0;
  virtual Rc finalize() = 0;

  // ---- dynamic processes (under fabmpi's mpirun; the other bootstraps have one job and cannot spawn)
  // This job's first universe index: processes are numbered across the jobs of one mpirun, the first
  // job from 0, each spawned job after the ones before it (launcher/pmi_server.hpp).
  virtual int universe_base() const { return 0; }
  // Starts a new job (MPI_Comm_spawn): its processes' universe indices are *base .. *base + *size - 1.
  // `preput`: values the new job reads with get() before its first fence.
  virtual Rc spawn(const pmi::SpawnRequest& request, const std::vector<std::pair<std::string, std::string>>& preput,
                   int* base, int* size) {
    (void)request, (void)preput, (void)base, (void)size;
    return fail(MPI_ERR_SPAWN, "starting processes needs fabmpi's mpirun (this process was not started by it)");
  }
};

// A world of one process (a program run without a launcher).
std::unique_ptr<Bootstrap> make_singleton_bootstrap();
// PMI-1 over PMI_FD or PMI_PORT/PMI_ID (runtime/pmi_client.cpp). MPI_ERR_OTHER with a reason on failure.
Rc make_pmi1_bootstrap(std::unique_ptr<Bootstrap>* out);

// Over the caller's key-value store (MPIX_Init_with_store; runtime/store_bootstrap.cpp).
Rc make_store_bootstrap(const MPIX_Store_bootstrap& callbacks, std::unique_ptr<Bootstrap>* out);

// Chooses PMI-1 (PMI_FD, or PMI_PORT + PMI_ID) or a singleton world when neither is set.
Rc make_bootstrap_from_environment(std::unique_ptr<Bootstrap>* out);

}  // namespace fabmpi
