// MPI-4 partitioned point-to-point: the protocol of pt2pt/partitioned.hpp.
#include "pt2pt/partitioned.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "pt2pt/engine.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::pt2pt {
namespace {

// Tags this process receives under on Channel::partitioned_data (a sender's ready message, a receiver's
// partitions). Wraps after 2^31: operations that old are long finished.
std::int32_t allocate_tags(int n) {
  static std::int32_t next = 0;
  if (next > INT_MAX - n) next = 0;
  const std::int32_t first = next;
  next += n;
  return first;
}

// Keeps the partitioned requests that need progress alive and moving: a round in flight, or a message
// of theirs not yet sent (its buffer lives in the request, which the user may free meanwhile).
class PartitionedTracker final : public ProgressSource {
 public:
  explicit PartitionedTracker(Runtime& runtime) : runtime_(runtime) {}
  void add(std::shared_ptr<PartitionedRequest> request) {
    if (std::find(busy_.begin(), busy_.end(), request) != busy_.end()) return;
    if (busy_.empty()) runtime_.add_progress_source(this);
    busy_.push_back(std::move(request));
  }
  int progress() override {
    int events = 0;
    for (std::size_t i = 0; i < busy_.size();) {
      bool busy = false;
      events += busy_[i]->advance(&busy);
      if (busy) {
        ++i;
        continue;
      }
      busy_[i] = std::move(busy_.back());
      busy_.pop_back();
    }
    // Leaving the runtime's list while it iterates only skips the next source for this one pass.
    if (busy_.empty()) runtime_.remove_progress_source(this);
    return events;
  }
  void describe_waiting(std::vector<std::string>* lines) const override {
    for (const auto& r : busy_) r->describe(lines);
  }

 private:
  Runtime& runtime_;
  std::vector<std::shared_ptr<PartitionedRequest>> busy_;
};

PartitionedTracker& tracker_of(Runtime& runtime) {
  if (!runtime.partitioned) runtime.partitioned = std::make_unique<PartitionedTracker>(runtime);
  return static_cast<PartitionedTracker&>(*runtime.partitioned);
}

bool done(const RequestRef& r) { return !r || r->is_complete(); }

const DatatypeRef& bytes_type() {
  static const DatatypeRef type = builtin_datatype(MPI_BYTE);
  return type;
}

}  // namespace

PartitionedRequest::PartitionedRequest(Args args)
    : Request(args.is_send ? Kind::persistent_send : Kind::persistent_recv), args_(std::move(args)) {}

PartitionedRequest::~PartitionedRequest() {
  // A receive freed before its sender's setup arrived: take the posted setup receive back (its buffer is
  // ours). After MPI_Finalize the engine is gone and nothing can arrive any more.
  if (!args_.is_send && setup_request_ && !setup_request_->is_complete() && !args_.comm->runtime().finalized())
    args_.comm->runtime().pt2pt().cancel(*setup_request_);
}

Rc PartitionedRequest::create(Args args, std::shared_ptr<PartitionedRequest>* out) {
  std::shared_ptr<PartitionedRequest> r(new PartitionedRequest(std::move(args)));
  if (!r->proc_null()) {
    Engine& engine = r->args_.comm->runtime().pt2pt();
    if (r->args_.is_send) {
      r->my_tag_ = allocate_tags(1);
      r->setup_ = Setup{r->my_tag_, r->args_.partitions, r->total_bytes()};
      FABMPI_TRY(engine.isend(&r->setup_, sizeof(Setup), bytes_type(), r->args_.peer, r->args_.tag, r->args_.comm,
                              Channel::partitioned, SendMode::standard, &r->setup_request_));
      if (!r->setup_request_->is_complete()) tracker_of(r->args_.comm->runtime()).add(r);
    } else {
      FABMPI_TRY(engine.irecv(&r->setup_, sizeof(Setup), bytes_type(), r->args_.peer, r->args_.tag, r->args_.comm,
                              Channel::partitioned, &r->setup_request_));
    }
  }
  *out = std::move(r);
  return Rc();
}

Rc PartitionedRequest::start() {
  if (active_) return fail(MPI_ERR_REQUEST, "MPI_Start on a partitioned request that is already active");
  reset_for_restart();
  active_ = true;
  source = MPI_ANY_SOURCE;
  tag = MPI_ANY_TAG;
  count_bytes = 0;
  if (proc_null()) {
    source = MPI_PROC_NULL;
    mark_complete();
    return Rc();
  }
  const auto n = static_cast<std::size_t>(args_.partitions);
  if (args_.is_send) {
    marked_.assign(n, false);
    data_sends_.assign(n, nullptr);
    if (!args_.type->is_contiguous()) packed_.resize(n);
    FABMPI_TRY(args_.comm->runtime().pt2pt().irecv(&ready_, sizeof(Ready), bytes_type(), args_.peer, my_tag_,
                                                   args_.comm, Channel::partitioned_data, &ready_request_));
  } else {
    round_posted_ = false;
    unpacked_.assign(n, false);
    data_recvs_.clear();
  }
  tracker_of(args_.comm->runtime()).add(shared_from_this());
  bool busy = false;
  (void)advance(&busy);  // a receiver whose setup is here posts its round at once
  return Rc();
}

