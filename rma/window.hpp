// One-sided communication (MPI-3.1 chapter 11) over the point-to-point engine.
//
// A Window owns a private duplicate of its communicator. Every RMA operation is a header message to the
// target on that communicator's user channel (tag kHeaderTag; private, so no user message can match),
// followed by its data on a tag of its own; the target serves headers from its progress source, in the
// order each origin sent them, whenever it is inside any MPI call (fabmpi has no progress thread, as
// MPICH and Open MPI by default: a target computing outside MPI delays passive-target epochs).
//
//   put             header + data; the target receives the data straight into its window memory with
//                   the target layout (a byte-block datatype rebuilt from the header).
//   get             header; the target sends from its memory with the target layout.
//   accumulate      header + packed data; the target applies the predefined op element-wise to its memory
//   get_accumulate  (packed through the target layout) in one step of its progress, which makes every
//   fetch_and_op    accumulate atomic with respect to the others; the old contents go back first for the
//   compare_and_swap fetching forms.
//   lock / unlock / flush   the target queues lock requests (exclusive or shared) and grants them in
//                   order; unlock and flush carry how many operations this origin has sent so far, and
//                   the target answers once it has completed that many.
//   fence           the ranks sum, per target, how many operations were sent to it (reduce_scatter of
//                   running totals), each waits until its own count is done, then a barrier.
// Sizes and displacement units of every member are exchanged at creation, so the origin checks ranges
// (MPI_ERR_RMA_RANGE) and sends byte displacements.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/errhandler.hpp"
#include "runtime/op.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::rma {

class Window final : public ProgressSource {
 public:
  // How the memory comes: given (MPI_Win_create), allocated here (MPI_Win_allocate, 64-byte aligned), or
  // one shared-memory segment for all members, each part 64-byte aligned, in rank order
  // (MPI_Win_allocate_shared: every member on one node, else MPI_ERR_RMA_SHARED).
  // dynamic (MPI_Win_create_dynamic): no memory at creation; MPI_Win_attach adds regions, and target
  // displacements are addresses (MPI_Get_address on the target).
  enum class Memory { given, allocated, shared, dynamic };
  static Rc create(const CommRef& comm, void* base, MPI_Aint size, int disp_unit, Memory memory,
                   std::shared_ptr<Window>* out);
  // MPI_Win_shared_query: rank's part of a shared window (MPI_PROC_NULL: the first non-empty part).
  Rc shared_query(int rank, MPI_Aint* size, int* disp_unit, void** base) const;
  // MPI_Win_attach / MPI_Win_detach (dynamic windows only). Operations from origins that touch memory
  // outside the attached regions are dropped with a log line (erroneous programs, MPI-3.1 11.2.4).
  Rc attach(void* base, MPI_Aint size);
  Rc detach(const void* base);
  ~Window() override;

  // MPI_Win_free: completes what targets this process, then releases the window (collective).
  Rc free_collective();

  void* base() const noexcept { return base_; }
  MPI_Aint size() const noexcept { return size_; }
  int disp_unit() const noexcept { return disp_unit_; }
  int flavor() const noexcept {
    return memory_ == Memory::dynamic     ? MPI_WIN_FLAVOR_DYNAMIC
           : memory_ == Memory::shared    ? MPI_WIN_FLAVOR_SHARED
           : memory_ == Memory::allocated ? MPI_WIN_FLAVOR_ALLOCATE
                                          : MPI_WIN_FLAVOR_CREATE;
  }
  const GroupRef& group() const noexcept { return comm_->group(); }
  int comm_size() const noexcept { return comm_->size(); }

