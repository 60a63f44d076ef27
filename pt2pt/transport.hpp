// The narrow interface the engine's matching and protocols run over. A transport moves bytes between
// this process and its peers (world ranks): messages (a WireHeader plus payload), exposure of local
// memory for a peer to read, reads of a peer's exposed memory, and completions. It knows nothing of
// MPI matching; all of that lives above it in the engine.
//
// Implementations: self (a rank to itself, plain copies) and libfabric (one FI_EP_RDM endpoint per
// provider: shm between ranks of one node, tcp;ofi_rxm between nodes). A CUDA transport or staging
// layer would plug in here too, branching on the buffer memory type the engine records per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pt2pt/wire.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::pt2pt {

// Where completions and arriving messages go (the engine).
class TransportSink {
 public:
  virtual ~TransportSink() = default;
  // A message arrived. `payload` is valid only during the call.
  virtual void on_message(const WireHeader& header, const void* payload, std::size_t payload_bytes) = 0;
  // An operation started with `token` (send or read) finished; `error` is MPI_SUCCESS or a class.
  virtual void on_complete(std::uint64_t token, int error) = 0;
};

// Local memory a peer may read: the peer reads [addr, addr + length) under key.
struct Exposure {
  std::uint64_t addr = 0;
  std::uint64_t key = 0;
  std::shared_ptr<void> keepalive;  // releases the registration when the last holder drops it
};

// Where a read's bytes should end up. `cached` (the default): the receiver will touch them soon.
// `memory`: the destination is larger than the caches can keep (Engine: a contiguous receive of at least
// FABMPI_NT_MIN bytes), so a transport that copies the bytes itself writes them past the caches
// instead of filling them with lines that are evicted again before anyone reads them.
enum class ReadPlacement : std::uint8_t { cached, memory };

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const noexcept = 0;
  // Messages of header + payload up to this size complete inside send() (no completion follows).
  virtual std::size_t inject_limit() const noexcept = 0;

  // Sends header + payload to `peer`. Sets *completed_now when the payload buffer may be reused at once
  // (the send was injected); otherwise on_complete(token) follows. Both buffers must stay untouched
  // until then. Never blocks; the transport queues internally when the provider is busy, keeping order.
  virtual Rc send(int peer, const WireHeader& header, const void* payload, std::size_t bytes,
                  std::uint64_t token, bool* completed_now) = 0;
  // Lets peers read [buf, buf + bytes). `application`: the application's own send (Channel::user), not a
  // collective schedule's (native shm adopts such buffers from a smaller size: AdoptionPolicy).
  virtual Rc expose(const void* buf, std::size_t bytes, Exposure* out, bool application) = 0;
  // Reads `bytes` from the peer's exposed memory at (raddr, rkey) into `local`; on_complete(token).
  virtual Rc read(int peer, void* local, std::size_t bytes, std::uint64_t raddr, std::uint64_t rkey,
                  std::uint64_t token, ReadPlacement placement) = 0;
  // A rendezvous receive of `bytes` into [local, local + bytes) from `peer`, whose sender exposed its
  // memory under `rkey`, is about to be read (the reads for its pieces follow); `application`: the
  // application's own contiguous receive (Channel::user) into its own buffer. Every receive is announced
  // (others with application false) before its reads.
  virtual void begin_receive(int peer, void* local, std::size_t bytes, std::uint64_t rkey, bool application) noexcept {
    (void)peer;
    (void)local;
    (void)bytes;
    (void)rkey;
    (void)application;
  }
  // The largest piece the engine reads as one operation (FABMPI_RNDV_CHUNK=0, the default): larger
  // rendezvous receives are read in pieces this size, all in flight at once.
  virtual std::size_t read_piece() const noexcept { return std::size_t{1} << 20; }
  // Delivers arrivals and completions to the sink. Returns the number of events handled.
  virtual int poll(TransportSink& sink) = 0;
  // Operations accepted but not yet completed (for quiesce).
  virtual std::size_t pending() const noexcept = 0;
  // Contiguous sends of at least this many bytes whose expose() gives a non-zero key (memory the peer can
  // map: native shm's MPI_Alloc_mem blocks) go by rendezvous even when they could go eagerly: the peer
  // copies them once out of its mapping of our memory. SIZE_MAX: this transport never maps.
  virtual std::size_t mapped_send_min() const noexcept { return SIZE_MAX; }
  // Eager-size sends of at least advice_min() bytes ask rendezvous_advised() whether the peer wants them
  // by rendezvous instead (native shm: where its single copy by cross-memory attach has measured faster
  // than two through the ring). SIZE_MAX: never ask.
  virtual std::size_t advice_min() const noexcept { return SIZE_MAX; }
  virtual bool rendezvous_advised(int peer, std::size_t bytes) const noexcept {
    (void)peer;
    (void)bytes;
    return false;
  }
  // The engine copied an eager message of `bytes` (at least advice_min()) from `peer` out of this
  // transport's buffer in `ns` nanoseconds: what rendezvous_advised() weighs the other way against.
  virtual void note_eager_copy(int peer, std::size_t bytes, std::uint64_t ns) noexcept {
    (void)peer;
    (void)bytes;
    (void)ns;
  }
  // Reads served by one copy out of a mapping of the peer's memory (native shm, shared heap), so far.
  virtual std::uint64_t mapped_reads() const noexcept { return 0; }
  // Bytes this process copied into peers' receive buffers for their reads of its messages (native shm's
  // assisted reads), so far.
  virtual std::uint64_t assisted_bytes() const noexcept { return 0; }
  // Drops what the transport knows of how to reach `peer` (a process of another job that disconnected:
  // it may exit, and a new process may then come up at the same address). The next send looks it up
  // again. Nothing may be in flight to it.
  virtual void forget(int peer) noexcept { (void)peer; }
};

// A rank sending to itself: no network, copies only.
std::unique_ptr<Transport> make_self_transport();

}  // namespace fabmpi::pt2pt
