// mpirun --trace's merge of the ranks' timeline files (launcher/trace_merge.hpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "launcher/trace_merge.hpp"

using fabmpi::launcher::merge_rank_traces;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_rank(const std::string& prefix, int rank, const std::vector<std::string>& events) {
  std::ofstream out(prefix + "." + std::to_string(rank) + ".json");
  out << "{\"traceEvents\":[\n";
  for (std::size_t i = 0; i < events.size(); ++i) out << events[i] << (i + 1 < events.size() ? ",\n" : "\n");
  out << "],\"displayTimeUnit\":\"ns\"}\n";
}

}  // namespace

TEST_CASE("trace merge: ranks in order, missing ranks listed, rank files removed", "[trace]") {
  char dir[] = "/tmp/fabmpi-test-trace.XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string prefix = std::string(dir) + "/rank";
  write_rank(prefix, 0, {R"({"name":"MPI_Init","ph":"X","pid":0,"tid":0,"ts":1.000,"dur":2.000})",
                         R"({"name":"MPI_Finalize","ph":"X","pid":0,"tid":0,"ts":5.000,"dur":1.000})"});
  write_rank(prefix, 2, {R"({"name":"MPI_Init","ph":"X","pid":2,"tid":0,"ts":1.500,"dur":2.000})"});
  const std::string out = std::string(dir) + "/all.json";
  std::vector<int> missing;
  std::string error;
  REQUIRE(merge_rank_traces(prefix, 3, out, &missing, &error));
  CHECK(missing == std::vector<int>{1});
  CHECK(slurp(out) == "{\"traceEvents\":[\n"
                      R"({"name":"MPI_Init","ph":"X","pid":0,"tid":0,"ts":1.000,"dur":2.000})" ",\n"
                      R"({"name":"MPI_Finalize","ph":"X","pid":0,"tid":0,"ts":5.000,"dur":1.000})" ",\n"
                      R"({"name":"MPI_Init","ph":"X","pid":2,"tid":0,"ts":1.500,"dur":2.000})" "\n"
                      "],\"displayTimeUnit\":\"ns\"}\n");
  CHECK(::access((prefix + ".0.json").c_str(), F_OK) != 0);
  CHECK(::access((prefix + ".2.json").c_str(), F_OK) != 0);

  // An unwritable output is an error, not a crash.
  CHECK_FALSE(merge_rank_traces(prefix, 1, std::string(dir) + "/no/such/dir/x.json", &missing, &error));
  CHECK(error.find("no/such/dir") != std::string::npos);
  ::unlink(out.c_str());
  ::rmdir(dir);
}
