#include "runtime/context_ids.hpp"

#include "runtime/group.hpp"

#include <bit>

namespace fabmpi {

ContextIdPool::ContextIdPool()
    : used_(kCapacity / 64, 0), reserved_(kCapacity / 64, 0), reserved_probe_(kCapacity / 64, 0) {
  used_[0] |= (1ull << kWorldId) | (1ull << kSelfId) | (1ull << kBridgeId);
}

void ContextIdPool::begin_agreement(std::uint64_t key) {
  std::lock_guard lock(mutex_);
  agreements_.insert(key);
}

void ContextIdPool::end_agreement(std::uint64_t key) {
  std::lock_guard lock(mutex_);
  auto it = agreements_.find(key);
  if (it != agreements_.end()) agreements_.erase(it);
}

bool ContextIdPool::has_priority(std::uint64_t key) const {
  std::lock_guard lock(mutex_);
  return agreements_.empty() || *agreements_.begin() >= key;
}

ContextIdPool::Contribution ContextIdPool::reserve_window(std::uint32_t window, Round round) {
  std::lock_guard lock(mutex_);
  Contribution c;
  const std::size_t base = static_cast<std::size_t>(window) * kWindowWords;
  std::uint32_t budget = round == Round::probe ? kProbeIds : kWindowIds;
  for (std::size_t i = 0; i < kWindowWords; ++i) {
    const std::uint64_t free_bits = ~used_[base + i];
    std::uint64_t take = budget > 0 ? free_bits & ~reserved_[base + i] : 0;
    while (static_cast<std::uint32_t>(std::popcount(take)) > budget)
      take &= ~(std::uint64_t{1} << (63 - std::countl_zero(take)));  // the highest goes back
    budget -= static_cast<std::uint32_t>(std::popcount(take));
    // What probes hold may stay held until this agreement completes (their other members may not
    // have started them): not a reason to retry.
    if (round == Round::full && (free_bits & reserved_[base + i] & ~reserved_probe_[base + i])) c.held_back = true;
    c.mask[i] = take;
    reserved_[base + i] |= take;
    if (round == Round::probe) reserved_probe_[base + i] |= take;
  }
  return c;
}

void ContextIdPool::unreserve(std::uint32_t window, const WindowMask& mask, Round round) {
  std::lock_guard lock(mutex_);
  const std::size_t base = static_cast<std::size_t>(window) * kWindowWords;
  for (std::size_t i = 0; i < kWindowWords; ++i) {
    reserved_[base + i] &= ~mask[i];
    if (round == Round::probe) reserved_probe_[base + i] &= ~mask[i];
  }
}

void ContextIdPool::claim(std::uint32_t id) {
  std::lock_guard lock(mutex_);
  used_[id / 64] |= 1ull << (id % 64);
}

void ContextIdPool::release(std::uint32_t id) {
  if (id == kWorldId || id == kSelfId || id >= kCapacity) return;
  std::lock_guard lock(mutex_);
  used_[id / 64] &= ~(1ull << (id % 64));
  names_.erase(id);
  peers_.erase(id);
}

void ContextIdPool::set_peers(std::uint32_t id, std::shared_ptr<const Group> peers) {
  std::lock_guard lock(mutex_);
  peers_[id] = std::move(peers);
}

int ContextIdPool::peer_world_rank(std::uint32_t id, int rank) const {
  std::lock_guard lock(mutex_);
  auto it = peers_.find(id);
  if (it == peers_.end() || rank < 0 || rank >= it->second->size()) return -1;
  return it->second->world_rank(rank);
}

void ContextIdPool::set_name(std::uint32_t id, const std::string& name) {
  std::lock_guard lock(mutex_);
  if (name.empty()) names_.erase(id);
  else names_[id] = name;
}

std::string ContextIdPool::name_of(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  auto it = names_.find(id);
  return it == names_.end() ? std::string() : it->second;
}

bool ContextIdPool::in_use(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  return (used_[id / 64] >> (id % 64)) & 1u;
}

std::size_t ContextIdPool::in_use_count() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (std::uint64_t w : used_) n += static_cast<std::size_t>(std::popcount(w));
  return n;
}

std::uint32_t ContextIdPool::next_window_with_free(std::uint32_t window) const {
  std::lock_guard lock(mutex_);
  for (std::uint32_t w = window + 1; w < kWindows; ++w) {
    const std::size_t base = static_cast<std::size_t>(w) * kWindowWords;
    for (std::size_t i = 0; i < kWindowWords; ++i)
      if (~used_[base + i] & ~reserved_[base + i]) return w;
  }
  return kNoWindow;
}

AgreementOutcome decide_context_id(std::uint32_t window, const ContextIdPool::WindowMask& common,
                                   std::uint32_t next_window, bool held_back, ContextIdPool::Round round) {
  for (std::uint32_t i = 0; i < ContextIdPool::kWindowWords; ++i) {
    if (common[i] != 0) {
      const auto bit = static_cast<std::uint32_t>(std::countr_zero(common[i]));
      return {AgreementOutcome::Kind::agreed, window * ContextIdPool::kWindowIds + i * 64 + bit};
    }
  }
  if (round == ContextIdPool::Round::probe) return {AgreementOutcome::Kind::retry, 0};
  // Ids held by concurrent agreements come back when their round ends: retry rather than move on to a
  // later window, so that ids stay low.
  if (held_back) return {AgreementOutcome::Kind::retry, 0};
  if (next_window > window && next_window < ContextIdPool::kWindows)
    return {AgreementOutcome::Kind::next_window, next_window};
  return {AgreementOutcome::Kind::exhausted, 0};
}

}  // namespace fabmpi
