// A Bootstrap over a key-value store supplied by the caller (MPIX_Init_with_store): how fabmpi starts under
// torchrun, where there is no PMI server but torch.distributed already has a store every rank reaches.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/bootstrap.hpp"

namespace fabmpi {
namespace {

class StoreBootstrap final : public Bootstrap {
 public:
  explicit StoreBootstrap(const MPIX_Store_bootstrap& callbacks) : cb_(callbacks) {}

  int rank() const override { return cb_.rank; }
  int size() const override { return cb_.size; }

  Rc put(const std::string& key, const std::string& value) override {
    if (cb_.put(cb_.ctx, key.c_str(), value.data(), value.size()) != 0)
      return fail(MPI_ERR_OTHER, "store bootstrap: put of key '%s' failed", key.c_str());
    return Rc();
  }

  Rc get(const std::string& key, std::string* value) override {
    std::string buf(256, '\0');
    for (;;) {
      std::size_t len = 0;
      if (cb_.get(cb_.ctx, key.c_str(), buf.data(), buf.size(), &len) != 0)
        return fail(MPI_ERR_OTHER, "store bootstrap: get of key '%s' failed or timed out", key.c_str());
      if (len <= buf.size()) {
        buf.resize(len);
        *value = std::move(buf);
        return Rc();
      }
      buf.assign(len, '\0');  // the value is longer: fetch again with room for it
    }
  }

  Rc fence() override {
    const int epoch = fences_++;
    if (cb_.fence) {
      if (cb_.fence(cb_.ctx) != 0) return fail(MPI_ERR_OTHER, "store bootstrap: fence %d failed or timed out", epoch);
      return Rc();
    }
    // Built from put/get: every rank announces its arrival, then waits for everyone's (get blocks).
    const std::string prefix = "fabmpi-fence-" + std::to_string(epoch) + "-";
    FABMPI_TRY(put(prefix + std::to_string(cb_.rank), "1"));
    std::string ignored;
    for (int r = 0; r < cb_.size; ++r) FABMPI_TRY(get(prefix + std::to_string(r), &ignored));
    return Rc();
  }

  std::vector<int> node_of_rank() override { return node_of_rank_; }

  // Without a launcher, "end the job" means ending this process; torchrun's agent then stops the others.
  void abort(int exit_code, const std::string&) override { std::_Exit(exit_code); }
  Rc finalize() override { return Rc(); }

  // Learns every rank's node: from the caller's node ids when given, else by hostname.
  Rc exchange_node_map() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string mine = cb_.node_id >= 0 ? "id:" + std::to_string(cb_.node_id) : std::string("host:") + host;
    FABMPI_TRY(put("fabmpi-node-" + std::to_string(cb_.rank), mine));
    FABMPI_TRY(fence());
    std::vector<std::string> names;
    node_of_rank_.assign(static_cast<std::size_t>(cb_.size), 0);
    for (int r = 0; r < cb_.size; ++r) {
      std::string name;
      FABMPI_TRY(get("fabmpi-node-" + std::to_string(r), &name));
      std::size_t index = 0;
      while (index < names.size() && names[index] != name) ++index;
      if (index == names.size()) names.push_back(name);
      node_of_rank_[static_cast<std::size_t>(r)] = static_cast<int>(index);
    }
    return Rc();
  }

 private:
  MPIX_Store_bootstrap cb_;
  int fences_ = 0;
  std::vector<int> node_of_rank_;
};

}  // namespace

Rc make_store_bootstrap(const MPIX_Store_bootstrap& callbacks, std::unique_ptr<Bootstrap>* out) {
  if (callbacks.version != MPIX_STORE_BOOTSTRAP_VERSION)
    return fail(MPI_ERR_ARG, "MPIX_Store_bootstrap version %d is not %d", callbacks.version,
                MPIX_STORE_BOOTSTRAP_VERSION);
  if (callbacks.size < 1 || callbacks.rank < 0 || callbacks.rank >= callbacks.size)
    return fail(MPI_ERR_ARG, "MPIX_Store_bootstrap: rank %d and size %d are inconsistent", callbacks.rank,
                callbacks.size);
  if (!callbacks.put || !callbacks.get)
    return fail(MPI_ERR_ARG, "MPIX_Store_bootstrap: put and get callbacks are required");
  auto bootstrap = std::make_unique<StoreBootstrap>(callbacks);
  FABMPI_TRY(bootstrap->exchange_node_map());
  *out = std::move(bootstrap);
  return Rc();
}

}  // namespace fabmpi
