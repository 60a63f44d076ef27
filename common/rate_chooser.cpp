#include "common/rate_chooser.hpp"

#include <algorithm>

namespace fabmpi {

void RateChooser::record(bool way, std::size_t n, std::uint64_t ns) noexcept {
  const double rate = static_cast<double>(n) / static_cast<double>(std::max<std::uint64_t>(ns, 1));
  if (way == way_) {
    if (until_probe_ > 0) --until_probe_;
    if (first_) {
      first_ = false;
      return;
    }
    if (rate_ > 0 && rate < 0.25 * rate_) {
      until_probe_ = 0;
      probe_every_ = kFirstProbeEvery;
    }
    rate_ = rate_ == 0 ? rate : 0.75 * rate_ + 0.25 * rate;
    return;
  }
  // The other way: only a probe's second operation is judged. One nobody asked for (sent before the
  // choice reached its sender) tells nothing new.
  if (probing_ == 0 || --probing_ > 0) return;
  if (rate > 1.1 * rate_) {
    way_ = way;
    rate_ = rate;
    probe_every_ = kFirstProbeEvery;
  } else {
    probe_every_ = std::min(2 * probe_every_, kMaxProbeEvery);
  }
  until_probe_ = probe_every_;
}

}  // namespace fabmpi
