// The algorithm registry: every collective algorithm with its name (= file name suffix = value of
// FABMPI_<COLL>_ALGORITHM), a one-line description, its restrictions and its entry point.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "coll/algorithms.hpp"

namespace fabmpi::coll {

enum class Collective : std::uint8_t {
  barrier, bcast, reduce, allreduce, allgather, allgatherv, gather, gatherv, scatter, scatterv,
  reduce_scatter, reduce_scatter_block, alltoall, alltoallv, alltoallw, scan, exscan,
};
inline constexpr int kCollectiveCount = 17;

// "allreduce", "reduce_scatter_block", ...
const char* collective_name(Collective collective);
bool collective_from_name(std::string_view name, Collective* out);

// Preconditions an algorithm may have; each must hold for the call, or selection falls back.
namespace restriction {
inline constexpr unsigned pow2 = 1u << 0;         // communicator size a power of two
inline constexpr unsigned commutative = 1u << 1;  // commutative op
inline constexpr unsigned builtin_op = 1u << 2;   // predefined op
inline constexpr unsigned no_in_place = 1u << 3;  // not with MPI_IN_PLACE
// The shared-memory algorithms (coll/shm_*.cpp): a blocking call, every member on this node's native
// shared memory, each rank's data within one slot (FABMPI_SHM_COLL_SLOT). They run outside the schedule
// engine (coll/binding.cpp calls them directly); their registered factory is the collective's default
// algorithm, which only a call that fails the restriction would reach, and selection never lets it.
inline constexpr unsigned shm = 1u << 4;
// The staged shared-memory algorithms (coll/shm_staged.cpp): a blocking call, every member on this
// node's native shared memory, any size (the data moves through a second region in chunks).
inline constexpr unsigned shm_staged = 1u << 5;
}  // namespace restriction

struct Algorithm {
  Collective collective;
  const char* name;
  const char* description;
  unsigned restrictions;
  Factory make;
};

std::span<const Algorithm> algorithm_registry();
const Algorithm* find_algorithm(Collective collective, std::string_view name);
// The algorithm that is valid for every call of this collective (the last resort of selection).
const Algorithm& default_algorithm(Collective collective);
// "binomial, linear" (for error messages and docs).
std::string algorithm_names(Collective collective);
// "power of two, commutative op" (empty when unrestricted).
std::string describe_restrictions(unsigned restrictions);

}  // namespace fabmpi::coll
