#include "runtime/comm_create.hpp"

#include <algorithm>
#include <cstring>

#include "common/log.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/group_ops.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::comm_create {

namespace {

enum class Creation { dup, split, create, inter };

// Record layout, in 64-bit words: [0] next window (max), [1] flags (or), then the window's free-id mask
// (and), then for split one (color, key) slot per parent rank (or).
constexpr std::size_t kNextWindowWord = 0;
constexpr std::size_t kFlagsWord = 1;
constexpr std::size_t kMaskWord = 2;
constexpr std::size_t kSlotWord = kMaskWord + ContextIdPool::kWindowWords;
constexpr std::uint64_t kFlagHeldBack = 1;

void combine(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& from) {
  into[kNextWindowWord] = std::max(into[kNextWindowWord], from[kNextWindowWord]);
  into[kFlagsWord] |= from[kFlagsWord];
  for (std::size_t i = kMaskWord; i < kSlotWord; ++i) into[i] &= from[i];
  for (std::size_t i = kSlotWord; i < into.size(); ++i) into[i] |= from[i];
}

struct Setup {
  Creation kind = Creation::dup;
  CommRef parent;
  std::vector<int> participants;  // parent ranks, indexed by tree position
  int my_index = 0;
  int tag = 0;
  bool wants_id = true;  // this process will be a member of the new communicator
  GroupRef group;        // create, create_group: the new communicator's group
  int color = 0;         // split
  int key = 0;
  // Agreements for intercommunicators (runtime/intercomm.cpp): the tree's root also trades its combined
  // record with the other group's root, rank `bridge_peer` of `bridge` (tag `bridge_tag`, collective
  // channel), so both groups settle on an id free in both.
  CommRef bridge;
  int bridge_peer = 0;
  int bridge_tag = 0;
  // The same on every member of both groups (the parent's context id differs between the groups).
  std::uint64_t priority_key = 0;
  // Creation::inter: the new intercommunicator's remote group and its companion local communicator
  // (its group is `group`).
  GroupRef remote_group;
  CommRef local_comm;
  // MPI_Comm_idup and the like: every member may have it pending while blocked in another creation.
  bool nonblocking = false;
};

// Of the listed agreements (context_ids.hpp), those processes are blocked in go before pending
// nonblocking ones, then by key. Liveness needs only one order every member shares; this one lets the
// calls that block a thread finish first.
constexpr std::uint64_t kNonblockingKeyBit = std::uint64_t{1} << 63;

// One creation in flight: rounds of (binomial reduce, binomial broadcast) until an id is agreed, then
// the new communicator is built. Progressed by the runtime's progress loop, so the blocking calls and
// MPI_Comm_idup are the same code.
class CreationOp final : public Request, public ProgressSource {
 public:
  explicit CreationOp(Setup setup)
      : Request(Kind::collective),
        s_(std::move(setup)),
        runtime_(s_.parent->runtime()),
        pool_(runtime_.context_ids()),
        tree_(binomial_tree(s_.my_index, static_cast<int>(s_.participants.size()))),
        bytes_(builtin_datatype(MPI_BYTE)),
        words_(kSlotWord + (s_.kind == Creation::split ? s_.participants.size() : 0)),
        // (parent context id, tag) names this agreement identically on every member.
        priority_key_((s_.priority_key != 0 ? s_.priority_key
                                            : static_cast<std::uint64_t>(s_.parent->context_id()) << 32 |
                                                  static_cast<std::uint32_t>(s_.tag)) |
                      (s_.nonblocking ? kNonblockingKeyBit : 0)) {}

  CommRef communicator() const override { return s_.parent; }

  ~CreationOp() override {
    if (registered_) runtime_.remove_progress_source(this);
    release_reservation();
    if (in_agreement_) pool_->end_agreement(priority_key_);
  }

  void begin() {
    registered_ = true;
    runtime_.add_progress_source(this);
    progress();
  }

