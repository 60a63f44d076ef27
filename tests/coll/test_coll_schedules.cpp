// Every registered algorithm, run on the in-memory world (sim_transport.hpp) for communicator sizes
// 1..17, several counts (0 included), roots, in-place aliasing, uneven (v) block sizes, a commutative
// sum and a non-commutative op (composition of affine maps, which detects any deviation from rank
// order), with eager and rendezvous sends; results checked element by element against a serial
// computation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coll/registry.hpp"
#include "coll/schedule.hpp"
#include "coll/scratch_cache.hpp"
#include "sim_transport.hpp"

using namespace fabmpi::coll;
using Buffer = std::vector<std::byte>;

namespace {

struct SumI64 final : Reducer {
  void reduce(const void* in, void* inout, std::size_t count) const override {
    auto* a = static_cast<const std::int64_t*>(in);
    auto* b = static_cast<std::int64_t*>(inout);
    for (std::size_t i = 0; i < count; ++i) b[i] += a[i];
  }
  bool commutative() const override { return true; }
};

// x op y = "x then y" for affine maps t -> a*t + b: associative, not commutative.
struct Affine final : Reducer {
  void reduce(const void* in, void* inout, std::size_t count) const override {
    auto* x = static_cast<const std::uint64_t*>(in);
    auto* y = static_cast<std::uint64_t*>(inout);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t a = x[2 * i] * y[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
      y[2 * i] = a;
      y[2 * i + 1] = b;
    }
  }
  bool commutative() const override { return false; }
};

const SumI64 kSum;
const Affine kAffine;

std::size_t elem_size(const Reducer* r) { return r == &kSum ? 8 : 16; }

// The contribution of `rank` (count elements), for either reducer.
Buffer contribution(const Reducer* r, int rank, std::size_t count) {
  Buffer b(count * elem_size(r));
  for (std::size_t i = 0; i < count; ++i) {
    if (r == &kSum) {
      const std::int64_t v = rank * 1000 + static_cast<std::int64_t>(i) * 7 + 1;
      std::memcpy(b.data() + i * 8, &v, 8);
    } else {
      const std::uint64_t v[2] = {2 * (static_cast<std::uint64_t>(rank) + i) + 1, static_cast<std::uint64_t>(rank) * 31 + i};
      std::memcpy(b.data() + i * 16, v, 16);
    }
  }
  return b;
}

// Serial reduction of ranks [first, last] in rank order.
Buffer serial(const Reducer* r, int first, int last, std::size_t count) {
  Buffer acc = contribution(r, first, count);
  for (int q = first + 1; q <= last; ++q) {
    Buffer next = contribution(r, q, count);
    r->reduce(acc.data(), next.data(), count);  // next = acc op next
    acc = next;
  }
  return acc;
}

// Bytes of rank `rank`'s block number `index` (distinct per rank and block).
std::byte pattern_byte(int rank, int index, std::size_t i) {
  return static_cast<std::byte>((rank * 37 + index * 11 + static_cast<int>(i) * 3 + 1) & 0xff);
}

std::vector<int> sizes() { return {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17}; }
std::vector<int> roots(int p) {
  if (p == 1) return {0};
  if (p == 2) return {0, 1};
  return {0, p / 2, p - 1};
}
std::vector<const Reducer*> reducers(const Algorithm& a) {
  if (a.restrictions & restriction::commutative) return {&kSum};
  return {&kSum, &kAffine};
}
bool size_ok(const Algorithm& a, int p) {
  return !(a.restrictions & restriction::pow2) || (p & (p - 1)) == 0;
}

#define RUN_OK(...)                                 \
  do {                                              \
    const std::string problem = sim::run(__VA_ARGS__); \
    INFO(problem);                                  \
    REQUIRE(problem.empty());                       \
  } while (0)

void test_barrier(const Algorithm& a, bool rdv) {
  for (int p : sizes()) {
    CAPTURE(p);
    RUN_OK(p, rdv, 1, [&](const Context& c) { return a.make(c, CollArgs{}, {}); });
  }
}

void test_bcast(const Algorithm& a, bool rdv) {
  for (int p : sizes()) {
    if (!size_ok(a, p)) continue;
    for (int root : roots(p))
      for (std::size_t n : {0, 1, 7, 1000, 5003}) {
        CAPTURE(p, root, n);
        std::vector<Buffer> buf(static_cast<std::size_t>(p), Buffer(n));
        for (std::size_t i = 0; i < n; ++i) buf[root][i] = pattern_byte(root, 0, i);
        AlgorithmParams params;
        params.chunk_bytes = 300;  // several pipeline stages
        RUN_OK(p, rdv, 2, [&](const Context& c) {
          CollArgs args;
          args.recv = buf[c.rank].data();
          args.count = n;
          args.root = root;
          return a.make(c, args, params);
        });
        for (int r = 0; r < p; ++r) REQUIRE(buf[r] == buf[root]);
      }
  }
}

void test_reduce_like(const Algorithm& a, Collective kind, bool rdv) {
  for (int p : sizes()) {
    if (!size_ok(a, p)) continue;
    for (const Reducer* red : reducers(a))
      for (int root : (kind == Collective::reduce ? roots(p) : std::vector<int>{0}))
        for (std::size_t n : {0, 1, 7, 33})
          for (bool in_place : {false, true}) {
            CAPTURE(p, root, n, in_place, red == &kSum);
            const std::size_t bytes = n * elem_size(red);
            std::vector<Buffer> send(static_cast<std::size_t>(p)), recv(static_cast<std::size_t>(p));
            const Buffer sentinel(bytes, std::byte{0x5a});
            for (int r = 0; r < p; ++r) {
              send[r] = contribution(red, r, n);
              recv[r] = in_place ? send[r] : sentinel;
            }
            RUN_OK(p, rdv, 3, [&](const Context& c) {
              CollArgs args;
              args.send = in_place ? recv[c.rank].data() : send[c.rank].data();
              args.recv = recv[c.rank].data();
              args.count = n;
              args.elem_size = elem_size(red);
              args.reducer = red;
              args.root = root;
              AlgorithmParams params;
              params.segment_bytes = 2 * elem_size(red);  // segmented binomial reduce: several segments
              return a.make(c, args, params);
            });
            for (int r = 0; r < p; ++r) {
              CAPTURE(r);
              switch (kind) {
                case Collective::reduce:
                  if (r == root) REQUIRE(recv[r] == serial(red, 0, p - 1, n));
                  break;
                case Collective::allreduce: REQUIRE(recv[r] == serial(red, 0, p - 1, n)); break;
                case Collective::scan: REQUIRE(recv[r] == serial(red, 0, r, n)); break;
                default:  // exscan: rank 0's buffer is left alone
                  if (r == 0) REQUIRE(recv[r] == (in_place ? send[0] : sentinel));
                  else REQUIRE(recv[r] == serial(red, 0, r - 1, n));
              }
            }
          }
  }
}

std::vector<std::size_t> block_lengths(int p, bool uneven, std::size_t base) {
  std::vector<std::size_t> len(static_cast<std::size_t>(p), base);
  if (uneven)
    for (int r = 0; r < p; ++r) len[r] = static_cast<std::size_t>((r * 3 + 1) % 5) * base / 2;
  return len;
}

void test_allgather(const Algorithm& a, bool rdv, bool uneven) {
  for (int p : sizes()) {
    if (!size_ok(a, p)) continue;
    for (std::size_t base : {0, 1, 6, 301}) {
      CAPTURE(p, base, uneven);
      const std::vector<std::size_t> len = block_lengths(p, uneven, base);
      std::vector<std::size_t> off{0};
      for (std::size_t l : len) off.push_back(off.back() + l);
      std::vector<Buffer> buf(static_cast<std::size_t>(p), Buffer(off.back()));
      Buffer expected(off.back());
      for (int r = 0; r < p; ++r)
        for (std::size_t i = 0; i < len[r]; ++i) {
          expected[off[r] + i] = pattern_byte(r, 0, i);
          buf[r][off[r] + i] = pattern_byte(r, 0, i);
        }
      // Our block also in a separate "send buffer" (the first send reads it there when given).
      std::vector<Buffer> own(static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) own[r].assign(buf[r].begin() + off[r], buf[r].begin() + off[r + 1]);
      RUN_OK(p, rdv, 4, [&](const Context& c) {
        CollArgs args;
        args.recv = buf[c.rank].data();
        args.recv_offset = off;
        if (c.rank % 2 == 0) args.send = own[c.rank].data();  // both ways, on alternate ranks
        return a.make(c, args, {});
      });
      for (int r = 0; r < p; ++r) REQUIRE(buf[r] == expected);
    }
  }
}

// Gather (scatter = false) or scatter; v: uneven lengths at non-packed offsets (blocks in reverse order).
void test_rooted(const Algorithm& a, bool rdv, bool scatter, bool v) {
  for (int p : sizes())
    for (int root : roots(p))
      for (std::size_t base : {0, 1, 5, 700})
        for (bool in_place : {false, true}) {
          CAPTURE(p, root, base, in_place, v);
          const std::vector<std::size_t> len = block_lengths(p, v, base);
          std::vector<std::size_t> off(static_cast<std::size_t>(p));
          std::size_t total = 0;
          for (int r = v ? p - 1 : 0; v ? r >= 0 : r < p; r += v ? -1 : 1) {
            off[r] = total;
            total += len[r] + (v ? 3 : 0);  // gaps between blocks for v
          }
          Buffer big(total, std::byte{0x77});
          std::vector<Buffer> small(static_cast<std::size_t>(p));
          for (int r = 0; r < p; ++r) {
            small[r].resize(len[r]);
            for (std::size_t i = 0; i < len[r]; ++i) {
              if (scatter) big[off[r] + i] = pattern_byte(r, 1, i);
              else small[r][i] = pattern_byte(r, 1, i);
            }
          }
          Buffer expected_big = big;
          if (!scatter)
            for (int r = 0; r < p; ++r)
              if (len[r] > 0) std::memcpy(expected_big.data() + off[r], small[r].data(), len[r]);
          if (in_place && !scatter && len[root] > 0) std::memcpy(big.data() + off[root], small[root].data(), len[root]);
          RUN_OK(p, rdv, 5, [&](const Context& c) {
            CollArgs args;
            args.root = root;
            args.count = len[c.rank];
            const bool aliased = in_place && c.rank == root;
            if (scatter) {
              args.send = big.data();
              args.send_offset = off;
              args.send_length = len;
              args.recv = aliased ? big.data() + off[root] : small[c.rank].data();
            } else {
              args.recv = big.data();
              args.recv_offset = off;
              args.recv_length = len;
              args.send = aliased ? big.data() + off[root] : small[c.rank].data();
            }
            return a.make(c, args, {});
          });
          if (scatter) {
            for (int r = 0; r < p; ++r) {
              if (in_place && r == root) continue;
              for (std::size_t i = 0; i < len[r]; ++i) REQUIRE(small[r][i] == pattern_byte(r, 1, i));
            }
          } else {
            REQUIRE(big == expected_big);
          }
        }
}

void test_reduce_scatter(const Algorithm& a, bool rdv, bool uneven) {
  for (int p : sizes()) {
    if (!size_ok(a, p)) continue;
    for (const Reducer* red : reducers(a))
      for (std::size_t base : {0, 1, 4, 37}) {
        CAPTURE(p, base, uneven, red == &kSum);
        const std::vector<std::size_t> counts = block_lengths(p, uneven, base);
        std::size_t total = 0;
        for (std::size_t c : counts) total += c;
        const std::size_t es = elem_size(red);
        std::vector<Buffer> send(static_cast<std::size_t>(p)), recv(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r) {
          send[r] = contribution(red, r, total);
          recv[r].assign(counts[r] * es, std::byte{0x33});
        }
        RUN_OK(p, rdv, 6, [&](const Context& c) {
          CollArgs args;
          args.send = send[c.rank].data();
          args.recv = recv[c.rank].data();
          args.counts = counts;
          args.elem_size = es;
          args.reducer = red;
          return a.make(c, args, {});
        });
        const Buffer all = serial(red, 0, p - 1, total);
        std::size_t at = 0;
        for (int r = 0; r < p; ++r) {
          CAPTURE(r);
          REQUIRE(recv[r] == Buffer(all.begin() + static_cast<long>(at * es),
                                    all.begin() + static_cast<long>((at + counts[r]) * es)));
          at += counts[r];
        }
      }
  }
}

void test_alltoall(const Algorithm& a, bool rdv, bool uneven) {
  for (int p : sizes())
    for (std::size_t base : {0, 1, 5, 100}) {
      CAPTURE(p, base, uneven);
      // len(s, d): bytes rank s sends to rank d.
      auto len = [&](int s, int d) { return uneven ? static_cast<std::size_t>((s + 2 * d) % 4) * base : base; };
      std::vector<Buffer> send(static_cast<std::size_t>(p)), recv(static_cast<std::size_t>(p));
      std::vector<std::vector<std::size_t>> so(p), sl(p), ro(p), rl(p);
      for (int r = 0; r < p; ++r) {
        std::size_t s_total = 0, r_total = 0;
        for (int q = 0; q < p; ++q) {
          so[r].push_back(s_total);
          sl[r].push_back(len(r, q));
          s_total += len(r, q);
          ro[r].push_back(r_total);
          rl[r].push_back(len(q, r));
          r_total += len(q, r);
        }
        send[r].resize(s_total);
        recv[r].assign(r_total, std::byte{0});
        for (int q = 0; q < p; ++q)
          for (std::size_t i = 0; i < len(r, q); ++i) send[r][so[r][q] + i] = pattern_byte(r, q, i);
      }
      RUN_OK(p, rdv, 7, [&](const Context& c) {
        CollArgs args;
        args.send = send[c.rank].data();
        args.send_offset = so[c.rank];
        args.send_length = sl[c.rank];
        args.recv = recv[c.rank].data();
        args.recv_offset = ro[c.rank];
        args.recv_length = rl[c.rank];
        args.count = base;
        return a.make(c, args, {});
      });
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q)
          for (std::size_t i = 0; i < len(q, r); ++i) REQUIRE(recv[r][ro[r][q] + i] == pattern_byte(q, r, i));
    }
}

