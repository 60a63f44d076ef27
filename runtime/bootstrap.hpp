// How a process learns its rank and exchanges endpoint addresses with its peers before any fabric is up.
// PMI-1 (mpirun, mpiexec.hydra, srun) is one implementation; a singleton world is another; a key-value
// store handed over by torch.distributed (torchrun) will be a third.
#pragma once

#include <memory>
#include <string>
#include <vector>

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
