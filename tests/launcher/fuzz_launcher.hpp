// One fuzz input for mpirun's parsers, which read what other processes (ranks, proxies on other hosts,
// Slurm, the user) send or write: the PMI-1 line parser and server, the hostfile parser, Slurm's host
// list and count expansion, the command line parser. Runs under libFuzzer (fuzz_main.cpp, meson option
// -Dfuzz=true with clang) and, as a bounded replay of generated inputs, in the unit tests
// (test_fuzz.cpp). Properties checked beyond "no crash, no sanitizer report": every reply the server
// sends parses as a PMI line, no more ranks are in the barrier than exist, a dropped rank gets no reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/pmi_wire.hpp"
#include "launcher/args.hpp"
#include "launcher/hosts.hpp"
#include "launcher/pmi_server.hpp"

namespace fabmpi::launcher::fuzz {

[[noreturn]] inline void violated(const char* what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

// The first byte picks the target; the rest is its input.
inline void run_one(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {  // the PMI server: chunks for 4 ranks, each chunk "<rank byte><length byte><bytes>"
      PmiServer server(PmiServerConfig{4, 4, "kvs_fuzz", {0, 0, 1, 1}});
      std::vector<bool> dropped(4, false);
      std::size_t at = 0;
      while (at + 2 <= input.size()) {
        const int rank = static_cast<unsigned char>(input[at]) % 5;  // 4: a disconnect of rank 0..3
        const std::size_t n = std::min<std::size_t>(static_cast<unsigned char>(input[at + 1]), input.size() - at - 2);
        PmiActions actions;
        if (rank == 4) {
          const int who = static_cast<int>(n % 4);
          server.disconnect(who, &actions);
          dropped[static_cast<std::size_t>(who)] = true;
        } else {
          server.feed(rank, input.substr(at + 2, n), &actions);
        }
        at += 2 + n;
        for (int d : actions.drop) dropped[static_cast<std::size_t>(d)] = true;
        for (const auto& reply : actions.replies) {
          pmi::Message m;
          std::string error;
          if (!pmi::parse_line(reply.line, &m, &error)) violated("a reply does not parse");
          if (reply.rank < 0 || reply.rank >= 4) violated("a reply to a rank that does not exist");
        }
        if (server.ranks_in_barrier() < 0 || server.ranks_in_barrier() > 4) violated("barrier count out of range");
      }
      break;
    }
    case 1: {
      pmi::Message m;
      std::string error;
      if (pmi::parse_line(input, &m, &error)) {
        if (m.cmd().empty()) violated("a parsed line without cmd");
        std::string again_error;
        pmi::Message again;
        if (pmi::check_encodable(m, &again_error) && !pmi::parse_line(pmi::encode(m), &again, &again_error))
          violated("an encodable message does not parse back");
      }
      break;
    }
    case 2: {
      std::vector<HostSlot> hosts;
      std::string error;
      if (parse_hostfile(std::string(input), &hosts, &error))
        for (const auto& h : hosts)
          if (h.name.empty() || h.slots < 1) violated("a parsed host without name or slots");
      break;
    }
    case 3: {
      std::vector<std::string> names;
      std::vector<int> counts;
      if (expand_slurm_hostlist(std::string(input), &names))
        for (const auto& n : names)
          if (n.empty()) violated("an empty host name from a Slurm list");
      if (expand_slurm_counts(std::string(input), &counts))
        for (int c : counts)
          if (c < 1) violated("a Slurm count below 1");
      break;
    }
    case 4: {  // NUL-separated words as mpirun's arguments
      std::vector<std::string> args;
      std::string word;
      for (char c : input) {
        if (c == '\0') {
          args.push_back(word);
          word.clear();
        } else {
          word += c;
        }
      }
      args.push_back(word);
      const ParseResult r = parse_args(args);
      if (r.ok() && r.options.np < 0) violated("a negative process count accepted");
      break;
    }
  }
}

}  // namespace fabmpi::launcher::fuzz
