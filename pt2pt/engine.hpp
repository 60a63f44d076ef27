// The point-to-point engine: MPI matching over a narrow transport interface (self, libfabric shm/tcp).
//
// CONTRACT used by coll/, the torch backend path and the bindings (keep these signatures; add freely).
// Ranks are ranks of `comm`; `Channel::collective` traffic lives in a tag space that user receives
// (MPI_ANY_TAG included) can never match, so collectives may use any non-negative tag.
// Channel::collective tags are split between two users: coll/ uses tags below 0x40000000 (mask its
// sequence numbers with 0x3fffffff); tags 0x40000000..0x7fffffff belong to communicator creation
// (runtime/comm_create.hpp: 0x40000000 | tag for create_group, 0x50000000 | tag for MPI_Intercomm_create's
// leaders, 0x60000000 | sequence for the others). On an intercommunicator, ranks name the remote group.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::pt2pt {

// Matching channels: messages of one channel never match receives of another (same communicator and tag
// space otherwise). partitioned: MPI_Psend_init's setup message, under the user's tag; partitioned_data:
// a partitioned operation's ready-to-receive and partition messages (pt2pt/partitioned.hpp).
enum class Channel : std::uint8_t { user = 0, collective = 1, partitioned = 2, partitioned_data = 3 };
enum class SendMode : std::uint8_t { standard, synchronous, ready, buffered };

// Where a buffer lives. Recorded per operation so a CUDA transport or staging layer can branch below
// matching without touching it. Everything is host memory for now.
enum class MemoryType : std::uint8_t { host, cuda };

// What a probe saw: the envelope and packed size of the first matching message.
struct ProbeInfo {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  std::size_t bytes = 0;
};

// A message taken out of matching by MPI_Mprobe/MPI_Improbe, to be received by MPI_Mrecv/MPI_Imrecv.
struct Arrival;
struct MatchedMessage {
  std::shared_ptr<Arrival> arrival;  // null for MPI_MESSAGE_NO_PROC
  ProbeInfo info;
};
using MessageRef = std::shared_ptr<MatchedMessage>;

class Engine : public ProgressSource {
 public:
  // Opens the transports and publishes this process's endpoint addresses through the bootstrap.
  // Peers' addresses are looked up on first use.
  static Rc create(Runtime& runtime, std::unique_ptr<Engine>* out);
  ~Engine() override;

