// A single-producer single-consumer ring of variable-length records in shared memory: the channel one
// local rank uses to send to another in the native shared-memory transport (pt2pt/shm_transport.cpp).
//
// Layout: a RingControl (head and tail on their own cache lines) and `capacity` bytes of data
// (a power of two). Positions are monotonically increasing byte counts; a record starts at
// position % capacity and is contiguous: when it would cross the end, the producer first writes a
// skip record covering the rest of the ring. Each record is an 8-byte RecordHeader plus payload,
// rounded up to 64 bytes so records start on cache lines. The producer publishes with a release store
// of tail; the consumer frees with a release store of head. Each side keeps a private copy of the
// other's index and rereads the shared one only when the copy says "full" / "empty", so a busy ring
// does not bounce cache lines on every record.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fabmpi::pt2pt {

inline constexpr std::size_t kRingAlign = 64;

struct alignas(kRingAlign) RingControl {
  std::atomic<std::uint64_t> tail{0};  // written by the producer
  char pad0[kRingAlign - sizeof(std::atomic<std::uint64_t>)];
  std::atomic<std::uint64_t> head{0};  // written by the consumer
  char pad1[kRingAlign - sizeof(std::atomic<std::uint64_t>)];
};
static_assert(sizeof(RingControl) == 2 * kRingAlign);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct RecordHeader {
  std::uint32_t bytes;  // payload bytes after this header
  std::uint32_t type;   // kRecordSkip, or a transport-defined type
};
inline constexpr std::uint32_t kRecordSkip = 0;

inline constexpr std::size_t ring_record_size(std::size_t payload) noexcept {
  return (sizeof(RecordHeader) + payload + kRingAlign - 1) & ~(kRingAlign - 1);
}

// The producer's view of one ring. Not thread-safe: one producer.
class RingProducer {
 public:
  RingProducer() = default;
  RingProducer(RingControl* control, unsigned char* data, std::size_t capacity)
      : control_(control), data_(data), capacity_(capacity),
        tail_(control->tail.load(std::memory_order_relaxed)),
        head_cache_(control->head.load(std::memory_order_acquire)) {}

  // Largest payload a record may carry in this ring (a record never takes more than half of it, so
  // one always fits once the consumer has caught up, whatever the wrap position).
  std::size_t max_payload() const noexcept { return capacity_ / 2 - sizeof(RecordHeader); }

  // Space for a `payload`-byte record of `type`, or nullptr when the ring is too full right now.
  // Fill the returned bytes, then commit(). At most one reservation is open at a time.
  unsigned char* reserve(std::size_t payload, std::uint32_t type) noexcept {
    const std::size_t need = ring_record_size(payload);
    const std::size_t pos = tail_ & (capacity_ - 1);
    const std::size_t to_end = capacity_ - pos;
    const std::size_t skip = need > to_end ? to_end : 0;
    if (!has_room(skip + need)) return nullptr;
    if (skip) {
      auto* h = reinterpret_cast<RecordHeader*>(data_ + pos);
      h->bytes = static_cast<std::uint32_t>(to_end - sizeof(RecordHeader));
      h->type = kRecordSkip;
      tail_ += skip;
    }
    auto* h = reinterpret_cast<RecordHeader*>(data_ + (tail_ & (capacity_ - 1)));
    h->bytes = static_cast<std::uint32_t>(payload);
    h->type = type;
    reserved_ = need;
    return reinterpret_cast<unsigned char*>(h + 1);
  }

  // Publishes the reserved record (and any skip before it) to the consumer.
  void commit() noexcept {
    tail_ += reserved_;
    reserved_ = 0;
    control_->tail.store(tail_, std::memory_order_release);
  }

  bool empty_for_consumer() const noexcept { return control_->head.load(std::memory_order_acquire) == tail_; }

 private:
  bool has_room(std::size_t bytes) noexcept {
    if (tail_ + bytes - head_cache_ <= capacity_) return true;
    head_cache_ = control_->head.load(std::memory_order_acquire);
    return tail_ + bytes - head_cache_ <= capacity_;
  }

  RingControl* control_ = nullptr;
  unsigned char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::uint64_t tail_ = 0;
  std::uint64_t head_cache_ = 0;
  std::size_t reserved_ = 0;
};

// The consumer's view of one ring. Not thread-safe: one consumer.
class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* control, unsigned char* data, std::size_t capacity)
      : control_(control), data_(data), capacity_(capacity),
        head_(control->head.load(std::memory_order_relaxed)),
        tail_cache_(control->tail.load(std::memory_order_acquire)) {}

  // The oldest record not yet popped, or nullptr when the ring is empty. Its payload stays valid and
  // unchanged until pop().
  const RecordHeader* peek() noexcept {
    for (;;) {
      if (head_ == tail_cache_) {
        tail_cache_ = control_->tail.load(std::memory_order_acquire);
        if (head_ == tail_cache_) return nullptr;
      }
      const std::size_t pos = head_ & (capacity_ - 1);
      const auto* h = reinterpret_cast<const RecordHeader*>(data_ + pos);
      if (h->type != kRecordSkip) return h;
      head_ += capacity_ - pos;  // the producer wrapped; the skip ends exactly at the ring's end
    }
  }

  // Whether a record (or a skip) is published and not yet popped; for a sleeper's last look.
  bool has_data() noexcept {
    if (head_ != tail_cache_) return true;
    tail_cache_ = control_->tail.load(std::memory_order_acquire);
    return head_ != tail_cache_;
  }

  // Frees the record peek() returned for the producer to reuse.
  void pop(const RecordHeader* record) noexcept {
    head_ += ring_record_size(record->bytes);
    control_->head.store(head_, std::memory_order_release);
  }

 private:
  RingControl* control_ = nullptr;
  const unsigned char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::uint64_t head_ = 0;
  std::uint64_t tail_cache_ = 0;
};

}  // namespace fabmpi::pt2pt
