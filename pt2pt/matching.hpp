// MPI matching queues, free of any transport: a posted-receive queue and an unexpected-message queue per
// (communicator context, channel). Receives match on (source or MPI_ANY_SOURCE, tag or MPI_ANY_TAG)
// in the order they were posted; messages are matched in the order they arrived. Channels never
// match each other, so collective traffic is invisible to user receives (MPI_ANY_TAG included).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>

namespace fabmpi::pt2pt {

// Who sent a message / what a receive accepts. In a pattern, source may be MPI_ANY_SOURCE and tag
// MPI_ANY_TAG.
struct Envelope {
  std::uint32_t context = 0;
  std::uint8_t channel = 0;
  int source = 0;
  int tag = 0;
};

inline bool envelope_matches(const Envelope& pattern, const Envelope& message) noexcept {
  return pattern.context == message.context && pattern.channel == message.channel &&
         (pattern.source == MPI_ANY_SOURCE || pattern.source == message.source) &&
         (pattern.tag == MPI_ANY_TAG || pattern.tag == message.tag);
}

// A FIFO of (envelope, item) per (context, channel), searched front to back. `Item` is whatever the
// engine keeps (a receive request, an arrived message); tests use plain values.
template <class Item>
class MatchQueue {
 public:
  MatchQueue() = default;
  MatchQueue(const MatchQueue&) = delete;  // last_ points into buckets_
  MatchQueue& operator=(const MatchQueue&) = delete;

  void push(const Envelope& envelope, Item item) {
    bucket(key(envelope)).push_back(Entry{envelope, std::move(item)});
    ++size_;
  }

  // Posted-receive side: the first entry whose pattern matches `message`, removed.
  std::optional<Item> take_first_accepting(const Envelope& message) {
    return take_if(message, [&](const Envelope& stored) { return envelope_matches(stored, message); });
  }

  // Unexpected side: the first (oldest) message `pattern` matches, removed.
  std::optional<Item> take_first_matching(const Envelope& pattern) {
    return take_if(pattern, [&](const Envelope& stored) { return envelope_matches(pattern, stored); });
  }

  // Unexpected side, for probes: the oldest matching message, left in place.
  const Item* peek_first_matching(const Envelope& pattern, Envelope* found = nullptr) const {
    if (size_ == 0) return nullptr;
    auto it = buckets_.find(key(pattern));
    if (it == buckets_.end()) return nullptr;
    for (const Entry& e : it->second)
      if (envelope_matches(pattern, e.envelope)) {
        if (found) *found = e.envelope;
        return &e.item;
      }
    return nullptr;
  }

  // Removes the first entry for which pred(item) holds (MPI_Cancel of a posted receive).
  template <class Pred>
  std::optional<Item> remove_if_first(Pred pred) {
    for (auto& [k, list] : buckets_)
      for (auto it = list.begin(); it != list.end(); ++it)
        if (pred(it->item)) {
          Item item = std::move(it->item);
          list.erase(it);
          --size_;
          return item;
        }
    return std::nullopt;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Every entry, per (context, channel) in queue order (hang reports).
  template <class Fn>
  void for_each(Fn fn) const {
    for (const auto& [k, list] : buckets_)
      for (const Entry& e : list) fn(e.envelope, e.item);
  }

 private:
  struct Entry {
    Envelope envelope;
    Item item;
  };
  // A deque, not a list: entries are nearly always taken at the front, and pushing then allocates
  // once per chunk instead of once per entry.
  using Bucket = std::deque<Entry>;
  static std::uint64_t key(const Envelope& e) noexcept {
    return static_cast<std::uint64_t>(e.context) << 8 | e.channel;
  }
  // The bucket for `k`, created if needed. The last one used is remembered (traffic mostly stays on
  // one communicator); unordered_map never moves its elements, so the pointer stays valid.
  Bucket& bucket(std::uint64_t k) {
    if (last_ && last_key_ == k) return *last_;
    last_key_ = k;
    last_ = &buckets_[k];
    return *last_;
  }
  template <class Pred>
  std::optional<Item> take_if(const Envelope& e, Pred pred) {
    if (size_ == 0) return std::nullopt;
    const std::uint64_t k = key(e);
    Bucket* list = nullptr;
    if (last_ && last_key_ == k) {
      list = last_;
    } else {
      auto it = buckets_.find(k);
      if (it == buckets_.end()) return std::nullopt;
      list = &it->second;
    }
    for (auto li = list->begin(); li != list->end(); ++li)
      if (pred(li->envelope)) {
        Item item = std::move(li->item);
        if (li == list->begin()) list->pop_front();
        else list->erase(li);
        --size_;
        return item;
      }
    return std::nullopt;
  }

  std::unordered_map<std::uint64_t, Bucket> buckets_;
  std::size_t size_ = 0;
  std::uint64_t last_key_ = 0;
  Bucket* last_ = nullptr;
};

}  // namespace fabmpi::pt2pt
