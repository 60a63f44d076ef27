// The neighbourhood collectives' exchange (MPI-3.1 7.6): one batch of receives from the sources and
// sends to the destinations of a process topology, on the collective channel with the call's tag.
// There is one way to do it, so it is not in the selection table; derived datatypes are packed into
// staging like every other collective's.
#include "coll/collectives.hpp"

namespace fabmpi::coll {
namespace {

struct Edge {
  std::byte* data;
  std::size_t bytes;
  int peer;
};

class NeighborExchange final : public Schedule {
 public:
  NeighborExchange(const Context& ctx, std::vector<Edge> recvs, std::vector<Edge> sends)
      : Schedule(ctx), recvs_(std::move(recvs)), sends_(std::move(sends)) {}

 protected:
  bool step() override {
    if (posted_) return true;
    posted_ = true;
    // Zero-byte messages are sent too: several edges may join the same pair, and they pair up by order.
    for (const Edge& e : recvs_)
      if (e.peer != MPI_PROC_NULL) recv(e.data, e.bytes, e.peer);
    for (const Edge& e : sends_)
      if (e.peer != MPI_PROC_NULL) send(e.data, e.bytes, e.peer);
    return false;
  }

 private:
  std::vector<Edge> recvs_, sends_;
  bool posted_ = false;
};

std::byte* at(const void* buf, MPI_Aint offset) {
  return const_cast<std::byte*>(static_cast<const std::byte*>(buf)) + offset;
}

}  // namespace

Rc start_neighbor_exchange(const CommRef& comm, const char* what, const void* sendbuf,
                           const std::vector<NeighborBlock>& sends, void* recvbuf,
                           const std::vector<NeighborBlock>& recvs, RequestRef* out) {
  auto request = std::make_shared<CollRequest>(comm);
  // The bytes of one block: the user's memory when the type is contiguous, else packed staging (a send
  // packed now, a receive unpacked when the call completes).
  const auto edge = [&request](const NeighborBlock& b, const void* buf, bool receive) -> Edge {
    const auto count = static_cast<std::size_t>(b.count);
    const std::size_t bytes = count * b.type->size();
    std::byte* user = at(buf, b.byte_displ);
    if (b.peer == MPI_PROC_NULL || bytes == 0 || b.type->is_contiguous())
      return {user + b.type->true_lb(), bytes, b.peer};
    std::byte* staged = request->scratch(bytes);
    if (receive)
      request->on_complete.push_back([staged, user, count, type = b.type] {
        type->unpack(staged, count * type->size(), 0, user, count);
      });
    else
      b.type->pack(user, count, 0, staged, bytes);
    return {staged, bytes, b.peer};
  };
  std::vector<Edge> recv_edges, send_edges;
  for (const NeighborBlock& b : recvs) recv_edges.push_back(edge(b, recvbuf, true));
  for (const NeighborBlock& b : sends) send_edges.push_back(edge(b, sendbuf, false));
  for (const NeighborBlock& b : recvs) request->types.push_back(b.type);
  for (const NeighborBlock& b : sends) request->types.push_back(b.type);
  FABMPI_TRY(engine_of(comm->runtime()).start_schedule(request, what, [&](const Context& ctx) -> ScheduleRef {
    return std::make_unique<NeighborExchange>(ctx, std::move(recv_edges), std::move(send_edges));
  }));
  *out = request;
  return Rc();
}

}  // namespace fabmpi::coll
