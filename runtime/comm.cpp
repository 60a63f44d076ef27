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
  // MPI_ERROR is left alone: a single-completion call returns its error and leaves the field undefined
  // (MPI-3.1 3.2.5), and MPICH leaves it untouched, which programs (and MPICH's tests) rely on; the
  // multiple-completion calls set it themselves.
  auto count = static_cast<unsigned long long>(count_bytes);
  status->count_lo = static_cast<int>(count & 0xffffffffu);
  status->count_hi_and_cancelled = static_cast<int>(((count >> 32) << 1) | (cancelled ? 1u : 0u));
}

}  // namespace fabmpi
