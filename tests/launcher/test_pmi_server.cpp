#include <catch2/catch.hpp>

#include "launcher/pmi_server.hpp"

using fabmpi::launcher::PmiActions;
using fabmpi::launcher::PmiServer;
using fabmpi::launcher::PmiServerConfig;

namespace {

PmiServer make_server(int size) { return PmiServer(PmiServerConfig{size, size, "kvs_test", {}}); }

// Feeds one request and returns the replies addressed to `rank`.
std::vector<std::string> ask(PmiServer& s, int rank, const std::string& line, PmiActions* out = nullptr) {
  PmiActions a;
  s.feed(rank, line, &a);
  std::vector<std::string> mine;
  for (auto& r : a.replies)
    if (r.rank == rank) mine.push_back(r.line);
  if (out) *out = a;
  return mine;
}

}  // namespace

TEST_CASE("pmi server: MPICH's startup sequence", "[pmi]") {
  PmiServer s = make_server(4);
  CHECK(ask(s, 2, "cmd=init pmi_version=1 pmi_subversion=1\n") ==
        std::vector<std::string>{"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"});
  CHECK(ask(s, 2, "cmd=get_maxes\n")[0] == "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  CHECK(ask(s, 2, "cmd=get_appnum\n")[0] == "cmd=appnum appnum=0\n");
  CHECK(ask(s, 2, "cmd=get_my_kvsname\n")[0] == "cmd=my_kvsname kvsname=kvs_test\n");
  CHECK(ask(s, 2, "cmd=get_universe_size\n")[0] == "cmd=universe_size size=4\n");
  CHECK(ask(s, 2, "cmd=get kvsname=kvs_test key=PMI_process_mapping\n")[0] ==
        "cmd=get_result rc=0 msg=success value=(vector,(0,1,4))\n");
  CHECK(s.ever_connected(2));
  CHECK_FALSE(s.ever_connected(1));
}

TEST_CASE("pmi server: unsupported version is refused", "[pmi]") {
  PmiServer s = make_server(1);
  CHECK(ask(s, 0, "cmd=init pmi_version=2 pmi_subversion=0\n")[0].find("rc=-1") != std::string::npos);
}

TEST_CASE("pmi server: put and get across ranks; missing keys", "[pmi]") {
  PmiServer s = make_server(2);
  CHECK(ask(s, 0, "cmd=put kvsname=kvs_test key=addr0 value=abcd\n")[0] == "cmd=put_result rc=0 msg=success\n");
  CHECK(ask(s, 1, "cmd=get kvsname=kvs_test key=addr0\n")[0] == "cmd=get_result rc=0 msg=success value=abcd\n");
  CHECK(ask(s, 1, "cmd=get kvsname=kvs_test key=nope\n")[0] ==
        "cmd=get_result rc=-1 msg=key_nope_not_found value=unknown\n");
  CHECK(ask(s, 1, "cmd=get kvsname=other key=addr0\n")[0].find("rc=-1") != std::string::npos);
  CHECK(ask(s, 1, "cmd=put kvsname=other key=k value=v\n")[0].find("rc=-1") != std::string::npos);
  CHECK(ask(s, 1, "cmd=put kvsname=kvs_test key=k\n")[0].find("rc=-1") != std::string::npos);
  CHECK(ask(s, 1, "cmd=put kvsname=kvs_test key=" + std::string(65, 'k') + " value=v\n")[0].find("rc=-1") !=
        std::string::npos);
  CHECK(ask(s, 1, "cmd=get\n")[0].find("rc=-1") != std::string::npos);
}

TEST_CASE("pmi server: requests split across reads and several per read", "[pmi]") {
  PmiServer s = make_server(1);
  PmiActions a;
  s.feed(0, "cmd=get_app", &a);
  CHECK(a.replies.empty());
  s.feed(0, "num\ncmd=get_maxes\ncmd=get_my_", &a);
  REQUIRE(a.replies.size() == 2);
  CHECK(a.replies[0].line == "cmd=appnum appnum=0\n");
  s.feed(0, "kvsname\n", &a);
  CHECK(a.replies.size() == 3);
}

TEST_CASE("pmi server: barrier releases all ranks only when all entered", "[pmi]") {
  const int n = 5;
  PmiServer s = make_server(n);
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < n - 1; ++r) {
      PmiActions a;
      s.feed(r, "cmd=barrier_in\n", &a);
      CHECK(a.replies.empty());
    }
    CHECK(s.ranks_in_barrier() == n - 1);
    // Entering twice is an error, not a release.
    CHECK(ask(s, 0, "cmd=barrier_in\n")[0].find("cmd=error") == 0);
    PmiActions a;
    s.feed(n - 1, "cmd=barrier_in\n", &a);
    REQUIRE(a.replies.size() == static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      CHECK(a.replies[static_cast<std::size_t>(r)].rank == r);
      CHECK(a.replies[static_cast<std::size_t>(r)].line == "cmd=barrier_out\n");
    }
    CHECK(s.ranks_in_barrier() == 0);
  }
}