  int progress() override {
    if (is_complete() || in_progress_) return 0;
    in_progress_ = true;
    int events = 0;
    while (advance()) ++events;
    in_progress_ = false;
    return events;
  }

  const CommRef& result() const noexcept { return result_; }
  CompletionFn on_complete;

 private:
  enum class Phase { contribute, reduce, bridge, broadcast, settle, drain, done };

  // Runs the current phase if it can; false when it waits for messages (or is done).
  bool advance() {
    Rc rc;
    switch (phase_) {
      case Phase::contribute: rc = begin_round(); break;
      case Phase::reduce:
        for (const RequestRef& r : child_recvs_)
          if (!r->is_complete()) return false;
        rc = finish_reduce();
        break;
      case Phase::bridge:
        if (!bridge_recv_->is_complete()) return false;
        rc = finish_bridge();
        break;
      case Phase::broadcast:
        if (!parent_recv_->is_complete()) return false;
        rc = finish_broadcast();
        break;
      case Phase::settle: {
        bool yield = false;
        rc = settle_round(&yield);
        if (rc.ok() && yield) return false;
        break;
      }
      case Phase::drain:
        for (const InFlightSend& s : sends_)
          if (!s.request->is_complete()) return false;
        finish(Rc());
        return false;
      case Phase::done: return false;
    }
    if (!rc.ok()) {
      finish(rc);
      return false;
    }
    return true;
  }

  Rc begin_round() {
    record_.assign(words_, 0);
    // Alone (MPI_Comm_dup of MPI_COMM_SELF...), nobody else has to agree: no probe, no priority, and ids
    // other agreements hold are no reason to wait for them (they may wait for this thread's caller,
    // MPICH's threads/comm/comm_dup_deadlock); any free id in a later window does.
    const bool solo = s_.participants.size() == 1 && !s_.bridge;
    round_kind_ = rounds_ == 0 && !solo ? ContextIdPool::Round::probe : ContextIdPool::Round::full;
    if (s_.wants_id) {
      if (solo || round_kind_ == ContextIdPool::Round::probe || pool_->has_priority(priority_key_)) {
        reservation_ = pool_->reserve_window(window_, round_kind_);
        holds_reservation_ = true;
        if (solo) reservation_.held_back = false;
      } else {
        reservation_ = ContextIdPool::Contribution{};  // an agreement with a lower key goes first
        reservation_.held_back = true;
      }
      // Held back: no later window helps either; go straight to a retry.
      record_[kNextWindowWord] = holds_reservation_ && round_kind_ == ContextIdPool::Round::full
                                     ? pool_->next_window_with_free(window_)
                                     : ContextIdPool::kNoWindow;
      record_[kFlagsWord] = reservation_.held_back ? kFlagHeldBack : 0;
      std::copy(reservation_.mask.begin(), reservation_.mask.end(), record_.begin() + kMaskWord);
    } else {
      std::fill(record_.begin() + kMaskWord, record_.begin() + kSlotWord, ~0ull);
    }
    if (s_.kind == Creation::split)
      record_[kSlotWord + static_cast<std::size_t>(s_.my_index)] = pack_color_key(s_.color, s_.key);
    child_records_.assign(tree_.children.size(), std::vector<std::uint64_t>(words_));
    child_recvs_.assign(tree_.children.size(), nullptr);
    for (std::size_t c = 0; c < tree_.children.size(); ++c)
      FABMPI_TRY(post_recv(tree_.children[c], &child_records_[c], &child_recvs_[c]));
    phase_ = Phase::reduce;
    return Rc();
  }