Rc PartitionedRequest::mark_ready(int partition) {
  if (!args_.is_send) return fail(MPI_ERR_REQUEST, "MPI_Pready on a partitioned receive request");
  if (!active_) return fail(MPI_ERR_REQUEST, "MPI_Pready on an inactive partitioned request (call MPI_Start first)");
  if (partition < 0 || partition >= args_.partitions)
    return fail(MPI_ERR_ARG, "partition %d out of range (the request has %d partitions)", partition, args_.partitions);
  if (proc_null()) return Rc();
  const auto p = static_cast<std::size_t>(partition);
  if (marked_[p]) return fail(MPI_ERR_ARG, "partition %d was already marked ready in this round", partition);
  marked_[p] = true;
  if (ready_request_ && ready_request_->is_complete()) return send_partition(partition);
  return Rc();
}

Rc PartitionedRequest::send_partition(int partition) {
  const auto p = static_cast<std::size_t>(partition);
  const std::size_t bytes = partition_bytes();
  const void* from = nullptr;
  if (bytes > 0) {
    if (args_.type->is_contiguous()) {
      from = static_cast<const char*>(args_.buf) + args_.type->true_lb() + p * bytes;
    } else {
      packed_[p].resize(bytes);
      args_.type->pack(args_.buf, args_.count * static_cast<std::size_t>(args_.partitions), p * bytes, packed_[p].data(),
                       bytes);
      from = packed_[p].data();
    }
  }
  return args_.comm->runtime().pt2pt().isend(from, bytes, bytes_type(), args_.peer, ready_.first_tag + partition,
                                             args_.comm, Channel::partitioned_data, SendMode::standard,
                                             &data_sends_[p]);
}

int PartitionedRequest::advance_send() {
  if (!ready_request_ || !ready_request_->is_complete()) return 0;
  int events = 0;
  bool all_sent = true;
  for (int i = 0; i < args_.partitions; ++i) {
    const auto p = static_cast<std::size_t>(i);
    if (marked_[p] && !data_sends_[p]) {
      Rc rc = send_partition(i);
      ++events;
      if (!rc.ok()) {
        error = rc.code();
        data_sends_[p] = std::make_shared<Request>(Kind::send);  // counted as done, the error kept
        data_sends_[p]->mark_complete();
      }
    }
    if (!data_sends_[p] || !data_sends_[p]->is_complete()) {
      all_sent = false;
    } else if (data_sends_[p]->error != MPI_SUCCESS && error == MPI_SUCCESS) {
      error = data_sends_[p]->error;
    }
  }
  if (all_sent && !is_complete()) {
    source = args_.peer;
    tag = args_.tag;
    count_bytes = total_bytes();
    ready_request_.reset();
    data_sends_.assign(data_sends_.size(), nullptr);
    mark_complete();
    ++events;
  }
  return events;
}

Rc PartitionedRequest::post_round() {
  Engine& engine = args_.comm->runtime().pt2pt();
  const int senders = setup_.partitions;
  if (senders <= 0) return fail(MPI_ERR_INTERN, "partitioned setup from rank %d names %d partitions", args_.peer, senders);
  if (my_tag_ < 0) my_tag_ = allocate_tags(senders);  // once: rounds reuse them (one round at a time)
  const std::size_t sender_total = setup_.total_bytes;
  const std::size_t sender_part = sender_total / static_cast<std::size_t>(senders);
  // Straight into the buffer when it is contiguous and the totals agree; else through a packed copy.
  const bool direct = args_.type->is_contiguous() && sender_total == total_bytes();
  if (!direct) staging_.resize(sender_total);
  data_recvs_.assign(static_cast<std::size_t>(senders), nullptr);
  for (int j = 0; j < senders; ++j) {
    const std::size_t offset = static_cast<std::size_t>(j) * sender_part;
    void* into = direct ? static_cast<char*>(args_.buf) + args_.type->true_lb() + offset
                        : static_cast<void*>(staging_.data() + offset);
    FABMPI_TRY(engine.irecv(sender_part ? into : nullptr, sender_part, bytes_type(), args_.peer, my_tag_ + j,
                            args_.comm, Channel::partitioned_data, &data_recvs_[static_cast<std::size_t>(j)]));
  }
  ready_ = Ready{my_tag_, 0};
  FABMPI_TRY(engine.isend(&ready_, sizeof(Ready), bytes_type(), args_.peer, setup_.data_tag, args_.comm,
                          Channel::partitioned_data, SendMode::standard, &ready_send_));
  round_posted_ = true;
  return Rc();
}

