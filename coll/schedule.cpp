#include "coll/schedule.hpp"
#include "common/memory_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fabmpi::coll {

bool Schedule::progress() {
  while (!done_) {
    for (const RequestRef& request : batch_)
      if (!request->is_complete()) return false;
    for (const RequestRef& request : batch_)
      if (request->error != MPI_SUCCESS && error_.ok())
        error_ = fail(request->error, "a collective's point-to-point step failed (error %d)", request->error);
    batch_.clear();
    if (!error_.ok()) {
      done_ = true;
      break;
    }
    done_ = step();
    if (!error_.ok() && !batch_.empty()) {
      // Posting failed part-way: let what was posted finish before reporting (buffers stay alive).
      done_ = false;
      bool all = true;
      for (const RequestRef& request : batch_) all = all && request->is_complete();
      if (!all) return false;
      batch_.clear();
      done_ = true;
    }
  }
  return true;
}

void Schedule::send(const void* buf, std::size_t bytes, int vpeer) {
  if (!error_.ok()) return;
  RequestRef request;
  Rc rc = ctx_.transport->isend(buf, bytes, real_rank(vpeer), ctx_.tag, &request);
  if (!rc.ok()) {
    error_ = rc;
    return;
  }
  batch_.push_back(std::move(request));
}

void Schedule::recv(void* buf, std::size_t bytes, int vpeer) {
  if (!error_.ok()) return;
  RequestRef request;
  Rc rc = ctx_.transport->irecv(buf, bytes, real_rank(vpeer), ctx_.tag, &request);
  if (!rc.ok()) {
    error_ = rc;
    return;
  }
  batch_.push_back(std::move(request));
}

bool Schedule::fail_with(Rc rc) {
  error_ = rc;
  return true;
}

void Schedule::reduce_ordered(const Reducer& r, void* peer, void* inout, std::size_t count,
                              std::size_t elem_size, bool peer_is_lower) {
  if (count == 0) return;
  if (peer_is_lower || r.commutative()) {
    r.reduce(peer, inout, count);
  } else {
    r.reduce(inout, peer, count);
    copy_bytes(inout, peer, count * elem_size);
  }
}

void Schedule::reduce_into(const Reducer& r, const void* left, void* right, void* out, std::size_t count,
                           std::size_t elem_size) {
  if (count == 0) return;
  if (out == right) {
    r.reduce(left, out, count);
    return;
  }
  if (out == left && r.commutative()) {
    r.reduce(right, out, count);
    return;
  }
  // 32 KiB chunks: both operands of the reduce stay in L1/L2 between the copy and the reduce.
  const std::size_t chunk = std::max<std::size_t>(1, (std::size_t{32} << 10) / (elem_size == 0 ? 1 : elem_size));
  const auto* l = static_cast<const std::byte*>(left);
  auto* rt = static_cast<std::byte*>(right);
  auto* o = static_cast<std::byte*>(out);
  for (std::size_t first = 0; first < count; first += chunk) {
    const std::size_t n = std::min(chunk, count - first);
    const std::size_t at = first * elem_size;
    if (out == left) {  // non-commutative: reduce into `right`, then move the result over
      r.reduce(l + at, rt + at, n);
      copy_memory(o + at, rt + at, n * elem_size);
    } else {
      copy_memory(o + at, rt + at, n * elem_size);
      r.reduce(l + at, o + at, n);
    }
  }
}

void Schedule::reduce_ordered_into(const Reducer& r, void* peer, const void* ours, void* out, std::size_t count,
                                   std::size_t elem_size, bool peer_is_lower) {
  if (count == 0) return;
  if (peer_is_lower) {  // out = peer (op) ours
    if (out == ours) {
      r.reduce(peer, out, count);
      return;
    }
    // out != peer (see the header), so reduce_into copies `ours` and never writes it.
    reduce_into(r, peer, const_cast<void*>(ours), out, count, elem_size);
    return;
  }
  reduce_into(r, ours, peer, out, count, elem_size);  // out = ours (op) peer
}

void stream_copy(void* dst, const void* src, std::size_t n) noexcept {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = std::min(n, (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15);
  std::memcpy(d, s, head);  // align the destination for the streaming stores
  d += head;
  s += head;
  n -= head;
  for (std::size_t i = 0, lines = n / 64; i < lines; ++i, d += 64, s += 64) {
    const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), x0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), x1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), x2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), x3);
  }
  _mm_sfence();  // the stores are visible before anything that follows (a send of this memory)
  std::memcpy(d, s, n % 64);
#else
  copy_memory(dst, src, n);
#endif
}

bool Sequence::progress() {
  while (current_ < parts_.size()) {
    if (!parts_[current_]->progress()) return false;
    Rc rc = parts_[current_]->error();
    if (!rc.ok()) {
      error_ = rc;
      return true;
    }
    ++current_;
  }
  return true;
}

}  // namespace fabmpi::coll
