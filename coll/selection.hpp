// Algorithm selection as data: a table of first-match rules (coll/selection.table, compiled into the
// library; FABMPI_COLL_TABLE=file replaces it), under per-collective overrides
// (FABMPI_<COLL>_ALGORITHM=name). Format: docs/collectives.md and man/fabmpi-coll.7.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "coll/registry.hpp"

namespace fabmpi::coll {

// What selection looks at. Every field is the same on every member of the communicator, so all
// members choose the same algorithm (see docs/collectives.md for what `bytes` means per collective).
struct SelectionKey {
  Collective collective = Collective::barrier;
  int comm_size = 1;
  std::size_t bytes = 0;
  bool commutative = true;
  bool builtin_op = true;
  bool in_place = false;
  bool single_node = true;
  // A blocking call on a communicator whose members all share native shared memory, each rank's data
  // within one slot of the shm collectives (set only by coll/shm_region.cpp's fast path).
  bool shm = false;
  // A blocking call on a communicator whose members all share native shared memory, any size: the
  // staged shm algorithms move the data through the region in slot-sized chunks (coll/shm_staged.cpp).
  bool shm_staged = false;
  bool pow2() const { return comm_size > 0 && (comm_size & (comm_size - 1)) == 0; }
};

namespace predicate {
inline constexpr unsigned pow2 = 1u << 0;
inline constexpr unsigned commutative = 1u << 1;
inline constexpr unsigned builtin_op = 1u << 2;
inline constexpr unsigned in_place = 1u << 3;
inline constexpr unsigned single_node = 1u << 4;
inline constexpr unsigned shm = 1u << 5;
inline constexpr unsigned shm_staged = 1u << 6;
}  // namespace predicate

struct Rule {
  Collective collective = Collective::barrier;
  int min_ranks = 1, max_ranks = std::numeric_limits<int>::max();
  std::size_t min_bytes = 0, max_bytes = std::numeric_limits<std::size_t>::max();
  unsigned require = 0;  // predicates that must hold
  unsigned forbid = 0;   // predicates that must not hold ("!pow2")
  const Algorithm* algorithm = nullptr;
  AlgorithmParams params;
  int line = 0;

  bool matches(const SelectionKey& key) const;
};

struct SelectionTable {
  std::vector<Rule> rules;
  std::string source;  // "built-in table" or the file name, for messages

  // Parses the text of a table. On error returns false with "source:line: what is wrong" in *error.
  static bool parse(std::string_view text, const std::string& source, SelectionTable* out, std::string* error);
};

// True when the algorithm's restrictions hold for the call; else *why says which one does not.
bool restrictions_hold(const Algorithm& algorithm, const SelectionKey& key, std::string* why = nullptr);

struct Decision {
  const Algorithm* algorithm = nullptr;
  AlgorithmParams params;
  std::string reason;                 // "FABMPI_ALLREDUCE_ALGORITHM", "built-in table line 12", "default"
  std::vector<std::string> warnings;  // fallbacks taken on the way
};

// Overrides strongest first: `forced` (from FABMPI_<COLL>_ALGORITHM; may be null), the table's first
// matching rule whose algorithm's restrictions hold, then the collective's default algorithm.
Decision select_algorithm(const SelectionTable& table, const SelectionKey& key, const Algorithm* forced);

// The table compiled into the library (generated from coll/selection.table).
extern const char kBuiltinSelectionTable[];

}  // namespace fabmpi::coll
