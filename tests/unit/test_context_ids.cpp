// Context id bookkeeping and the agreement decision (runtime/context_ids.hpp), with several simulated
// processes combining their contributions the way runtime/comm_create.cpp does over the wire.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "runtime/context_ids.hpp"

using namespace fabmpi;
using Pool = ContextIdPool;

namespace {

// One agreement among `members`, rounds run to completion one at a time (no concurrency).
std::uint32_t agree(std::vector<Pool*> members) {
  std::uint32_t window = 0;
  for (int guard = 0; guard < 1000; ++guard) {
    Pool::WindowMask common;
    common.fill(~0ull);
    std::uint32_t next = 0;
    bool held_back = false;
    std::vector<Pool::Contribution> contributions;
    for (Pool* p : members) {
      contributions.push_back(p->reserve_window(window));
      for (std::size_t i = 0; i < common.size(); ++i) common[i] &= contributions.back().mask[i];
      next = std::max(next, p->next_window_with_free(window));
      held_back |= contributions.back().held_back;
    }
    const AgreementOutcome outcome = decide_context_id(window, common, next, held_back);
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (outcome.kind == AgreementOutcome::Kind::agreed) members[m]->claim(outcome.value);
      members[m]->unreserve(window, contributions[m].mask);
    }
    if (outcome.kind == AgreementOutcome::Kind::agreed) return outcome.value;
    REQUIRE(outcome.kind == AgreementOutcome::Kind::next_window);
    window = outcome.value;
  }
  FAIL("agreement did not converge");
  return 0;
}

}  // namespace

TEST_CASE("world, self and bridge ids are in use from the start", "[context_ids]") {
  Pool p;
  CHECK(p.in_use(Pool::kWorldId));
  CHECK(p.in_use(Pool::kSelfId));
  CHECK(p.in_use(Pool::kBridgeId));
  CHECK(p.in_use_count() == 3);
  p.release(Pool::kWorldId);  // never returned
  CHECK(p.in_use(Pool::kWorldId));
}

TEST_CASE("agreement picks the lowest id free on every member", "[context_ids]") {
  Pool a, b, c;  // 0-2 are reserved: the first agreed id is 3
  CHECK(agree({&a, &b, &c}) == 3);
  CHECK(agree({&a, &b}) == 4);
  CHECK(agree({&b, &c}) == 5);  // 4 is used on b
  CHECK(agree({&a, &c}) == 6);  // 4 is used on a, 5 on c
  CHECK(agree({&a, &b, &c}) == 7);
  c.release(5);
  CHECK(agree({&c}) == 4);  // 4 was only ever used by a and b
  CHECK(agree({&a, &b, &c}) == 8);
}

TEST_CASE("released ids are reused", "[context_ids]") {
  Pool a, b;
  std::vector<std::uint32_t> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(agree({&a, &b}));
  CHECK(ids.front() == 3);
  CHECK(ids.back() == 12);
  a.release(5);
  b.release(5);
  CHECK(agree({&a, &b}) == 5);
}

TEST_CASE("agreement moves to later windows when the first is full", "[context_ids]") {
  Pool a, b;
  // Fill a's first window completely and b's second window's first ids.
  for (std::uint32_t id = 3; id < Pool::kWindowIds; ++id) a.claim(id);
  b.claim(Pool::kWindowIds);
  b.claim(Pool::kWindowIds + 1);
  const std::uint32_t id = agree({&a, &b});
  CHECK(id == Pool::kWindowIds + 2);
  CHECK(a.in_use(id));
  CHECK(b.in_use(id));
}

TEST_CASE("concurrent agreements in one process never hand out the same id", "[context_ids]") {
  Pool p, q, r;
  // p takes part in two agreements at once: {p,q} and {p,r}. The first reserves p's free ids.
  auto first = p.reserve_window(0);
  auto second = p.reserve_window(0);
  CHECK_FALSE(first.held_back);
  CHECK(second.held_back);
  for (std::uint64_t w : second.mask) CHECK(w == 0);
  auto q_part = q.reserve_window(0);
  Pool::WindowMask common;
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = first.mask[i] & q_part.mask[i];
  auto outcome = decide_context_id(0, common, 0, false);
  REQUIRE(outcome.kind == AgreementOutcome::Kind::agreed);
  CHECK(outcome.value == 3);
  // The second sees nothing common in window 0 and retries (never picks 3, never skips the window).
  auto r_part = r.reserve_window(0);
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = second.mask[i] & r_part.mask[i];
  auto later = decide_context_id(0, common, std::max(p.next_window_with_free(0), r.next_window_with_free(0)),
                                 second.held_back || r_part.held_back);
  CHECK(later.kind == AgreementOutcome::Kind::retry);
  p.claim(outcome.value);
  q.claim(outcome.value);
  p.unreserve(0, first.mask);
  q.unreserve(0, q_part.mask);
  p.unreserve(0, second.mask);
  r.unreserve(0, r_part.mask);
  CHECK(agree({&p, &r}) == 4);
}

