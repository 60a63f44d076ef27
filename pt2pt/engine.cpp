// The point-to-point engine: matching (pt2pt/matching.hpp) and protocols over the transports.
//
// Protocols, chosen per send:
//   eager       header + payload in one transport message (injected when it fits the provider's inject
//               size); costs one of the receiver's eager credits for that peer.
//   eager_sync  eager, and the receiver acks when matched (MPI_Ssend).
//   rendezvous  above FABMPI_EAGER_MAX or when out of credits: a ready-to-send with (addr, key); once
//               matched the receiver reads the data in pieces (Transport::read_piece, or
//               FABMPI_RNDV_CHUNK) straight into the user
//               buffer (or a bounce buffer for non-contiguous types) and sends fin.
// Flow control: an unexpected eager message is copied out of the receive pool and kept until matched;
// the receiver returns credits only when such messages are consumed, so a flood of unexpected sends is
// bounded by credits x eager limit per peer and then continues as tiny ready-to-sends.
// Ordering: matchable messages carry a per-peer sequence number and enter matching in that order.
#include "pt2pt/engine.hpp"

#include <functional>

#include <sched.h>

#include <algorithm>
#include <thread>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/log.hpp"
#include "common/memory_copy.hpp"
#include "pt2pt/libfabric_transport.hpp"
#include "pt2pt/matching.hpp"
#include "pt2pt/recent_buffers.hpp"
#include "pt2pt/shm_transport.hpp"
#include "pt2pt/transport.hpp"

namespace fabmpi::pt2pt {

// A matchable message that arrived before its receive (or was taken by mprobe).
// Leaves new elements uninitialized (a held eager payload is written right after it is sized).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}  // NOLINT: rebinding
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

struct Arrival {
  WireHeader header;
  std::vector<unsigned char, UninitializedAllocator<unsigned char>> payload;  // eager data (empty for rts)
  // Holds a copy of an eager payload (copy_memory: around glibc's near-aliasing slow case).
  void hold(const void* data, std::size_t len) {
    payload.resize(len);
    copy_memory(payload.data(), data, len);
  }
};
using ArrivalRef = std::shared_ptr<Arrival>;

namespace {

constexpr std::uint64_t kReadTokenBit = 1ull << 63;

// A receive in progress (posted, or matched and reading a rendezvous).
struct RecvOp {
  Request* request = nullptr;  // completed when the receive finishes
  RequestRef owner;            // keeps *request alive (null: the caller does, e.g. a blocking MPI_Recv)
  void* buf = nullptr;
  std::size_t count = 0;
  DatatypeRef type;
  std::size_t capacity = 0;  // bytes the user buffer holds
  MemoryType memory = MemoryType::host;
  // rendezvous
  int peer = -1;
  std::uint64_t sender_op = 0;
  std::vector<unsigned char> bounce;  // non-contiguous receive buffer
  std::size_t reads_left = 0;
  std::size_t bytes = 0;
  int error = MPI_SUCCESS;
};
using RecvOpRef = std::shared_ptr<RecvOp>;

struct SendOp {
  Request* request = nullptr;
  RequestRef owner;  // as in RecvOp
  int events_left = 0;                // transport completion + ack/fin
  // What the send is, for hang reports.
  int dest_world = -1;
  int tag = 0;
  std::uint32_t context = 0;
  std::uint8_t channel = 0;
  WireKind kind = WireKind::eager;
  std::size_t bytes = 0;
  Exposure exposure;                  // rendezvous registration
  std::vector<unsigned char> bounce;  // packed non-contiguous data
  MemoryType memory = MemoryType::host;
  int error = MPI_SUCCESS;
  std::uint32_t seq = 0;       // the message's per-peer sequence number (what a cancel names)
  bool cancel_asked = false;   // MPI_Cancel sent a cancel_send
  bool cancelled = false;      // the receiver dropped the message

  void note(const WireHeader& h, int world) noexcept {
    seq = h.seq;
    dest_world = world;
    tag = h.tag;
    context = h.context_id;
    channel = h.channel;
    kind = h.kind;
    bytes = h.size;
  }
};

struct Peer {
  Transport* transport = nullptr;
  std::uint32_t next_send_seq = 0;
  std::uint32_t next_recv_seq = 0;
  std::map<std::uint32_t, ArrivalRef> reorder;  // arrived ahead of next_recv_seq
  // Messages the sender cancelled before they were taken in order here: seq -> the sender's op id.
  std::map<std::uint32_t, std::uint64_t> cancel_on_arrival;
  std::size_t eager_limit = 0;                  // largest eager payload over this peer's transport
  // Contiguous sends of at least this many bytes from memory the peer can map go by rendezvous even under
  // the eager limit (the peer copies them once, out of its mapping); SIZE_MAX: never (Transport::mapped_send_min).
  std::size_t mapped_send_min = SIZE_MAX;
  // Eager-size sends of at least this many bytes ask the transport whether the peer wants them by
  // rendezvous (Transport::advice_min); SIZE_MAX: never.
  std::size_t advice_min = SIZE_MAX;
  long long credits = 0;                        // eager messages we may still send
  long long owed = 0;                           // credits to return to this peer
};

bool contiguous(const Datatype& type) { return type.is_contiguous(); }

std::uint64_t steady_now_ns() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}

void complete_request(Request& r, int source, int tag, std::size_t bytes, int error) {
  r.source = source;
  r.tag = tag;
  r.count_bytes = bytes;
  r.error = error;
  r.mark_complete();
}

}  // namespace

struct Engine::Impl final : TransportSink {
  Runtime& runtime;
  int my_world = 0;
  std::size_t eager_max = 0;       // libfabric and self
  std::size_t native_eager_max = 0;  // native shared memory (FABMPI_SHM_EAGER_MAX)
  std::size_t tcp_eager_max = 0;     // tcp;ofi_rxm (FABMPI_TCP_EAGER_MAX)
  std::size_t rndv_chunk = 0;       // FABMPI_RNDV_CHUNK; 0: each transport's read_piece()
  std::size_t past_caches_min = 0;  // contiguous rendezvous receives this large: ReadPlacement::memory
  // Unless the destination is probably still cached (a buffer streamed into again); absent when
  // FABMPI_NT_MIN is set, which then decides alone.
  std::optional<RecentBuffers> recent_buffers;
  // Requests of at most this many bytes name their peer (Request::wait_peer; FABMPI_COSCHEDULE_MAX).
  std::size_t coschedule_max = 0;
  // The smallest Peer::advice_min: eager arrivals below it skip the peer lookup for timing altogether.
  std::size_t advice_floor = SIZE_MAX;
  long long credit_limit = 0;
  std::unique_ptr<Transport> self, shm, tcp;  // shm: libfabric's shm provider (FABMPI_NETMOD=ofi-shm)
  std::unique_ptr<ShmTransport> native;       // fabmpi's own shared memory (the default on a node)
  std::vector<Peer> peers;
  MatchQueue<RecvOpRef> posted;
  MatchQueue<ArrivalRef> unexpected;
  std::unordered_map<std::uint64_t, SendOp> sends;
  std::unordered_map<std::uint64_t, RecvOpRef> reads;  // read token -> receive
  std::uint64_t next_op = 1;
  // MPI_T counters (Engine::stats): plain increments on paths each kind of message already takes.
  std::uint64_t eager_sent = 0;
  std::uint64_t rendezvous_sent = 0;
  std::uint64_t unexpected_arrivals[4] = {};  // per Channel (indexed, not tested: no branch)
  // Something was handed to the self transport since its last poll: only then is it polled.
  bool self_dirty = false;
  std::vector<RecvOpRef> spare_recv_ops;  // finished receives' RecvOps, reused (saves an allocation)
  // As many as a window of nonblocking receives (osu_bw's 64) brings back at once, and more.
  static constexpr std::size_t kSpareRecvOps = 256;

