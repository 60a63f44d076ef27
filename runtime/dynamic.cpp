#include "runtime/dynamic.hpp"

#include <cstdio>
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

Rc wait_ok(Runtime& runtime, const RequestRef& request) {
  runtime.wait(*request);
  if (request->error != MPI_SUCCESS) return fail(request->error, "MPI_Comm_spawn: a collective step failed");
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
  RequestRef r;
  FABMPI_TRY(coll::start_barrier(comm, &r));
  FABMPI_TRY(wait_ok(runtime, r));
  // The root's outcome for everyone: error class, the new job's first universe index and size, and the
  // tag its leaders meet with (unique: the root's universe index and how many spawns it made).
  int outcome[4] = {opened.ok() ? MPI_SUCCESS : opened.code(), 0, 0, 0};
  if (comm->rank() == root && root_error != MPI_SUCCESS) outcome[0] = root_error;
  if (comm->rank() == root && outcome[0] == MPI_SUCCESS) {
    static int spawns_here = 0;
    outcome[3] = (runtime.world_rank() * 64 + ++spawns_here) & comm_create::kTagUserMask;
    const std::vector<std::pair<std::string, std::string>> preput{
        {kParentKey, encode_parents(outcome[3], runtime.world_rank(), *comm->group())},
        {"fabmpi-parent-provider", runtime.pt2pt().network_provider()}};
    const Rc rc = runtime.bootstrap().spawn(request, preput, &outcome[1], &outcome[2]);
    if (!rc.ok()) {
      std::fprintf(stderr, "fabmpi: rank %d: MPI_Comm_spawn: %s\n", comm->rank(), last_failure_reason().c_str());
      outcome[0] = rc.code();
    }
  }
  FABMPI_TRY(coll::start_bcast(comm, outcome, 4, builtin_datatype(MPI_INT), root, &r));
  FABMPI_TRY(wait_ok(runtime, r));
  if (!opened.ok()) return opened;
  if (outcome[0] != MPI_SUCCESS) {
    if (comm->rank() == root && root_error != MPI_SUCCESS) return Rc(root_error);  // the binding's reason stands
    return fail(outcome[0], "the processes could not be started (the root's reason is above)");
  }
  const int base = outcome[1], size = outcome[2], tag = outcome[3];
  std::vector<int> children(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) children[static_cast<std::size_t>(i)] = base + i;
  FABMPI_TRY(runtime.add_processes(children));
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

}  // namespace fabmpi::dynamic
