// An in-memory "world" of P ranks for running collective schedules without any MPI transport: every
// rank's schedule is progressed round-robin in one thread (in a shuffled order), messages match on
// (source, destination, tag) in posting order, and sends either complete at once (eager) or only once
// matched (rendezvous, which exposes schedules that depend on buffering).
#pragma once

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "coll/schedule.hpp"

namespace fabmpi::coll::sim {

class SimRequest final : public Request {
 public:
  SimRequest() : Request(Kind::collective) {}
};

class World {
 public:
  World(int size, bool rendezvous) : size_(size), rendezvous_(rendezvous) {}

  void isend(int src, int dst, int tag, const void* buf, std::size_t bytes, RequestRef* out) {
    auto req = std::make_shared<SimRequest>();
    *out = req;
    check_peer(dst);
    for (auto it = posted_.begin(); it != posted_.end(); ++it) {
      if (it->src == src && it->dst == dst && it->tag == tag) {
        deliver(buf, bytes, *it);
        it->req->mark_complete();
        posted_.erase(it);
        req->mark_complete();
        return;
      }
    }
    Message m{src, dst, tag, std::vector<std::byte>(bytes), req};
    if (bytes) std::memcpy(m.data.data(), buf, bytes);
    if (!rendezvous_) req->mark_complete();
    unexpected_.push_back(std::move(m));
  }

  void irecv(int src, int dst, int tag, void* buf, std::size_t bytes, RequestRef* out) {
    auto req = std::make_shared<SimRequest>();
    *out = req;
    check_peer(src);
    for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
      if (it->src == src && it->dst == dst && it->tag == tag) {
        Posted p{src, dst, tag, buf, bytes, req};
        deliver(it->data.data(), it->data.size(), p);
        it->send_req->mark_complete();
        unexpected_.erase(it);
        req->mark_complete();
        return;
      }
    }
    posted_.push_back(Posted{src, dst, tag, buf, bytes, req});
  }

  bool quiet() const { return posted_.empty() && unexpected_.empty(); }
  std::vector<std::string> errors;

 private:
  struct Message {
    int src, dst, tag;
    std::vector<std::byte> data;
    RequestRef send_req;
  };
  struct Posted {
    int src, dst, tag;
    void* buf;
    std::size_t bytes;
    RequestRef req;
  };
  void deliver(const void* data, std::size_t bytes, const Posted& p) {
    if (bytes != p.bytes)
      errors.push_back("message " + std::to_string(p.src) + "->" + std::to_string(p.dst) + " has " +
                       std::to_string(bytes) + " bytes, receive expects " + std::to_string(p.bytes));
    if (bytes && p.bytes) std::memcpy(p.buf, data, bytes < p.bytes ? bytes : p.bytes);
  }
  void check_peer(int peer) {
    if (peer < 0 || peer >= size_) errors.push_back("peer " + std::to_string(peer) + " out of range");
  }

  int size_;
  bool rendezvous_;
  std::deque<Message> unexpected_;
  std::deque<Posted> posted_;
};

class SimTransport final : public Transport {
 public:
  SimTransport(World& world, int rank) : world_(world), rank_(rank) {}
  Rc isend(const void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) override {
    world_.isend(rank_, peer, tag, buf, bytes, out);
    return Rc();
  }
  Rc irecv(void* buf, std::size_t bytes, int peer, int tag, RequestRef* out) override {
    world_.irecv(peer, rank_, tag, buf, bytes, out);
    return Rc();
  }

 private:
  World& world_;
  int rank_;
};

// Runs one schedule per rank to completion. Returns "" or what went wrong (deadlock, bad sizes).
inline std::string run(int size, bool rendezvous, unsigned seed,
                       const std::function<ScheduleRef(const Context&)>& make) {
  World world(size, rendezvous);
  std::vector<std::unique_ptr<SimTransport>> transports;
  std::vector<ScheduleRef> schedules;
  for (int r = 0; r < size; ++r) {
    transports.push_back(std::make_unique<SimTransport>(world, r));
    Context ctx;
    ctx.transport = transports.back().get();
    ctx.rank = r;
    ctx.size = size;
    ctx.tag = 42;
    schedules.push_back(make(ctx));
  }
  std::vector<bool> done(static_cast<std::size_t>(size), false);
  std::vector<int> order(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) order[static_cast<std::size_t>(r)] = r;
  std::mt19937 rng(seed);
  for (int pass = 0; pass < 100000; ++pass) {
    std::shuffle(order.begin(), order.end(), rng);
    bool all_done = true;
    for (int r : order) {
      if (done[static_cast<std::size_t>(r)]) continue;
      if (schedules[static_cast<std::size_t>(r)]->progress()) {
        done[static_cast<std::size_t>(r)] = true;
        if (!schedules[static_cast<std::size_t>(r)]->error().ok()) return "rank " + std::to_string(r) + " failed";
      } else {
        all_done = false;
      }
    }
    if (!world.errors.empty()) return world.errors.front();
    if (all_done) return world.quiet() ? "" : "messages left over after completion";
  }
  std::string stuck;
  for (int r = 0; r < size; ++r)
    if (!done[static_cast<std::size_t>(r)]) stuck += " " + std::to_string(r);
  return "deadlock: ranks" + stuck + " never finished";
}

}  // namespace fabmpi::coll::sim