void test_algorithm(const Algorithm& a, bool rdv) {
  switch (a.collective) {
    case Collective::barrier: test_barrier(a, rdv); break;
    case Collective::bcast: test_bcast(a, rdv); break;
    case Collective::reduce:
    case Collective::allreduce:
    case Collective::scan:
    case Collective::exscan: test_reduce_like(a, a.collective, rdv); break;
    case Collective::allgather: test_allgather(a, rdv, false); break;
    case Collective::allgatherv: test_allgather(a, rdv, true); break;
    case Collective::gather: test_rooted(a, rdv, false, false); break;
    case Collective::gatherv: test_rooted(a, rdv, false, true); break;
    case Collective::scatter: test_rooted(a, rdv, true, false); break;
    case Collective::scatterv: test_rooted(a, rdv, true, true); break;
    case Collective::reduce_scatter: test_reduce_scatter(a, rdv, true); break;
    case Collective::reduce_scatter_block: test_reduce_scatter(a, rdv, false); break;
    case Collective::alltoall: test_alltoall(a, rdv, false); break;
    case Collective::alltoallv:
    case Collective::alltoallw: test_alltoall(a, rdv, true); break;
  }
}

}  // namespace

TEST_CASE("every algorithm computes the right result (eager sends)", "[coll][schedules]") {
  for (const Algorithm& a : algorithm_registry()) {
    INFO(collective_name(a.collective) << " " << a.name);
    test_algorithm(a, false);
  }
}

