// Creating communicators: MPI_Comm_dup, idup, split, split_type, create, create_group.
//
// Every creation is one small exchange among the processes concerned: the members of the parent
// (dup, split, create) or of the group (create_group). It runs directly over the pt2pt engine on the
// parent communicator's Channel::collective, never through coll/, as a binomial reduce to index 0 and a
// binomial broadcast back. One record travels: the context id agreement of context_ids.hpp (max of the
// next window, OR of the held-back flag, AND of the free-id masks) and, for split, one (color, key)
// slot per parent rank (OR; each slot is written by its owner only). Usually one round; a round per
// further window when the first 4096 ids are taken.
//
// Tags (Channel::collective, documented in pt2pt/engine.hpp): coll/ uses tags below 0x40000000;
//   0x60000000 | (parent's creation sequence mod 2^29)   dup, idup, split, split_type, create
//   0x40000000 | (user tag mod 2^28)                     create_group (only its members take part,
//                                                        so the parent's sequence is not shared)
//   0x50000000 | (user tag mod 2^28)                     MPI_Intercomm_create's leaders, on peer_comm
// Split and create agree on one id over the whole parent (the new communicators are disjoint, so they
// can share it); non-members contribute an all-ones mask and claim nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"

namespace fabmpi::comm_create {

constexpr int kTagFirstReserved = 0x40000000;
constexpr int kTagCreateGroup = 0x40000000;
constexpr int kTagIntercommLeaders = 0x50000000;
constexpr int kTagUserMask = 0x0fffffff;  // the user's tag bits kept in the two above
constexpr int kTagParentCollective = 0x60000000;
constexpr int kTagLowMask = 0x1fffffff;

// The binomial tree over participants 0..n-1 rooted at 0: the parent of `index` (-1 for the root)
// and its children, in the order a reduce receives from them. Pure; unit-tested for n = 1..64.
struct TreePeers {
  int parent = -1;
  std::vector<int> children;
};
TreePeers binomial_tree(int index, int n);

// The new communicator's members (parent ranks) for MPI_Comm_split: those with `color`, ordered by
// (key, parent rank). colors_keys[r] packs parent rank r's color (high 32 bits) and key (low).
std::vector<int> split_members(const std::vector<std::uint64_t>& colors_keys, int color);
std::uint64_t pack_color_key(int color, int key);

// Blocking creations. `*out` is null on the processes that get MPI_COMM_NULL. The new communicator
// inherits the parent's error handler; attributes, info and the handle are the binding's business.
Rc dup(const CommRef& parent, CommRef* out);
Rc split(const CommRef& parent, int color, int key, CommRef* out);
// `group` must be a subset of the parent's group (checked by the caller); every parent member calls it.
Rc create(const CommRef& parent, const GroupRef& group, CommRef* out);
// Only the members of `group` call it; `tag` separates concurrent calls on overlapping groups.
Rc create_group(const CommRef& parent, const GroupRef& group, int tag, CommRef* out);

// The context id agreement of a new intercommunicator, or of the intracommunicator MPI_Intercomm_merge
// makes: the members of `local` (every one takes part) reduce their free-id masks to rank `root`, which
// trades the result with the other group's leader (rank `bridge_peer` of `bridge`, `bridge_tag` on the
// collective channel) before broadcasting it, so the id is free in both groups (runtime/intercomm.cpp).
struct BridgedAgreement {
  CommRef local;  // an intracommunicator over this group (the tree runs on its creation tags)
  int root = 0;   // the rank of `local` that trades with the other group (the only one `bridge` matters to)
  CommRef bridge;
  int bridge_peer = 0;
  int bridge_tag = 0;
  std::uint64_t priority_key = 0;  // the same on both groups
  bool merge = false;              // build an intracommunicator over `group` (else an intercommunicator)
  GroupRef group;                  // the new communicator's (local) group
  GroupRef remote_group;           // intercommunicator: its remote group
  CommRef local_comm;              // intercommunicator: its companion over `group`
};
Rc agree_bridged(const BridgedAgreement& agreement, CommRef* out);

// Nonblocking dup (MPI_Comm_idup): the request progresses with the runtime's progress loop; when the
// new communicator exists `on_complete` runs (inside progress) and its failure becomes the request's
// error.
using CompletionFn = std::function<Rc(const CommRef& newcomm)>;
Rc start_dup(const CommRef& parent, CompletionFn on_complete, RequestRef* out);

// Nonblocking dup of an intercommunicator: a dup of `a.local` becomes the companion (a.local_comm is
// ignored), then the bridged agreement runs over it; one request for both. The creation tags of both
// steps are taken in this call, so concurrent creations on the same communicators match everywhere.
Rc start_bridged_dup(const BridgedAgreement& a, CompletionFn on_complete, RequestRef* out);

}  // namespace fabmpi::comm_create
