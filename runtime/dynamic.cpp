#include "runtime/dynamic.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "coll/collectives.hpp"
#include "common/log.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/comm_create.hpp"
#include "runtime/intercomm.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi::dynamic {
namespace {

// The key a spawned job finds its parents under: "<tag> <root's universe index> <parents' indices...>".
constexpr const char* kParentKey = "fabmpi-parent";

std::string encode_parents(int tag, int root_world, const Group& parents) {
  std::string text = std::to_string(tag) + " " + std::to_string(root_world);
  for (int r : parents.world_ranks()) text += " " + std::to_string(r);
  return text;
}

bool decode_parents(const std::string& text, int* tag, int* root_world, std::vector<int>* parents) {
  std::vector<long long> numbers;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t used = 0;
    try {
      numbers.push_back(std::stoll(text.substr(at), &used));
    } catch (...) {
      return false;
    }
    at += used;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  if (numbers.size() < 3) return false;
  for (long long n : numbers)
    if (n < 0 || n > (1LL << 30)) return false;
  *tag = static_cast<int>(numbers[0]);
  *root_world = static_cast<int>(numbers[1]);
  parents->assign(numbers.begin() + 2, numbers.end());
  return true;
}

// The two leaders' private channel: a communicator of {parent root, child 0} with the bridge context
// id, which no other communicator uses (ContextIdPool::kBridgeId). Its traffic is told apart by the
// processes and the spawn's tag.
CommRef bridge(Runtime& runtime, int parent_root_world, int child0_world, bool parent_side) {
  return std::make_shared<Comm>(runtime, ContextIdPool::kBridgeId,
                                std::make_shared<const Group>(std::vector<int>{parent_root_world, child0_world}),
                                parent_side ? 0 : 1);
}

// Tags the leaders of a new intercommunicator trade on over a bridge: unique per initiating process (its
// universe index) and per connection it starts, so bridges to different processes never mix.
int next_connection_tag(Runtime& runtime) {
  static int started_here = 0;
  return (runtime.world_rank() * 64 + ++started_here) & comm_create::kTagUserMask;
}

Rc wait_ok(Runtime& runtime, const RequestRef& request) {
  runtime.wait(*request);
  if (request->error != MPI_SUCCESS) return fail(request->error, "a connection request failed");
  return Rc();
}

}  // namespace

Rc spawn(const CommRef& comm, int root, const pmi::SpawnRequest& request, int root_error, CommRef* intercomm,
         int* spawned) {
  Runtime& runtime = comm->runtime();
  *intercomm = nullptr;
  *spawned = 0;
  // Every parent's network address is published before any child can look it up.
  const Rc opened = runtime.pt2pt().open_network();
  FABMPI_TRY(coll::run_barrier(comm, "MPI_Comm_spawn's barrier"));
  // The root's outcome for everyone: error class, the new job's first universe index and size, and the
  // tag its leaders meet with (unique: the root's universe index and how many spawns it made).
  int outcome[4] = {opened.ok() ? MPI_SUCCESS : opened.code(), 0, 0, 0};
  Rc root_rc;
  std::string root_reason;
  if (comm->rank() == root && root_error != MPI_SUCCESS) outcome[0] = root_error;
  if (comm->rank() == root && outcome[0] == MPI_SUCCESS) {
    outcome[3] = next_connection_tag(runtime);
    const std::vector<std::pair<std::string, std::string>> preput{
        {kParentKey, encode_parents(outcome[3], runtime.world_rank(), *comm->group())},
        {"fabmpi-parent-provider", runtime.pt2pt().network_provider()}};
    root_rc = runtime.bootstrap().spawn(request, preput, &outcome[1], &outcome[2]);
    if (!root_rc.ok()) {
      root_reason = last_failure_reason();  // the collective steps below may overwrite it
      outcome[0] = root_rc.code();
    }
  }
  FABMPI_TRY(coll::run_bcast(comm, outcome, 4, builtin_datatype(MPI_INT), root, "MPI_Comm_spawn's broadcast"));
  if (!opened.ok()) return opened;
  if (outcome[0] != MPI_SUCCESS) {
    if (comm->rank() == root && root_error != MPI_SUCCESS) return Rc(root_error);  // the binding's reason stands
    if (comm->rank() == root && !root_rc.ok()) return fail(outcome[0], "%s", root_reason.c_str());
    return fail(outcome[0], "the root (rank %d) could not start the processes", root);
  }
  const int base = outcome[1], size = outcome[2], tag = outcome[3];
  std::vector<int> children(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) children[static_cast<std::size_t>(i)] = base + i;
  FABMPI_TRY(runtime.add_processes(children));  // before the leaders talk: intercomm::create adds them too
  const CommRef link = comm->rank() == root ? bridge(runtime, runtime.world_rank(), base, true) : nullptr;
  FABMPI_TRY(intercomm::create(comm, root, link, 1, tag, intercomm));
  *spawned = size;
  return Rc();
}