TEST_CASE("pmi server: a rank leaving during a barrier leaves it", "[pmi]") {
  PmiServer s = make_server(2);
  PmiActions a;
  s.feed(0, "cmd=barrier_in\n", &a);
  CHECK(s.ranks_in_barrier() == 1);
  s.disconnect(0, &a);
  CHECK(s.ranks_in_barrier() == 0);
  CHECK_FALSE(s.connected(0));
  s.feed(0, "cmd=get_maxes\n", &a);  // after disconnect: ignored
  CHECK(a.replies.empty());
  s.disconnect(0, &a);                // twice: harmless
  s.disconnect(7, &a);                // unknown rank: harmless
  s.feed(-1, "cmd=init\n", &a);
  CHECK(a.replies.empty());
}

TEST_CASE("pmi server: finalize and abort", "[pmi]") {
  PmiServer s = make_server(3);
  CHECK(ask(s, 1, "cmd=finalize\n")[0] == "cmd=finalize_ack\n");
  CHECK(s.finalized(1));
  CHECK_FALSE(s.finalized(0));
  PmiActions a;
  s.feed(2, "cmd=abort exitcode=7\n", &a);
  CHECK(a.replies.empty());
  REQUIRE(a.abort);
  CHECK(a.abort->rank == 2);
  CHECK(a.abort->exit_code == 7);
  PmiActions b;
  s.feed(0, "cmd=abort\n", &b);
  REQUIRE(b.abort);
  CHECK(b.abort->exit_code == 1);
}

TEST_CASE("pmi server: malformed and unknown requests get an error reply", "[pmi]") {
  PmiServer s = make_server(1);
  for (const char* bad : {"garbage\n", "\n", "key=v\n", "cmd=put x\n"}) {
    auto r = ask(s, 0, bad);
    REQUIRE(r.size() == 1);
    CHECK(r[0].rfind("cmd=error rc=-1 msg=", 0) == 0);
  }
  PmiActions a;
  s.feed(0, "cmd=spawn nprocs=2\n", &a);
  REQUIRE(a.replies.size() == 1);
  CHECK(a.replies[0].line.rfind("cmd=error rc=-1", 0) == 0);
  CHECK_FALSE(a.diagnostics.empty());
  // The connection still works afterwards.
  CHECK(ask(s, 0, "cmd=get_appnum\n")[0] == "cmd=appnum appnum=0\n");
}

TEST_CASE("pmi server: overlong lines drop the client", "[pmi]") {
  PmiServer s = make_server(2);
  PmiActions a;
  s.feed(0, "cmd=put kvsname=kvs_test key=k value=" + std::string(2000, 'v') + "\n", &a);
  CHECK(a.drop == std::vector<int>{0});
  CHECK(a.replies.empty());
  CHECK_FALSE(s.connected(0));
  // An endless line without '\n' is dropped too, before it grows unbounded.
  PmiActions b;
  for (int i = 0; i < 10 && b.drop.empty(); ++i) s.feed(1, std::string(300, 'x'), &b);
  CHECK(b.drop == std::vector<int>{1});
}