  Rc finish_reduce() {
    for (std::size_t c = 0; c < child_recvs_.size(); ++c) {
      FABMPI_TRY(check_received(*child_recvs_[c], tree_.children[c]));
      combine(record_, child_records_[c]);
    }
    child_recvs_.clear();
    if (tree_.parent < 0 && s_.bridge) {
      FABMPI_TRY(post_bridge());
      phase_ = Phase::bridge;
      return Rc();
    }
    if (tree_.parent < 0) {
      result_record_ = record_;
      FABMPI_TRY(send_to_children());
      phase_ = Phase::settle;
      return Rc();
    }
    FABMPI_TRY(post_send(tree_.parent, record_));
    result_record_.assign(words_, 0);
    FABMPI_TRY(post_recv(tree_.parent, &result_record_, &parent_recv_));
    phase_ = Phase::broadcast;
    return Rc();
  }

  // The root's record goes to the other group's root and theirs comes back; both combine the two, so
  // both groups see the same record.
  Rc post_bridge() {
    std::erase_if(sends_, [](const InFlightSend& s) { return s.request->is_complete(); });
    auto buffer = std::make_shared<std::vector<std::uint64_t>>(record_);
    RequestRef request;
    pt2pt::Engine& pt2pt = runtime_.pt2pt();
    FABMPI_TRY(pt2pt.isend(buffer->data(), buffer->size() * sizeof(std::uint64_t), bytes_, s_.bridge_peer,
                           s_.bridge_tag, s_.bridge, pt2pt::Channel::collective, pt2pt::SendMode::standard,
                           &request));
    sends_.push_back({std::move(request), std::move(buffer)});
    bridge_record_.assign(words_, 0);
    return pt2pt.irecv(bridge_record_.data(), words_ * sizeof(std::uint64_t), bytes_, s_.bridge_peer, s_.bridge_tag,
                       s_.bridge, pt2pt::Channel::collective, &bridge_recv_);
  }

  Rc finish_bridge() {
    if (bridge_recv_->error != MPI_SUCCESS)
      return fail(bridge_recv_->error, "intercommunicator creation: receive from the remote leader failed");
    if (bridge_recv_->count_bytes != words_ * sizeof(std::uint64_t))
      return fail(MPI_ERR_INTERN, "intercommunicator creation: the remote leader sent %zu bytes, expected %zu",
                  bridge_recv_->count_bytes, words_ * sizeof(std::uint64_t));
    bridge_recv_.reset();
    combine(record_, bridge_record_);
    result_record_ = record_;
    FABMPI_TRY(send_to_children());
    phase_ = Phase::settle;
    return Rc();
  }

  Rc finish_broadcast() {
    FABMPI_TRY(check_received(*parent_recv_, tree_.parent));
    parent_recv_.reset();
    FABMPI_TRY(send_to_children());
    phase_ = Phase::settle;
    return Rc();
  }

  // Every member sees the same combined record, so every member takes the same decision.
  Rc settle_round(bool* yield) {
    ContextIdPool::WindowMask common;
    std::copy(result_record_.begin() + kMaskWord, result_record_.begin() + kSlotWord, common.begin());
    const AgreementOutcome outcome =
        decide_context_id(window_, common, static_cast<std::uint32_t>(result_record_[kNextWindowWord]),
                          (result_record_[kFlagsWord] & kFlagHeldBack) != 0, round_kind_);
    if (outcome.kind == AgreementOutcome::Kind::agreed && s_.wants_id) pool_->claim(outcome.value);
    release_reservation();
    ++rounds_;
    // Every member has now taken part: from here on this agreement is ordered by its key.
    if (outcome.kind != AgreementOutcome::Kind::agreed && s_.wants_id && !in_agreement_) {
      pool_->begin_agreement(priority_key_);
      in_agreement_ = true;
    }
    switch (outcome.kind) {
      case AgreementOutcome::Kind::agreed:
        FABMPI_TRY(build(outcome.value));
        phase_ = Phase::drain;
        return Rc();
      case AgreementOutcome::Kind::next_window:
        window_ = outcome.value;
        phase_ = Phase::contribute;
        return Rc();
      case AgreementOutcome::Kind::retry:
        if (round_kind_ == ContextIdPool::Round::probe) {  // nothing common in the probe: a full round, at once
          window_ = 0;
          phase_ = Phase::contribute;
          return Rc();
        }
        // Ids held by another agreement in flight here or at a peer: let it progress, then start over.
        if (++retries_ % 1000 == 1)
          FABMPI_LOG(debug, runtime, "context id agreement retry %d (ids held by a concurrent creation)", retries_);
        window_ = 0;
        phase_ = Phase::contribute;
        *yield = true;
        return Rc();
      case AgreementOutcome::Kind::exhausted: break;
    }
    return fail(MPI_ERR_INTERN, "no context id is free on every member of the new communicator (%u in use here)",
                static_cast<unsigned>(pool_->in_use_count()));
  }