  // ---- operations (arguments checked by the binding; target_rank may be MPI_PROC_NULL)
  Rc put(const void* origin, int origin_count, const DatatypeRef& origin_type, int target, MPI_Aint target_disp,
         int target_count, const DatatypeRef& target_type);
  Rc get(void* origin, int origin_count, const DatatypeRef& origin_type, int target, MPI_Aint target_disp,
         int target_count, const DatatypeRef& target_type);
  // accumulate: result == nullptr. get_accumulate / fetch_and_op: result receives the old contents.
  Rc accumulate(const void* origin, int origin_count, const DatatypeRef& origin_type, void* result,
                int result_count, const DatatypeRef& result_type, int target, MPI_Aint target_disp,
                int target_count, const DatatypeRef& target_type, const OpRef& op);
  Rc compare_and_swap(const void* origin, const void* compare, void* result, const DatatypeRef& type, int target,
                      MPI_Aint target_disp);

  // Request-based forms (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate): the next operation
  // started after begin_request() also completes the request end_request() returns (local completion;
  // for the fetching forms, the data has arrived). Passive-target epochs only (MPI-3.1 11.3.5).
  Rc begin_request(int target, const char* what);
  RequestRef end_request();

  // ---- synchronization
  Rc fence(int assert_flags);
  // Generalized active target (MPI-3.1 11.5.2): groups as ranks of the window's communicator.
  Rc post(const std::vector<int>& origins);
  Rc start(const std::vector<int>& targets);
  Rc complete();
  Rc wait_exposure();
  Rc test_exposure(bool* done);
  Rc lock(int lock_type, int target, int assert_flags);
  Rc unlock(int target);
  Rc lock_all(int assert_flags);
  Rc unlock_all();
  Rc flush(int target);        // remote completion of this origin's operations at target
  Rc flush_all();
  Rc flush_local(int target);  // local completion (origin buffers reusable)
  Rc flush_local_all();

  int progress() override;
  void describe_waiting(std::vector<std::string>* lines) const override;

  std::string name;
  ErrhandlerRef errhandler;
  // The hints MPI_Win_get_info reports (MPI-3.1 11.2.7): the window keys given at creation or by
  // MPI_Win_set_info over their defaults; other keys are ignored, as MPICH ignores them.
  std::map<std::string, std::string> hints;
  std::map<int, Comm::Attribute> attributes;  // user keyvals (MPI_Win_set_attr), by keyval handle
  int handle = MPI_WIN_NULL;  // set by the binding layer
  // What MPI_Win_get_attr points to (MPI-3.1 11.2.6).
  MPI_Aint size_attribute = 0;
  int disp_unit_attribute = 1;
  int flavor_attribute = MPI_WIN_FLAVOR_CREATE;
  // Separate: window memory is only updated by this process's progress, so local stores and remote
  // accesses need MPI's synchronization between them (what MPI_WIN_SEPARATE promises no more than).
  int model_attribute = MPI_WIN_SEPARATE;

  // Wire format (public for the unit test of its encoding).
  enum class Kind : std::uint8_t { put, get, acc, get_acc, cas, lock, unlock, flush, complete };
  struct Header {
    Kind kind;
    std::uint8_t element;    // ElementType of the accumulate's elements
    std::uint8_t lock_type;  // lock: 0 shared, 1 exclusive
    std::uint8_t pad = 0;
    std::int32_t op;         // MPI_Op of accumulates
    std::int32_t data_tag;   // the operation's data (and reply) messages
    std::uint32_t nblocks;   // target layout: 0 contiguous, else nblocks Blocks follow the header
    std::int64_t disp;       // target byte displacement from the window base
    std::uint64_t count;     // target elements (contiguous: bytes)
    std::int64_t extent;     // target element extent (non-contiguous layouts)
    std::uint64_t bytes;     // packed bytes moved (each direction)
    std::uint64_t ops_sent;  // unlock/flush: operations this origin sent so far
  };

 private:
  Window() = default;

  struct Incoming;
  struct LockQueueEntry {
    int origin;
    bool exclusive;
  };

  struct PendingHeader {
    std::vector<std::byte> buffer;
    RequestRef request;
  };
  struct LockHeld {
    bool exclusive;
    bool nocheck;  // MPI_MODE_NOCHECK: never requested, never granted
  };

