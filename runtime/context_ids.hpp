// The context ids one process has in use, and the arithmetic of agreeing on a new one.
//
// A context id separates a communicator's traffic from every other communicator's at the receiver, so
// an id must be unique among the communicators that share a process; two communicators with no common
// member may share it. Creating a communicator therefore agrees, among the members that will hold it,
// on an id that is free on every one of them (MPICH's way): each contributes a bitmask of its free ids,
// the masks are ANDed, and the lowest common bit wins. Ids live below 2^20 (pt2pt packs them into
// its tag); the masks are exchanged one window of 4096 ids at a time so an agreement moves 512 bytes,
// not 128 KiB.
//
// Several agreements can be in flight in one process (threads, MPI_Comm_idup), and one may wait in a
// round for members that have not started it yet and will not until another agreement completes
// (MPICH's threads/comm/idup_deadlock: even ranks start two of four idups only after one of the others
// finished). Each agreement reserves the ids it contributed until its round ends, and (MPICH's eager
// and ordered protocols, per window):
//  - The first round is a probe: the agreement contributes only the lowest kProbeIds free, unreserved
//    ids. A probe waiting for members that have not started it therefore holds few ids, and no other
//    agreement waits for them (they do not count as held back: the others use the rest of the window,
//    or the next one). With one creation at a time and the same ids free everywhere, the probe agrees.
//  - An agreement whose probe found no common id is "listed": every member has started it (each took
//    part in the first round). Of the listed agreements in a process only the lowest key contributes
//    (every free, unreserved id of the window); the others contribute none and retry. Ids another listed
//    agreement's round holds come back when that round ends, so finding them is a reason to retry. The
//    lowest listed key in the whole job has priority on all its members, all of which run its rounds,
//    so it always completes.
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

  // At most this many ids (one mask word's worth) go into a probe round.
  static constexpr std::uint32_t kProbeIds = 64;

  struct Contribution {
    WindowMask mask{};       // ids of the window free here and now reserved for the caller
    bool held_back = false;  // some free ids were left out: a listed agreement's round holds them
  };

  enum class Round { probe, full };

  ContextIdPool();

  // Listed agreements in this process (started on every member), by key (the same on every member of
  // one agreement).
  void begin_agreement(std::uint64_t key);
  void end_agreement(std::uint64_t key);
  // True when no listed agreement with a lower key is in flight here: this one may contribute ids.
  bool has_priority(std::uint64_t key) const;

  // Reserves, for one agreement round on `window`, the ids of it that are free and not already
  // reserved: all of them (Round::full), or the lowest kProbeIds of them (Round::probe). Return them
  // with unreserve() (and claim() the agreed one).
  Contribution reserve_window(std::uint32_t window, Round round = Round::full);
  void unreserve(std::uint32_t window, const WindowMask& mask, Round round = Round::full);
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
  // The lowest window after `window` with an id free and unreserved, or kNoWindow.
  std::uint32_t next_window_with_free(std::uint32_t window) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> used_;
  std::vector<std::uint64_t> reserved_;        // by any agreement round in flight
  std::vector<std::uint64_t> reserved_probe_;  // the part of it probe rounds hold
  std::multiset<std::uint64_t> agreements_;
  std::map<std::uint32_t, std::string> names_;
  std::map<std::uint32_t, std::shared_ptr<const Group>> peers_;
};

// What every member concludes from the combined result of one agreement round (the same on all).
struct AgreementOutcome {
  enum class Kind { agreed, next_window, retry, exhausted } kind;
  std::uint32_t value;  // agreed: the id; next_window: the window of the next round
};

// The lowest common id if there is one. Else: after a probe round, a full round (retry); after a full
// one, retry when anyone held ids back (they return soon), else the next window, else exhausted.
// `common` is the AND of the members' masks for `window`, `next_window` the max of their
// next_window_with_free(), `held_back` the OR of their Contribution::held_back.
AgreementOutcome decide_context_id(std::uint32_t window, const ContextIdPool::WindowMask& common,
                                   std::uint32_t next_window, bool held_back,
                                   ContextIdPool::Round round = ContextIdPool::Round::full);

}  // namespace fabmpi