TEST_CASE("a probe holds few ids, and nobody waits for them", "[context_ids]") {
  // p has an agreement in its first round (a probe) waiting for q, which will start it only after a
  // second agreement between them completes (MPICH's threads/comm/idup_deadlock, comm_create_group_idup).
  Pool p, q;
  auto waiting = p.reserve_window(0, Pool::Round::probe);
  CHECK_FALSE(waiting.held_back);
  CHECK(waiting.mask[0] == ~0ull << 3);  // ids 3..66: the lowest free ones, kProbeIds of them
  CHECK(waiting.mask[1] == 7);
  for (std::size_t i = 2; i < Pool::kWindowWords; ++i) CHECK(waiting.mask[i] == 0);
  // The second agreement's probe: p offers the next free ids, q the lowest; nothing in common.
  auto probe_p = p.reserve_window(0, Pool::Round::probe);
  auto probe_q = q.reserve_window(0, Pool::Round::probe);
  CHECK(probe_p.mask[0] == 0);
  CHECK(probe_p.mask[1] == ~0ull << 3);
  CHECK(probe_p.mask[2] == 7);
  Pool::WindowMask common;
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = probe_p.mask[i] & probe_q.mask[i];
  auto first = decide_context_id(0, common, Pool::kNoWindow, false, Pool::Round::probe);
  CHECK(first.kind == AgreementOutcome::Kind::retry);
  p.unreserve(0, probe_p.mask, Pool::Round::probe);
  q.unreserve(0, probe_q.mask, Pool::Round::probe);
  // Its full round: what the waiting probe holds is not held back (no retry), the rest of the window is
  // offered.
  auto full_p = p.reserve_window(0);
  auto full_q = q.reserve_window(0);
  CHECK_FALSE(full_p.held_back);
  CHECK(full_p.mask[0] == 0);
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = full_p.mask[i] & full_q.mask[i];
  auto second = decide_context_id(0, common, 0, full_p.held_back || full_q.held_back);
  REQUIRE(second.kind == AgreementOutcome::Kind::agreed);
  CHECK(second.value == 67);
  p.claim(67);
  q.claim(67);
  p.unreserve(0, full_p.mask);
  q.unreserve(0, full_q.mask);
  // Then q reaches the first agreement: its probe (3..66) meets p's and they agree on 3.
  auto late_q = q.reserve_window(0, Pool::Round::probe);
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = waiting.mask[i] & late_q.mask[i];
  auto third = decide_context_id(0, common, Pool::kNoWindow, false, Pool::Round::probe);
  REQUIRE(third.kind == AgreementOutcome::Kind::agreed);
  CHECK(third.value == 3);
  p.claim(3);
  q.claim(3);
  p.unreserve(0, waiting.mask, Pool::Round::probe);
  q.unreserve(0, late_q.mask, Pool::Round::probe);
  // A full round does wait (retries) for what another full round holds.
  auto one = p.reserve_window(0);
  auto two = p.reserve_window(0);
  CHECK(two.held_back);
  p.unreserve(0, one.mask);
  p.unreserve(0, two.mask);
  CHECK(agree({&p, &q}) == 4);
}

TEST_CASE("a probe offers at most kProbeIds ids, lowest first, across words", "[context_ids]") {
  Pool p;
  for (std::uint32_t id = 3; id < 60; ++id) p.claim(id);  // 0..59 used: 4 free in word 0
  auto probe = p.reserve_window(0, Pool::Round::probe);
  CHECK(probe.mask[0] == (0xFull << 60));
  CHECK(probe.mask[1] == (~0ull >> 4));  // 60 more: 64..123
  CHECK(probe.mask[2] == 0);
  p.unreserve(0, probe.mask, Pool::Round::probe);
  CHECK(agree({&p}) == 60);
}

TEST_CASE("decide_context_id: exhausted vs retry", "[context_ids]") {
  Pool::WindowMask none{};
  CHECK(decide_context_id(Pool::kWindows - 1, none, Pool::kNoWindow, false).kind ==
        AgreementOutcome::Kind::exhausted);
  CHECK(decide_context_id(Pool::kWindows - 1, none, Pool::kNoWindow, true).kind == AgreementOutcome::Kind::retry);
  Pool::WindowMask some{};
  some[3] = 1ull << 5;
  auto o = decide_context_id(2, some, 0, false);
  CHECK(o.kind == AgreementOutcome::Kind::agreed);
  CHECK(o.value == 2 * Pool::kWindowIds + 3 * 64 + 5);
}

TEST_CASE("many ids stay unique below 2^20", "[context_ids]") {
  Pool a;
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 5000; ++i) {
    std::uint32_t id = agree({&a});
    CHECK(id < Pool::kCapacity);
    CHECK(seen.insert(id).second);
  }
}

TEST_CASE("only the lowest listed agreement key contributes ids", "[context_ids]") {
  Pool p;
  CHECK(p.has_priority(7));
  p.begin_agreement(7);
  p.begin_agreement(3);
  CHECK(p.has_priority(3));
  CHECK_FALSE(p.has_priority(7));
  p.end_agreement(3);
  CHECK(p.has_priority(7));
  p.end_agreement(7);
  p.end_agreement(7);  // unknown keys are ignored
  CHECK(p.has_priority(100));
}

TEST_CASE("context ids: names for hang reports live until the id is released", "[context_ids]") {
  ContextIdPool pool;
  pool.claim(7);
  CHECK(pool.name_of(7).empty());
  pool.set_name(7, "ring");
  CHECK(pool.name_of(7) == "ring");
  pool.set_name(ContextIdPool::kWorldId, "world");
  CHECK(pool.name_of(ContextIdPool::kWorldId) == "world");
  pool.release(7);  // the communicator is gone; a later one with the same id starts unnamed
  CHECK(pool.name_of(7).empty());
  pool.set_name(ContextIdPool::kWorldId, "");
  CHECK(pool.name_of(ContextIdPool::kWorldId).empty());
}