  Rc build(std::uint32_t id) {
    if (!s_.wants_id) return Rc();
    const Comm& parent = *s_.parent;
    GroupRef group;
    int rank = 0;
    switch (s_.kind) {
      case Creation::dup:
        group = parent.group();
        rank = parent.rank();
        break;
      case Creation::split: {
        std::vector<std::uint64_t> slots(result_record_.begin() + kSlotWord, result_record_.end());
        const std::vector<int> members = split_members(slots, s_.color);
        std::vector<int> world_ranks;
        world_ranks.reserve(members.size());
        for (std::size_t i = 0; i < members.size(); ++i) {
          world_ranks.push_back(parent.world_rank(members[i]));
          if (members[i] == parent.rank()) rank = static_cast<int>(i);
        }
        group = std::make_shared<const Group>(std::move(world_ranks));
        break;
      }
      case Creation::create:
      case Creation::inter:
        group = s_.group;
        rank = group->rank_of_world(runtime_.world_rank());
        break;
    }
    auto comm = std::make_shared<Comm>(runtime_, id, std::move(group), rank);
    comm->set_context_id_pool(pool_);
    if (s_.kind == Creation::inter) comm->make_inter(s_.remote_group, s_.local_comm);
    comm->errhandler = parent.errhandler;
    result_ = std::move(comm);
    FABMPI_LOG(debug, runtime, "new communicator: context id %u, rank %d of %d", id, rank, result_->size());
    return Rc();
  }

  void finish(Rc rc) {
    release_reservation();
    if (in_agreement_) {
      in_agreement_ = false;
      pool_->end_agreement(priority_key_);
    }
    phase_ = Phase::done;
    if (rc.ok() && on_complete) rc = on_complete(result_);
    error = rc.code();
    if (registered_) {
      registered_ = false;
      runtime_.remove_progress_source(this);
    }
    mark_complete();
  }

  void release_reservation() {
    if (!holds_reservation_) return;
    pool_->unreserve(window_, reservation_.mask, round_kind_);  // held only within its round
    holds_reservation_ = false;
  }

  Rc send_to_children() {
    for (int child : tree_.children) FABMPI_TRY(post_send(child, result_record_));
    return Rc();
  }

  Rc post_send(int peer_index, const std::vector<std::uint64_t>& record) {
    // Sends of finished phases may still be in flight: each owns a copy of what it sends.
    std::erase_if(sends_, [](const InFlightSend& s) { return s.request->is_complete(); });
    auto buffer = std::make_shared<std::vector<std::uint64_t>>(record);
    RequestRef request;
    FABMPI_TRY(runtime_.pt2pt().isend(buffer->data(), buffer->size() * sizeof(std::uint64_t), bytes_,
                                      s_.participants[static_cast<std::size_t>(peer_index)], s_.tag, s_.parent,
                                      pt2pt::Channel::collective, pt2pt::SendMode::standard, &request));
    sends_.push_back({std::move(request), std::move(buffer)});
    return Rc();
  }

  Rc post_recv(int peer_index, std::vector<std::uint64_t>* into, RequestRef* out) {
    return runtime_.pt2pt().irecv(into->data(), into->size() * sizeof(std::uint64_t), bytes_,
                                  s_.participants[static_cast<std::size_t>(peer_index)], s_.tag, s_.parent,
                                  pt2pt::Channel::collective, out);
  }

