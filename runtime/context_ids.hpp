// The context ids one process has in use, and the arithmetic of agreeing on a new one.
//
// A context id separates a communicator's traffic from every other communicator's at the receiver, so
// an id must be unique among the communicators that share a process; two communicators with no common
// member may share it. Creating a communicator therefore agrees, among the members that will hold it,
// on an id that is free on every one of them (MPICH's way): each contributes a bitmask of its free ids,
// the masks are ANDed, and the lowest common bit wins. Ids live below 2^20 (pt2pt packs them into
// its tag); the masks are exchanged one window of 4096 ids at a time so an agreement moves 512 bytes,
// not 128 KiB. Agreements that run concurrently in one process (MPI_Comm_idup on two communicators)
// each reserve the bits they contributed; one that found bits held by another flags a conflict, and
// when no common id exists the agreement is retried instead of failing. So that retries cannot go on
// forever (p runs A then B, q runs B then A, each holding the ids the other needs), every agreement has
// a key that all its members know, and only the lowest key in flight in a process contributes ids; the
// others contribute none and retry. The lowest key in flight in the whole job then always completes.
//
// A nonblocking agreement (MPI_Comm_idup) may wait in a round for members that are still blocked in
// another creation; while it waits it holds its reservation. So that a blocking creation never waits
// for it, nonblocking agreements reserve ids in the upper half of a window only, and their holdings do
// not count as "held back" for a blocking agreement: that one takes the lower half, or moves on to the
// next window, instead of retrying for ids that may never come back in time.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace fabmpi {

class Group;

class ContextIdPool {
 public:
  static constexpr std::uint32_t kIdBits = 20;
  static constexpr std::uint32_t kCapacity = 1u << kIdBits;
  static constexpr std::uint32_t kWindowIds = 4096;
  static constexpr std::uint32_t kWindowWords = kWindowIds / 64;
  static constexpr std::uint32_t kWindows = kCapacity / kWindowIds;
  static constexpr std::uint32_t kNoWindow = kWindows;
  // MPI_COMM_WORLD and MPI_COMM_SELF.
  static constexpr std::uint32_t kWorldId = 0;
  static constexpr std::uint32_t kSelfId = 1;
  // Two-process bridges between the leaders of two jobs (runtime/dynamic.cpp): never agreed on, never
  // used by any other communicator.
  static constexpr std::uint32_t kBridgeId = 2;

  using WindowMask = std::array<std::uint64_t, kWindowWords>;

  struct Contribution {
    WindowMask mask{};       // ids of the window free here and now reserved for the caller
    bool held_back = false;  // some free ids were left out: another agreement in flight holds them
  };

  ContextIdPool();

  // Agreements in flight in this process, by key (the same on every member of one agreement).
  void begin_agreement(std::uint64_t key);
  void end_agreement(std::uint64_t key);
  // True when no agreement with a lower key is in flight here: this one may contribute ids.
  bool has_priority(std::uint64_t key) const;

  // Reserves, for one agreement round on `window`, every id of it that is free and not already
  // reserved (a nonblocking agreement: of the window's upper half only); return them with unreserve()
  // (and claim() the agreed one).
  Contribution reserve_window(std::uint32_t window, bool nonblocking = false);
  void unreserve(std::uint32_t window, const WindowMask& mask, bool nonblocking = false);
  // Marks `id` in use (a communicator holding it now exists here).
  void claim(std::uint32_t id);
  // Returns `id` to the pool (the communicator holding it was destroyed).
  void release(std::uint32_t id);

  bool in_use(std::uint32_t id) const;
  // The name MPI_Comm_set_name gave the communicator holding `id` here ("" when none), for messages
  // that know only the id (the point-to-point engine's hang report lines). release() forgets it.
  void set_name(std::uint32_t id, const std::string& name);
  std::string name_of(std::uint32_t id) const;
  // The world ranks a communicator's point-to-point ranks name (its group, or an intercommunicator's
  // remote group), kept per id until release() like the name: hang reports translate the ranks of
  // waiting receives with it. peer_world_rank answers -1 when unknown.
  void set_peers(std::uint32_t id, std::shared_ptr<const Group> peers);
  int peer_world_rank(std::uint32_t id, int rank) const;
  std::size_t in_use_count() const;
  // The lowest window after `window` with an id free and unreserved (in the upper half, for a
  // nonblocking agreement), or kNoWindow.
  std::uint32_t next_window_with_free(std::uint32_t window, bool nonblocking = false) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> used_;
  std::vector<std::uint64_t> reserved_;              // by any agreement round in flight
  std::vector<std::uint64_t> reserved_nonblocking_;  // the part of it nonblocking agreements hold
  std::multiset<std::uint64_t> agreements_;
  std::map<std::uint32_t, std::string> names_;
  std::map<std::uint32_t, std::shared_ptr<const Group>> peers_;
};

// What every member concludes from the combined result of one agreement round (the same on all).
struct AgreementOutcome {
  enum class Kind { agreed, next_window, retry, exhausted } kind;
  std::uint32_t value;  // agreed: the id; next_window: the window of the next round
};

// Retry when anyone held ids back (they return soon), else the next window, else exhausted.
// `common` is the AND of the members' masks for `window`, `next_window` the max of their
// next_window_with_free(), `held_back` the OR of their Contribution::held_back.
AgreementOutcome decide_context_id(std::uint32_t window, const ContextIdPool::WindowMask& common,
                                   std::uint32_t next_window, bool held_back);

}  // namespace fabmpi
