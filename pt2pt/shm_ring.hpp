// A single-producer single-consumer ring of variable-length records in shared memory: the channel one
// local rank uses to send to another in the native shared-memory transport (pt2pt/shm_transport.cpp).
//
// Layout: a RingControl (the consumer's head on its own cache line, and its advice on another) and `capacity` bytes of data (a
// power of two, zero-filled at creation). Positions are monotonically increasing byte counts; a record
// starts at position % capacity and is contiguous: when it would cross the end, the producer first
// writes a skip record covering the rest of the ring. Each record is an 8-byte RecordHeader plus
// payload, rounded up to 64 bytes so records start on cache lines.
//
// Publication is in the record itself: the producer fills the payload and then stores the header's
// type (release); the consumer polls the type at its head (acquire), so an arrival costs the receiver
// the record's own cache lines and nothing else. 0 means "not yet written": when it pops a record the
// consumer zeroes the type slot of every cache line the record covered (payload bytes may lie there),
// so any line start it may later read as a header is 0 until the producer publishes there. The
// producer learns of freed space from `head` (release by the consumer), rereading it only when its
// cached copy says the ring is full.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fabmpi::pt2pt {

inline constexpr std::size_t kRingAlign = 64;

struct alignas(kRingAlign) RingControl {
  std::atomic<std::uint64_t> head{0};  // written by the consumer
  // Written by the consumer, read by the producer, for the transport's own use (native shm: which sizes
  // of message the consumer wants sent by rendezvous). A line of its own: the producer reads it on
  // every large send, and `head` changes on every pop.
  alignas(kRingAlign) std::atomic<std::uint32_t> advice{0};
};
static_assert(sizeof(RingControl) == 2 * kRingAlign);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct RecordHeader {
  std::uint32_t bytes;  // payload bytes after this header
  std::uint32_t type;   // kRecordEmpty until published; kRecordSkip, or a transport-defined type
};
inline constexpr std::uint32_t kRecordEmpty = 0;
inline constexpr std::uint32_t kRecordSkip = 0xffffffffu;

inline constexpr std::size_t ring_record_size(std::size_t payload) noexcept {
  return (sizeof(RecordHeader) + payload + kRingAlign - 1) & ~(kRingAlign - 1);
}

inline void publish_type(RecordHeader* h, std::uint32_t type) noexcept {
  std::atomic_ref<std::uint32_t>(h->type).store(type, std::memory_order_release);
}
inline std::uint32_t published_type(const RecordHeader* h) noexcept {
  return std::atomic_ref<std::uint32_t>(const_cast<RecordHeader*>(h)->type).load(std::memory_order_acquire);
}

// The producer's view of one ring. Not thread-safe: one producer.
class RingProducer {
 public:
  RingProducer() = default;
  RingProducer(RingControl* control, unsigned char* data, std::size_t capacity)
      : control_(control), data_(data), capacity_(capacity),
        head_cache_(control->head.load(std::memory_order_acquire)), tail_(head_cache_) {}

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
      publish_type(h, kRecordSkip);  // the consumer jumps to the start and waits there
      tail_ += skip;
    }
    open_ = reinterpret_cast<RecordHeader*>(data_ + (tail_ & (capacity_ - 1)));
    open_bytes_ = static_cast<std::uint32_t>(payload);
    open_type_ = type;
    tail_ += need;
    return reinterpret_cast<unsigned char*>(open_ + 1);
  }

  // Publishes the reserved record to the consumer. The header line is written only here, in one burst:
  // the consumer polls that line, and a store to it early in the fill would pull it away from the
  // consumer and back once more before the publishing store (fill the payload first, then whatever
  // else shares the header's line).
  void commit() noexcept {
    open_->bytes = open_bytes_;
    publish_type(open_, open_type_);
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
  std::uint64_t head_cache_ = 0;
  std::uint64_t tail_ = 0;
  RecordHeader* open_ = nullptr;
  std::uint32_t open_bytes_ = 0;
  std::uint32_t open_type_ = 0;
};

// The consumer's view of one ring. Not thread-safe: one consumer.
class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* control, unsigned char* data, std::size_t capacity)
      : control_(control), data_(data), capacity_(capacity),
        head_(control->head.load(std::memory_order_relaxed)) {}

  // The oldest record not yet popped, or nullptr when the ring is empty. Its payload stays valid and
  // unchanged until pop().
  const RecordHeader* peek() noexcept {
    for (;;) {
      const std::size_t pos = head_ & (capacity_ - 1);
      auto* h = reinterpret_cast<RecordHeader*>(data_ + pos);
      const std::uint32_t type = published_type(h);
      if (type == kRecordEmpty) return nullptr;
      if (type != kRecordSkip) return h;
      // The producer wrapped; the skip ends exactly at the ring's end. Only its first line can hold a
      // nonzero type (the rest was zeroed when the records there were popped).
      release_deferred();
      h->type = kRecordEmpty;
      head_ += capacity_ - pos;
      control_->head.store(head_, std::memory_order_release);
    }
  }

  // Whether a record is published and not yet popped; for a sleeper's last look.
  bool has_data() noexcept { return peek() != nullptr; }

  // Frees the record peek() returned for the producer to reuse.
  void pop(const RecordHeader* record) noexcept {
    release_deferred();
    free_lines(record);
  }

  // Moves past the record peek() returned but frees it only at the next release_deferred() (or pop,
  // or skip): the zeroing stores and the `head` update then happen after the caller has answered the
  // message, not before (one record at most waits: a later call frees the earlier one first).
  void pop_deferred(const RecordHeader* record) noexcept {
    release_deferred();
    deferred_ = record;
    head_ += ring_record_size(record->bytes);
  }
  void release_deferred() noexcept {
    if (!deferred_) return;
    const RecordHeader* record = deferred_;
    deferred_ = nullptr;
    head_ -= ring_record_size(record->bytes);
    free_lines(record);
  }

 private:
  // Zeroes the type slot of every line of `record` (at head_) and hands its space to the producer.
  void free_lines(const RecordHeader* record) noexcept {
    const std::size_t size = ring_record_size(record->bytes);
    unsigned char* start = data_ + (head_ & (capacity_ - 1));
    for (std::size_t off = 0; off < size; off += kRingAlign)
      reinterpret_cast<RecordHeader*>(start + off)->type = kRecordEmpty;
    head_ += size;
    control_->head.store(head_, std::memory_order_release);
  }

  RingControl* control_ = nullptr;
  unsigned char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::uint64_t head_ = 0;
  const RecordHeader* deferred_ = nullptr;  // popped, not yet freed (pop_deferred)
};

}  // namespace fabmpi::pt2pt
