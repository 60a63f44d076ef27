#include "runtime/intercomm.hpp"

#include <algorithm>
#include <vector>

#include "common/log.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/group_ops.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::intercomm {
namespace {

using Words = std::vector<std::uint64_t>;

int creation_tag(Comm& comm) {
  return comm_create::kTagParentCollective | static_cast<int>(comm.next_creation_sequence() & comm_create::kTagLowMask);
}

Rc wait_ok(Runtime& runtime, const RequestRef& request, const char* what) {
  runtime.wait(*request);
  if (request->error != MPI_SUCCESS) return fail(request->error, "intercommunicator creation: %s failed", what);
  return Rc();
}

// A word vector of any length to `peer` of `comm` on the collective channel: its length, then its words
// (messages between one pair with one tag arrive in order).
Rc send_words(const CommRef& comm, int peer, int tag, const Words& words, std::vector<RequestRef>* pending,
              std::vector<std::shared_ptr<Words>>* keep) {
  pt2pt::Engine& pt2pt = comm->runtime().pt2pt();
  const DatatypeRef bytes = builtin_datatype(MPI_BYTE);
  auto header = std::make_shared<Words>(1, words.size());
  auto body = std::make_shared<Words>(words);
  RequestRef a, b;
  FABMPI_TRY(pt2pt.isend(header->data(), sizeof(std::uint64_t), bytes, peer, tag, comm, pt2pt::Channel::collective,
                         pt2pt::SendMode::standard, &a));
  FABMPI_TRY(pt2pt.isend(body->data(), body->size() * sizeof(std::uint64_t), bytes, peer, tag, comm,
                         pt2pt::Channel::collective, pt2pt::SendMode::standard, &b));
  pending->push_back(std::move(a));
  pending->push_back(std::move(b));
  keep->push_back(std::move(header));
  keep->push_back(std::move(body));
  return Rc();
}

Rc recv_words(const CommRef& comm, int peer, int tag, Words* out) {
  Runtime& runtime = comm->runtime();
  pt2pt::Engine& pt2pt = runtime.pt2pt();
  const DatatypeRef bytes = builtin_datatype(MPI_BYTE);
  std::uint64_t n = 0;
  RequestRef r;
  FABMPI_TRY(pt2pt.irecv(&n, sizeof n, bytes, peer, tag, comm, pt2pt::Channel::collective, &r));
  FABMPI_TRY(wait_ok(runtime, r, "a receive"));
  if (r->count_bytes != sizeof n || n > (std::uint64_t{1} << 32))
    return fail(MPI_ERR_INTERN, "intercommunicator creation: malformed message from rank %d", peer);
  out->assign(n, 0);
  FABMPI_TRY(pt2pt.irecv(out->data(), n * sizeof(std::uint64_t), bytes, peer, tag, comm, pt2pt::Channel::collective,
                         &r));
  return wait_ok(runtime, r, "a receive");
}

Rc wait_all(Runtime& runtime, const std::vector<RequestRef>& pending) {
  for (const RequestRef& r : pending) FABMPI_TRY(wait_ok(runtime, r, "a send"));
  return Rc();
}

// `words` from `root` to every rank of the intracommunicator `comm`, down a binomial tree.
Rc bcast_words(const CommRef& comm, int root, int tag, Words* words) {
  const int n = comm->size();
  const int index = (comm->rank() - root + n) % n;
  const comm_create::TreePeers tree = comm_create::binomial_tree(index, n);
  const auto rank_of = [&](int i) { return (i + root) % n; };
  if (tree.parent >= 0) FABMPI_TRY(recv_words(comm, rank_of(tree.parent), tag, words));
  std::vector<RequestRef> pending;
  std::vector<std::shared_ptr<Words>> keep;
  for (int child : tree.children) FABMPI_TRY(send_words(comm, rank_of(child), tag, *words, &pending, &keep));
  return wait_all(comm->runtime(), pending);
}

// Trades word vectors with `peer` of `comm` (both sides call it).
Rc trade_words(const CommRef& comm, int peer, int tag, const Words& mine, Words* theirs) {
  std::vector<RequestRef> pending;
  std::vector<std::shared_ptr<Words>> keep;
  FABMPI_TRY(send_words(comm, peer, tag, mine, &pending, &keep));
  FABMPI_TRY(recv_words(comm, peer, tag, theirs));
  return wait_all(comm->runtime(), pending);
}

Words world_ranks_of(const Group& group) {
  return Words(group.world_ranks().begin(), group.world_ranks().end());
}

GroupRef group_of(const Words& world_ranks, std::size_t first = 0) {
  std::vector<int> ranks(world_ranks.begin() + static_cast<std::ptrdiff_t>(first), world_ranks.end());
  return std::make_shared<const Group>(std::move(ranks));
}

std::uint64_t inter_key(const Comm& inter, int tag) {
  return static_cast<std::uint64_t>(inter.context_id()) << 32 | static_cast<std::uint32_t>(tag);
}

}  // namespace