  explicit Impl(Runtime& rt) : runtime(rt) {}

  Peer& peer(int world) { return peers[static_cast<std::size_t>(world)]; }
  // The transport to `world`, noting traffic for the self transport.
  Transport& transport(int world) {
    if (world == my_world) self_dirty = true;
    return *peer(world).transport;
  }
  RecvOpRef new_recv_op() {
    if (spare_recv_ops.empty()) return std::make_shared<RecvOp>();
    RecvOpRef op = std::move(spare_recv_ops.back());
    spare_recv_ops.pop_back();
    return op;
  }
  // A receive is finished: keep its RecvOp for the next one when nobody else holds it.
  void recycle(RecvOpRef&& op) {
    if (op.use_count() != 1 || spare_recv_ops.size() >= kSpareRecvOps) return;
    op->request = nullptr;
    op->owner.reset();
    op->type.reset();
    op->bounce.clear();
    op->reads_left = 0;
    op->error = MPI_SUCCESS;
    spare_recv_ops.push_back(std::move(op));
  }

  Rc open(Engine* engine);
  Rc open_libfabric(const std::string& provider, const char* short_name, std::unique_ptr<Transport>* out);
  // The network transport (tcp member), once. Processes of other jobs (dynamic processes) are reached
  // over it, so it also opens on first need (a job started on one node opens none at MPI_Init).
  // `preferred`: the provider to use unless FABMPI_TCP_PROVIDER names one ("" : net, else tcp;ofi_rxm).
  Rc open_network(const std::string& preferred = "");
  std::string network_provider;  // the one open_network opened
  Rc add_foreign_peer(int world);
  Rc send_control(int world, WireKind kind, std::uint64_t sender_op, std::uint64_t value);
  Rc start_send(const void* buf, std::size_t count, const Datatype& type, int dest, int tag,
                const Comm& comm, Channel channel, SendMode mode, Request& request, const RequestRef& owner);
  Rc start_recv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                const Comm& comm, Channel channel, Request& request, const RequestRef& owner);
  void deliver(const RecvOpRef& op, const WireHeader& h, const void* payload, std::size_t len);
  // Inline: it runs on every eager arrival (a ping-pong's critical path) from three call sites.
  // `from_transport`: the payload is still in the transport's buffer (a copy the transport may time).
  [[gnu::always_inline]] void deliver_eager(Request& r, void* buf, std::size_t count, const Datatype& type,
                                            std::size_t capacity, const WireHeader& h, const void* payload,
                                            std::size_t len, bool from_transport = false);
  void finish_rendezvous(const RecvOpRef& op);
  // Counts an eager message taken from `world`'s budget; every half budget goes back in one message.
  void consumed_eager(int world) {
    Peer& p = peer(world);
    if (++p.owed >= std::max<long long>(credit_limit / 2, 1)) return_credits(world);
  }
  void return_credits(int world);
  void send_event(std::uint64_t id, int error);
  void match_arrival(const WireHeader& h, const void* payload, std::size_t len);
  // Receiver side of a send's cancellation; true when the arrival `h` was cancelled and is dropped.
  void on_cancel_send(const WireHeader& h);
  // A message whose sender cancelled it before it arrived (Peer::cancel_on_arrival): dropped and
  // answered. Callers test cancel_on_arrival.empty() first, inline: every arrival passes here.
  bool drop_if_cancelled(Peer& p, const WireHeader& h);
  // cancel_reply's outcome: 0 too late, 1 an eager message dropped, 2 an rts dropped (wire.hpp).
  void answer_cancel(int world, std::uint64_t sender_op, std::uint64_t outcome);
  enum class Unmatched { pending, matched, dropped };
  Unmatched take_unmatched(int world, std::uint32_t seq, std::uint64_t sender_op, WireKind* kind);
  // A send to this process itself: decided at once when the message is here (MPI_Request_get_status
  // right after MPI_Cancel then already tells; mpi4py's testProbeCancel relies on it).
  void cancel_local(std::uint64_t sender_op);

  void on_message(const WireHeader& h, const void* payload, std::size_t len) override;
  void on_complete(std::uint64_t token, int error) override;
};

// ---- setup

// A published endpoint is "<provider>=<hex name>": addresses of different providers do not mix, so a
// peer that opened another provider is an error naming both, not a silent connection failure.
Rc Engine::Impl::open_libfabric(const std::string& provider, const char* short_name, std::unique_ptr<Transport>* out) {
  const Tunables& t = runtime.tunables();
  Bootstrap& boot = runtime.bootstrap();
  LibfabricOptions o;
  o.provider = provider;
  o.world_size = static_cast<int>(peers.size());
  o.max_message = sizeof(WireHeader) + (std::strcmp(short_name, "tcp") == 0 ? tcp_eager_max : eager_max);
  o.rx_buffers = static_cast<std::size_t>(std::max<long long>(t.rx_buffers, 4));
  const int job_begin = runtime.world_base(), job_end = runtime.world_base() + runtime.world_size();
  o.lookup_peer = [&boot, short_name, provider, me = my_world, job_begin, job_end](int peer, std::string* hex) -> Rc {
    std::string published;
    const std::string key = "fabmpi-ep-" + std::to_string(peer) + "-" + short_name;
    if (peer >= job_begin && peer < job_end) {
      FABMPI_TRY(boot.get(key, &published));  // this job's addresses are all published by MPI_Init's fence
    } else {
      // A process of another job may still be in its MPI_Init (a parent sends to children it has just
      // spawned): wait for its address.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
      auto pause = std::chrono::microseconds(200);
      while (!boot.get(key, &published).ok()) {
        if (std::chrono::steady_clock::now() > deadline)
          return fail(MPI_ERR_OTHER, "process %d of another job published no %s address in 120 s (did it reach "
                      "MPI_Init?)", peer, short_name);
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(20000));
      }
    }
    const std::size_t eq = published.find('=');
    const std::string theirs = eq == std::string::npos ? std::string() : published.substr(0, eq);
    if (theirs != provider)
      return fail(MPI_ERR_OTHER, "rank %d opened libfabric provider \"%s\" for its %s endpoint, rank %d \"%s\"; "
                  "set FABMPI_TCP_PROVIDER to a provider every node has", peer, theirs.c_str(), short_name, me,
                  provider.c_str());
    *hex = published.substr(eq + 1);
    return Rc();
  };
  std::string hex;
  bool ordered = false;
  FABMPI_TRY(open_libfabric_transport(o, out, &hex, &ordered));
  return boot.put("fabmpi-ep-" + std::to_string(my_world) + "-" + short_name, provider + "=" + hex);
}