  Rc check_epoch(int target, const char* what) const;
  Rc check_range(int target, MPI_Aint target_disp, int target_count, const Datatype& target_type) const;
  Rc send_header(int target, Header h, const Datatype* layout);
  int next_data_tag(int target);
  void track(RequestRef request, std::shared_ptr<std::vector<std::byte>> buffer = nullptr);
  Rc wait_all_local();
  Rc wait_for(const RequestRef& request);
  Rc wait_until(std::function<bool()> condition);
  Rc request_and_wait(int target, Kind kind, int lock_type);
  Rc complete_incoming_and_outgoing();
  void serve_header(int origin, std::vector<std::byte>&& message);
  void apply(Incoming& in);
  void advance_incoming();
  void send_reply(int origin, int tag);
  void try_grant();
  void answer_pending_acks();
  DatatypeRef layout_type(const Header& h, const std::vector<Block>& blocks) const;

  Runtime* runtime_ = nullptr;
  CommRef comm_;  // private duplicate
  void* base_ = nullptr;
  MPI_Aint size_ = 0;
  int disp_unit_ = 1;
  Memory memory_ = Memory::given;
  void* mapping_ = nullptr;  // shared: the whole segment
  std::size_t mapping_bytes_ = 0;
  std::vector<std::size_t> shared_offsets_;  // shared: each member's part in the segment
  std::vector<std::pair<std::uintptr_t, std::size_t>> attached_;  // dynamic: regions (address, bytes)
  std::byte* target_address(const Header& h) const;
  bool attached(std::uintptr_t first, std::uintptr_t last) const;
  Rc map_shared_segment();
  bool freed_ = false;
  bool registered_ = false;
  bool in_progress_ = false;
  std::vector<MPI_Aint> sizes_;      // every member's window size
  std::vector<int> disp_units_;      // and displacement unit

  // origin side
  bool fence_epoch_ = false;
  bool lock_all_ = false;
  bool unlocking_all_ = false;
  std::map<int, LockHeld> locks_;              // passive-target epochs this process holds, by target
  std::vector<std::uint64_t> sent_to_;         // operations sent to each target, ever
  std::vector<std::uint32_t> tag_seq_;         // per target
  struct InFlight {
    RequestRef request;
    std::shared_ptr<std::vector<std::byte>> buffer;  // what a send sends from (headers, packed operands)
  };
  std::vector<InFlight> local_pending_;        // sends and receives of this origin's operations
  std::vector<RequestRef>* collect_ = nullptr;  // begin_request..end_request: the operation's requests
  std::vector<RequestRef> collected_;
  std::vector<std::shared_ptr<Request>> rma_requests_;  // request-based operations not yet complete
  std::vector<std::vector<RequestRef>> rma_request_parts_;
  // PSCW: the access epoch's targets (start..complete), the exposure epoch's origins (post..wait) and
  // the operation counts their MPI_Win_complete announced.
  std::vector<int> start_group_;
  bool in_access_group_ = false;
  std::vector<int> post_group_;
  bool exposing_ = false;
  std::map<int, std::uint64_t> completes_;
  std::function<bool()> condition_;            // what a fence / free waits for (wait_until)
  RequestRef condition_request_;

  // target side
  std::vector<std::uint64_t> done_from_;       // operations from each origin completed here, ever
  std::uint64_t done_total_ = 0;
  std::vector<std::deque<PendingHeader>> header_queue_;           // per origin, in arrival order
  std::vector<std::deque<std::shared_ptr<Incoming>>> incoming_;  // per origin, in header order
  std::vector<LockQueueEntry> lock_queue_;
  int shared_holders_ = 0;
  int exclusive_holder_ = -1;
  struct PendingAck {
    int origin;
    Kind kind;
    std::uint64_t ops;
  };
  std::vector<PendingAck> pending_acks_;
  std::vector<RequestRef> replies_;            // grant/ack/result sends in flight
  std::vector<std::shared_ptr<std::vector<std::byte>>> reply_buffers_;
};

using WindowRef = std::shared_ptr<Window>;

}  // namespace fabmpi::rma