  Rc isend(const void* buf, std::size_t count, const DatatypeRef& type, int dest, int tag,
           const CommRef& comm, Channel channel, SendMode mode, RequestRef* out);
  Rc irecv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
           const CommRef& comm, Channel channel, RequestRef* out);

  // The same operations started into a request the caller owns (persistent requests, MPI_Start):
  // the request's status fields are set and it is marked complete when the operation finishes.
  Rc start_send(const void* buf, std::size_t count, const DatatypeRef& type, int dest, int tag,
                const CommRef& comm, Channel channel, SendMode mode, const RequestRef& request);
  Rc start_recv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                const CommRef& comm, Channel channel, const RequestRef& request);
  // Blocking calls: the same into a request the caller keeps alive until it completes (a Request on
  // the stack), so no request object is allocated. A contiguous eager send completes inside the call
  // when the transport takes it at once; a receive whose message already arrived, likewise.
  Rc start_send_into(const void* buf, std::size_t count, const Datatype& type, int dest, int tag,
                     const Comm& comm, Channel channel, SendMode mode, Request& request);
  Rc start_recv_into(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                     const Comm& comm, Channel channel, Request& request);

  // MPI_Iprobe: *found and *info for the first message a receive (source, tag) would match.
  Rc iprobe(int source, int tag, const CommRef& comm, Channel channel, bool* found, ProbeInfo* info);
  // MPI_Improbe: the same, and the message leaves matching (only *message can receive it).
  Rc improbe(int source, int tag, const CommRef& comm, Channel channel, bool* found, MessageRef* message);
  // MPI_Imrecv: receives a message taken by improbe into a new request.
  Rc imrecv(void* buf, std::size_t count, const DatatypeRef& type, const MessageRef& message, RequestRef* out);
  // MPI_Cancel for a receive still waiting for its match: true when it was cancelled (the request is
  // then complete with `cancelled` set). Sends are never cancelled.
  bool cancel(Request& request);

  std::size_t eager_limit() const noexcept;

  // What MPI_T's performance variables read (runtime/tool_interface.cpp): the matching queues' lengths
  // now, and counts since this engine was created. Plain reads of single-threaded state: call under the
  // API lock. Receive side: the application's point-to-point traffic only (Channel::user); send side:
  // every message the engine sends (collective and internal ones too), by protocol.
  struct Stats {
    std::size_t posted_receives = 0;      // user receives posted and not matched
    std::size_t unexpected_messages = 0;  // user messages arrived and not matched
    std::uint64_t eager_sent = 0;         // messages sent eagerly (payload with the header)
    std::uint64_t rendezvous_sent = 0;    // messages sent by rendezvous (ready-to-send, then a read)
    std::uint64_t unexpected_arrivals = 0;  // user messages that arrived before their receive was posted
    std::uint64_t mapped_reads = 0;  // rendezvous reads copied out of a mapping of the sender's shared heap
    std::uint64_t assisted_bytes = 0;  // bytes this process copied into node peers' receive buffers
  };
  Stats stats() const noexcept;

  // Dynamic processes: processes of other jobs (by universe index), reached over the network transport.
  // open_network opens it now if this process has none, publishing its address (a spawning process
  // calls it before its children look the address up); add_peers makes the peers addressable.
  Rc open_network();
  // The libfabric provider of the network transport ("" while none is open).
  const std::string& network_provider() const noexcept;
  Rc add_peers(const std::vector<int>& world_ranks);
  // MPI_Comm_disconnect: the transport forgets the addresses of these processes of other jobs (this
  // job's own are kept); the matching state stays, so they can still be reached afterwards.
  void forget_peers(const std::vector<int>& world_ranks) noexcept;

  int progress() override;
  // Posted receives, messages arrived and not received, sends waiting for their receiver, reads.
  void describe_waiting(std::vector<std::string>* lines) const override;
  void waited_ranks(std::vector<int>* world_ranks, bool* any) const override;
  // For a rank with nothing to do: blocks until a message may have arrived or timeout_us passes, when
  // every peer it has is reached over native shared memory (their sends wake it). Returns false at
  // once otherwise (other transports, or local work pending); the caller then yields instead.
  // `ready` (may be null): one more wake-up condition (see ShmTransport::sleep_until_message).
  bool sleep_until_event(int timeout_us, bool (*ready)(const void*) = nullptr, const void* ready_arg = nullptr);
  // True when this process reaches `world_rank` over fabmpi's native shared memory (itself: false).
  bool reaches_natively(int world_rank) const noexcept;
  // Wakes those of these world ranks (reached natively) that sleep in sleep_until_event. `strict`:
  // fence first (see ShmTransport::wake).
  void wake_native(const int* world_ranks, std::size_t count, bool strict) noexcept;
  // The native shared-memory segment's name on this node ("" without one): a prefix for the job's other
  // shared-memory objects here (ShmTransport::segment_name).
  std::string native_segment_name() const;
  // See ShmTransport::note_idle_yield / peers_idle_since; without native shared memory nothing is
  // recorded and every local rank counts as idle.
  void note_idle_yield(std::uint64_t now_ns) noexcept;
  bool local_peers_idle_since(std::uint64_t since_ns) const noexcept;
  // See ShmTransport::beat / heartbeat: this rank's, and that of `world_rank` when it is reached natively
  // (false otherwise).
  void beat(int cpu) noexcept;
  bool heartbeat_of(int world_rank, std::uint64_t* beat) const noexcept;
  // Local ranks not asleep (ShmTransport::awake_ranks); -1 without native shared memory.
  int local_ranks_awake() const noexcept;
  // MPI_Finalize, before the closing fence: progresses until every send this process started has left
  // its buffers (transport completions received), so peers can still receive it after we stop polling.
  Rc quiesce();

 private:
  Engine() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabmpi::pt2pt