  Rc check_received(const Request& r, int peer_index) const {
    const int peer = s_.participants[static_cast<std::size_t>(peer_index)];
    if (r.error != MPI_SUCCESS)
      return fail(r.error, "communicator creation: receive from rank %d failed", peer);
    if (r.count_bytes != words_ * sizeof(std::uint64_t))
      return fail(MPI_ERR_INTERN,
                  "communicator creation: rank %d sent %zu bytes, expected %zu (mismatched creation calls?)", peer,
                  r.count_bytes, words_ * sizeof(std::uint64_t));
    return Rc();
  }

  struct InFlightSend {
    RequestRef request;
    std::shared_ptr<std::vector<std::uint64_t>> buffer;
  };

  Setup s_;
  Runtime& runtime_;
  std::shared_ptr<ContextIdPool> pool_;
  TreePeers tree_;
  DatatypeRef bytes_;
  std::size_t words_;
  Phase phase_ = Phase::contribute;
  std::uint32_t window_ = 0;
  ContextIdPool::Contribution reservation_;
  bool holds_reservation_ = false;
  ContextIdPool::Round round_kind_ = ContextIdPool::Round::probe;
  int rounds_ = 0;  // settled so far
  std::vector<std::uint64_t> record_;
  std::vector<std::uint64_t> result_record_;
  std::vector<std::vector<std::uint64_t>> child_records_;
  std::vector<RequestRef> child_recvs_;
  RequestRef parent_recv_;
  std::vector<std::uint64_t> bridge_record_;
  RequestRef bridge_recv_;
  std::vector<InFlightSend> sends_;
  CommRef result_;
  std::uint64_t priority_key_;
  bool in_agreement_ = false;
  bool registered_ = false;
  bool in_progress_ = false;
  int retries_ = 0;
};

// Everyone in the parent takes part, in parent rank order.
Setup parent_wide(Creation kind, const CommRef& parent) {
  Setup s;
  s.kind = kind;
  s.parent = parent;
  s.participants.resize(static_cast<std::size_t>(parent->size()));
  for (int r = 0; r < parent->size(); ++r) s.participants[static_cast<std::size_t>(r)] = r;
  s.my_index = parent->rank();
  s.tag = kTagParentCollective | static_cast<int>(parent->next_creation_sequence() & kTagLowMask);
  return s;
}

Rc run_blocking(Setup setup, CommRef* out) {
  Runtime& runtime = setup.parent->runtime();
  auto op = std::make_shared<CreationOp>(std::move(setup));
  op->begin();
  runtime.wait(*op);
  if (op->error != MPI_SUCCESS) return Rc(op->error);
  *out = op->result();
  return Rc();
}

}  // namespace

Rc dup(const CommRef& parent, CommRef* out) { return run_blocking(parent_wide(Creation::dup, parent), out); }

Rc split(const CommRef& parent, int color, int key, CommRef* out) {
  Setup s = parent_wide(Creation::split, parent);
  s.color = color;
  s.key = key;
  s.wants_id = color != MPI_UNDEFINED;
  return run_blocking(std::move(s), out);
}

Rc create(const CommRef& parent, const GroupRef& group, CommRef* out) {
  Setup s = parent_wide(Creation::create, parent);
  s.group = group;
  s.wants_id = group->rank_of_world(parent->runtime().world_rank()) != MPI_UNDEFINED;
  return run_blocking(std::move(s), out);
}

Rc create_group(const CommRef& parent, const GroupRef& group, int tag, CommRef* out) {
  Setup s;
  s.kind = Creation::create;
  s.parent = parent;
  s.group = group;
  s.my_index = group->rank_of_world(parent->runtime().world_rank());
  if (s.my_index == MPI_UNDEFINED) {
    *out = nullptr;
    return Rc();
  }
  std::vector<int> group_ranks(static_cast<std::size_t>(group->size()));
  for (int r = 0; r < group->size(); ++r) group_ranks[static_cast<std::size_t>(r)] = r;
  s.participants.resize(group_ranks.size());
  FABMPI_TRY(group_ops::translate_ranks(*group, group_ranks, *parent->group(), s.participants));
  if (std::find(s.participants.begin(), s.participants.end(), MPI_UNDEFINED) != s.participants.end())
    return fail(MPI_ERR_GROUP, "the group is not a subset of the communicator's group");
  s.tag = kTagCreateGroup | (tag & kTagUserMask);
  return run_blocking(std::move(s), out);
}

