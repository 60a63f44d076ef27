// The point-to-point engine: MPI matching over a narrow transport interface (self, libfabric shm/tcp).
//
// CONTRACT used by coll/, the torch backend path and the bindings (keep these signatures; add freely).
// Ranks are ranks of `comm`; `Channel::collective` traffic lives in a tag space that user receives
// (MPI_ANY_TAG included) can never match, so collectives may use any non-negative tag.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "runtime/comm.hpp"
#include "runtime/datatype.hpp"
#include "runtime/rc.hpp"
#include "runtime/request.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::pt2pt {

enum class Channel : std::uint8_t { user = 0, collective = 1 };
enum class SendMode : std::uint8_t { standard, synchronous, ready, buffered };

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

  int progress() override;
  // MPI_Finalize, before the closing fence: progresses until every send this process started has left
  // its buffers (transport completions received), so peers can still receive it after we stop polling.
  Rc quiesce();

 private:
  Engine() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabmpi::pt2pt
