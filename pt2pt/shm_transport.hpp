// fabmpi's native shared-memory transport between ranks of one node (FABMPI_NETMOD=auto, the default).
//
// One POSIX shared-memory segment per node and job: the node's first rank creates it and publishes its
// name through the bootstrap before the engine's fence; the others open it after the fence; the last
// rank to map it unlinks the name, so a crashed job leaves nothing behind in /dev/shm.
// Per ordered pair of local ranks there is one single-producer single-consumer ring (pt2pt/shm_ring.hpp)
// carrying WireHeader + eager payload; a receiver polls the next record of each inbound ring. A waiting rank may
// sleep on a per-rank futex "doorbell"; senders that see its `sleeping` flag bump it and wake it.
// Rendezvous data: expose() hands out the buffer's address; read() asks the sender's transport to stream
// the bytes through the ring (it copies in while we copy out, on two cores at once), and takes a read
// over with Linux cross-memory attach (process_vm_readv, one copy) when the sender stays silent for
// 200 us. A read out of a mapping of the sender's memory (MPI_Alloc_mem or adopted) into a receive buffer
// the sender can map as well is copied by both ranks at once, in chunks (assisted reads,
// FABMPI_SHM_ASSIST_MIN). Ranks that outnumber the cores (or FABMPI_SHM_STREAM=0) read with CMA directly. If CMA is not
// permitted (checked once at startup between neighbours, or FABMPI_SHM_CMA=0), reads always stream. The
// engine does not see the difference.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pt2pt/adopted_memory.hpp"
#include "pt2pt/transport.hpp"
#include "runtime/bootstrap.hpp"

namespace fabmpi::pt2pt {

struct ShmOptions {
  int world_rank = 0;
  int node = 0;                      // this rank's node index (names the bootstrap key)
  std::vector<int> local_ranks;      // world ranks on this node, ascending, this rank included
  std::size_t max_message = 0;       // largest header + payload send() carries (eager limit + header)
  std::size_t ring_bytes = 65536;    // per pair; rounded up to a power of two that fits two messages
  bool allow_cma = true;             // false: always stream rendezvous data through the rings
  // Stream rendezvous data through the rings even where CMA works (each of the two ranks copies once,
  // in parallel), CMA only for a sender that does not answer: for ranks that each have a core.
  bool stream_reads = true;
  // Choose per peer and size class between the ring and CMA by measured rates (FABMPI_SHM_CHOOSE; only
  // where CMA works). Off: eager up to the limit, larger messages streamed (stream_reads) or by CMA.
  bool choose_ways = true;
  // Copy large messages sent from a peer's shared heap (MPI_Alloc_mem) out of a mapping of its memory.
  bool mapped_reads = true;
  // Send messages of at least this many bytes from our shared heap by rendezvous, for the peer to map,
  // even under the eager limit (FABMPI_SHM_MAPPED_MIN; 0 or mapped_reads off: only above the limit).
  std::size_t mapped_send_min = 0;
  // When a malloc'd send buffer is moved into shared memory for peers to map (FABMPI_SHM_ADOPT,
  // FABMPI_SHM_ADOPT_MIN; pt2pt/adopted_memory.hpp). Only with mapped_reads.
  AdoptionPolicy adoption;
  // Map (and allocate) the pages of this rank's rings at MPI_Init rather than on first touch (for nodes of
  // at most 32 ranks; see NativeShm::attach).
  bool populate_rings = true;
  // A sender fences between writing a record and looking whether the receiver sleeps (the Dekker
  // handshake with sleep_until_message) only when ranks outnumber cores, where a rank may sleep after
  // microseconds idle (Runtime::yield_once's sleep spells). Otherwise a rank sleeps only after 50 ms idle,
  // for at most 1 ms per futex wait, so a wake-up missed for want of the fence costs that sleeper at most
  // 1 ms, once; the fence held every send until its record's line had come over from the receiver
  // (np=2 streaming 8 B / 64 B messages, window 64: 61 -> 71 / 444 -> 545 MB/s without it).
  bool strict_wake = true;
};

class ShmTransport : public Transport {
 public:
  // Before the bootstrap fence: the node's first rank creates the segment and publishes its name.
  static Rc prepare(const ShmOptions& options, Bootstrap& boot, std::unique_ptr<ShmTransport>* out);
  // After the fence: maps the segment, waits for the node's other ranks, checks CMA.
  virtual Rc attach(Bootstrap& boot) = 0;
  // Whether cross-memory attach (process_vm_readv) is usable between this node's ranks.
  virtual bool single_copy() const noexcept = 0;
  // The node's segment name ("/fabmpi-<pid>-<random>"); other shared-memory objects of this job on this
  // node are named after it, so fabmpi's mpirun can remove what killed ranks left (launcher/job.cpp).
  virtual const std::string& segment_name() const noexcept = 0;
  // Blocks (futex on this rank's doorbell) until a peer publishes to us or the timeout passes. Returns
  // false without blocking when local work is pending (a queued send waits for ring space, which no
  // doorbell announces): the caller should poll or yield instead.
  // `ready` (may be null) is one more wake-up condition, checked after `sleeping` is published: a
  // shared-memory flag another rank sets before it calls wake() (coll/shm_region.cpp).
  virtual bool sleep_until_message(int timeout_us, bool (*ready)(const void*) = nullptr,
                                   const void* ready_arg = nullptr) = 0;
  // Wakes those of these world ranks (all on this node) that sleep on their doorbell. Call after
  // publishing what they wait for: one fence (`strict`), then one shared load per rank. Without the
  // fence a rank that goes to sleep just as we publish may be missed and sleep out its timeout.
  virtual void wake(const int* world_ranks, std::size_t count, bool strict) noexcept = 0;
  // Idle yields, for telling a core taken by another job from one used by a busy local rank: this rank
  // records when it yielded; peers_idle_since says whether every other local rank has yielded since
  // `since_ns` or sleeps (steady-clock nanoseconds, comparable across processes).
  virtual void note_idle_yield(std::uint64_t now_ns) noexcept = 0;
  virtual bool peers_idle_since(std::uint64_t since_ns) const noexcept = 0;
  // Co-scheduling on an oversubscribed node (Runtime::wait_for): a rank bumps its heartbeat on every
  // pass of a wait in which it keeps the core, and a waiter keeps spinning while the rank it waits for
  // beats (both hold a core: the answer is a fraction of a microsecond away), yielding once it stops.
  // The heartbeat: a count above 16 bits, in them the CPU the rank last beat on.
  virtual void beat(int cpu) noexcept = 0;
  virtual std::uint64_t heartbeat(int world_rank) const noexcept = 0;  // a rank of this node
  // Local ranks (this one included) not asleep on their doorbell: the job's share of the node's
  // runnable threads.
  virtual int awake_ranks() const noexcept = 0;
};

}  // namespace fabmpi::pt2pt