// The network provider: "auto" takes libfabric's native reliable-datagram TCP provider ("net",
// libfabric 1.17+) when the library has it and tcp;ofi_rxm otherwise. Measured on loopback (2 ranks,
// docs/performance.md): 8 B ping-pong 5.3-5.7 us with net against 6.9 us through rxm, and 12 MB of
// resident memory per rank against 80 MB (rxm's bounce-buffer pools).
Rc Engine::Impl::open_network(const std::string& preferred) {
  if (tcp) return Rc();
  // Through tcp;ofi_rxm, a message above rxm's eager limit (16 KiB by default) goes by rxm's own
  // segmentation/rendezvous protocol: measured on loopback, a 16 KiB message plus our header took
  // 39 us against 12 us sent eagerly, and fabmpi already runs a rendezvous of its own above its eager
  // limit. Over tcp rxm places eager data straight into the posted buffer, so its eager limit may
  // exceed its bounce-buffer size (FI_OFI_RXM_BUFFER_SIZE, which sizes four pools of 1024 buffers:
  // raising that instead cost 280 MB per rank). libfabric reads the variable when it first
  // initializes its providers, hence before any endpoint is opened; a value the user set wins.
  const std::string rxm_eager = std::to_string(sizeof(WireHeader) + tcp_eager_max);
  setenv("FI_OFI_RXM_EAGER_LIMIT", rxm_eager.c_str(), 0);
  const Tunables& t = runtime.tunables();
  std::string provider = t.tcp_provider != "auto" ? t.tcp_provider : preferred;
  Rc rc;
  if (provider.empty()) {
    provider = "net";
    rc = open_libfabric(provider, "tcp", &tcp);
    if (!rc.ok()) {
      FABMPI_LOG(info, pt2pt, "libfabric provider net unavailable, using tcp;ofi_rxm");
      provider = "tcp;ofi_rxm";
      rc = open_libfabric(provider, "tcp", &tcp);
    }
  } else {
    rc = open_libfabric(provider, "tcp", &tcp);
  }
  if (rc.ok()) network_provider = provider;
  return rc;
}

Rc Engine::Impl::open(Engine*) {
  const Tunables& t = runtime.tunables();
  my_world = runtime.world_rank();
  const int size = runtime.world_size();
  // Peers are indexed by universe index: this job's are base .. base + size - 1 (base > 0 in a spawned
  // job; the slots below it belong to earlier jobs and fill in as they are met).
  const int base = runtime.world_base();
  const int end = base + size;
  eager_max = t.eager_max;
  native_eager_max = t.shm_eager_max;
  tcp_eager_max = t.tcp_eager_max;
  rndv_chunk = t.rndv_chunk == 0 ? 0 : std::max<std::size_t>(t.rndv_chunk, 4096);
  past_caches_min = past_caches_threshold(t.nt_min);
  // Only an oversubscribed rank's waits look at their peer (Runtime::PeerWatch): spare the others the lookup.
  coschedule_max = runtime.oversubscribed() ? t.coschedule_max : 0;
  if (t.nt_min == 0)
    recent_buffers.emplace(past_caches_threshold(0, runtime.local_ranks(), runtime.cores()), past_caches_min / 16);
  credit_limit = std::max<long long>(t.eager_credits, 1);
  peers.resize(static_cast<std::size_t>(end));
  const std::string& netmod = t.netmod;
  if (netmod != "auto" && netmod != "shm" && netmod != "ofi-shm" && netmod != "tcp" && netmod != "mixed")
    return fail(MPI_ERR_OTHER, "FABMPI_NETMOD=%s: expected auto, shm, ofi-shm, tcp or mixed", netmod.c_str());
  // Which transport carries traffic to a rank of this node. "mixed" (for tests) splits local peers
  // three ways (native shm, libfabric shm, tcp) so one MPI_ANY_SOURCE receive spans all of them; the
  // rule is symmetric in the two ranks, so both ends of a pair agree.
  enum class Local { native, ofi_shm, tcp };
  auto local_transport = [&](int r) {
    if (netmod == "tcp") return Local::tcp;
    if (netmod == "ofi-shm") return Local::ofi_shm;
    if (netmod == "mixed") return static_cast<Local>((r + my_world) % 3);
    return Local::native;
  };

  const auto& node = runtime.node_of_rank();
  const int my_node = node[static_cast<std::size_t>(my_world)];
  bool need_native = false, need_shm = false, need_tcp = false;
  std::vector<int> local_ranks;
  // A spawned job talks to its parents over the network transport.
  if (base > 0) need_tcp = true;
  for (int r = base; r < end; ++r) {
    const bool local = node[static_cast<std::size_t>(r)] == my_node;
    if (local) local_ranks.push_back(r);
    if (r == my_world) continue;
    if (!local && netmod == "shm")
      return fail(MPI_ERR_OTHER, "FABMPI_NETMOD=shm, but rank %d is on another node", r);
    if (!local) need_tcp = true;
    else if (local_transport(r) == Local::native) need_native = true;
    else if (local_transport(r) == Local::ofi_shm) need_shm = true;
    else need_tcp = true;
  }

  self = make_self_transport();
  Bootstrap& boot = runtime.bootstrap();
  // Every local rank takes part in the segment when any pair of this node uses it (so under "mixed" a
  // rank without native peers still maps it: the node's ranks wait for each other there).
  auto pair_native = [&](int a, int b) {
    if (netmod == "mixed") return (a + b) % 3 == static_cast<int>(Local::native);
    return local_transport(b) == Local::native;
  };
  for (int a : local_ranks)
    for (int b : local_ranks)
      if (a != b && pair_native(a, b)) need_native = true;
  if (need_native) {
    ShmOptions o;
    o.world_rank = my_world;
    o.node = my_node;
    o.local_ranks = local_ranks;
    o.max_message = sizeof(WireHeader) + native_eager_max;
    o.ring_bytes = t.shm_ring;
    o.allow_cma = t.shm_cma;
    // Streaming needs the sender on a core of its own while it serves the read; oversubscribed, the
    // receiver's single copy (CMA) does not wait for a descheduled sender.
    o.stream_reads = t.shm_stream && !runtime.oversubscribed();
    o.choose_ways = t.shm_choose;
    o.mapped_reads = t.shm_mapped;
    o.mapped_send_min = t.shm_mapped_min;
    o.adoption.sends = t.shm_adopt > 0 ? static_cast<unsigned>(t.shm_adopt) : 0;
    o.adoption.min_bytes = t.shm_adopt_min;
    o.adoption.application_min_bytes = t.shm_adopt_user_min;
    // Assisted reads need the sender on a core of its own, as streaming does.
    o.adoption.receive_min_bytes = runtime.oversubscribed() ? 0 : t.shm_assist_min;
    // Ranks that share cores wait microseconds per message for the scheduler: the rings' first-lap page
    // faults (~90 ns per message) do not show there, while populating all of them at MPI_Init would.
    o.populate_rings = !runtime.oversubscribed();
    o.strict_wake = runtime.oversubscribed();
    FABMPI_TRY(ShmTransport::prepare(o, boot, &native));
  }
  if (need_shm) FABMPI_TRY(open_libfabric("shm", "shm", &shm));
  if (need_tcp) {
    // A spawned job uses its parents' network provider (runtime/dynamic.cpp publishes it).
    std::string parents;
    if (base > 0 && !runtime.bootstrap().get("fabmpi-parent-provider", &parents).ok()) parents.clear();
    FABMPI_TRY(open_network(parents));
  }
  // One fence for everybody's addresses; peers are inserted into the AVs lazily, on first use.
  if (size > 1) FABMPI_TRY(boot.fence());
  if (native) FABMPI_TRY(native->attach(boot));

  for (int r = base; r < end; ++r) {
    Peer& p = peer(r);
    p.credits = credit_limit;
    p.eager_limit = eager_max;
    if (r == my_world) p.transport = self.get();
    else if (node[static_cast<std::size_t>(r)] != my_node) p.transport = tcp.get();
    else if (local_transport(r) == Local::native) p.transport = native.get();
    else if (local_transport(r) == Local::ofi_shm) p.transport = shm.get();
    else p.transport = tcp.get();
    if (p.transport == native.get()) p.eager_limit = native_eager_max;
    else if (p.transport == tcp.get()) p.eager_limit = tcp_eager_max;
    p.mapped_send_min = p.transport->mapped_send_min();
    p.advice_min = p.transport->advice_min();
    advice_floor = std::min(advice_floor, p.advice_min);
  }
  FABMPI_LOG(info, pt2pt,
             "engine up: eager %zu (native shm %zu, tcp %zu), read pieces %zu (0: each transport's), past caches "
             "from %zu, credits %lld, "
             "native shm %s, ofi shm %s, tcp %s",
             eager_max, native_eager_max, tcp_eager_max, rndv_chunk, past_caches_min, credit_limit,
             native ? "on" : "off", shm ? "on" : "off", tcp ? "on" : "off");
  return Rc();
}

