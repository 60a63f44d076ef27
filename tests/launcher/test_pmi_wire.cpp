#include <catch2/catch.hpp>

#include "common/pmi_wire.hpp"

using namespace fabmpi::pmi;

TEST_CASE("pmi wire: parse a well-formed line", "[pmi]") {
  Message m;
  std::string error;
  REQUIRE(parse_line("cmd=put kvsname=kvs_1 key=a.b value=00ff\n", &m, &error));
  CHECK(m.cmd() == "put");
  REQUIRE(m.find("key"));
  CHECK(*m.find("key") == "a.b");
  CHECK(*m.find("value") == "00ff");
  CHECK(m.find("nothing") == nullptr);
}

TEST_CASE("pmi wire: values may contain '=' and be empty", "[pmi]") {
  Message m;
  std::string error;
  REQUIRE(parse_line("cmd=get_result rc=0 value=a=b empty=", &m, &error));
  CHECK(*m.find("value") == "a=b");
  CHECK(m.find("empty")->empty());
  long long rc = 5;
  CHECK(m.find_int("rc", &rc));
  CHECK(rc == 0);
  CHECK_FALSE(m.find_int("value", &rc));
}

TEST_CASE("pmi wire: malformed lines are rejected with a reason", "[pmi]") {
  Message m;
  std::string error;
  for (const char* bad : {"", "\n", "   \n", "hello", "key=v cmd=put", "cmd=put junk", "=x cmd=y", "cmd=a\nb=c\n",
                          "cmd= k=p"}) {  // the last found by the fuzzer: no command named
    error.clear();
    CHECK_FALSE(parse_line(bad, &m, &error));
    CHECK_FALSE(error.empty());
  }
  std::string nul("cmd=put\0 a=b", 12);
  CHECK_FALSE(parse_line(nul, &m, &error));
}

TEST_CASE("pmi wire: overlong lines are rejected", "[pmi]") {
  Message m;
  std::string error;
  std::string line = "cmd=put value=" + std::string(1100, 'a') + "\n";
  CHECK_FALSE(parse_line(line, &m, &error));
  CHECK(error.find("exceeds 1024") != std::string::npos);
  std::string exact = "cmd=x v=" + std::string(1024 - 9, 'a') + "\n";
  REQUIRE(exact.size() == 1024);
  CHECK(parse_line(exact, &m, &error));
}

TEST_CASE("pmi wire: encode round-trips and checks limits", "[pmi]") {
  Message m = request_put("kvs", "key", "val");
  CHECK(encode(m) == "cmd=put kvsname=kvs key=key value=val\n");
  Message back;
  std::string error;
  REQUIRE(parse_line(encode(m), &back, &error));
  CHECK(back.fields() == m.fields());
  CHECK(check_encodable(m, &error));
  CHECK_FALSE(check_encodable(request_put("kvs", "a key", "v"), &error));
  CHECK_FALSE(check_encodable(request_put("kvs", "k", "v v"), &error));
  CHECK_FALSE(check_encodable(request_put("kvs", "k", std::string(1100, 'x')), &error));
}

TEST_CASE("pmi wire: replies MPICH depends on", "[pmi]") {
  CHECK(encode(reply_init(true)) == "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  CHECK(encode(reply_maxes()) == "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  CHECK(encode(reply_get_missing("foo")) == "cmd=get_result rc=-1 msg=key_foo_not_found value=unknown\n");
  CHECK(encode(reply_get_found("v")) == "cmd=get_result rc=0 msg=success value=v\n");
  CHECK(encode(reply_put(true, "success")) == "cmd=put_result rc=0 msg=success\n");
  CHECK(encode(request_abort(7)) == "cmd=abort exitcode=7\n");
  CHECK(encode(reply_error("bad thing = here")) == "cmd=error rc=-1 msg=bad_thing___here\n");
}

TEST_CASE("pmi wire: hex encoding", "[pmi]") {
  std::string bytes("\x00\x01\xfe\xff abc", 8);
  std::string hex = hex_encode(bytes);
  CHECK(hex == "0001feff20616263");
  std::string back;
  REQUIRE(hex_decode(hex, &back));
  CHECK(back == bytes);
  CHECK(hex_decode("ABcd", &back));
  CHECK_FALSE(hex_decode("abc", &back));
  CHECK_FALSE(hex_decode("zz", &back));
}

TEST_CASE("pmi wire: process mapping", "[pmi]") {
  CHECK(build_process_mapping({0, 0, 0, 0}) == "(vector,(0,1,4))");
  CHECK(build_process_mapping({0, 0, 1, 1}) == "(vector,(0,2,2))");
  CHECK(build_process_mapping({0, 0, 1}) == "(vector,(0,1,2),(1,1,1))");
  std::vector<int> nodes;
  REQUIRE(parse_process_mapping("(vector,(0,1,4))", 4, &nodes));
  CHECK(nodes == std::vector<int>{0, 0, 0, 0});
  REQUIRE(parse_process_mapping("(vector,(0,2,2))", 4, &nodes));
  CHECK(nodes == std::vector<int>{0, 0, 1, 1});
  // Blocks repeat cyclically: round robin over two nodes.
  REQUIRE(parse_process_mapping("(vector,(0,2,1))", 5, &nodes));
  CHECK(nodes == std::vector<int>{0, 1, 0, 1, 0});
  for (std::vector<int> map : {std::vector<int>{0, 0, 1, 2, 2, 2}, std::vector<int>{0, 1, 0, 1}, std::vector<int>{3}}) {
    REQUIRE(parse_process_mapping(build_process_mapping(map), static_cast<int>(map.size()), &nodes));
    CHECK(nodes == map);
  }
  for (const char* bad : {"", "(vector)", "(vector,(0,1))", "(vector,(0,1,0))", "(vector,(a,1,1))", "vector,(0,1,1)",
                          "(vector,(0,1,4))x", "(vector,(0,1,99999999999))"})
    CHECK_FALSE(parse_process_mapping(bad, 4, &nodes));
}