Rc create(const CommRef& local_comm, int local_leader, const CommRef& peer_comm, int remote_leader, int tag,
          CommRef* out) {
  const int leader_tag = comm_create::kTagIntercommLeaders | (tag & comm_create::kTagUserMask);
  const bool leader = local_comm->rank() == local_leader;
  // The leader learns the other group (and its local communicator's context id, for the agreement's
  // priority key) and tells its own group: [status, remote context id, remote world ranks...].
  constexpr std::size_t kHeader = 2;
  Words info;
  if (leader) {
    Words mine = world_ranks_of(*local_comm->group());
    mine.insert(mine.begin(), local_comm->context_id());
    Words theirs;
    FABMPI_TRY(trade_words(peer_comm, remote_leader, leader_tag, mine, &theirs));
    if (theirs.empty()) return fail(MPI_ERR_INTERN, "MPI_Intercomm_create: empty message from the remote leader");
    bool overlap = false;
    const Group& local = *local_comm->group();
    for (std::size_t i = 1; i < theirs.size() && !overlap; ++i)
      overlap = local.rank_of_world(static_cast<int>(theirs[i])) != MPI_UNDEFINED;
    info.push_back(overlap ? 1 : 0);
    info.insert(info.end(), theirs.begin(), theirs.end());
  }
  FABMPI_TRY(bcast_words(local_comm, local_leader, creation_tag(*local_comm), &info));
  if (info.size() < kHeader + 1) return fail(MPI_ERR_INTERN, "MPI_Intercomm_create: malformed group message");
  if (info[0] != 0)
    return fail(MPI_ERR_COMM, "the local and remote groups overlap (an intercommunicator joins disjoint groups)");
  const auto remote_context = static_cast<std::uint32_t>(info[1]);
  GroupRef remote_group = group_of(info, kHeader);
  // The other group may be another job's processes (dynamic processes): make them addressable here.
  FABMPI_TRY(local_comm->runtime().add_processes(remote_group->world_ranks()));

  CommRef companion;
  FABMPI_TRY(comm_create::dup(local_comm, &companion));

  comm_create::BridgedAgreement a;
  a.local = local_comm;
  a.root = local_leader;
  a.bridge = leader ? peer_comm : nullptr;
  a.bridge_peer = remote_leader;
  a.bridge_tag = leader_tag;
  const std::uint32_t lo = std::min(local_comm->context_id(), remote_context);
  const std::uint32_t hi = std::max(local_comm->context_id(), remote_context);
  a.priority_key = static_cast<std::uint64_t>(lo) << 32 | (static_cast<std::uint64_t>(hi) << 12 ^ static_cast<std::uint32_t>(leader_tag));
  a.group = local_comm->group();
  a.remote_group = std::move(remote_group);
  a.local_comm = std::move(companion);
  return comm_create::agree_bridged(a, out);
}

