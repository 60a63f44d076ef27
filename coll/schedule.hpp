// The frame every collective algorithm is written in: a Schedule is a task with an explicit phase that
// posts a batch of sends/receives, and whose step() runs again once the whole batch has completed.
// Algorithms see contiguous bytes only (the collective layer packs derived datatypes), talk to ranks
// through a narrow Transport, and reduce through a Reducer, so they run unchanged over the pt2pt engine
// or over the in-memory transport of the unit tests.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common/memory_copy.hpp"
#include "coll/scratch_cache.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"

namespace fabmpi::coll {

// Point-to-point underneath a collective: bytes to/from a rank of the communicator, in the
// collective tag space. Messages between a pair with the same tag are non-overtaking.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual Rc isend(const void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) = 0;
  virtual Rc irecv(void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) = 0;
};

// The reduction of one collective call, on packed elements: inout[i] = in[i] (op) inout[i].
class Reducer {
 public:
  virtual ~Reducer() = default;
  virtual void reduce(const void* in, void* inout, std::size_t count) const = 0;
  virtual bool commutative() const = 0;
};

// Who is running the schedule. `shift` rotates ranks for rooted collectives: algorithms work in
// virtual ranks (vrank 0 = the root) and the frame maps them back.
struct Context {
  Transport* transport = nullptr;
  int rank = 0;
  int size = 1;
  int tag = 0;
  int shift = 0;
};

// Parameters a selection rule may attach to an algorithm (0 = the algorithm's default).
struct AlgorithmParams {
  std::size_t chunk_bytes = 0;  // pipelined_chain: bytes per pipeline stage
  int window = 0;               // scattered alltoall: pairs in flight
  std::size_t segment_bytes = 0;  // binomial reduce: bytes per pipelined segment
};

class Schedule {
 public:
  explicit Schedule(const Context& ctx) : ctx_(ctx) {}
  virtual ~Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // Advances as far as possible without blocking; true once finished (then look at error()).
  virtual bool progress();
  Rc error() const { return error_; }

 protected:
  // Runs when every request of the previous batch has completed. Posts the next batch and returns
  // false, or returns true when the schedule is done.
  virtual bool step() = 0;

  int vrank() const { return (ctx_.rank - ctx_.shift + ctx_.size) % ctx_.size; }
  int size() const { return ctx_.size; }
  int real_rank(int vpeer) const { return (vpeer + ctx_.shift) % ctx_.size; }
  // Sends/receives to a virtual rank; failures end the schedule with that error.
  void send(const void* buf, std::size_t bytes, int vpeer);
  void recv(void* buf, std::size_t bytes, int vpeer);
  // Ends the schedule with an error (returns true for `return fail_with(...)` in step()).
  bool fail_with(Rc rc);

  // inout = peer (op) inout when the peer's data comes before ours in rank order, else
  // inout = inout (op) peer; `peer` may be clobbered. This keeps non-commutative ops in rank order.
  static void reduce_ordered(const Reducer& r, void* peer, void* inout, std::size_t count,
                             std::size_t elem_size, bool peer_is_lower);
  // out = left (op) right, in cache-sized chunks (copy a chunk of `right` into `out`, reduce `left`
  // into it while it is hot) instead of a full copy pass followed by a full reduce pass. `right` may be
  // clobbered; `out` may alias `left` or `right`. Saves the "copy my contribution into the result
  // buffer first" pass of the reducing algorithms.
  static void reduce_into(const Reducer& r, const void* left, void* right, void* out, std::size_t count,
                          std::size_t elem_size);
  // reduce_into with the rank order of reduce_ordered: `peer` is the data that arrived (may be
  // clobbered), `ours` this rank's contribution (never written unless it is `out`); `out` != `peer`.
  static void reduce_ordered_into(const Reducer& r, void* peer, const void* ours, void* out, std::size_t count,
                                  std::size_t elem_size, bool peer_is_lower);

  Context ctx_;
  Rc error_;

 private:
  std::vector<RequestRef> batch_;
  bool done_ = false;
};

// Runs schedules one after another (e.g. scatter then allgather for a large broadcast).
class Sequence final : public Schedule {
 public:
  explicit Sequence(const Context& ctx) : Schedule(ctx) {}
  void add(std::unique_ptr<Schedule> part) { parts_.push_back(std::move(part)); }
  bool progress() override;

  // Scratch memory the parts share (size it before handing out pointers).
  std::vector<std::byte> storage;

 protected:
  bool step() override { return true; }

 private:
  std::vector<std::unique_ptr<Schedule>> parts_;
  std::size_t current_ = 0;
};

// Allocates from the scratch cache (coll/scratch_cache.hpp: large buffers stay faulted in between
// calls) and leaves elements uninitialized on resize(n): a schedule's scratch buffers are always
// written (received into, copied into) before they are read, and zero-filling a multi-MiB temporary
// on every call costs a full extra pass over memory.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  static_assert(alignof(T) <= 64);
  using value_type = T;
  template <class U>
  struct rebind { using other = UninitializedAllocator<U>; };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(scratch::acquire(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { scratch::release(p); }
  template <class U>
  bool operator==(const UninitializedAllocator<U>&) const noexcept { return true; }
  template <class U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
};

// A byte buffer owned by a schedule (contents undefined until written).
using Bytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

// Copies of at least this many bytes (a self block of gather/allgather/alltoall) bypass the cache:
// measured on the 2-core EPYC VM, 8 MiB: glibc memcpy 440 us, non-temporal stores 318 us; the
// destination is user memory the collective does not read again.
inline constexpr std::size_t kStreamCopyMin = std::size_t{4} << 20;
// dst = src for n bytes with non-temporal stores (non-overlapping ranges; memcpy where unsupported).
void stream_copy(void* dst, const void* src, std::size_t n) noexcept;

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n == 0 || dst == src) return;
  const auto* d = static_cast<const std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  const bool apart = d + n <= s || s + n <= d;
  if (n >= kStreamCopyMin && apart) {
    stream_copy(dst, src, n);
    return;
  }
  if (apart) copy_memory(dst, src, n);  // common/memory_copy.hpp: around glibc's slow rep movsb case
  else std::memmove(dst, src, n);
}

}  // namespace fabmpi::coll
