// The self transport: a rank's messages to itself. send() copies header and payload into an in-process
// queue that poll() delivers; read() is a memcpy from the (same-process) exposed address. No network.
#include <cstring>
#include <deque>
#include <vector>

#include "common/memory_copy.hpp"
#include "pt2pt/transport.hpp"

namespace fabmpi::pt2pt {
namespace {

class SelfTransport final : public Transport {
 public:
  const char* name() const noexcept override { return "self"; }
  std::size_t inject_limit() const noexcept override { return ~std::size_t{0}; }

  Rc send(int, const WireHeader& header, const void* payload, std::size_t bytes, std::uint64_t,
          bool* completed_now) override {
    Arrival a{header, std::vector<unsigned char>(bytes)};
    if (bytes) copy_memory(a.payload.data(), payload, bytes);
    arrivals_.push_back(std::move(a));
    *completed_now = true;
    return Rc();
  }

  Rc expose(const void* buf, std::size_t, Exposure* out, bool) override {
    out->addr = reinterpret_cast<std::uint64_t>(buf);
    out->key = 0;
    out->keepalive.reset();
    return Rc();
  }

  Rc read(int, void* local, std::size_t bytes, std::uint64_t raddr, std::uint64_t, std::uint64_t token,
          ReadPlacement placement) override {
    if (placement == ReadPlacement::memory) copy_non_temporal(local, reinterpret_cast<const void*>(raddr), bytes);
    else if (bytes) copy_memory(local, reinterpret_cast<const void*>(raddr), bytes);
    done_.push_back(token);
    return Rc();
  }

  int poll(TransportSink& sink) override {
    int events = 0;
    // Deliver only what is queued now: handlers may send to self again.
    std::size_t n = done_.size();
    while (n-- > 0) {
      std::uint64_t token = done_.front();
      done_.pop_front();
      sink.on_complete(token, 0);
      ++events;
    }
    n = arrivals_.size();
    while (n-- > 0) {
      Arrival a = std::move(arrivals_.front());
      arrivals_.pop_front();
      sink.on_message(a.header, a.payload.data(), a.payload.size());
      ++events;
    }
    return events;
  }

  std::size_t pending() const noexcept override { return done_.size(); }

 private:
  struct Arrival {
    WireHeader header;
    std::vector<unsigned char> payload;
  };
  std::deque<Arrival> arrivals_;
  std::deque<std::uint64_t> done_;
};

}  // namespace

std::unique_ptr<Transport> make_self_transport() { return std::make_unique<SelfTransport>(); }

}  // namespace fabmpi::pt2pt
