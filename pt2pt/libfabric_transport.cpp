// The libfabric transport (see libfabric_transport.hpp). Every provider call that answers -FI_EAGAIN is
// queued in `deferred_` and retried from poll(); while anything is queued, new operations queue
// behind it, so the order of posts is the order of calls.
#include "pt2pt/libfabric_transport.hpp"
#include "common/memory_copy.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/log.hpp"
#include "pt2pt/fabric_api.hpp"
#include "pt2pt/fabric_handles.hpp"

namespace fabmpi::pt2pt {
namespace {

std::string to_hex(const unsigned char* data, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(digits[data[i] >> 4]);
    s.push_back(digits[data[i] & 15]);
  }
  return s;
}

bool from_hex(const std::string& s, std::vector<unsigned char>* out) {
  if (s.size() % 2) return false;
  out->resize(s.size() / 2);
  for (std::size_t i = 0; i < out->size(); ++i) {
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

// The context of one posted operation. fi_context2 comes first: libfabric hands it back to us.
struct Op {
  enum class Kind : std::uint8_t { send, read, recv };
  fi_context2 fi_ctx;
  Kind kind;
  std::uint64_t token = 0;
  // send
  WireHeader header;
  const void* payload = nullptr;
  std::size_t bytes = 0;
  int peer = -1;
  // read
  void* local = nullptr;
  std::uint64_t raddr = 0, rkey = 0;
  // recv
  unsigned char* buffer = nullptr;
  // send / read failed for want of a connection: how often, and when to post it again
  unsigned connect_retries = 0;
  std::chrono::steady_clock::time_point retry_at;
};

class LibfabricTransport final : public Transport {
 public:
  explicit LibfabricTransport(const LibfabricOptions& o)
      : options_(o), read_piece_(o.provider == "shm" ? std::size_t{1} << 20 : std::size_t{960} << 10) {
    peers_.assign(static_cast<std::size_t>(o.world_size), FI_ADDR_NOTAVAIL);
  }
  ~LibfabricTransport() override {
    // Close the endpoint before the buffers and contexts it may still reference.
    ep_.reset();
    cq_.reset();
    av_.reset();
  }

  Rc open(std::string* hex_name, bool* ordered);

  const char* name() const noexcept override { return options_.provider.c_str(); }
  std::size_t inject_limit() const noexcept override { return inject_size_; }

  Rc send(int peer, const WireHeader& header, const void* payload, std::size_t bytes, std::uint64_t token,
          bool* completed_now) override {
    *completed_now = false;
    fi_addr_t addr;
    FABMPI_TRY(peer_address(peer, &addr));
    if (deferred_.empty() && sizeof header + bytes <= inject_size_) {
      unsigned char staged[sizeof header + 4096];
      if (sizeof header + bytes <= sizeof staged) {
        std::memcpy(staged, &header, sizeof header);
        if (bytes) copy_memory(staged + sizeof header, payload, bytes);
        ssize_t rc = fi_inject(ep_.get(), staged, sizeof header + bytes, addr);
        if (rc == 0) {
          *completed_now = true;
          return Rc();
        }
        if (rc != -FI_EAGAIN) return fail(MPI_ERR_OTHER, "%s: fi_inject: %s", name(), ofi::strerror(static_cast<int>(-rc)));
      }
    }
    Op* op = new_op(Op::Kind::send, token);
    op->header = header;
    op->payload = payload;
    op->bytes = bytes;
    op->peer = peer;
    return post_or_defer(op);
  }

  Rc expose(const void* buf, std::size_t bytes, Exposure* out, bool) override {
    fid_mr* mr = nullptr;
    const std::uint64_t requested_key = next_key_++;
    int rc = fi_mr_reg(domain_.get(), buf, bytes, FI_REMOTE_READ, 0, requested_key, 0, &mr, nullptr);
    if (rc) return fail(MPI_ERR_OTHER, "%s: fi_mr_reg(%zu bytes): %s", name(), bytes, ofi::strerror(-rc));
    auto owner = std::make_shared<MrHandle>(mr);
    if (mr_mode_ & FI_MR_ENDPOINT) {
      rc = fi_mr_bind(mr, &ep_.get()->fid, 0);
      if (!rc) rc = fi_mr_enable(mr);
      if (rc) return fail(MPI_ERR_OTHER, "%s: fi_mr_bind/enable: %s", name(), ofi::strerror(-rc));
    }
    out->key = fi_mr_key(mr);
    out->addr = (mr_mode_ & FI_MR_VIRT_ADDR) ? reinterpret_cast<std::uint64_t>(buf) : 0;
    out->keepalive = std::move(owner);
    return Rc();
  }

  // The provider (kernel or NIC) moves the bytes: `placement` is not ours to choose here.
  Rc read(int peer, void* local, std::size_t bytes, std::uint64_t raddr, std::uint64_t rkey,
          std::uint64_t token, ReadPlacement) override {
    Op* op = new_op(Op::Kind::read, token);
    op->peer = peer;
    op->local = local;
    op->bytes = bytes;
    op->raddr = raddr;
    op->rkey = rkey;
    return post_or_defer(op);
  }

  // Over TCP a read is answered by one send of the whole piece, and Linux (6.18 here) sends 1 MiB or
  // more at once far slower than a little less: raw loopback sockets, one send per message, 1 MiB - 1 KiB
  // 89-112 us against 167-211 us for 1 MiB. fabmpi's reads of 960 KiB measured 1.1-1.4x faster than of
  // 1 MiB over `net` (ping-pong 1-4 MiB, bw 1-4 MiB); 256 KiB pieces were slower than 1 MiB.
  std::size_t read_piece() const noexcept override { return read_piece_; }

  int poll(TransportSink& sink) override;
  std::size_t pending() const noexcept override { return outstanding_; }
  void forget(int peer) noexcept override {
    if (peer < 0 || static_cast<std::size_t>(peer) >= peers_.size()) return;
    fi_addr_t& slot = peers_[static_cast<std::size_t>(peer)];
    if (slot == FI_ADDR_NOTAVAIL) return;
    // libfabric's address vectors share one entry among equal addresses: a stale entry would hand a
    // new process at a reused address the old one's (closed) connection.
    (void)fi_av_remove(av_.get(), &slot, 1, 0);
    slot = FI_ADDR_NOTAVAIL;
  }

 private:
  Rc peer_address(int peer, fi_addr_t* out) {
    // Processes of jobs started later (MPI_Comm_spawn) have indices past the table: it grows.
    if (static_cast<std::size_t>(peer) >= peers_.size()) peers_.resize(static_cast<std::size_t>(peer) + 1, FI_ADDR_NOTAVAIL);
    fi_addr_t& slot = peers_[static_cast<std::size_t>(peer)];
    if (slot == FI_ADDR_NOTAVAIL) {
      std::string hex;
      FABMPI_TRY(options_.lookup_peer(peer, &hex));
      std::vector<unsigned char> raw;
      if (!from_hex(hex, &raw)) return fail(MPI_ERR_OTHER, "%s: malformed address of rank %d", name(), peer);
      // An address another peer had: that process has exited and a new one (of a job started since)
      // came up there. Drop the old entry first, or the new peer would share its closed connection.
      if (auto it = peer_of_address_.find(hex); it != peer_of_address_.end() && it->second != peer) forget(it->second);
      peer_of_address_[hex] = peer;
      fi_addr_t addr = FI_ADDR_NOTAVAIL;
      int n = fi_av_insert(av_.get(), raw.data(), 1, &addr, 0, nullptr);
      if (n != 1) return fail(MPI_ERR_OTHER, "%s: fi_av_insert for rank %d failed", name(), peer);
      slot = addr;
      FABMPI_LOG(debug, pt2pt, "%s: connected rank %d", name(), peer);
    }
    *out = slot;
    return Rc();
  }

  Op* new_op(Op::Kind kind, std::uint64_t token) {
    Op* op;
    if (!free_ops_.empty()) {
      op = free_ops_.back();
      free_ops_.pop_back();
    } else {
      op = &op_storage_.emplace_back();
    }
    op->kind = kind;
    op->token = token;
    op->connect_retries = 0;
    return op;
  }
  void release_op(Op* op) { free_ops_.push_back(op); }

  // Posts the operation; FI_EAGAIN queues it (ownership of op stays with the transport either way).
  Rc post_or_defer(Op* op) {
    ++outstanding_;
    if (!deferred_.empty()) {
      deferred_.push_back(op);
      return Rc();
    }
    ssize_t rc = post(op);
    if (rc == -FI_EAGAIN) {
      deferred_.push_back(op);
      return Rc();
    }
    if (rc) {
      --outstanding_;
      release_op(op);
      return fail(MPI_ERR_OTHER, "%s: posting an operation failed: %s", name(), ofi::strerror(static_cast<int>(-rc)));
    }
    return Rc();
  }

  ssize_t post(Op* op) {
    switch (op->kind) {
      case Op::Kind::send: {
        fi_addr_t addr;
        if (!peer_address(op->peer, &addr)) return -FI_EINVAL;
        iovec iov[2] = {{&op->header, sizeof op->header}, {const_cast<void*>(op->payload), op->bytes}};
        return fi_sendv(ep_.get(), iov, nullptr, op->bytes ? 2 : 1, addr, &op->fi_ctx);
      }
      case Op::Kind::read: {
        fi_addr_t addr;
        if (!peer_address(op->peer, &addr)) return -FI_EINVAL;
        return fi_read(ep_.get(), op->local, op->bytes, nullptr, addr, op->raddr, op->rkey, &op->fi_ctx);
      }
      case Op::Kind::recv:
        return fi_recv(ep_.get(), op->buffer, options_.max_message, nullptr, FI_ADDR_UNSPEC, &op->fi_ctx);
    }
    return -FI_EINVAL;
  }

  // rxm (libfabric 1.17) now and then fails a send with FI_ENOTCONN while it sets up the connection to a
  // peer that has just appeared (seen once in about 700 runs: a parent's intercommunicator setup right
  // after MPI_Comm_spawn). Nothing was delivered, so the operation is posted again after a pause (1, 2,
  // 4 ... 128 ms: at most 8 times, ~0.25 s in all); the engine's per-peer sequence numbers put a message
  // that lost its place back in order.
  static constexpr unsigned kConnectRetries = 8;
  bool retry_connection(Op* op, int err) {
    if ((err != FI_ENOTCONN && err != FI_ECONNREFUSED) || op->connect_retries >= kConnectRetries) return false;
    const auto pause = std::chrono::milliseconds(1LL << op->connect_retries);
    ++op->connect_retries;
    op->retry_at = std::chrono::steady_clock::now() + pause;
    FABMPI_LOG(info, pt2pt, "%s: %s to peer %d failed (%s); posting it again in %lld ms", name(),
               op->kind == Op::Kind::send ? "send" : "read", op->peer, ofi::strerror(err),
               static_cast<long long>(pause.count()));
    retrying_.push_back(op);
    return true;
  }
  int repost_retrying() {
    const auto now = std::chrono::steady_clock::now();
    int reposted = 0;
    for (std::size_t i = 0; i < retrying_.size();) {
      Op* op = retrying_[i];
      if (op->retry_at > now) {
        ++i;
        continue;
      }
      retrying_.erase(retrying_.begin() + static_cast<std::ptrdiff_t>(i));
      const ssize_t rc = deferred_.empty() ? post(op) : -FI_EAGAIN;
      if (rc == -FI_EAGAIN) {
        deferred_.push_back(op);
      } else if (rc) {
        FABMPI_LOG(error, pt2pt, "%s: posting again failed: %s", name(), ofi::strerror(static_cast<int>(-rc)));
        --outstanding_;
        failed_.push_back(op);
      }
      ++reposted;
    }
    return reposted;
  }

  int retry_deferred() {
    int posted = 0;
    while (!deferred_.empty()) {
      Op* op = deferred_.front();
      ssize_t rc = post(op);
      if (rc == -FI_EAGAIN) break;
      deferred_.pop_front();
      if (rc) {
        FABMPI_LOG(error, pt2pt, "%s: deferred post failed: %s", name(), ofi::strerror(static_cast<int>(-rc)));
        if (op->kind != Op::Kind::recv) {
          --outstanding_;
          failed_.push_back(op);
        }
      }
      ++posted;
    }
    return posted;
  }

  LibfabricOptions options_;
  std::size_t read_piece_;  // see read_piece()
  InfoHandle info_;
  FabricHandle fabric_;
  DomainHandle domain_;
  AvHandle av_;
  CqHandle cq_;
  EndpointHandle ep_;
  std::size_t inject_size_ = 0;
  std::uint64_t mr_mode_ = 0;
  std::uint64_t next_key_ = 1;
  std::vector<fi_addr_t> peers_;
  std::unordered_map<std::string, int> peer_of_address_;  // hex address -> the peer inserted with it
  std::deque<Op> op_storage_;  // stable addresses
  std::vector<Op*> free_ops_;
  std::deque<Op*> deferred_;
  std::vector<Op*> failed_;
  std::vector<Op*> retrying_;  // sends and reads waiting to be posted again (retry_connection)
  std::vector<unsigned char> rx_memory_;
  std::size_t outstanding_ = 0;  // sends and reads not yet completed
};

Rc LibfabricTransport::open(std::string* hex_name, bool* ordered) {
  FABMPI_TRY(ofi::load());
  InfoHandle hints(ofi::dupinfo(nullptr));
  if (!hints.get()) return fail(MPI_ERR_NO_MEM, "fi_dupinfo failed");
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  hints->fabric_attr->prov_name = strdup(options_.provider.c_str());
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  int rc = ofi::getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, hints.get(), info_.out());
  *ordered = rc == 0;
  if (rc) {
    hints->tx_attr->msg_order = 0;
    hints->rx_attr->msg_order = 0;
    rc = ofi::getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, hints.get(), info_.out());
  }
  if (rc) return fail(MPI_ERR_OTHER, "ofi::getinfo(%s): %s", options_.provider.c_str(), ofi::strerror(-rc));
  inject_size_ = info_->tx_attr->inject_size;
  mr_mode_ = info_->domain_attr->mr_mode;
  if ((rc = ofi::fabric(info_->fabric_attr, fabric_.out(), nullptr)))
    return fail(MPI_ERR_OTHER, "%s: fi_fabric: %s", name(), ofi::strerror(-rc));
  if ((rc = fi_domain(fabric_.get(), info_.get(), domain_.out(), nullptr)))
    return fail(MPI_ERR_OTHER, "%s: fi_domain: %s", name(), ofi::strerror(-rc));
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  if ((rc = fi_av_open(domain_.get(), &av_attr, av_.out(), nullptr)))
    return fail(MPI_ERR_OTHER, "%s: fi_av_open: %s", name(), ofi::strerror(-rc));
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_MSG;
  cq_attr.size = 4096;
  cq_attr.wait_obj = FI_WAIT_NONE;
  if ((rc = fi_cq_open(domain_.get(), &cq_attr, cq_.out(), nullptr)))
    return fail(MPI_ERR_OTHER, "%s: fi_cq_open: %s", name(), ofi::strerror(-rc));
  if ((rc = fi_endpoint(domain_.get(), info_.get(), ep_.out(), nullptr)))
    return fail(MPI_ERR_OTHER, "%s: fi_endpoint: %s", name(), ofi::strerror(-rc));
  if (options_.provider == "shm") {
    // The shm provider names its region "<pid>:<domain>:<endpoint>" by default. A region left in
    // /dev/shm by a process killed with SIGKILL whose pid now belongs to a live process makes
    // fi_enable fail with EBUSY (seen in the test suite once pids wrapped); a name with a random part
    // cannot collide with a leftover.
    std::random_device entropy;
    char region_name[64];
    std::snprintf(region_name, sizeof region_name, "fabmpi-%d-%08x%08x", static_cast<int>(getpid()), entropy(),
                  entropy());
    if ((rc = fi_setname(&ep_.get()->fid, region_name, std::strlen(region_name) + 1)))
      return fail(MPI_ERR_OTHER, "%s: fi_setname: %s", name(), ofi::strerror(-rc));
  }
  if ((rc = fi_ep_bind(ep_.get(), &av_.get()->fid, 0)) ||
      (rc = fi_ep_bind(ep_.get(), &cq_.get()->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(ep_.get())))
    return fail(MPI_ERR_OTHER, "%s: binding the endpoint: %s", name(), ofi::strerror(-rc));

  unsigned char raw[256];
  std::size_t len = sizeof raw;
  if ((rc = fi_getname(&ep_.get()->fid, raw, &len)))
    return fail(MPI_ERR_OTHER, "%s: fi_getname: %s", name(), ofi::strerror(-rc));
  *hex_name = to_hex(raw, len);

  rx_memory_.resize(options_.rx_buffers * options_.max_message);
  for (std::size_t i = 0; i < options_.rx_buffers; ++i) {
    Op* op = new_op(Op::Kind::recv, 0);
    op->buffer = rx_memory_.data() + i * options_.max_message;
    ssize_t prc = post(op);
    if (prc == -FI_EAGAIN) deferred_.push_back(op);
    else if (prc) return fail(MPI_ERR_OTHER, "%s: fi_recv: %s", name(), ofi::strerror(static_cast<int>(-prc)));
  }
  FABMPI_LOG(info, pt2pt, "%s: endpoint open (inject %zu, mr_mode 0x%llx, %s)", name(), inject_size_,
             static_cast<unsigned long long>(mr_mode_), *ordered ? "FI_ORDER_SAS" : "unordered");
  return Rc();
}

int LibfabricTransport::poll(TransportSink& sink) {
  int events = 0;
  if (!retrying_.empty()) events += repost_retrying();
  if (!deferred_.empty()) events += retry_deferred();
  for (Op* op : failed_) {
    sink.on_complete(op->token, MPI_ERR_OTHER);
    release_op(op);
    ++events;
  }
  failed_.clear();
  fi_cq_msg_entry entries[16];
  for (;;) {
    ssize_t n = fi_cq_read(cq_.get(), entries, 16);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      if (fi_cq_readerr(cq_.get(), &err, 0) != 1) break;
      Op* op = static_cast<Op*>(err.op_context);
      ++events;
      if (op->kind != Op::Kind::recv && retry_connection(op, err.err)) continue;
      FABMPI_LOG(error, pt2pt, "%s: operation failed: %s", name(), ofi::strerror(err.err));
      if (op->kind == Op::Kind::recv) {
        if (post(op) == -FI_EAGAIN) deferred_.push_back(op);
      } else {
        --outstanding_;
        std::uint64_t token = op->token;
        release_op(op);
        sink.on_complete(token, MPI_ERR_OTHER);
      }
      continue;
    }
    if (n < 0) {
      FABMPI_LOG(error, pt2pt, "%s: fi_cq_read: %s", name(), ofi::strerror(static_cast<int>(-n)));
      break;
    }
    for (ssize_t i = 0; i < n; ++i) {
      Op* op = static_cast<Op*>(entries[i].op_context);
      if (op->kind == Op::Kind::recv) {
        const std::size_t len = entries[i].len;
        if (len >= sizeof(WireHeader)) {
          WireHeader header;
          std::memcpy(&header, op->buffer, sizeof header);
          sink.on_message(header, op->buffer + sizeof header, len - sizeof header);
        }
        ssize_t prc = deferred_.empty() ? post(op) : -FI_EAGAIN;
        if (prc == -FI_EAGAIN) deferred_.push_back(op);
      } else {
        --outstanding_;
        std::uint64_t token = op->token;
        release_op(op);
        sink.on_complete(token, MPI_SUCCESS);
      }
    }
    events += static_cast<int>(n);
    if (n < 16) break;
  }
  return events;
}

}  // namespace

Rc open_libfabric_transport(const LibfabricOptions& options, std::unique_ptr<Transport>* out,
                            std::string* hex_name, bool* ordered) {
  auto t = std::make_unique<LibfabricTransport>(options);
  FABMPI_TRY(t->open(hex_name, ordered));
  *out = std::move(t);
  return Rc();
}

}  // namespace fabmpi::pt2pt
