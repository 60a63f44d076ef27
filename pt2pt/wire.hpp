// The header every fabmpi point-to-point message starts with, and the protocol kinds it names.
// Matchable kinds (eager, eager_sync, rts) carry a per-(sender, receiver) sequence number: the engine
// delivers them to matching strictly in that order, which gives MPI's non-overtaking rule whatever
// order the transport hands messages up in.
#pragma once

#include <cstdint>

namespace fabmpi::pt2pt {

enum class WireKind : std::uint8_t {
  eager = 1,       // header + payload; the receiver copies it out
  eager_sync = 2,  // eager, and the receiver acks once it is matched (MPI_Ssend)
  rts = 3,         // rendezvous ready-to-send: the receiver reads (raddr, rkey) then sends fin
  fin = 4,         // rendezvous finished: the sender may release its buffer
  sync_ack = 5,    // an eager_sync message was matched
  credit = 6,      // returns eager credits to a sender
  // MPI_Cancel of a send the receiver has not matched (eager_sync, rts): seq names the message.
  cancel_send = 7,
  // The answer (sender_op echoed): rkey 0 = too late (matched, it completes as usual), 1 = an eager_sync
  // was dropped, 2 = an rts was dropped (the sender's transport ends the rendezvous as on fin).
  cancel_reply = 8,
};

inline bool is_matchable(WireKind kind) noexcept {
  return kind == WireKind::eager || kind == WireKind::eager_sync || kind == WireKind::rts;
}

struct WireHeader {
  WireKind kind;
  std::uint8_t channel;        // pt2pt::Channel
  std::uint16_t reserved = 0;
  std::uint32_t context_id;
  std::int32_t source;         // sender's rank in the communicator
  std::int32_t tag;
  std::int32_t src_world;      // sender's world rank (the transport peer)
  std::uint32_t seq;           // matchable kinds: per-peer sequence number
  std::uint64_t size;          // payload bytes (packed); for rts the full message size
  std::uint64_t sender_op;     // sender's operation id (rts, eager_sync; echoed by fin/sync_ack)
  std::uint64_t raddr;         // rts: address (or offset) to read from
  std::uint64_t rkey;          // rts: registration key; credit: number of credits returned
};
static_assert(sizeof(WireHeader) == 56);

}  // namespace fabmpi::pt2pt
