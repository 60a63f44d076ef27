// Placement of ranks on hosts, shell quoting and the launch agent's command line (launcher/hosts.hpp,
// launcher/remote.hpp).
#include <catch2/catch.hpp>

#include "launcher/hosts.hpp"
#include "launcher/remote.hpp"

using namespace fabmpi::launcher;

namespace {
bool only_localhost(const std::string& name) { return name == "localhost" || name == "me"; }
}  // namespace

TEST_CASE("no hosts: every rank here, one node") {
  const Placement p = place_ranks({}, 3, only_localhost);
  CHECK(p.host_of_rank == std::vector<std::string>{"", "", ""});
  CHECK(p.node_of_rank == std::vector<int>{0, 0, 0});
  CHECK_FALSE(p.any_remote());
}

TEST_CASE("hosts fill their slots in order, then wrap around") {
  const Placement p = place_ranks({{"a", 2}, {"b", 1}}, 7, only_localhost);
  CHECK(p.host_of_rank == std::vector<std::string>{"a", "a", "b", "a", "a", "b", "a"});
  CHECK(p.node_of_rank == std::vector<int>{0, 0, 1, 0, 0, 1, 0});
  CHECK(p.any_remote());
}

TEST_CASE("this machine's names are one node and run here") {
  const Placement p = place_ranks({{"b", 1}, {"localhost", 1}, {"me", 1}, {"b", 1}}, 4, only_localhost);
  CHECK(p.host_of_rank == std::vector<std::string>{"b", "", "", "b"});
  CHECK(p.node_of_rank == std::vector<int>{0, 1, 1, 0});
}

TEST_CASE("fewer ranks than slots use the first slots") {
  const Placement p = place_ranks({{"a", 4}, {"b", 4}}, 2, only_localhost);
  CHECK(p.host_of_rank == std::vector<std::string>{"a", "a"});
}

TEST_CASE("shell quoting survives quotes, spaces and dollars") {
  CHECK(shell_quote("plain") == "'plain'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("it's $HOME") == "'it'\\''s $HOME'");
}

TEST_CASE("the agent's command line: agent, host, one quoted command for the remote shell") {
  RemoteLauncher launcher({"ssh", "-x"}, "/opt/fab mpi/bin/mpirun", {});
  RankLaunchSpec spec;
  spec.rank = 3;
  spec.host = "node7";
  spec.proxy_contact = "head:4242";
  spec.proxy_key = "k3y";
  spec.argv = {"./a.out", "arg with space"};
  spec.env = {"A=1", "PWD=/here", "B=x'y", "SSH_CLIENT=1.2.3.4"};
  const auto argv = launcher.agent_command(spec);
  REQUIRE(argv.size() == 4);
  CHECK(argv[0] == "ssh");
  CHECK(argv[1] == "-x");
  CHECK(argv[2] == "node7");
  CHECK(argv[3] ==
        "exec '/opt/fab mpi/bin/mpirun' '--fabmpi-proxy' 'head:4242' 'k3y' '3' '-' '2' 'A=1' 'B=x'\\''y' "
        "'./a.out' 'arg with space'");
}

TEST_CASE("host-specific variables stay home") {
  CHECK(is_host_specific_variable("HOSTNAME=x"));
  CHECK(is_host_specific_variable("SSH_AUTH_SOCK=/tmp/x"));
  CHECK(is_host_specific_variable("PMI_FD=5"));
  CHECK_FALSE(is_host_specific_variable("PATH=/bin"));
  CHECK_FALSE(is_host_specific_variable("PMI_RANK=1"));
  CHECK_FALSE(is_host_specific_variable("FABMPI_LOG=info"));
}

TEST_CASE("Slurm host lists expand like scontrol show hostnames") {
  std::vector<std::string> hosts;
  REQUIRE(expand_slurm_hostlist("node[01-03,07],gpu5", &hosts));
  CHECK(hosts == std::vector<std::string>{"node01", "node02", "node03", "node07", "gpu5"});
  REQUIRE(expand_slurm_hostlist("c[9-11]-ib", &hosts));
  CHECK(hosts == std::vector<std::string>{"c9-ib", "c10-ib", "c11-ib"});
  REQUIRE(expand_slurm_hostlist("single", &hosts));
  CHECK(hosts == std::vector<std::string>{"single"});
  CHECK_FALSE(expand_slurm_hostlist("node[3-1]", &hosts));
  CHECK_FALSE(expand_slurm_hostlist("node[01", &hosts));
  CHECK_FALSE(expand_slurm_hostlist("", &hosts));
  CHECK_FALSE(expand_slurm_hostlist("a,,b", &hosts));
}

TEST_CASE("Slurm task counts expand") {
  std::vector<int> counts;
  REQUIRE(expand_slurm_counts("2(x3),1", &counts));
  CHECK(counts == std::vector<int>{2, 2, 2, 1});
  REQUIRE(expand_slurm_counts("4", &counts));
  CHECK(counts == std::vector<int>{4});
  CHECK_FALSE(expand_slurm_counts("2(x", &counts));
  CHECK_FALSE(expand_slurm_counts("0", &counts));
}

TEST_CASE("a Slurm allocation gives hosts with their task counts") {
  const auto env = [](const char* name) -> const char* {
    std::string n = name;
    if (n == "SLURM_JOB_NODELIST") return "n[1-2]";
    if (n == "SLURM_TASKS_PER_NODE") return "3,1";
    return nullptr;
  };
  const auto hosts = slurm_allocation(env);
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[0].name == "n1");
  CHECK(hosts[0].slots == 3);
  CHECK(hosts[1].name == "n2");
  CHECK(hosts[1].slots == 1);
  CHECK(slurm_allocation([](const char*) -> const char* { return nullptr; }).empty());
  // Counts that do not match the node list: not used.
  CHECK(slurm_allocation([](const char* name) -> const char* {
          return std::string(name) == "SLURM_JOB_NODELIST" ? "a,b" : std::string(name) == "SLURM_TASKS_PER_NODE" ? "1" : nullptr;
        }).empty());
}

TEST_CASE("the agent's {host} placeholder, else the host appended") {
  CHECK(agent_argv({"ssh", "-x"}, "h1") == std::vector<std::string>{"ssh", "-x", "h1"});
  CHECK(agent_argv({"srun", "--nodelist={host}", "sh", "-c"}, "h1") ==
        std::vector<std::string>{"srun", "--nodelist=h1", "sh", "-c"});
}
