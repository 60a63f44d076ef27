#include <catch2/catch.hpp>

#include "launcher/args.hpp"

using namespace fabmpi::launcher;

static ParseResult parse(std::vector<std::string> args) { return parse_args(args); }

TEST_CASE("mpirun args: process count spellings", "[args]") {
  for (auto spelling : {std::vector<std::string>{"-n", "4"}, {"-np", "4"}, {"--np", "4"}, {"--np=4"}, {"--n=4"}}) {
    auto args = spelling;
    args.push_back("prog");
    ParseResult r = parse(args);
    REQUIRE(r.ok());
    CHECK(r.options.np == 4);
    CHECK(r.options.program == std::vector<std::string>{"prog"});
  }
  CHECK_FALSE(parse({"-n", "0", "prog"}).ok());
  CHECK_FALSE(parse({"-n", "x", "prog"}).ok());
  CHECK_FALSE(parse({"-n", "4x", "prog"}).ok());
  CHECK_FALSE(parse({"-n"}).ok());
}

TEST_CASE("mpirun args: program arguments are passed through", "[args]") {
  ParseResult r = parse({"-n", "2", "prog", "-n", "7", "--tag-output"});
  REQUIRE(r.ok());
  CHECK(r.options.np == 2);
  CHECK_FALSE(r.options.tag_output);
  CHECK(r.options.program == std::vector<std::string>{"prog", "-n", "7", "--tag-output"});
  r = parse({"-np", "2", "--", "-weird-prog", "x"});
  REQUIRE(r.ok());
  CHECK(r.options.program == std::vector<std::string>{"-weird-prog", "x"});
}

TEST_CASE("mpirun args: environment settings keep their order", "[args]") {
  ParseResult r = parse({"-x", "FOO", "-x", "BAR=1=2", "-genv", "BAZ", "a b", "--", "p"});
  REQUIRE(r.ok());
  REQUIRE(r.options.env.size() == 3);
  CHECK(r.options.env[0].name == "FOO");
  CHECK_FALSE(r.options.env[0].value.has_value());
  CHECK(r.options.env[1].name == "BAR");
  CHECK(*r.options.env[1].value == "1=2");
  CHECK(r.options.env[2].name == "BAZ");
  CHECK(*r.options.env[2].value == "a b");
  CHECK_FALSE(parse({"-x", "1BAD", "p"}).ok());
  CHECK_FALSE(parse({"-x", "=v", "p"}).ok());
  CHECK_FALSE(parse({"-genv", "ONLY"}).ok());
}

TEST_CASE("mpirun args: the other options", "[args]") {
  ParseResult r = parse({"--host", "a,b", "-H", "c", "--hostfile", "hf", "--tag-output", "--timeout", "30",
                         "--bind-to", "core", "--report-bindings", "-wdir", "/tmp", "--oversubscribe", "p"});
  REQUIRE(r.ok());
  const Options& o = r.options;
  CHECK(o.hosts == std::vector<std::string>{"a", "b", "c"});
  CHECK(o.hostfile == "hf");
  CHECK(o.tag_output);
  CHECK(o.timeout_seconds == 30);
  CHECK(o.bind_to == BindTo::core);
  CHECK(o.report_bindings);
  CHECK(o.wdir == "/tmp");
  CHECK(o.oversubscribe);
  CHECK(parse({"--bind-to=none", "p"}).options.bind_to == BindTo::none);
  CHECK(parse({"--timeout=5", "p"}).options.timeout_seconds == 5);
  CHECK(parse({"-l", "p"}).options.tag_output);
  CHECK(parse({"--trace", "t.json", "p"}).options.trace_file == "t.json");
  CHECK(parse({"--trace=t.json", "p"}).options.trace_file == "t.json");
}

