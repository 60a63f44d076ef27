// MPI-4 partitioned point-to-point (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived) over the
// engine's ordinary messages, on two channels of their own (pt2pt/engine.hpp Channel):
//
//  - setup: MPI_Psend_init sends {its data-channel tag, partitions, total bytes} at once, under the user's
//    tag on Channel::partitioned; MPI_Precv_init posts the matching receive. Both queues are FIFO per
//    (communicator, peer, tag), so the k-th Psend_init to a peer meets the k-th Precv_init from it, which
//    is MPI's "matched in the order of the initialization calls".
//  - ready: each round, once the receiver is started and has the setup, it posts one receive per sender
//    partition and tells the sender the tag of the first (Channel::partitioned_data, under the sender's
//    tag). Nothing is sent into the receive buffer before its round has started.
//  - data: each sender partition goes as one message once it is marked ready and the round's ready
//    message has arrived (tag: the receiver's first tag + partition index).
// Data-channel tags are allocated by the process that receives under them, so they never collide.
//
// Sender and receiver may partition differently; receive partition k has arrived when every sender
// partition overlapping it (in units of the whole message, so zero-byte partitions map by index too)
// has. Receive types that are not contiguous, or a sender whose total differs from the receiver's
// (MPI_ERR_TRUNCATE when larger), go through a packed copy unpacked partition by partition.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/request.hpp"

namespace fabmpi::pt2pt {

class PartitionedRequest final : public Request, public std::enable_shared_from_this<PartitionedRequest> {
 public:
  struct Args {
    void* buf = nullptr;
    int partitions = 1;
    std::size_t count = 0;  // elements per partition
    DatatypeRef type;
    int peer = MPI_PROC_NULL;  // a rank of comm (the remote group's on an intercommunicator)
    int tag = 0;
    CommRef comm;
    bool is_send = true;
  };

  // Sends (MPI_Psend_init) or posts the receive of (MPI_Precv_init) the setup message. Arguments are
  // checked by the caller.
  static Rc create(Args args, std::shared_ptr<PartitionedRequest>* out);
  ~PartitionedRequest() override;

  Rc start() override;
  bool is_active() const noexcept override { return active_; }
  void deactivate() noexcept override { active_ = false; }
  CommRef communicator() const override { return args_.comm; }

  bool is_send() const noexcept { return args_.is_send; }
  int partitions() const noexcept { return args_.partitions; }
  // MPI_Pready for one send partition (checked: active, in range, not yet ready this round).
  Rc mark_ready(int partition);
  // MPI_Parrived: whether receive partition `partition` is in the buffer (true on an inactive request).
  Rc arrived(int partition, bool* flag);

  // Moves the protocol on (called by the tracker's progress pass). Returns the events it handled; *busy
  // says whether the request still needs progress (a round in flight or one of its messages unsent).
  int advance(bool* busy);
  void describe(std::vector<std::string>* lines) const;

 private:
  struct Setup {
    std::int32_t data_tag = 0;     // the sender's data-channel tag (its ready message comes under it)
    std::int32_t partitions = 0;
    std::uint64_t total_bytes = 0;
  };
  struct Ready {
    std::int32_t first_tag = 0;  // the receiver's tag for sender partition 0
    std::int32_t pad = 0;
  };

  explicit PartitionedRequest(Args args);
  std::size_t partition_bytes() const noexcept { return args_.count * args_.type->size(); }
  std::size_t total_bytes() const noexcept { return partition_bytes() * static_cast<std::size_t>(args_.partitions); }
  bool proc_null() const noexcept { return args_.peer == MPI_PROC_NULL; }

  // Sender
  Rc send_partition(int partition);
  int advance_send();
  // Receiver
  Rc post_round();  // once the setup is here: the receives of one round and the ready message
  int advance_recv();
  bool sender_partitions_done(int receive_partition);
  void unpack_partition(int receive_partition);
  void finish_round(int error);

  Args args_;
  bool active_ = false;
  // Both sides
  std::int32_t my_tag_ = -1;     // sender: one tag; receiver: the first of `sender partitions` tags (-1: none yet)
  RequestRef setup_request_;     // the setup send (sender) or receive (receiver)
  Setup setup_{};                // sent (sender) or received (receiver)
  // Sender, per round
  RequestRef ready_request_;
  Ready ready_{};
  std::vector<bool> marked_;     // MPI_Pready seen
  std::vector<RequestRef> data_sends_;
  std::vector<std::vector<unsigned char>> packed_;  // per partition, for non-contiguous types
  // Receiver
  bool round_posted_ = false;
  RequestRef ready_send_;
  std::vector<RequestRef> data_recvs_;  // one per sender partition
  std::vector<unsigned char> staging_;  // packed copy (non-contiguous type or size mismatch)
  std::vector<bool> unpacked_;          // receive partitions copied out of staging_
};

}  // namespace fabmpi::pt2pt
