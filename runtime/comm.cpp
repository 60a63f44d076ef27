#include "runtime/comm.hpp"

#include "runtime/request.hpp"

namespace fabmpi {

int Group::rank_of_world(int world_rank) const noexcept {
  for (std::size_t i = 0; i < world_ranks_.size(); ++i)
    if (world_ranks_[i] == world_rank) return static_cast<int>(i);
  return MPI_UNDEFINED;
}

void Request::fill_status(MPI_Status* status) const noexcept {
  if (status == MPI_STATUS_IGNORE || status == nullptr) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  auto count = static_cast<unsigned long long>(count_bytes);
  status->count_lo = static_cast<int>(count & 0xffffffffu);
  status->count_hi_and_cancelled = static_cast<int>(((count >> 32) << 1) | (cancelled ? 1u : 0u));
}

}  // namespace fabmpi
