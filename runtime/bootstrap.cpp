#include "runtime/bootstrap.hpp"

#include <map>

#include "common/tunables.hpp"

namespace fabmpi {
namespace {

class SingletonBootstrap final : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Rc put(const std::string& key, const std::string& value) override {
    kvs_[key] = value;
    return Rc();
  }
  Rc fence() override { return Rc(); }
  Rc get(const std::string& key, std::string* value) override {
    auto it = kvs_.find(key);
    if (it == kvs_.end()) return fail(MPI_ERR_OTHER, "bootstrap key '%s' not found", key.c_str());
    *value = it->second;
    return Rc();
  }
  std::vector<int> node_of_rank() override { return {0}; }
  void abort(int exit_code, const std::string&) override { std::_Exit(exit_code); }
  Rc finalize() override { return Rc(); }

 private:
  std::map<std::string, std::string> kvs_;
};

}  // namespace

std::unique_ptr<Bootstrap> make_singleton_bootstrap() { return std::make_unique<SingletonBootstrap>(); }

Rc make_bootstrap_from_environment(std::unique_ptr<Bootstrap>* out) {
  if (env_lookup("PMI_FD") || env_lookup("PMI_PORT")) return make_pmi1_bootstrap(out);
  *out = make_singleton_bootstrap();
  return Rc();
}

}  // namespace fabmpi
