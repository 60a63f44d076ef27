// The libfabric transport: one FI_EP_RDM endpoint of one provider ("shm" or "tcp;ofi_rxm").
//
// fabmpi matches in software (MPI_ANY_SOURCE must match across the shm and tcp endpoints at once), so
// this transport uses FI_MSG into a pool of pre-posted receive buffers (header + eager limit each,
// reposted after the engine copied the message out) and FI_RMA reads for rendezvous; FI_TAGGED
// matching is not used. FI_ORDER_SAS is requested; the engine's per-peer sequence numbers keep MPI
// ordering correct even if a provider does not give it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pt2pt/transport.hpp"

namespace fabmpi::pt2pt {

struct LibfabricOptions {
  std::string provider;          // "shm" or "tcp;ofi_rxm"
  int world_size = 1;
  std::size_t max_message = 0;   // largest header + payload a peer sends (pool buffer size)
  std::size_t rx_buffers = 64;   // pre-posted receive buffers
  // Returns the hex endpoint name a peer published (called once per peer, on first use).
  std::function<Rc(int peer, std::string* hex_name)> lookup_peer;
};

// Opens fabric, domain, AV, CQ and endpoint, and posts the receive pool.
Rc open_libfabric_transport(const LibfabricOptions& options, std::unique_ptr<Transport>* out,
                            std::string* hex_name, bool* ordered);

}  // namespace fabmpi::pt2pt