Rc connect_to_parents(Runtime& runtime, CommRef* parent) {
  *parent = nullptr;
  if (runtime.world_base() == 0) return Rc();  // the first job has no parents
  std::string text;
  if (!runtime.bootstrap().get(kParentKey, &text).ok()) return Rc();
  int tag = 0, root_world = 0;
  std::vector<int> parents;
  if (!decode_parents(text, &tag, &root_world, &parents))
    return fail(MPI_ERR_INTERN, "MPI_Init: malformed parent description '%.60s'", text.c_str());
  FABMPI_TRY(runtime.add_processes(parents));
  const CommRef& world = runtime.world();
  const CommRef link = world->rank() == 0 ? bridge(runtime, root_world, runtime.world_rank(), false) : nullptr;
  return intercomm::create(world, 0, link, 0, tag, parent);
}

// ---- ports

namespace {

// Connection requests travel on the bridge context (id 2) with this tag space, which on that context
// nothing else uses (intercomm::create's leaders trade on 0x50000000 | tag there).
constexpr int kTagConnectRequest = 0x70000000;
constexpr const char* kPortPrefix = "fabmpi-port:";

struct OpenPorts {
  int next = 0;
  std::vector<int> open;
};
OpenPorts& open_ports() {
  static OpenPorts ports;
  return ports;
}

bool parse_port(const std::string& name, int* world, int* number) {
  if (name.rfind(kPortPrefix, 0) != 0) return false;
  const std::string rest = name.substr(std::strlen(kPortPrefix));
  const std::size_t colon = rest.find(':');
  if (colon == std::string::npos) return false;
  try {
    std::size_t used = 0;
    *world = std::stoi(rest.substr(0, colon), &used);
    if (used != colon) return false;
    *number = std::stoi(rest.substr(colon + 1), &used);
    if (used != rest.size() - colon - 1) return false;
  } catch (...) {
    return false;
  }
  return *world >= 0 && *number >= 0;
}

// The root's outcome for every process of `comm`: [error class, tag].
Rc share_outcome(const CommRef& comm, int root, int outcome[2]) {
  return coll::run_bcast(comm, outcome, 2, builtin_datatype(MPI_INT), root, "sharing the root's outcome");
}

}  // namespace

Rc open_port(Runtime& runtime, std::string* name) {
  FABMPI_TRY(runtime.pt2pt().open_network());  // a connecting process of another job reaches us over it
  OpenPorts& ports = open_ports();
  const int number = ports.next++;
  ports.open.push_back(number);
  *name = kPortPrefix + std::to_string(runtime.world_rank()) + ":" + std::to_string(number);
  return Rc();
}

Rc close_port(Runtime& runtime, const std::string& name) {
  int world = -1, number = -1;
  OpenPorts& ports = open_ports();
  const bool parsed = parse_port(name, &world, &number) && world == runtime.world_rank();
  const auto it = std::find(ports.open.begin(), ports.open.end(), number);
  if (!parsed || it == ports.open.end())
    return fail(MPI_ERR_PORT, "'%.80s' is not a port this process opened", name.c_str());
  ports.open.erase(it);
  return Rc();
}

Rc accept(const CommRef& comm, int root, const std::string& port, CommRef* intercomm) {
  Runtime& runtime = comm->runtime();
  *intercomm = nullptr;
  int outcome[2] = {MPI_SUCCESS, 0};
  int connector = -1;
  if (comm->rank() == root) {
    int world = -1, number = -1;
    const OpenPorts& ports = open_ports();
    if (!parse_port(port, &world, &number) || world != runtime.world_rank() ||
        std::find(ports.open.begin(), ports.open.end(), number) == ports.open.end()) {
      outcome[0] = MPI_ERR_PORT;
    } else {
      // From any process: [its universe index, the tag to trade on].
      const CommRef any = std::make_shared<Comm>(runtime, ContextIdPool::kBridgeId,
                                                 std::make_shared<const Group>(std::vector<int>{runtime.world_rank()}), 0);
      int request[2] = {0, 0};
      RequestRef r;
      FABMPI_TRY(runtime.pt2pt().irecv(request, sizeof request, builtin_datatype(MPI_BYTE), MPI_ANY_SOURCE,
                                       kTagConnectRequest | (number & comm_create::kTagUserMask), any,
                                       pt2pt::Channel::collective, &r));
      FABMPI_TRY(wait_ok(runtime, r));
      connector = request[0];
      outcome[1] = request[1];
    }
  }
  FABMPI_TRY(share_outcome(comm, root, outcome));
  if (outcome[0] != MPI_SUCCESS)
    return fail(outcome[0], "MPI_Comm_accept: '%.80s' is not a port the root opened", port.c_str());
  if (comm->rank() == root) FABMPI_TRY(runtime.add_processes({connector}));
  const CommRef link = comm->rank() == root ? bridge(runtime, runtime.world_rank(), connector, true) : nullptr;
  return intercomm::create(comm, root, link, 1, outcome[1], intercomm);
}