TEST_CASE("mpirun args: errors say what is wrong", "[args]") {
  CHECK(parse({"--bind-to", "socket", "p"}).error.find("core or none") != std::string::npos);
  CHECK(parse({"--timeout", "-1", "p"}).error.find("seconds") != std::string::npos);
  CHECK(parse({"--trace", "", "p"}).error.find("needs a file name") != std::string::npos);
  CHECK(parse({"--frobnicate", "p"}).error.find("unknown option '--frobnicate'") != std::string::npos);
  CHECK(parse({"-n", "2"}).error.find("no program") != std::string::npos);
  CHECK(parse({}).error.find("no program") != std::string::npos);
  CHECK(parse({"--tag-output=yes", "p"}).error.find("does not take") != std::string::npos);
}

TEST_CASE("mpirun args: MPIEXEC_TIMEOUT as the MPICH and Open MPI launchers read it", "[args]") {
  int seconds = 0;
  std::string error;
  CHECK(parse_timeout_env("180", &seconds, &error));
  CHECK(seconds == 180);
  CHECK_FALSE(parse_timeout_env("3m", &seconds, &error));
  CHECK(error == "MPIEXEC_TIMEOUT='3m' is not a positive number of seconds");
  CHECK_FALSE(parse_timeout_env("0", &seconds, &error));
}

TEST_CASE("mpirun args: help needs no program", "[args]") {
  CHECK(parse({"--help"}).options.help);
  CHECK(parse({"-h"}).options.help);
  CHECK(parse({"--help-params"}).options.help_params);
  CHECK(parse({"--version"}).options.version);
  CHECK(usage_text().find("--bind-to") != std::string::npos);
}

TEST_CASE("mpirun args: hostfile", "[args]") {
  std::vector<HostSlot> hosts;
  std::string error;
  REQUIRE(parse_hostfile("# comment\nnode1 slots=4\n\n  node2   # two\nnode3:2\n", &hosts, &error));
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].name == "node1");
  CHECK(hosts[0].slots == 4);
  CHECK(hosts[1].name == "node2");
  CHECK(hosts[1].slots == 1);
  CHECK(hosts[2].name == "node3");
  CHECK(hosts[2].slots == 2);
  CHECK_FALSE(parse_hostfile("node1 slots=x\n", &hosts, &error));
  CHECK(error.find("line 1") != std::string::npos);
  CHECK_FALSE(parse_hostfile("# nothing\n", &hosts, &error));
  CHECK_FALSE(parse_hostfile("a b\n", &hosts, &error));
}

TEST_CASE("mpirun args: --launch-agent and MPICH's -launcher-exec", "[args]") {
  ParseResult r = parse({"--launch-agent", "ssh -p 2222", "-H", "a,b:3", "prog"});
  REQUIRE(r.ok());
  CHECK(r.options.launch_agent == "ssh -p 2222");
  CHECK(r.options.hosts == std::vector<std::string>{"a", "b:3"});
  CHECK(parse({"-launcher-exec", "rsh", "prog"}).options.launch_agent == "rsh");
  CHECK_FALSE(parse({"--launch-agent", "", "prog"}).ok());
}

TEST_CASE("host specs: name, name:N; an empty name or a bad count is an error", "[args]") {
  HostSlot h;
  std::string error;
  REQUIRE(parse_host_spec("node1:3", &h, &error));
  CHECK(h.name == "node1");
  CHECK(h.slots == 3);
  REQUIRE(parse_host_spec("node2", &h, &error));
  CHECK(h.slots == 1);
  CHECK_FALSE(parse_host_spec(":3", &h, &error));
  CHECK(error == "no host name in ':3'");
  CHECK_FALSE(parse_host_spec("a:0", &h, &error));
  CHECK_FALSE(parse_host_spec("a:x", &h, &error));
  std::vector<HostSlot> hosts;
  CHECK_FALSE(parse_hostfile(":4\n", &hosts, &error));  // found by the fuzz replay
  CHECK(error == "hostfile line 1: no host name in ':4'");
  REQUIRE(parse_hostfile("n1:2 slots=5\n", &hosts, &error));
  CHECK(hosts[0].slots == 5);
}