TEST_CASE("every algorithm completes when sends wait for their receive (rendezvous)", "[coll][schedules]") {
  for (const Algorithm& a : algorithm_registry()) {
    INFO(collective_name(a.collective) << " " << a.name);
    test_algorithm(a, true);
  }
}

TEST_CASE("scratch cache: large buffers are reused, small ones are not kept", "[coll][schedules]") {
  const std::size_t big = (std::size_t{3} << 20) + 7;  // an odd size no other test allocates
  void* p = scratch::acquire(big);
  REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
  std::memset(p, 1, big);
  const std::size_t before = scratch::cached_bytes();
  scratch::release(p);
  REQUIRE(scratch::cached_bytes() == before + big);
  void* q = scratch::acquire(big);  // the best fit: the same block, already faulted in
  REQUIRE(q == p);
  REQUIRE(scratch::cached_bytes() == before);
  scratch::release(q);

  const std::size_t cached = scratch::cached_bytes();
  void* small = scratch::acquire(100);
  scratch::release(small);
  REQUIRE(scratch::cached_bytes() == cached);

  void* huge = scratch::acquire(scratch::kMaxCachedBytes + 1);  // never kept
  scratch::release(huge);
  REQUIRE(scratch::cached_bytes() <= scratch::kMaxCachedBytes);

  {
    Bytes v(big);  // the schedules' buffers come from the cache too
    REQUIRE(static_cast<void*>(v.data()) == q);
  }
}

TEST_CASE("copy_bytes: streaming copies of large blocks at any alignment, memmove for overlaps", "[coll][schedules]") {
  const std::size_t n = kStreamCopyMin + 77;
  std::vector<std::byte> src(n + 64), dst(n + 64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 7 + 3);
  for (std::size_t s_off : {0, 1, 15})
    for (std::size_t d_off : {0, 3, 16}) {
      CAPTURE(s_off, d_off);
      std::fill(dst.begin(), dst.end(), std::byte{0});
      copy_bytes(dst.data() + d_off, src.data() + s_off, n);
      REQUIRE(std::memcmp(dst.data() + d_off, src.data() + s_off, n) == 0);
      for (std::size_t i = 0; i < d_off; ++i) REQUIRE(dst[i] == std::byte{0});  // nothing outside
      for (std::size_t i = d_off + n; i < dst.size(); ++i) REQUIRE(dst[i] == std::byte{0});
    }
  // Overlapping ranges (shift by 5 within one buffer) behave like memmove.
  std::vector<std::byte> a(src.begin(), src.end()), expected(src.begin(), src.end());
  std::memmove(expected.data() + 5, expected.data(), n);
  copy_bytes(a.data() + 5, a.data(), n);
  REQUIRE(a == expected);
}