Rc connect(const CommRef& comm, int root, const std::string& port, CommRef* intercomm) {
  Runtime& runtime = comm->runtime();
  *intercomm = nullptr;
  int outcome[2] = {MPI_SUCCESS, 0};
  int acceptor = -1;
  if (comm->rank() == root) {
    int number = -1;
    if (!parse_port(port, &acceptor, &number)) {
      outcome[0] = MPI_ERR_PORT;
    } else if (Rc rc = runtime.add_processes({acceptor}); !rc.ok()) {
      outcome[0] = rc.code();
    } else {
      outcome[1] = next_connection_tag(runtime);
      const int request[2] = {runtime.world_rank(), outcome[1]};
      // The acceptor is rank 0 of this bridge, as of the one the leaders then trade on.
      const CommRef to = bridge(runtime, acceptor, runtime.world_rank(), false);
      RequestRef r;
      FABMPI_TRY(runtime.pt2pt().isend(request, sizeof request, builtin_datatype(MPI_BYTE), 0,
                                       kTagConnectRequest | (number & comm_create::kTagUserMask), to,
                                       pt2pt::Channel::collective, pt2pt::SendMode::standard, &r));
      FABMPI_TRY(wait_ok(runtime, r));
    }
  }
  FABMPI_TRY(share_outcome(comm, root, outcome));
  if (outcome[0] != MPI_SUCCESS)
    return fail(outcome[0], "MPI_Comm_connect: '%.80s' is not a fabmpi port name", port.c_str());
  const CommRef link = comm->rank() == root ? bridge(runtime, acceptor, runtime.world_rank(), false) : nullptr;
  return intercomm::create(comm, root, link, 0, outcome[1], intercomm);
}

Rc join(Runtime& runtime, int fd, CommRef* intercomm) {
  *intercomm = nullptr;
  const std::string mine = std::to_string(runtime.world_rank()) + "\n";
  if (::write(fd, mine.data(), mine.size()) != static_cast<ssize_t>(mine.size()))
    return fail(MPI_ERR_ARG, "MPI_Comm_join: cannot write to descriptor %d: %s", fd, std::strerror(errno));
  std::string theirs;
  char c = 0;
  while (theirs.size() < 16) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return fail(MPI_ERR_ARG, "MPI_Comm_join: the other end of descriptor %d closed or failed", fd);
    if (c == '\n') break;
    theirs += c;
  }
  int other = -1;
  try {
    other = std::stoi(theirs);
  } catch (...) {
  }
  if (other < 0 || other == runtime.world_rank())
    return fail(MPI_ERR_ARG, "MPI_Comm_join: the other end of descriptor %d is not another MPI process", fd);
  FABMPI_TRY(runtime.add_processes({other}));
  const int low = std::min(other, runtime.world_rank()), high = std::max(other, runtime.world_rank());
  const bool first = runtime.world_rank() == low;
  const CommRef link = bridge(runtime, low, high, first);
  const int tag = (1 << 27 | (low * 4096 + high)) & comm_create::kTagUserMask;
  return intercomm::create(runtime.self(), 0, link, first ? 1 : 0, tag, intercomm);
}

// ---- names: "fabmpi-nm-<hash of the service>" = "<service>\n<port>" (an empty value once unpublished)

namespace {
std::string name_key(const std::string& service) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: keys are short, services may not be
  for (unsigned char c : service) h = (h ^ c) * 1099511628211ull;
  char text[32];
  std::snprintf(text, sizeof text, "fabmpi-nm-%016llx", static_cast<unsigned long long>(h));
  return text;
}
}  // namespace

Rc publish_name(Runtime& runtime, const std::string& service, const std::string& port) {
  return runtime.bootstrap().put(name_key(service), service + "\n" + port);
}

Rc unpublish_name(Runtime& runtime, const std::string& service, const std::string& port) {
  std::string value;
  if (!runtime.bootstrap().get(name_key(service), &value).ok() || value != service + "\n" + port)
    return fail(MPI_ERR_SERVICE, "service '%.80s' is not published with that port", service.c_str());
  return runtime.bootstrap().put(name_key(service), "");
}

Rc lookup_name(Runtime& runtime, const std::string& service, std::string* port) {
  std::string value;
  const std::string prefix = service + "\n";
  if (!runtime.bootstrap().get(name_key(service), &value).ok() || value.rfind(prefix, 0) != 0)
    return fail(MPI_ERR_NAME, "no port is published under the service name '%.80s'", service.c_str());
  *port = value.substr(prefix.size());
  return Rc();
}

}  // namespace fabmpi::dynamic