Rc merge(const CommRef& inter, bool high, CommRef* out) {
  const CommRef& local = inter->local_comm();
  const bool leader = inter->rank() == 0;
  const int flag_tag = creation_tag(*inter);
  Words remote_high;
  if (leader) FABMPI_TRY(trade_words(inter, 0, flag_tag, Words{high ? 1u : 0u}, &remote_high));
  FABMPI_TRY(bcast_words(local, 0, creation_tag(*local), &remote_high));
  if (remote_high.size() != 1) return fail(MPI_ERR_INTERN, "MPI_Intercomm_merge: malformed message");
  bool local_first = !high;
  if (high == (remote_high[0] != 0)) local_first = inter->group()->world_rank(0) < inter->remote_group()->world_rank(0);
  const Group& first = local_first ? *inter->group() : *inter->remote_group();
  const Group& second = local_first ? *inter->remote_group() : *inter->group();
  std::vector<int> members = first.world_ranks();
  members.insert(members.end(), second.world_ranks().begin(), second.world_ranks().end());

  comm_create::BridgedAgreement a;
  a.local = local;
  a.bridge = inter;
  a.bridge_peer = 0;
  a.bridge_tag = creation_tag(*inter);
  a.priority_key = inter_key(*inter, a.bridge_tag);
  a.merge = true;
  a.group = std::make_shared<const Group>(std::move(members));
  return comm_create::agree_bridged(a, out);
}

namespace {

// The agreement of a dup of `inter` (its companion, local_comm, is filled in by the caller).
comm_create::BridgedAgreement dup_agreement(const CommRef& inter) {
  comm_create::BridgedAgreement a;
  a.local = inter->local_comm();
  a.bridge = inter;
  a.bridge_peer = 0;
  a.bridge_tag = creation_tag(*inter);
  a.priority_key = inter_key(*inter, a.bridge_tag);
  a.group = inter->group();
  a.remote_group = inter->remote_group();
  return a;
}

}  // namespace

// Creation tags are per communicator: the local group's (companion, then agreement) and the bridge's
// are taken in the same order by dup() and start_dup() on every member.
Rc start_dup(const CommRef& inter, comm_create::CompletionFn on_complete, RequestRef* out) {
  return comm_create::start_bridged_dup(dup_agreement(inter), std::move(on_complete), out);
}

Rc dup(const CommRef& inter, CommRef* out) {
  CommRef companion;
  FABMPI_TRY(comm_create::dup(inter->local_comm(), &companion));
  comm_create::BridgedAgreement a = dup_agreement(inter);
  a.local_comm = std::move(companion);
  return comm_create::agree_bridged(a, out);
}

Rc split(const CommRef& inter, int color, int key, CommRef* out) {
  *out = nullptr;
  // This group's part: a split of the companion.
  CommRef new_local;
  FABMPI_TRY(comm_create::split(inter->local_comm(), color, key, &new_local));
  // The other group's colors and keys: each process sends its own to the remote leader, which passes
  // the table it gathered to its group.
  const int table_tag = creation_tag(*inter);
  const int bridge_tag = creation_tag(*inter);
  Runtime& runtime = inter->runtime();
  {
    std::vector<RequestRef> pending;
    std::vector<std::shared_ptr<Words>> keep;
    FABMPI_TRY(send_words(inter, 0, table_tag, Words{comm_create::pack_color_key(color, key)}, &pending, &keep));
    Words remote_table;
    if (inter->rank() == 0) {
      remote_table.resize(static_cast<std::size_t>(inter->peer_size()));
      for (int r = 0; r < inter->peer_size(); ++r) {
        Words one;
        FABMPI_TRY(recv_words(inter, r, table_tag, &one));
        if (one.size() != 1) return fail(MPI_ERR_INTERN, "MPI_Comm_split: malformed message from rank %d", r);
        remote_table[static_cast<std::size_t>(r)] = one[0];
      }
    }
    FABMPI_TRY(wait_all(runtime, pending));
    FABMPI_TRY(bcast_words(inter->local_comm(), 0, creation_tag(*inter->local_comm()), &remote_table));
    if (color == MPI_UNDEFINED || !new_local) return Rc();
    const std::vector<int> remote_members = comm_create::split_members(remote_table, color);
    if (remote_members.empty()) return Rc();  // nobody to talk to: MPI_COMM_NULL on both sides
    std::vector<int> remote_world;
    for (int r : remote_members) remote_world.push_back(inter->world_rank(r));

    comm_create::BridgedAgreement a;
    a.local = new_local;
    a.bridge = inter;
    a.bridge_peer = remote_members[0];
    a.bridge_tag = bridge_tag;
    a.priority_key = inter_key(*inter, bridge_tag);
    a.group = new_local->group();
    a.remote_group = std::make_shared<const Group>(std::move(remote_world));
    a.local_comm = new_local;
    return comm_create::agree_bridged(a, out);
  }
}

}  // namespace fabmpi::intercomm