Rc Engine::create(Runtime& runtime, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> e(new Engine());
  e->impl_ = std::make_unique<Impl>(runtime);
  FABMPI_TRY(e->impl_->open(e.get()));
  *out = std::move(e);
  return Rc();
}

Engine::~Engine() = default;

std::size_t Engine::eager_limit() const noexcept { return impl_->eager_max; }

Engine::Stats Engine::stats() const noexcept {
  Stats s;
  // The queues also hold collective and internal traffic, which comes and goes with other processes'
  // progress: only the application's point-to-point entries are counted (a walk over the queues).
  constexpr auto user = static_cast<std::uint8_t>(Channel::user);
  impl_->posted.for_each([&](const Envelope& e, const RecvOpRef&) { s.posted_receives += e.channel == user; });
  impl_->unexpected.for_each([&](const Envelope& e, const ArrivalRef&) { s.unexpected_messages += e.channel == user; });
  s.eager_sent = impl_->eager_sent;
  s.rendezvous_sent = impl_->rendezvous_sent;
  s.unexpected_arrivals = impl_->unexpected_arrivals[user];
  if (impl_->native) {
    s.mapped_reads = impl_->native->mapped_reads();
    s.assisted_bytes = impl_->native->assisted_bytes();
  }
  return s;
}

// ---- sending

Rc Engine::Impl::send_control(int world, WireKind kind, std::uint64_t sender_op, std::uint64_t value) {
  WireHeader h{};
  h.kind = kind;
  h.src_world = my_world;
  h.sender_op = sender_op;
  h.rkey = value;
  bool done = false;
  return transport(world).send(world, h, nullptr, 0, 0, &done);
}