TEST_CASE("pmi server: hostile bytes never crash it", "[pmi]") {
  PmiServer s = make_server(2);
  std::string noise;
  unsigned x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1103515245u + 12345u;
    char c = static_cast<char>((x >> 16) & 0xff);
    if ((x >> 8) % 37 == 0) c = '\n';
    if ((x >> 8) % 11 == 0) c = '=';
    if ((x >> 8) % 13 == 0) c = ' ';
    noise += c;
  }
  PmiActions a;
  for (std::size_t i = 0; i < noise.size(); i += 97) s.feed(1, std::string_view(noise).substr(i, 97), &a);
  SUCCEED();
}

TEST_CASE("pmi server: bootstrap values under a prefix are reassembled and decoded", "[pmi]") {
  PmiServer s = make_server(2);
  // "/fabmpi-1-ab" hex-encoded in one part; a second name split over k and k#1; a value of another form.
  ask(s, 0, "cmd=put kvsname=kvs_test key=fabmpi-shm-node-0 value=1:2f6661626d70692d312d6162\n");
  ask(s, 1, "cmd=put kvsname=kvs_test key=fabmpi-shm-node-1 value=2:2f6661626d\n");
  ask(s, 1, "cmd=put kvsname=kvs_test key=fabmpi-shm-node-1#1 value=70692d322d6364\n");
  ask(s, 1, "cmd=put kvsname=kvs_test key=fabmpi-shm-node-2 value=plain\n");
  ask(s, 1, "cmd=put kvsname=kvs_test key=fabmpi-shm-node-3 value=2:2f66\n");  // part 1 missing
  ask(s, 1, "cmd=put kvsname=kvs_test key=other value=1:2f\n");
  CHECK(s.bootstrap_values_with_prefix("fabmpi-shm-node-") == std::vector<std::string>{"/fabmpi-1-ab", "/fabmpi-2-cd"});
}

