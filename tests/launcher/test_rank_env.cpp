// rank_environment: what a rank's environment gets on top of mpirun's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "launcher/job.hpp"

using fabmpi::launcher::JobConfig;
using fabmpi::launcher::rank_environment;

namespace {
// The value of `name` in `env`, or "<unset>"; fails the test when it is set more than once.
std::string value_of(const std::vector<std::string>& env, const std::string& name) {
  const std::string prefix = name + "=";
  std::string found = "<unset>";
  int times = 0;
  for (const std::string& e : env)
    if (e.rfind(prefix, 0) == 0) {
      found = e.substr(prefix.size());
      ++times;
    }
  CHECK(times <= 1);
  return found;
}
}  // namespace

TEST_CASE("rank_environment sets the rank's identity and PMI variables", "[launcher][env]") {
  JobConfig config;
  config.np = 4;
  config.base_env = {"HOME=/root", "PMI_RANK=7", "RANK=9"};
  const auto env = rank_environment(config, 2, 11);
  CHECK(value_of(env, "HOME") == "/root");
  CHECK(value_of(env, "RANK") == "2");
  CHECK(value_of(env, "WORLD_SIZE") == "4");
  CHECK(value_of(env, "PMI_RANK") == "2");
  CHECK(value_of(env, "PMI_FD") == "11");
  CHECK(value_of(env, "FABMPI_HANG_DEADLINE") == "<unset>");
}

TEST_CASE("rank_environment passes this job's hang-report deadline, over an inherited one", "[launcher][env]") {
  JobConfig config;
  config.np = 2;
  config.base_env = {"FABMPI_HANG_DEADLINE=999"};
  config.hang_report_unix_ms = 123456;
  CHECK(value_of(rank_environment(config, 0, -1), "FABMPI_HANG_DEADLINE") == "123456");
  config.hang_report_unix_ms = 0;  // no --timeout: an outer job's deadline stays
  CHECK(value_of(rank_environment(config, 0, -1), "FABMPI_HANG_DEADLINE") == "999");
}

TEST_CASE("rank_environment tells ranks bound to cores how many CPUs the node's ranks share", "[launcher][env]") {
  JobConfig config;
  config.np = 3;
  CHECK(value_of(rank_environment(config, 0, -1), "FABMPI_NODE_CPUS") == "<unset>");  // unbound
  // Two cores of two PUs each; ranks 0 and 2 share core 0.
  for (int core = 0; core < 2; ++core) {
    fabmpi::launcher::CoreBinding b{};
    CPU_ZERO(&b.cpus);
    CPU_SET(2 * core, &b.cpus);
    CPU_SET(2 * core + 1, &b.cpus);
    b.core_index = core;
    config.bindings.push_back(b);
  }
  CHECK(value_of(rank_environment(config, 1, -1), "FABMPI_NODE_CPUS") == "4");
  config.np = 1;
  CHECK(value_of(rank_environment(config, 0, -1), "FABMPI_NODE_CPUS") == "2");
  // Ranks on other hosts are not bound by mpirun; they count neither here nor there.
  config.np = 3;
  config.host_of_rank = {"", "other", ""};
  CHECK(value_of(rank_environment(config, 0, -1), "FABMPI_NODE_CPUS") == "2");
  CHECK(value_of(rank_environment(config, 1, -1), "FABMPI_NODE_CPUS") == "<unset>");
}
