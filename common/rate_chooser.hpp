// Picks the faster of two ways of doing one thing by the rates this process measures, trying the other
// way now and then. Used where neither way wins on every machine or for every use of a buffer: copies out
// of a peer's mapped buffer (own its lines or not, common/memory_copy.hpp) and how a peer's messages
// reach this rank over native shared memory (through the ring or by cross-memory attach,
// pt2pt/shm_transport.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabmpi {

// Two ways, `false` and `true`; `initial` is the first choice. The caller asks next() which way to take,
// times it and record()s the result. The other way is tried for two operations in a row and judged by the
// second (the first pays for the switch: cache lines changing hands) after probe_every recorded
// operations, an interval that doubles while the choice holds (8 to 1024: a losing probe costs little)
// and starts over when the choice changes; a switch needs a 1.1x margin, so noise does not flip it back
// and forth. An operation at under a quarter of the current way's average rate brings the probe forward:
// the conditions changed (noise stays within 2x on the machines measured). The first recorded operation
// of a way is not averaged (it pays for the lines changing hands).
// Samples may arrive by a way other than the one last asked for (a choice that reaches a peer late):
// each is booked to the way it came by.
class RateChooser {
 public:
  static constexpr unsigned kFirstProbeEvery = 8, kMaxProbeEvery = 1024;
  RateChooser() noexcept = default;
  explicit RateChooser(bool initial) noexcept : way_(initial) {}
  // The way the next operation should take (the other one during a probe).
  bool next() noexcept {
    if (probing_ == 0 && until_probe_ == 0) probing_ = 2;
    return probing_ > 0 ? !way_ : way_;
  }
  // An operation by `way` moved n bytes in ns nanoseconds.
  void record(bool way, std::size_t n, std::uint64_t ns) noexcept;
  bool current() const noexcept { return way_; }
  double rate() const noexcept { return rate_; }  // bytes per ns, the current way's average (0: none yet)

 private:
  bool way_ = false;
  bool first_ = true;         // the current way's first recorded operation: not averaged
  double rate_ = 0;
  unsigned probing_ = 0;      // operations of the other way still to make in this probe (2, 1), 0: none
  unsigned until_probe_ = 2;  // recorded operations until the next probe
  unsigned probe_every_ = kFirstProbeEvery;
};

}  // namespace fabmpi