bool PartitionedRequest::sender_partitions_done(int k) {
  // Sender partitions overlapping receive partition k, in units of the whole message: [k/R, (k+1)/R)
  // meets [j/S, (j+1)/S) for floor(kS/R) <= j < ceil((k+1)S/R).
  const auto senders = static_cast<std::uint64_t>(setup_.partitions);
  const auto receivers = static_cast<std::uint64_t>(args_.partitions);
  const auto kk = static_cast<std::uint64_t>(k);
  const std::uint64_t lo = kk * senders / receivers;
  const std::uint64_t hi = ((kk + 1) * senders + receivers - 1) / receivers;  // exclusive
  for (std::uint64_t j = lo; j < hi && j < senders; ++j)
    if (!done(data_recvs_[j])) return false;
  return true;
}

void PartitionedRequest::unpack_partition(int k) {
  const auto p = static_cast<std::size_t>(k);
  if (staging_.empty() || unpacked_[p]) return;
  unpacked_[p] = true;
  const std::size_t bytes = partition_bytes();
  const std::size_t begin = p * bytes;
  if (begin >= staging_.size()) return;
  const std::size_t n = std::min(bytes, staging_.size() - begin);
  args_.type->unpack(staging_.data() + begin, n, begin, args_.buf, args_.count * static_cast<std::size_t>(args_.partitions));
}

int PartitionedRequest::advance_recv() {
  int events = 0;
  if (!round_posted_) {
    if (!setup_request_ || !setup_request_->is_complete()) return 0;
    if (setup_request_->error != MPI_SUCCESS) {
      finish_round(setup_request_->error);
      return 1;
    }
    Rc rc = post_round();
    ++events;
    if (!rc.ok()) {
      finish_round(rc.code());
      return events;
    }
  }
  if (is_complete()) return events;
  for (const RequestRef& r : data_recvs_)
    if (!done(r)) return events;
  if (!done(ready_send_)) return events;
  int err = MPI_SUCCESS;
  for (const RequestRef& r : data_recvs_)
    if (r->error != MPI_SUCCESS) err = r->error;
  if (err == MPI_SUCCESS && setup_.total_bytes > total_bytes()) err = MPI_ERR_TRUNCATE;
  finish_round(err);
  return events + 1;
}

void PartitionedRequest::finish_round(int err) {
  for (int k = 0; k < args_.partitions; ++k) unpack_partition(k);
  source = args_.peer;
  tag = args_.tag;
  count_bytes = std::min<std::size_t>(setup_.total_bytes, total_bytes());
  error = err;
  data_recvs_.clear();
  ready_send_.reset();
  round_posted_ = false;
  mark_complete();
}

Rc PartitionedRequest::arrived(int partition, bool* flag) {
  if (args_.is_send) return fail(MPI_ERR_REQUEST, "MPI_Parrived on a partitioned send request");
  if (partition < 0 || partition >= args_.partitions)
    return fail(MPI_ERR_ARG, "partition %d out of range (the request has %d partitions)", partition, args_.partitions);
  // An inactive request (never started, or its round completed) gives true, as MPI_Test does (MPI-4.1
  // section 5.2.2; MPI-4.0 left it open and MPICH 4.0 refuses it).
  if (!active_ || is_complete()) {
    *flag = true;
    return Rc();
  }
  args_.comm->runtime().progress();
  if (is_complete()) {
    *flag = true;
    return Rc();
  }
  *flag = round_posted_ && sender_partitions_done(partition);
  if (*flag) unpack_partition(partition);
  return Rc();
}

int PartitionedRequest::advance(bool* busy) {
  int events = 0;
  if (active_ && !is_complete()) events = args_.is_send ? advance_send() : advance_recv();
  const bool round_open = active_ && !is_complete();
  const bool sending = args_.is_send ? !done(setup_request_) : !done(ready_send_);
  *busy = round_open || sending;
  return events;
}

void PartitionedRequest::describe(std::vector<std::string>* lines) const {
  if (!active_ || is_complete()) return;
  std::string text = std::string("partitioned ") + (args_.is_send ? "send to" : "receive from") + " rank " +
                     std::to_string(args_.peer) + " tag " + std::to_string(args_.tag) + " (" +
                     std::to_string(args_.partitions) + " partitions): ";
  if (args_.is_send) {
    const auto ready = static_cast<int>(std::count(marked_.begin(), marked_.end(), true));
    text += std::to_string(ready) + " marked ready; " +
            (ready_request_ && ready_request_->is_complete() ? "the receiver has started its round"
                                                            : "waiting for the receiver to start its round");
  } else if (!round_posted_) {
    text += "waiting for the sender's MPI_Psend_init";
  } else {
    const auto arrived = std::count_if(data_recvs_.begin(), data_recvs_.end(), [](const RequestRef& r) { return done(r); });
    text += std::to_string(arrived) + " of " + std::to_string(data_recvs_.size()) + " sender partitions arrived";
  }
  lines->push_back(text);
}

}  // namespace fabmpi::pt2pt