TEST_CASE("pmi server: spawn requests, jobs, per-job barriers and cross-job endpoint lookups", "[pmi][spawn]") {
  PmiServer s = make_server(2);
  CHECK(ask(s, 0, "cmd=get kvsname=kvs_test key=fabmpi-universe-base\n")[0] ==
        "cmd=get_result rc=0 msg=success value=0\n");
  // The request: a program with arguments (spaces and '=' included: they travel hex-encoded).
  fabmpi::pmi::SpawnRequest request;
  request.commands.push_back({"/bin/prog", {"a b", "x=y"}, 2, "/tmp"});
  request.commands.push_back({"other", {}, 1, ""});
  request.preput.emplace_back("fabmpi-parent", "1:ff");
  const auto lines = fabmpi::pmi::spawn_request_lines(request);
  REQUIRE(lines.size() >= 2);
  PmiActions a;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) CHECK(ask(s, 1, fabmpi::pmi::encode(lines[i]), &a).empty());
  ask(s, 1, fabmpi::pmi::encode(lines.back()), &a);
  REQUIRE(a.spawn);
  CHECK(a.spawn->rank == 1);
  REQUIRE(a.spawn->request.commands.size() == 2);
  CHECK(a.spawn->request.commands[0].args == std::vector<std::string>{"a b", "x=y"});
  CHECK(a.spawn->request.commands[0].wdir == "/tmp");
  CHECK(a.spawn->request.commands[1].maxprocs == 1);

  // The launcher adds the job: universe indices 2..4, its own space with the preput key.
  const int base = s.add_job(3, "kvs_test_1", {0, 0, 1}, a.spawn->request.preput);
  CHECK(base == 2);
  CHECK(s.universe_count() == 5);
  CHECK(s.job_of(3) == 1);
  PmiActions answer;
  s.answer_spawn(1, true, base, 3, "kvs_test_1", "", &answer);
  REQUIRE(answer.replies.size() == 1);
  CHECK(answer.replies[0].line == "cmd=fabmpi_spawn_result rc=0 base=2 size=3 kvsname=kvs_test_1\n");
  CHECK(ask(s, 2, "cmd=get_my_kvsname\n")[0] == "cmd=my_kvsname kvsname=kvs_test_1\n");
  CHECK(ask(s, 4, "cmd=get_appnum\n")[0] == "cmd=appnum appnum=1\n");
  CHECK(ask(s, 3, "cmd=get kvsname=kvs_test_1 key=fabmpi-universe-base\n")[0] ==
        "cmd=get_result rc=0 msg=success value=2\n");
  CHECK(ask(s, 3, "cmd=get kvsname=kvs_test_1 key=fabmpi-parent\n")[0] == "cmd=get_result rc=0 msg=success value=1:ff\n");
  // Spaces are separate; endpoint keys are found across jobs.
  CHECK(ask(s, 0, "cmd=put kvsname=kvs_test key=fabmpi-ep-0-tcp value=a\n")[0] == "cmd=put_result rc=0 msg=success\n");
  CHECK(ask(s, 0, "cmd=put kvsname=kvs_test key=private value=p\n")[0] == "cmd=put_result rc=0 msg=success\n");
  CHECK(ask(s, 2, "cmd=put kvsname=kvs_test key=x value=y\n")[0].find("rc=-1") != std::string::npos);
  CHECK(ask(s, 2, "cmd=get kvsname=kvs_test_1 key=fabmpi-ep-0-tcp\n")[0] == "cmd=get_result rc=0 msg=success value=a\n");
  CHECK(ask(s, 2, "cmd=get kvsname=kvs_test_1 key=private\n")[0].find("rc=-1") != std::string::npos);
  // Each job's barrier releases its own processes.
  PmiActions b;
  CHECK(ask(s, 2, "cmd=barrier_in\n").empty());
  CHECK(ask(s, 0, "cmd=barrier_in\n").empty());
  CHECK(ask(s, 3, "cmd=barrier_in\n").empty());
  s.feed(4, "cmd=barrier_in\n", &b);
  CHECK(b.replies.size() == 3);
  for (const auto& r : b.replies) CHECK(r.rank >= 2);
  s.feed(1, "cmd=barrier_in\n", &b);
  CHECK(b.replies.size() == 5);
}

TEST_CASE("pmi server: malformed spawn requests are answered, not served", "[pmi][spawn]") {
  PmiServer s = make_server(1);
  PmiActions a;
  CHECK(ask(s, 0, "cmd=fabmpi_spawn_part data=zz\n", &a).empty());
  CHECK(ask(s, 0, "cmd=fabmpi_spawn_end\n", &a)[0].find("rc=-1") != std::string::npos);
  CHECK_FALSE(a.spawn);
  CHECK(ask(s, 0, "cmd=fabmpi_spawn_end\n", &a)[0].find("rc=-1") != std::string::npos);  // nothing received
  CHECK(ask(s, 0, "cmd=fabmpi_spawn_part\n", &a)[0].find("rc=-1") != std::string::npos);
  fabmpi::pmi::SpawnRequest request;
  std::string bytes = fabmpi::pmi::encode_spawn(request);  // no commands: refused by the decoder
  fabmpi::pmi::SpawnRequest back;
  CHECK_FALSE(fabmpi::pmi::decode_spawn(bytes, &back));
  request.commands.push_back({"p", {"", "q"}, 3, ""});
  bytes = fabmpi::pmi::encode_spawn(request);
  REQUIRE(fabmpi::pmi::decode_spawn(bytes, &back));
  CHECK(back.commands[0].args == std::vector<std::string>{"", "q"});
  CHECK_FALSE(fabmpi::pmi::decode_spawn(bytes.substr(0, bytes.size() - 1), &back));
  CHECK_FALSE(fabmpi::pmi::decode_spawn(bytes + "x", &back));
}