Rc Engine::Impl::start_send(const void* buf, std::size_t count, const Datatype& type, int dest, int tag,
                            const Comm& comm, Channel channel, SendMode mode, Request& request,
                            const RequestRef& owner) {
  if (dest == MPI_PROC_NULL) {
    complete_request(request, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return Rc();
  }
  const int world = comm.world_rank(dest);
  Peer& p = peer(world);
  Transport& tx = transport(world);
  const std::size_t bytes = count * type.size();
  request.wait_peer = coschedule_max != 0 && bytes <= coschedule_max ? world : -1;
  const bool synchronous = mode == SendMode::synchronous;
  bool eager = bytes <= p.eager_limit && p.credits > 0;
  if (eager && bytes >= p.advice_min && tx.rendezvous_advised(world, bytes)) eager = false;
  // Memory the peer can map (its exposure has a key) goes by rendezvous from mapped_send_min on: one copy
  // by the receiver beats two through the ring (pt2pt/README.md). The exposure is kept for that send.
  Exposure mapped;
  if (eager && bytes >= p.mapped_send_min && contiguous(type)) {
    FABMPI_TRY(tx.expose(static_cast<const char*>(buf) + type.true_lb(), bytes, &mapped, channel == Channel::user));
    eager = mapped.key == 0;
  }

  const std::uint64_t id = next_op++;
  if (eager && !synchronous && (bytes == 0 || contiguous(type))) {
    // Fast path: a contiguous eager send that the transport takes at once needs no bookkeeping.
    WireHeader h{};
    h.kind = WireKind::eager;
    h.context_id = comm.context_id();
    h.channel = static_cast<std::uint8_t>(channel);
    h.source = comm.rank();
    h.tag = tag;
    h.src_world = my_world;
    h.seq = p.next_send_seq++;
    h.size = bytes;
    h.sender_op = id;
    --p.credits;
    ++eager_sent;
    bool done = false;
    FABMPI_TRY(tx.send(world, h, static_cast<const char*>(buf) + type.true_lb(), bytes, id, &done));
    if (done) {
      complete_request(request, request.source, request.tag, 0, MPI_SUCCESS);
    } else {
      SendOp& op = sends[id];
      op.request = &request;
      op.owner = owner;
      op.events_left = 1;
      op.note(h, world);
    }
    return Rc();
  }
  SendOp& op = sends[id];
  op.request = &request;
  op.owner = owner;
  const void* data = static_cast<const char*>(buf) + type.true_lb();
  if (bytes > 0 && !contiguous(type)) {
    op.bounce.resize(bytes);
    type.pack(buf, count, 0, op.bounce.data(), bytes);
    data = op.bounce.data();
  }

  WireHeader h{};
  h.context_id = comm.context_id();
  h.channel = static_cast<std::uint8_t>(channel);
  h.source = comm.rank();
  h.tag = tag;
  h.src_world = my_world;
  h.seq = p.next_send_seq++;
  h.size = bytes;
  h.sender_op = id;
  const void* payload = nullptr;
  std::size_t payload_bytes = 0;
  if (eager) {
    --p.credits;
    ++eager_sent;
    h.kind = synchronous ? WireKind::eager_sync : WireKind::eager;
    payload = data;
    payload_bytes = bytes;
    op.events_left = synchronous ? 2 : 1;
  } else {
    ++rendezvous_sent;
    h.kind = WireKind::rts;
    Rc rc;
    if (mapped.key != 0)
      op.exposure = std::move(mapped);  // exposed above, when this send turned from eager to rendezvous
    else
      rc = tx.expose(data, bytes, &op.exposure, channel == Channel::user);
    if (!rc) {
      sends.erase(id);
      return rc;
    }
    h.raddr = op.exposure.addr;
    h.rkey = op.exposure.key;
    op.events_left = 2;  // rts sent + fin
    if (recent_buffers && bytes >= recent_buffers->min_bytes())
      recent_buffers->touch(my_world, reinterpret_cast<std::uintptr_t>(data), bytes, steady_now_ns());
  }
  op.note(h, world);
  bool done = false;
  Rc rc = tx.send(world, h, payload, payload_bytes, id, &done);
  if (!rc) {
    sends.erase(id);
    return rc;
  }
  if (done) send_event(id, MPI_SUCCESS);
  return Rc();
}

// One of the events a send waits for happened (local completion, ack, fin).
void Engine::Impl::send_event(std::uint64_t id, int error) {
  auto it = sends.find(id);
  if (it == sends.end()) return;
  SendOp& op = it->second;
  if (error != MPI_SUCCESS) op.error = error;
  if (--op.events_left > 0) return;
  Request* request = op.request;
  RequestRef owner = std::move(op.owner);  // keeps *request alive past the erase
  const int err = op.error;
  if (op.cancelled) request->cancelled = true;
  sends.erase(it);
  complete_request(*request, request->source, request->tag, 0, err);
}

// ---- cancelling a send (MPI_Cancel): the receiver drops the message if nothing matched it yet

// The one lookup both cancellations (from a peer, and to oneself) share: the message `seq` from `world`
// is dropped here if nothing matched it (its eager credit given back), recorded to be dropped on arrival
// if it has not been taken in order yet, or found matched.
Engine::Impl::Unmatched Engine::Impl::take_unmatched(int world, std::uint32_t seq, std::uint64_t sender_op,
                                                     WireKind* kind) {
  Peer& p = peer(world);
  // Sequence numbers wrap: "not yet taken in order" is a distance below half the space.
  if (static_cast<std::int32_t>(seq - p.next_recv_seq) >= 0) {
    p.cancel_on_arrival[seq] = sender_op;  // still to come (or waiting in the reorder map)
    return Unmatched::pending;
  }
  std::optional<ArrivalRef> a = unexpected.remove_if_first([&](const ArrivalRef& x) {
    return x->header.src_world == world && x->header.seq == seq;
  });
  if (!a) return Unmatched::matched;  // matched (or taken by MPI_Mprobe): it completes as usual
  *kind = (*a)->header.kind;
  if (*kind != WireKind::rts) consumed_eager(world);
  return Unmatched::dropped;
}

void Engine::Impl::on_cancel_send(const WireHeader& h) {
  WireKind kind = WireKind::eager;
  switch (take_unmatched(h.src_world, h.seq, h.sender_op, &kind)) {
    case Unmatched::pending: return;  // answered when it arrives (drop_if_cancelled)
    case Unmatched::matched: answer_cancel(h.src_world, h.sender_op, 0); return;
    case Unmatched::dropped: answer_cancel(h.src_world, h.sender_op, kind == WireKind::rts ? 2 : 1); return;
  }
}

bool Engine::Impl::drop_if_cancelled(Peer& p, const WireHeader& h) {
  auto it = p.cancel_on_arrival.find(h.seq);
  if (it == p.cancel_on_arrival.end()) return false;
  const std::uint64_t sender_op = it->second;
  p.cancel_on_arrival.erase(it);
  if (h.kind != WireKind::rts) consumed_eager(h.src_world);
  answer_cancel(h.src_world, sender_op, h.kind == WireKind::rts ? 2 : 1);
  return true;
}

void Engine::Impl::cancel_local(std::uint64_t sender_op) {
  SendOp& op = sends.at(sender_op);
  WireKind kind = WireKind::eager;
  if (take_unmatched(my_world, op.seq, sender_op, &kind) != Unmatched::dropped) return;
  op.cancelled = true;
  send_event(sender_op, MPI_SUCCESS);  // stands for its sync_ack / fin
}

void Engine::Impl::answer_cancel(int world, std::uint64_t sender_op, std::uint64_t outcome) {
  Rc rc = send_control(world, WireKind::cancel_reply, sender_op, outcome);
  if (!rc) FABMPI_LOG(error, pt2pt, "answering a send cancellation of rank %d failed", world);
}

// ---- receiving

Rc Engine::Impl::start_recv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                            const Comm& comm, Channel channel, Request& request, const RequestRef& owner) {
  if (source == MPI_PROC_NULL) {
    complete_request(request, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return Rc();
  }
  const std::size_t capacity = count * type->size();
  const Envelope pattern{comm.context_id(), static_cast<std::uint8_t>(channel), source, tag};
  request.wait_peer =
      coschedule_max == 0 || source == MPI_ANY_SOURCE || capacity > coschedule_max ? -1 : comm.world_rank(source);
  // The receive object, for a message that is not (entirely) here yet.
  auto make_recv_op = [&] {
    RecvOpRef op = new_recv_op();
    op->request = &request;
    op->owner = owner;
    op->buf = buf;
    op->count = count;
    op->type = type;
    op->capacity = capacity;
    return op;
  };
  if (!unexpected.empty()) {
    if (std::optional<ArrivalRef> arrived = unexpected.take_first_matching(pattern)) {
      const Arrival& a = **arrived;
      if (a.header.kind != WireKind::rts) {
        // Already here: copy it out, no receive object needed.
        deliver_eager(request, buf, count, *type, capacity, a.header, a.payload.data(), a.payload.size());
        return Rc();
      }
      RecvOpRef op = make_recv_op();
      deliver(op, a.header, a.payload.data(), a.payload.size());
      return Rc();
    }
  }
  posted.push(pattern, make_recv_op());
  return Rc();
}

void Engine::Impl::return_credits(int world) {
  Peer& p = peer(world);
  const long long n = p.owed;
  p.owed = 0;
  Rc rc = send_control(world, WireKind::credit, 0, static_cast<std::uint64_t>(n));
  if (!rc) FABMPI_LOG(error, pt2pt, "returning credits to rank %d failed", world);
}

// A matched message meets its receive.
void Engine::Impl::deliver(const RecvOpRef& op, const WireHeader& h, const void* payload, std::size_t len) {
  if (h.kind != WireKind::rts) {
    deliver_eager(*op->request, op->buf, op->count, *op->type, op->capacity, h, payload, len);
    return;
  }
  Request& r = *op->request;
  {
    op->peer = h.src_world;
    op->sender_op = h.sender_op;
    op->bytes = std::min<std::size_t>(h.size, op->capacity);
    op->error = h.size > op->capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    r.source = h.source;
    r.tag = h.tag;
    if (op->bytes == 0) {
      finish_rendezvous(op);
      return;
    }
    char* dest;
    ReadPlacement placement = ReadPlacement::cached;
    if (contiguous(*op->type)) {
      dest = static_cast<char*>(op->buf) + op->type->true_lb();
      // The application's receives only: a collective's schedule receives into scratch it folds right
      // after, or exchanges in both directions at once, where non-temporal stores and the streams they
      // bring measured slower (torch's nonblocking allreduce / allgather at np=2, 16-64 MiB: 2-2.7x).
      if (op->bytes >= past_caches_min && h.channel == static_cast<std::uint8_t>(Channel::user))
        placement = ReadPlacement::memory;
      if (recent_buffers && op->bytes >= recent_buffers->min_bytes()) {
        const std::uint64_t now = steady_now_ns();
        const auto d = reinterpret_cast<std::uintptr_t>(dest);
        if (placement == ReadPlacement::memory &&
            recent_buffers->still_cached(my_world, d, op->bytes, h.src_world, h.raddr, now))
          placement = ReadPlacement::cached;
        recent_buffers->touch(h.src_world, h.raddr, op->bytes, now);
        recent_buffers->touch(my_world, d, op->bytes, now);
      }
    } else {
      op->bounce.resize(op->bytes);
      dest = reinterpret_cast<char*>(op->bounce.data());
    }
    Transport* t = &transport(h.src_world);
    t->begin_receive(h.src_world, dest, op->bytes, h.rkey,
                     contiguous(*op->type) && h.channel == static_cast<std::uint8_t>(Channel::user));
    const std::size_t piece = rndv_chunk ? rndv_chunk : t->read_piece();
    op->reads_left = (op->bytes + piece - 1) / piece;
    for (std::size_t off = 0; off < op->bytes; off += piece) {
      const std::size_t n = std::min(piece, op->bytes - off);
      const std::uint64_t token = kReadTokenBit | next_op++;
      reads[token] = op;
      Rc rc = t->read(h.src_world, dest + off, n, h.raddr + off, h.rkey, token, placement);
      if (!rc) {
        reads.erase(token);
        op->error = rc.code();
        if (--op->reads_left == 0) finish_rendezvous(op);
      }
    }
  }
}

// An eager message meets its receive (buffer, count, type; capacity = count x type size).
inline void Engine::Impl::deliver_eager(Request& r, void* buf, std::size_t count, const Datatype& type,
                                 std::size_t capacity, const WireHeader& h, const void* payload,
                                 std::size_t len, bool from_transport) {
  const std::size_t n = std::min(len, capacity);
  if (n > 0) {
    if (!contiguous(type)) {
      type.unpack(payload, n, 0, buf, count);
    } else if (from_transport && n >= advice_floor && n >= peer(h.src_world).advice_min) [[unlikely]] {
      // Timed for the transport, which weighs it against its other way of bringing such messages.
      const std::uint64_t started = steady_now_ns();
      copy_memory(static_cast<char*>(buf) + type.true_lb(), payload, n);
      peer(h.src_world).transport->note_eager_copy(h.src_world, n, steady_now_ns() - started);
    } else {
      copy_memory(static_cast<char*>(buf) + type.true_lb(), payload, n);
    }
  }
  if (h.kind == WireKind::eager_sync) {
    Rc rc = send_control(h.src_world, WireKind::sync_ack, h.sender_op, 0);
    if (!rc) FABMPI_LOG(error, pt2pt, "acking a synchronous send to rank %d failed", h.src_world);
  }
  consumed_eager(h.src_world);
  complete_request(r, h.source, h.tag, n, len > capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
}

void Engine::Impl::finish_rendezvous(const RecvOpRef& op) {
  if (!op->bounce.empty()) op->type->unpack(op->bounce.data(), op->bytes, 0, op->buf, op->count);
  Rc rc = send_control(op->peer, WireKind::fin, op->sender_op, 0);
  if (!rc) FABMPI_LOG(error, pt2pt, "sending rendezvous fin to rank %d failed", op->peer);
  Request& r = *op->request;
  complete_request(r, r.source, r.tag, op->bytes, op->error);
}

void Engine::Impl::match_arrival(const WireHeader& h, const void* payload, std::size_t len) {
  const Envelope message{h.context_id, h.channel, h.source, h.tag};
  if (std::optional<RecvOpRef> op = posted.take_first_accepting(message)) {
    // deliver() makes the same eager/rendezvous choice; calling deliver_eager here saves a function level
    // on every eager arrival (measured with callgrind, ninth session). deliver() still serves imrecv.
    if (h.kind != WireKind::rts) {
      const RecvOp& o = **op;
      deliver_eager(*o.request, o.buf, o.count, *o.type, o.capacity, h, payload, len, true);
      recycle(std::move(*op));
    } else {
      deliver(*op, h, payload, len);
    }
    return;
  }
  auto a = std::make_shared<Arrival>();
  a->header = h;
  if (h.kind != WireKind::rts && len) {
    Peer& p = peer(h.src_world);
    const std::uint64_t started = len >= advice_floor && len >= p.advice_min ? steady_now_ns() : 0;
    a->hold(payload, len);
    if (started) p.transport->note_eager_copy(h.src_world, len, steady_now_ns() - started);
  }
  unexpected.push(message, std::move(a));
  ++unexpected_arrivals[message.channel & 3];
}

Rc Engine::Impl::add_foreign_peer(int world) {
  if (world < 0) return fail(MPI_ERR_INTERN, "negative universe index %d", world);
  if (static_cast<std::size_t>(world) < peers.size() && peers[static_cast<std::size_t>(world)].transport) return Rc();
  FABMPI_TRY(open_network("tcp;ofi_rxm"));
  if (static_cast<std::size_t>(world) >= peers.size()) peers.resize(static_cast<std::size_t>(world) + 1);
  Peer& p = peer(world);
  p.transport = tcp.get();
  p.credits = credit_limit;
  p.eager_limit = tcp_eager_max;
  return Rc();
}

void Engine::Impl::on_message(const WireHeader& h, const void* payload, std::size_t len) {
  if (h.src_world < 0 || h.src_world >= static_cast<int>(peers.size()) ||
      !peers[static_cast<std::size_t>(h.src_world)].transport) {
    // A process of another job this one has not met yet (it learnt our address first): only the
    // network transport carries such traffic.
    if (h.src_world < 0 || !tcp || !add_foreign_peer(h.src_world).ok()) {
      FABMPI_LOG(error, pt2pt, "dropping a message from unknown rank %d", h.src_world);
      return;
    }
  }
  switch (h.kind) {
    case WireKind::fin:
    case WireKind::sync_ack: send_event(h.sender_op, MPI_SUCCESS); return;
    case WireKind::credit: peer(h.src_world).credits += static_cast<long long>(h.rkey); return;
    case WireKind::cancel_send: on_cancel_send(h); return;
    case WireKind::cancel_reply: {
      // Dropped at the receiver: the message's ack (sync_ack or fin) will never come; this stands for it.
      if (h.rkey == 0) return;
      auto it = sends.find(h.sender_op);
      if (it == sends.end()) return;
      it->second.cancelled = true;
      send_event(h.sender_op, MPI_SUCCESS);
      return;
    }
    case WireKind::eager:
    case WireKind::eager_sync:
    case WireKind::rts: break;
    default: FABMPI_LOG(error, pt2pt, "dropping a message of unknown kind %d", static_cast<int>(h.kind)); return;
  }
  Peer& p = peer(h.src_world);
  if (h.seq != p.next_recv_seq) {
    // Ahead of its turn: hold it until the messages before it from this peer have arrived.
    auto a = std::make_shared<Arrival>();
    a->header = h;
    a->hold(payload, len);
    p.reorder.emplace(h.seq, std::move(a));
    return;
  }
  ++p.next_recv_seq;
  if (p.cancel_on_arrival.empty() || !drop_if_cancelled(p, h)) match_arrival(h, payload, len);
  while (!p.reorder.empty() && p.reorder.begin()->first == p.next_recv_seq) {
    ArrivalRef a = std::move(p.reorder.begin()->second);
    p.reorder.erase(p.reorder.begin());
    ++p.next_recv_seq;
    if (p.cancel_on_arrival.empty() || !drop_if_cancelled(p, a->header))
      match_arrival(a->header, a->payload.data(), a->payload.size());
  }
}

void Engine::Impl::on_complete(std::uint64_t token, int error) {
  if (token == 0) return;  // control message
  if (!(token & kReadTokenBit)) {
    send_event(token, error);
    return;
  }
  auto it = reads.find(token);
  if (it == reads.end()) return;
  RecvOpRef op = std::move(it->second);
  reads.erase(it);
  if (error != MPI_SUCCESS) op->error = error;
  if (--op->reads_left == 0) finish_rendezvous(op);
}

// ---- the contract

Rc Engine::isend(const void* buf, std::size_t count, const DatatypeRef& type, int dest, int tag,
                 const CommRef& comm, Channel channel, SendMode mode, RequestRef* out) {
  auto request = std::make_shared<Request>(Request::Kind::send);
  FABMPI_TRY(impl_->start_send(buf, count, *type, dest, tag, *comm, channel, mode, *request, request));
  *out = std::move(request);
  return Rc();
}

Rc Engine::irecv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                 const CommRef& comm, Channel channel, RequestRef* out) {
  auto request = std::make_shared<Request>(Request::Kind::recv);
  FABMPI_TRY(impl_->start_recv(buf, count, type, source, tag, *comm, channel, *request, request));
  *out = std::move(request);
  return Rc();
}

Rc Engine::start_send(const void* buf, std::size_t count, const DatatypeRef& type, int dest, int tag,
                      const CommRef& comm, Channel channel, SendMode mode, const RequestRef& request) {
  return impl_->start_send(buf, count, *type, dest, tag, *comm, channel, mode, *request, request);
}

Rc Engine::start_send_into(const void* buf, std::size_t count, const Datatype& type, int dest, int tag,
                           const Comm& comm, Channel channel, SendMode mode, Request& request) {
  return impl_->start_send(buf, count, type, dest, tag, comm, channel, mode, request, nullptr);
}

Rc Engine::start_recv(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                      const CommRef& comm, Channel channel, const RequestRef& request) {
  return impl_->start_recv(buf, count, type, source, tag, *comm, channel, *request, request);
}

Rc Engine::start_recv_into(void* buf, std::size_t count, const DatatypeRef& type, int source, int tag,
                           const Comm& comm, Channel channel, Request& request) {
  return impl_->start_recv(buf, count, type, source, tag, comm, channel, request, nullptr);
}

Rc Engine::iprobe(int source, int tag, const CommRef& comm, Channel channel, bool* found, ProbeInfo* info) {
  *found = false;
  if (source == MPI_PROC_NULL) {
    *found = true;
    *info = ProbeInfo{MPI_PROC_NULL, MPI_ANY_TAG, 0};
    return Rc();
  }
  progress();
  const Envelope pattern{comm->context_id(), static_cast<std::uint8_t>(channel), source, tag};
  if (const ArrivalRef* a = impl_->unexpected.peek_first_matching(pattern)) {
    const WireHeader& h = (*a)->header;
    *found = true;
    *info = ProbeInfo{h.source, h.tag, static_cast<std::size_t>(h.size)};
  }
  return Rc();
}

Rc Engine::improbe(int source, int tag, const CommRef& comm, Channel channel, bool* found, MessageRef* message) {
  *found = false;
  if (source == MPI_PROC_NULL) {
    *found = true;
    *message = std::make_shared<MatchedMessage>(MatchedMessage{nullptr, ProbeInfo{MPI_PROC_NULL, MPI_ANY_TAG, 0}});
    return Rc();
  }
  progress();
  const Envelope pattern{comm->context_id(), static_cast<std::uint8_t>(channel), source, tag};
  if (std::optional<ArrivalRef> a = impl_->unexpected.take_first_matching(pattern)) {
    const WireHeader& h = (*a)->header;
    *found = true;
    *message = std::make_shared<MatchedMessage>(
        MatchedMessage{std::move(*a), ProbeInfo{h.source, h.tag, static_cast<std::size_t>(h.size)}});
  }
  return Rc();
}

Rc Engine::imrecv(void* buf, std::size_t count, const DatatypeRef& type, const MessageRef& message,
                  RequestRef* out) {
  auto request = std::make_shared<Request>(Request::Kind::recv);
  if (!message->arrival) {
    complete_request(*request, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
  } else {
    RecvOpRef op = impl_->new_recv_op();
    op->request = request.get();
    op->owner = request;
    op->buf = buf;
    op->count = count;
    op->type = type;
    op->capacity = count * type->size();
    const Arrival& a = *message->arrival;
    impl_->deliver(op, a.header, a.payload.data(), a.payload.size());
  }
  *out = std::move(request);
  return Rc();
}

bool Engine::cancel(Request& request) {
  std::optional<RecvOpRef> op =
      impl_->posted.remove_if_first([&](const RecvOpRef& r) { return r->request == &request; });
  if (op) {
    request.cancelled = true;
    complete_request(request, request.source, request.tag, 0, MPI_SUCCESS);
    return true;
  }
  // A send waiting for its receiver (synchronous eager, rendezvous): ask the receiver to drop the message
  // if nothing has matched it; the answer completes the request, cancelled or not (MPI-3.1 3.8.4: the
  // wait then returns whatever the receiver's program does). Eager sends are complete already.
  for (auto& [id, s] : impl_->sends) {
    if (s.request != &request) continue;
    if (s.cancel_asked || (s.kind != WireKind::eager_sync && s.kind != WireKind::rts)) return false;
    s.cancel_asked = true;
    if (s.dest_world == impl_->my_world) {
      // Let the self transport hand the message in first (it is local: a few passes at most).
      const std::uint64_t op_id = id;
      const std::uint32_t seq = s.seq;
      for (int pass = 0; pass < 64 && static_cast<std::int32_t>(seq - impl_->peer(impl_->my_world).next_recv_seq) >= 0;
           ++pass)
        progress();
      if (!impl_->sends.count(op_id)) return false;  // completed meanwhile (matched)
      const bool was_complete = request.is_complete();
      impl_->cancel_local(op_id);  // may complete the request (and erase its entry)
      return !was_complete && request.cancelled;
    }
    WireHeader h{};
    h.kind = WireKind::cancel_send;
    h.src_world = impl_->my_world;
    h.seq = s.seq;
    h.sender_op = id;
    bool done = false;
    if (!impl_->transport(s.dest_world).send(s.dest_world, h, nullptr, 0, 0, &done).ok()) s.cancel_asked = false;
    return false;
  }
  return false;
}

namespace {
// How a hang report names a communicator it knows only by context id: the name MPI_Comm_set_name gave
// it, else the predefined name or the id.
std::string context_text(const ContextIdPool& ids, std::uint32_t context, std::uint8_t channel) {
  std::string text = ids.name_of(context);
  if (text.empty())
    text = context == ContextIdPool::kWorldId  ? "MPI_COMM_WORLD"
           : context == ContextIdPool::kSelfId ? "MPI_COMM_SELF"
                                               : "the communicator with context id " + std::to_string(context);
  if (channel == static_cast<std::uint8_t>(Channel::collective)) text += " (collective traffic)";
  if (channel == static_cast<std::uint8_t>(Channel::partitioned) ||
      channel == static_cast<std::uint8_t>(Channel::partitioned_data))
    text += " (partitioned communication)";
  return text;
}
std::string rank_text(int rank) { return rank == MPI_ANY_SOURCE ? "any source" : "rank " + std::to_string(rank); }
std::string tag_text(int tag) { return tag == MPI_ANY_TAG ? "any tag" : "tag " + std::to_string(tag); }
}  // namespace

void Engine::waited_ranks(std::vector<int>* world_ranks, bool* any) const {
  const Impl& m = *impl_;
  const ContextIdPool& ids = *m.runtime.context_ids();
  m.posted.for_each([&](const Envelope& e, const RecvOpRef&) {
    if (e.source == MPI_ANY_SOURCE) {
      *any = true;
      return;
    }
    const int world = ids.peer_world_rank(e.context, e.source);
    if (world >= 0) world_ranks->push_back(world);
  });
  // Sends that wait for their receiver: announced (rendezvous) or synchronous.
  for (const auto& [id, op] : m.sends)
    if (op.kind == WireKind::rts || op.kind == WireKind::eager_sync) world_ranks->push_back(op.dest_world);
  for (const auto& [token, op] : m.reads) world_ranks->push_back(op->peer);
}

void Engine::describe_waiting(std::vector<std::string>* lines) const {
  const Impl& m = *impl_;
  const ContextIdPool& ids = *m.runtime.context_ids();
  // A process can have thousands of operations in flight; the first few of each kind tell the story.
  constexpr std::size_t kMostPerKind = 8;
  auto more = [lines](std::size_t total, const char* what) {
    if (total > kMostPerKind) lines->push_back("... and " + std::to_string(total - kMostPerKind) + " more " + what);
  };
  std::size_t shown = 0;
  m.posted.for_each([&](const Envelope& e, const RecvOpRef& op) {
    if (shown++ >= kMostPerKind) return;
    lines->push_back("receive from " + rank_text(e.source) + ", " + tag_text(e.tag) + " on " +
                     context_text(ids, e.context, e.channel) + ": no matching message has arrived" +
                     (op->capacity ? " (buffer of " + std::to_string(op->capacity) + " bytes)" : ""));
  });
  more(m.posted.size(), "posted receives");
  shown = 0;
  m.unexpected.for_each([&](const Envelope& e, const ArrivalRef& a) {
    if (shown++ >= kMostPerKind) return;
    lines->push_back("message from rank " + std::to_string(e.source) + ", tag " + std::to_string(e.tag) + " on " +
                     context_text(ids, e.context, e.channel) + " (" + std::to_string(a->header.size) +
                     " bytes) arrived and is not received yet");
  });
  more(m.unexpected.size(), "messages arrived and not received");
  shown = 0;
  for (const auto& [id, op] : m.sends) {
    if (shown++ >= kMostPerKind) break;
    const char* state = op.kind == WireKind::rts          ? "announced, waiting for the receiver to take it"
                        : op.kind == WireKind::eager_sync ? "delivered, waiting for the receiver to match it (synchronous)"
                                                          : "waiting for the transport to finish sending it";
    lines->push_back("send of " + std::to_string(op.bytes) + " bytes to world rank " + std::to_string(op.dest_world) +
                     ", tag " + std::to_string(op.tag) + " on " + context_text(ids, op.context, op.channel) + ": " + state);
  }
  more(m.sends.size(), "sends");
  std::vector<const RecvOp*> reading;
  for (const auto& [token, op] : m.reads)
    if (std::find(reading.begin(), reading.end(), op.get()) == reading.end()) reading.push_back(op.get());
  shown = 0;
  for (const RecvOp* op : reading) {
    if (shown++ >= kMostPerKind) break;
    lines->push_back("receive of " + std::to_string(op->bytes) + " bytes from world rank " + std::to_string(op->peer) +
                     ": matched, reading the data (" + std::to_string(op->reads_left) + " reads outstanding)");
  }
  more(reading.size(), "receives reading data");
}

int Engine::progress() {
  int events = 0;
  if (impl_->self_dirty) {
    impl_->self_dirty = false;  // what handlers send to ourselves during the poll sets it again
    events += impl_->self->poll(*impl_);
    if (impl_->self->pending()) impl_->self_dirty = true;
  }
  if (impl_->native) events += impl_->native->poll(*impl_);
  if (impl_->shm) events += impl_->shm->poll(*impl_);
  if (impl_->tcp) events += impl_->tcp->poll(*impl_);
  return events;
}

bool Engine::sleep_until_event(int timeout_us, bool (*ready)(const void*), const void* ready_arg) {
  if (!impl_->native || !impl_->runtime.tunables().shm_sleep || impl_->shm || impl_->tcp ||
      impl_->self->pending())
    return false;
  return impl_->native->sleep_until_message(timeout_us, ready, ready_arg);
}

Rc Engine::add_peers(const std::vector<int>& world_ranks) {
  for (int r : world_ranks) FABMPI_TRY(impl_->add_foreign_peer(r));
  return Rc();
}

// Dynamic processes prefer tcp;ofi_rxm: with the net provider (libfabric 1.17), parents that spawned and
// disconnected many short-lived children saw sends fail with "Transport endpoint is not connected"
// (mpi4py's test_spawn); rxm's connection management handles that churn.
Rc Engine::open_network() { return impl_->open_network("tcp;ofi_rxm"); }

const std::string& Engine::network_provider() const noexcept { return impl_->network_provider; }

void Engine::forget_peers(const std::vector<int>& world_ranks) noexcept {
  const int begin = impl_->runtime.world_base(), end = begin + impl_->runtime.world_size();
  for (int r : world_ranks) {
    if (r >= begin && r < end) continue;
    if (r < 0 || static_cast<std::size_t>(r) >= impl_->peers.size()) continue;
    if (Transport* t = impl_->peers[static_cast<std::size_t>(r)].transport) t->forget(r);
  }
}

bool Engine::reaches_natively(int world_rank) const noexcept {
  if (!impl_->native || world_rank < 0 || static_cast<std::size_t>(world_rank) >= impl_->peers.size()) return false;
  return impl_->peers[static_cast<std::size_t>(world_rank)].transport == impl_->native.get();
}

void Engine::wake_native(const int* world_ranks, std::size_t count, bool strict) noexcept {
  if (impl_->native) impl_->native->wake(world_ranks, count, strict);
}

std::string Engine::native_segment_name() const {
  return impl_->native ? impl_->native->segment_name() : std::string();
}

void Engine::note_idle_yield(std::uint64_t now_ns) noexcept {
  if (impl_->native) impl_->native->note_idle_yield(now_ns);
}

void Engine::beat(int cpu) noexcept {
  if (impl_->native) impl_->native->beat(cpu);
}

bool Engine::heartbeat_of(int world_rank, std::uint64_t* beat) const noexcept {
  if (!reaches_natively(world_rank)) return false;
  *beat = impl_->native->heartbeat(world_rank);
  return true;
}

int Engine::local_ranks_awake() const noexcept { return impl_->native ? impl_->native->awake_ranks() : -1; }

bool Engine::local_peers_idle_since(std::uint64_t since_ns) const noexcept {
  return !impl_->native || impl_->native->peers_idle_since(since_ns);
}

Rc Engine::quiesce() {
  // Rendezvous sends wait for the receiver's fin; this also keeps serving its reads (manual progress).
  auto busy = [&] {
    return !impl_->sends.empty() || !impl_->reads.empty() || (impl_->native && impl_->native->pending()) ||
           (impl_->shm && impl_->shm->pending()) ||
           (impl_->tcp && impl_->tcp->pending());
  };
  // Idle passes go through the runtime's idle step, so a send nobody receives shows in hang reports.
  Runtime::IdleSpin spin(impl_->runtime);
  while (busy()) {
    if (progress() > 0) spin.reset();
    else if (!spin.spin()) impl_->runtime.yield_once(spin.idle_time());
  }
  return Rc();
}

}  // namespace fabmpi::pt2pt
