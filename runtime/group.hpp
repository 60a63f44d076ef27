// An ordered set of processes, named by their rank in MPI_COMM_WORLD.
#pragma once

#include <memory>
#include <vector>

namespace fabmpi {

class Group {
 public:
  Group() = default;
  explicit Group(std::vector<int> world_ranks) : world_ranks_(std::move(world_ranks)) {}

  int size() const noexcept { return static_cast<int>(world_ranks_.size()); }
  int world_rank(int rank) const noexcept { return world_ranks_[static_cast<std::size_t>(rank)]; }
  const std::vector<int>& world_ranks() const noexcept { return world_ranks_; }
  // The rank in this group of a world rank, or MPI_UNDEFINED.
  int rank_of_world(int world_rank) const noexcept;

 private:
  std::vector<int> world_ranks_;
};

using GroupRef = std::shared_ptr<const Group>;

}  // namespace fabmpi
