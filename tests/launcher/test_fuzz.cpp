// A bounded, deterministic replay of fuzz_launcher.hpp: valid PMI transcripts, host lists and command
// lines, mutated (bytes flipped, inserted, dropped, spliced) with a fixed seed, so every run of the unit
// tests checks the same 20000 inputs. Longer runs: the libFuzzer build (-Dfuzz=true).
#include <catch2/catch.hpp>

#include <random>

#include "tests/launcher/fuzz_launcher.hpp"

using namespace std::string_literals;

namespace {

// Target 0's input: (rank, bytes) chunks; rank 4 disconnects rank (length % 4).
std::string pmi_chunks(const std::vector<std::pair<int, std::string>>& chunks) {
  std::string out(1, '\0');
  for (const auto& [rank, bytes] : chunks) {
    out += static_cast<char>(rank);
    out += static_cast<char>(bytes.size());
    out += bytes;
  }
  return out;
}

std::vector<std::string> seeds() {
  return {
      pmi_chunks({{0, "cmd=init pmi_version=1 pmi_subversion=1\n"},
                  {1, "cmd=get_maxes\ncmd=get_appnum\n"},
                  {2, "cmd=put kvsname=kvs_fuzz key=a value=12ab\n"},
                  {3, "cmd=barrier_in\n"},
                  {0, "cmd=get kvsname=kvs_fuzz key=a\ncmd=get_my_kvs"},
                  {0, "name\n"},
                  {4, "x"},
                  {1, "cmd=barrier_in\n"},
                  {2, "cmd=finalize\n"}}),
      pmi_chunks({{2, "cmd=abort exitcode=7\n"}, {3, "cmd=get kvsname=kvs_fuzz key=PMI_process_mapping\n"}}),
      "\x01cmd=put kvsname=k key=x value=y\n"s,
      "\x01cmd=init\r\n"s,
      "\x02host1 slots=4\n# c\nhost2:3\nhost3 max_slots=8\n"s,
      "\x03node[01-03,07],gpu[9-11]-ib,x"s,
      "\x03" "2(x3),1"s,
      "\x04-np\0" "4\0--host\0a:2,b\0--launch-agent\0ssh -x\0prog\0arg"s,
      "\x04--timeout=5\0-genv\0A\0B\0-x\0C=D\0--\0prog"s,
  };
}

void run(const std::string& input) {
  fabmpi::launcher::fuzz::run_one(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

TEST_CASE("fuzz replay: mpirun's parsers and PMI server survive mutated inputs", "[fuzz]") {
  const std::vector<std::string> seed = seeds();
  for (const auto& s : seed) run(s);
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 20000; ++i) {
    std::string input = seed[rng() % seed.size()];
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits && !input.empty(); ++e) {
      const std::size_t at = rng() % input.size();
      switch (rng() % 5) {
        case 0: input[at] = static_cast<char>(rng()); break;
        case 1: input.insert(at, 1, static_cast<char>(rng())); break;
        case 2: input.erase(at, 1 + rng() % 4); break;
        case 3: input.insert(at, seed[rng() % seed.size()].substr(1)); break;  // splice another seed
        case 4: input[at] = "=\n \0[]-,x("[rng() % 10]; break;
      }
    }
    run(input);
  }
  SUCCEED("20000 mutated inputs");
}