namespace {

Setup bridged_setup(const BridgedAgreement& a) {
  Setup s = parent_wide(a.merge ? Creation::create : Creation::inter, a.local);
  // The tree is rooted at the bridging process: rotate the participants so that it is index 0.
  const int n = a.local->size();
  for (int i = 0; i < n; ++i) s.participants[static_cast<std::size_t>(i)] = (i + a.root) % n;
  s.my_index = (a.local->rank() - a.root + n) % n;
  s.group = a.group;
  s.bridge = a.bridge;
  s.bridge_peer = a.bridge_peer;
  s.bridge_tag = a.bridge_tag;
  s.priority_key = a.priority_key;
  s.remote_group = a.remote_group;
  s.local_comm = a.local_comm;
  return s;
}

Setup nonblocking(Setup s) {
  s.nonblocking = true;
  return s;
}

// MPI_Comm_idup of an intercommunicator as one request: the companion dup of the local group, then the
// bridged agreement over it. Both setups (and so both creation tags) are made when the call is made.
class BridgedDup final : public Request, public ProgressSource {
 public:
  BridgedDup(const BridgedAgreement& a, CompletionFn on_complete)
      : Request(Kind::collective),
        runtime_(a.local->runtime()),
        bridge_(a.bridge),
        companion_(std::make_shared<CreationOp>(nonblocking(parent_wide(Creation::dup, a.local)))),
        agreement_(nonblocking(bridged_setup(a))),
        on_complete_(std::move(on_complete)) {}

  ~BridgedDup() override {
    if (registered_) runtime_.remove_progress_source(this);
  }

  CommRef communicator() const override { return bridge_; }

  void begin() {
    registered_ = true;
    runtime_.add_progress_source(this);
    companion_->begin();
    progress();
  }

  int progress() override {
    if (is_complete()) return 0;
    if (!second_) {
      if (!companion_->is_complete()) return 0;
      if (companion_->error != MPI_SUCCESS) return finish(companion_->error), 1;
      agreement_.local_comm = companion_->result();
      second_ = std::make_shared<CreationOp>(std::move(agreement_));
      second_->on_complete = std::move(on_complete_);
      second_->begin();
    }
    if (!second_->is_complete()) return 0;
    finish(second_->error);
    return 1;
  }

 private:
  void finish(int code) {
    error = code;
    registered_ = false;
    runtime_.remove_progress_source(this);
    mark_complete();
  }

  Runtime& runtime_;
  CommRef bridge_;
  std::shared_ptr<CreationOp> companion_;
  Setup agreement_;
  CompletionFn on_complete_;
  std::shared_ptr<CreationOp> second_;
  bool registered_ = false;
};

}  // namespace

Rc agree_bridged(const BridgedAgreement& a, CommRef* out) { return run_blocking(bridged_setup(a), out); }

Rc start_bridged_dup(const BridgedAgreement& a, CompletionFn on_complete, RequestRef* out) {
  auto op = std::make_shared<BridgedDup>(a, std::move(on_complete));
  op->begin();
  *out = op;
  return Rc();
}

Rc start_dup(const CommRef& parent, CompletionFn on_complete, RequestRef* out) {
  Setup s = parent_wide(Creation::dup, parent);
  s.nonblocking = true;
  auto op = std::make_shared<CreationOp>(std::move(s));
  op->on_complete = std::move(on_complete);
  op->begin();
  *out = op;
  return Rc();
}

}  // namespace fabmpi::comm_create
