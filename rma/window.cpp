#include "rma/window.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "common/unique_fd.hpp"

#include "coll/collectives.hpp"
#include "common/log.hpp"
#include "pt2pt/engine.hpp"
#include "runtime/comm_create.hpp"

namespace fabmpi::rma {

namespace {

using pt2pt::Channel;
using pt2pt::SendMode;

// Tags on the window's private communicator (user channel: nothing else uses it).
constexpr int kHeaderTag = 1;
constexpr int kGrantTag = 2;
constexpr int kUnlockAckTag = 3;
constexpr int kFlushAckTag = 4;
constexpr int kPostTag = 5;
constexpr int kDataTagBase = 0x100;
constexpr std::uint32_t kDataTagMask = 0x0fffffff;
// What the target sends back (a get's data, the old contents) travels on the data tag with this bit: an
// operation on this process's own window would otherwise match its reply with its own operand.
constexpr int kReplyBit = 0x10000000;

const DatatypeRef& byte_type() {
  static const DatatypeRef type = builtin_datatype(MPI_BYTE);
  return type;
}

// The predefined type of an accumulate's elements (what the op is applied to), or MPI_BYTE for types
// with no arithmetic (MPI_REPLACE and MPI_NO_OP move bytes).
MPI_Datatype predefined_for(ElementType e) {
  switch (e) {
    case ElementType::i8: return MPI_INT8_T;
    case ElementType::u8: return MPI_UINT8_T;
    case ElementType::i16: return MPI_INT16_T;
    case ElementType::u16: return MPI_UINT16_T;
    case ElementType::i32: return MPI_INT32_T;
    case ElementType::u32: return MPI_UINT32_T;
    case ElementType::i64: return MPI_INT64_T;
    case ElementType::u64: return MPI_UINT64_T;
    case ElementType::f32: return MPI_FLOAT;
    case ElementType::f64: return MPI_DOUBLE;
    case ElementType::f80: return MPI_LONG_DOUBLE;
    case ElementType::c_float: return MPI_C_FLOAT_COMPLEX;
    case ElementType::c_double: return MPI_C_DOUBLE_COMPLEX;
    case ElementType::c_long_double: return MPI_C_LONG_DOUBLE_COMPLEX;
    case ElementType::boolean: return MPI_C_BOOL;
    case ElementType::float_int: return MPI_FLOAT_INT;
    case ElementType::double_int: return MPI_DOUBLE_INT;
    case ElementType::long_int: return MPI_LONG_INT;
    case ElementType::short_int: return MPI_SHORT_INT;
    case ElementType::int_int: return MPI_2INT;
    case ElementType::long_double_int: return MPI_LONG_DOUBLE_INT;
    case ElementType::logical: return MPI_LOGICAL;
    case ElementType::float_float: return MPI_2REAL;
    case ElementType::double_double: return MPI_2DOUBLE_PRECISION;
    default: return MPI_BYTE;
  }
}

}  // namespace

// An operation from one origin, served at this target in header order.
struct Window::Incoming {
  int origin = 0;
  Header h{};
  DatatypeRef layout;               // the target memory's layout (h.count elements)
  std::byte* at = nullptr;          // where the layout starts in this process
  std::vector<std::byte> scratch;   // stands in for memory a dynamic window does not have attached
  std::vector<std::byte> data;      // accumulate operand(s), received packed
  std::vector<RequestRef> waiting;  // its data receive, or a get's send
  bool posted = false;
};

// A condition some synchronization waits for, completed by the window's progress.
namespace {
class ConditionRequest final : public Request {
 public:
  ConditionRequest() : Request(Kind::generalized) {}
};
}  // namespace

Rc Window::create(const CommRef& comm, void* base, MPI_Aint size, int disp_unit, Memory memory,
                  std::shared_ptr<Window>* out) {
  if (memory == Memory::shared) {
    const auto& node = comm->runtime().node_of_rank();
    for (int r = 1; r < comm->size(); ++r)
      if (node[static_cast<std::size_t>(comm->world_rank(r))] != node[static_cast<std::size_t>(comm->world_rank(0))])
        return fail(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared: the communicator spans more than one node");
  }
  const bool allocate = memory == Memory::allocated;
  auto w = std::shared_ptr<Window>(new Window());
  w->runtime_ = &comm->runtime();
  FABMPI_TRY(comm_create::dup(comm, &w->comm_));
  w->comm_->name = "a window's communicator";
  w->runtime_->context_ids()->set_name(w->comm_->context_id(), w->comm_->name);  // hang reports
  w->size_ = size;
  w->disp_unit_ = disp_unit;
  w->memory_ = memory;
  if (allocate && size > 0) {
    const auto bytes = (static_cast<std::size_t>(size) + 63) / 64 * 64;
    w->base_ = std::aligned_alloc(64, bytes);
    if (!w->base_) return fail(MPI_ERR_NO_MEM, "cannot allocate a window of %lld bytes", static_cast<long long>(size));
  } else {
    w->base_ = base;
  }
  const int n = w->comm_->size();
  // Every member's size and displacement unit: origins check ranges and send byte displacements.
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(size), disp_unit};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(n));
  RequestRef r;
  const DatatypeRef i64 = builtin_datatype(MPI_INT64_T);
  FABMPI_TRY(coll::start_allgather(coll::Collective::allgather, w->comm_, mine.data(), 2, i64, all.data(), 2, {}, {},
                                   i64, &r));
  FABMPI_TRY(w->wait_for(r));
  for (int i = 0; i < n; ++i) {
    w->sizes_.push_back(static_cast<MPI_Aint>(all[2 * static_cast<std::size_t>(i)]));
    w->disp_units_.push_back(static_cast<int>(all[2 * static_cast<std::size_t>(i) + 1]));
  }
  if (memory == Memory::shared) FABMPI_TRY(w->map_shared_segment());
  w->size_attribute = size;
  w->disp_unit_attribute = disp_unit;
  w->flavor_attribute = w->flavor();
  w->sent_to_.assign(static_cast<std::size_t>(n), 0);
  w->tag_seq_.assign(static_cast<std::size_t>(n), 0);
  w->done_from_.assign(static_cast<std::size_t>(n), 0);
  w->incoming_.resize(static_cast<std::size_t>(n));
  w->header_queue_.resize(static_cast<std::size_t>(n));
  w->runtime_->add_progress_source(w.get());
  w->registered_ = true;
  *out = std::move(w);
  return Rc();
}

Window::~Window() {
  if (registered_) runtime_->remove_progress_source(this);
  if (memory_ == Memory::allocated) std::free(base_);
  if (mapping_) ::munmap(mapping_, mapping_bytes_);
}

// One segment for the node's members: member 0 creates it and sends its name, everyone maps it, and it is
// unlinked once all have (nothing is left in /dev/shm whatever happens later).
Rc Window::map_shared_segment() {
  std::size_t total = 0;
  for (MPI_Aint s : sizes_) {
    shared_offsets_.push_back(total);
    total += (static_cast<std::size_t>(s) + 63) / 64 * 64;
  }
  mapping_bytes_ = std::max<std::size_t>(total, 64);
  char name[64] = {};
  const bool creator = comm_->rank() == 0;
  UniqueFd fd;
  if (creator) {
    std::snprintf(name, sizeof name, "/fabmpi-win-%d-%08x", static_cast<int>(::getpid()),
                  static_cast<unsigned>(std::random_device{}()));
    fd.reset(::shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600));
    if (!fd.valid() || ::ftruncate(fd.get(), static_cast<off_t>(mapping_bytes_)) != 0) {
      name[0] = '\0';  // tells the others it failed
      if (fd.valid()) ::shm_unlink(name);
    }
  }
  RequestRef r;
  FABMPI_TRY(coll::start_bcast(comm_, name, sizeof name, byte_type(), 0, &r));
  FABMPI_TRY(wait_for(r));
  if (name[0] == '\0') return fail(MPI_ERR_NO_MEM, "MPI_Win_allocate_shared: cannot create a segment of %zu bytes", mapping_bytes_);
  if (!creator) fd.reset(::shm_open(name, O_RDWR, 0));
  void* mapping = fd.valid() ? ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0) : MAP_FAILED;
  int ok = mapping != MAP_FAILED ? 1 : 0, all_ok = 0;
  FABMPI_TRY(coll::start_reduction(coll::Collective::allreduce, comm_, &ok, &all_ok, 1, builtin_datatype(MPI_INT),
                                   builtin_op(MPI_MIN), 0, &r));
  FABMPI_TRY(wait_for(r));
  if (creator) ::shm_unlink(name);
  if (!all_ok) {
    if (mapping != MAP_FAILED) ::munmap(mapping, mapping_bytes_);
    return fail(MPI_ERR_NO_MEM, "MPI_Win_allocate_shared: a member could not map the segment");
  }
  mapping_ = mapping;
  base_ = static_cast<std::byte*>(mapping_) + shared_offsets_[static_cast<std::size_t>(comm_->rank())];
  return Rc();
}

Rc Window::attach(void* base, MPI_Aint size) {
  if (memory_ != Memory::dynamic) return fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach on a window not made by MPI_Win_create_dynamic");
  if (size < 0) return fail(MPI_ERR_SIZE, "negative size %lld", static_cast<long long>(size));
  attached_.emplace_back(reinterpret_cast<std::uintptr_t>(base), static_cast<std::size_t>(size));
  return Rc();
}

Rc Window::detach(const void* base) {
  if (memory_ != Memory::dynamic) return fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach on a window not made by MPI_Win_create_dynamic");
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  auto it = std::find_if(attached_.begin(), attached_.end(), [address](const auto& r) { return r.first == address; });
  if (it == attached_.end()) return fail(MPI_ERR_RMA_ATTACH, "MPI_Win_detach: no region attached at that address");
  attached_.erase(it);
  return Rc();
}

bool Window::attached(std::uintptr_t first, std::uintptr_t last) const {
  // Covered by the union of the attached regions: one access may span regions attached separately
  // that touch (MPICH's win_dynamic_rma_flush_get). Advance `first` through regions until it passes
  // `last` or no region continues it.
  bool advanced = true;
  while (first < last && advanced) {
    advanced = false;
    for (const auto& [address, bytes] : attached_)
      if (first >= address && first < address + bytes) {
        first = address + bytes;
        advanced = true;
      }
  }
  if (first >= last) return true;
  // An empty access at the end of (or inside) a region.
  for (const auto& [address, bytes] : attached_)
    if (first >= address && last <= address + bytes) return true;
  return false;
}

std::byte* Window::target_address(const Header& h) const {
  if (memory_ == Memory::dynamic) return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(h.disp));
  return static_cast<std::byte*>(base_) + h.disp;
}

Rc Window::shared_query(int rank, MPI_Aint* size, int* disp_unit, void** base) const {
  if (memory_ != Memory::shared) return fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a window that is not shared");
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    while (rank + 1 < static_cast<int>(sizes_.size()) && sizes_[static_cast<std::size_t>(rank)] == 0) ++rank;
  }
  const auto r = static_cast<std::size_t>(rank);
  *size = sizes_[r];
  *disp_unit = disp_units_[r];
  // A process that contributed no memory has no segment: NULL, as MPICH answers (no address into a
  // neighbour's segment that could be mistaken for one).
  *base = sizes_[r] == 0 ? nullptr : static_cast<std::byte*>(mapping_) + shared_offsets_[r];
  return Rc();
}

// ---- origin side

Rc Window::wait_for(const RequestRef& request) {
  runtime_->wait(*request);
  if (request->error != MPI_SUCCESS) return fail(request->error, "an RMA message failed (error %d)", request->error);
  return Rc();
}

Rc Window::wait_all_local() {
  // Waiting progresses the target side too (this process serves others meanwhile).
  while (!local_pending_.empty()) {
    // The entry (and the buffer a send reads from) lives until its request completes.
    InFlight f = std::move(local_pending_.back());
    local_pending_.pop_back();
    FABMPI_TRY(wait_for(f.request));
  }
  return Rc();
}

// Keeps an operation's request (and the buffer it sends from) until a synchronization completes it; a
// long passive epoch without flushes drops the finished ones as it goes.
void Window::track(RequestRef request, std::shared_ptr<std::vector<std::byte>> buffer) {
  if (collect_) collect_->push_back(request);
  if (local_pending_.size() >= 4096)
    std::erase_if(local_pending_, [](const InFlight& f) { return f.request->is_complete() && f.request->error == MPI_SUCCESS; });
  local_pending_.push_back({std::move(request), std::move(buffer)});
}

Rc Window::wait_until(std::function<bool()> condition) {
  auto request = std::make_shared<ConditionRequest>();
  condition_ = std::move(condition);
  condition_request_ = request;
  progress();
  runtime_->wait(*request);
  condition_ = nullptr;
  condition_request_.reset();
  return Rc();
}

Rc Window::check_epoch(int target, const char* what) const {
  if (fence_epoch_ || locks_.count(target)) return Rc();
  if (in_access_group_ && std::find(start_group_.begin(), start_group_.end(), target) != start_group_.end())
    return Rc();
  return fail(MPI_ERR_RMA_SYNC, "%s to rank %d outside an access epoch (MPI_Win_fence, MPI_Win_lock or "
              "MPI_Win_lock_all first)", what, target);
}

Rc Window::check_range(int target, MPI_Aint target_disp, int target_count, const Datatype& type) const {
  if (target_count == 0 || type.size() == 0) return Rc();
  if (memory_ == Memory::dynamic) return Rc();  // addresses; the target checks its attached regions
  if (target_disp < 0) return fail(MPI_ERR_DISP, "negative target displacement %lld", static_cast<long long>(target_disp));
  const auto t = static_cast<std::size_t>(target);
  const MPI_Aint first = target_disp * disp_units_[t] + type.true_lb();
  const MPI_Aint last = target_disp * disp_units_[t] + static_cast<MPI_Aint>(target_count - 1) * type.extent() +
                        type.true_lb() + type.true_extent();
  if (first < 0 || last > sizes_[t])
    return fail(MPI_ERR_RMA_RANGE,
                "the access [%lld, %lld) falls outside rank %d's window of %lld bytes", static_cast<long long>(first),
                static_cast<long long>(last), target, static_cast<long long>(sizes_[t]));
  return Rc();
}

int Window::next_data_tag(int target) {
  return kDataTagBase + static_cast<int>(tag_seq_[static_cast<std::size_t>(target)]++ & kDataTagMask);
}

Rc Window::send_header(int target, Header h, const Datatype* layout) {
  auto message = std::make_shared<std::vector<std::byte>>(sizeof(Header));
  if (layout && !layout->is_contiguous()) {
    const auto& blocks = layout->blocks();
    h.nblocks = static_cast<std::uint32_t>(blocks.size());
    message->resize(sizeof(Header) + blocks.size() * sizeof(Block));
    std::memcpy(message->data() + sizeof(Header), blocks.data(), blocks.size() * sizeof(Block));
  }
  std::memcpy(message->data(), &h, sizeof h);
  RequestRef r;
  FABMPI_TRY(runtime_->pt2pt().isend(message->data(), message->size(), byte_type(), target, kHeaderTag, comm_,
                                     Channel::user, SendMode::standard, &r));
  track(std::move(r), std::move(message));
  return Rc();
}

namespace {
// The header fields describing the target memory of an operation.
Window::Header target_header(Window::Kind kind, MPI_Aint disp_bytes, int count, const Datatype& type) {
  Window::Header h{};
  h.kind = kind;
  if (type.is_contiguous()) {
    h.disp = disp_bytes + type.true_lb();
    h.count = static_cast<std::uint64_t>(count) * type.size();
  } else {
    h.disp = disp_bytes;
    h.count = static_cast<std::uint64_t>(count);
    h.extent = type.extent();
  }
  h.bytes = static_cast<std::uint64_t>(count) * type.size();
  return h;
}
}  // namespace

Rc Window::put(const void* origin, int origin_count, const DatatypeRef& origin_type, int target, MPI_Aint target_disp,
               int target_count, const DatatypeRef& target_type) {
  if (target == MPI_PROC_NULL) return Rc();
  FABMPI_TRY(check_epoch(target, "MPI_Put"));
  FABMPI_TRY(check_range(target, target_disp, target_count, *target_type));
  Header h = target_header(Kind::put, target_disp * disp_units_[static_cast<std::size_t>(target)], target_count,
                           *target_type);
  h.data_tag = next_data_tag(target);
  FABMPI_TRY(send_header(target, h, target_type.get()));
  RequestRef r;
  FABMPI_TRY(runtime_->pt2pt().isend(origin, static_cast<std::size_t>(origin_count), origin_type, target, h.data_tag,
                                     comm_, Channel::user, SendMode::standard, &r));
  track(std::move(r));
  ++sent_to_[static_cast<std::size_t>(target)];
  return Rc();
}

Rc Window::get(void* origin, int origin_count, const DatatypeRef& origin_type, int target, MPI_Aint target_disp,
               int target_count, const DatatypeRef& target_type) {
  if (target == MPI_PROC_NULL) return Rc();
  FABMPI_TRY(check_epoch(target, "MPI_Get"));
  FABMPI_TRY(check_range(target, target_disp, target_count, *target_type));
  Header h = target_header(Kind::get, target_disp * disp_units_[static_cast<std::size_t>(target)], target_count,
                           *target_type);
  h.data_tag = next_data_tag(target);
  RequestRef r;
  FABMPI_TRY(runtime_->pt2pt().irecv(origin, static_cast<std::size_t>(origin_count), origin_type, target,
                                     h.data_tag | kReplyBit, comm_, Channel::user, &r));
  track(std::move(r));
  FABMPI_TRY(send_header(target, h, target_type.get()));
  ++sent_to_[static_cast<std::size_t>(target)];
  return Rc();
}

Rc Window::accumulate(const void* origin, int origin_count, const DatatypeRef& origin_type, void* result,
                      int result_count, const DatatypeRef& result_type, int target, MPI_Aint target_disp,
                      int target_count, const DatatypeRef& target_type, const OpRef& op) {
  if (target == MPI_PROC_NULL) return Rc();
  const bool fetch = result != nullptr || result_type != nullptr;
  const char* what = fetch ? "MPI_Get_accumulate" : "MPI_Accumulate";
  FABMPI_TRY(check_epoch(target, what));
  FABMPI_TRY(check_range(target, target_disp, target_count, *target_type));
  const bool no_op = op->predefined() == MPI_NO_OP;
  const std::size_t origin_bytes = static_cast<std::size_t>(origin_count) * origin_type->size();
  const std::size_t target_bytes = static_cast<std::size_t>(target_count) * target_type->size();
  // Types only have to match when something moves (MPICH's badrma: zero counts and zero-size types of
  // any kinds together are fine).
  if (!no_op && (origin_bytes != 0 || target_bytes != 0) &&
      origin_type->element_type() != target_type->element_type())
    return fail(MPI_ERR_TYPE, "%s: the origin and target datatypes are built from different predefined types", what);
  if (!no_op && origin_bytes != target_bytes)
    return fail(MPI_ERR_COUNT, "%s: the origin moves %zu bytes, the target layout holds %zu", what, origin_bytes,
                target_bytes);
  Header h = target_header(fetch ? Kind::get_acc : Kind::acc,
                           target_disp * disp_units_[static_cast<std::size_t>(target)], target_count, *target_type);
  h.data_tag = next_data_tag(target);
  h.op = op->predefined();
  h.element = static_cast<std::uint8_t>(target_type->element_type());
  if (fetch) {
    RequestRef r;
    FABMPI_TRY(runtime_->pt2pt().irecv(result, static_cast<std::size_t>(result_count), result_type, target,
                                       h.data_tag | kReplyBit, comm_, Channel::user, &r));
    track(std::move(r));
  }
  FABMPI_TRY(send_header(target, h, target_type.get()));
  if (!no_op) {
    // The operand travels packed (the target applies the op element by element).
    auto packed = std::make_shared<std::vector<std::byte>>(h.bytes);
    origin_type->pack(origin, static_cast<std::size_t>(origin_count), 0, packed->data(), packed->size());
    RequestRef r;
    FABMPI_TRY(runtime_->pt2pt().isend(packed->data(), packed->size(), byte_type(), target, h.data_tag, comm_,
                                       Channel::user, SendMode::standard, &r));
    track(std::move(r), std::move(packed));
  }
  ++sent_to_[static_cast<std::size_t>(target)];
  return Rc();
}

Rc Window::compare_and_swap(const void* origin, const void* compare, void* result, const DatatypeRef& type, int target,
                            MPI_Aint target_disp) {
  if (target == MPI_PROC_NULL) return Rc();
  FABMPI_TRY(check_epoch(target, "MPI_Compare_and_swap"));
  FABMPI_TRY(check_range(target, target_disp, 1, *type));
  Header h = target_header(Kind::cas, target_disp * disp_units_[static_cast<std::size_t>(target)], 1, *type);
  h.data_tag = next_data_tag(target);
  RequestRef r;
  FABMPI_TRY(runtime_->pt2pt().irecv(result, 1, type, target, h.data_tag | kReplyBit, comm_, Channel::user, &r));
  track(std::move(r));
  FABMPI_TRY(send_header(target, h, type.get()));
  auto operands = std::make_shared<std::vector<std::byte>>(2 * type->size());
  type->pack(compare, 1, 0, operands->data(), type->size());
  type->pack(origin, 1, 0, operands->data() + type->size(), type->size());
  FABMPI_TRY(runtime_->pt2pt().isend(operands->data(), operands->size(), byte_type(), target, h.data_tag, comm_,
                                     Channel::user, SendMode::standard, &r));
  track(std::move(r), std::move(operands));
  ++sent_to_[static_cast<std::size_t>(target)];
  return Rc();
}

namespace {
// A request-based RMA operation: complete when the requests of its messages are.
class RmaRequest final : public Request {
 public:
  RmaRequest() : Request(Kind::generalized) {}
};
}  // namespace

Rc Window::begin_request(int target, const char* what) {
  if (target != MPI_PROC_NULL && !locks_.count(target))
    return fail(MPI_ERR_RMA_SYNC, "%s to rank %d outside a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)",
                what, target);
  collected_.clear();
  collect_ = &collected_;
  return Rc();
}

RequestRef Window::end_request() {
  collect_ = nullptr;
  auto request = std::make_shared<RmaRequest>();
  rma_requests_.push_back(request);
  rma_request_parts_.push_back(std::move(collected_));
  collected_.clear();
  progress();  // nothing to wait for (MPI_PROC_NULL, count 0 with its messages done): complete now
  return request;
}

// ---- synchronization

// The target's answer to a lock, unlock or flush: a 0-byte message on the kind's tag.
Rc Window::request_and_wait(int target, Kind kind, int lock_type) {
  const int reply_tag = kind == Kind::lock ? kGrantTag : kind == Kind::unlock ? kUnlockAckTag : kFlushAckTag;
  RequestRef reply;
  FABMPI_TRY(runtime_->pt2pt().irecv(nullptr, 0, byte_type(), target, reply_tag, comm_, Channel::user, &reply));
  Header h{};
  h.kind = kind;
  h.lock_type = lock_type == MPI_LOCK_EXCLUSIVE ? 1 : 0;
  h.ops_sent = sent_to_[static_cast<std::size_t>(target)];
  FABMPI_TRY(send_header(target, h, nullptr));
  return wait_for(reply);
}

Rc Window::fence(int assert_flags) {
  FABMPI_TRY(complete_incoming_and_outgoing());
  fence_epoch_ = (assert_flags & MPI_MODE_NOSUCCEED) == 0;
  return Rc();
}

// Every operation any member started on this window is complete at its target and at its origin.
Rc Window::complete_incoming_and_outgoing() {
  // How many operations were sent to this process, ever (running totals, summed per target).
  std::uint64_t expected = 0;
  const int one = 1;
  RequestRef r;
  FABMPI_TRY(coll::start_reduce_scatter(coll::Collective::reduce_scatter_block, comm_, sent_to_.data(), &expected,
                                        coll::Counts(&one, 1), builtin_datatype(MPI_UINT64_T), builtin_op(MPI_SUM), &r));
  FABMPI_TRY(wait_for(r));
  FABMPI_TRY(wait_until([this, expected] { return done_total_ >= expected; }));
  FABMPI_TRY(wait_all_local());
  FABMPI_TRY(coll::start_barrier(comm_, &r));
  return wait_for(r);
}

Rc Window::lock(int lock_type, int target, int assert_flags) {
  if (locks_.count(target))
    return fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock: rank %d is already locked by this process", target);
  if (target == MPI_PROC_NULL) return Rc();
  const bool nocheck = (assert_flags & MPI_MODE_NOCHECK) != 0;
  if (!nocheck) FABMPI_TRY(request_and_wait(target, Kind::lock, lock_type));
  locks_[target] = LockHeld{lock_type == MPI_LOCK_EXCLUSIVE, nocheck};
  return Rc();
}

Rc Window::unlock(int target) {
  if (target == MPI_PROC_NULL) return Rc();
  auto it = locks_.find(target);
  if (it == locks_.end() || (lock_all_ && !unlocking_all_))
    return fail(MPI_ERR_RMA_SYNC, "MPI_Win_unlock: rank %d is not locked by MPI_Win_lock in this process", target);
  // A lock taken with MPI_MODE_NOCHECK was never granted: only completion to wait for.
  FABMPI_TRY(request_and_wait(target, it->second.nocheck ? Kind::flush : Kind::unlock, 0));
  FABMPI_TRY(wait_all_local());
  locks_.erase(it);
  return Rc();
}

Rc Window::lock_all(int assert_flags) {
  if (lock_all_ || !locks_.empty())
    return fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: this process already holds a lock on the window");
  for (int t = 0; t < comm_->size(); ++t) FABMPI_TRY(lock(MPI_LOCK_SHARED, t, assert_flags));
  lock_all_ = true;
  return Rc();
}

Rc Window::unlock_all() {
  if (!lock_all_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all");
  unlocking_all_ = true;
  Rc rc;
  for (int t = 0; t < comm_->size() && rc.ok(); ++t) rc = unlock(t);
  unlocking_all_ = false;
  lock_all_ = false;
  return rc;
}

Rc Window::flush(int target) {
  if (target == MPI_PROC_NULL) return Rc();
  if (!locks_.count(target))
    return fail(MPI_ERR_RMA_SYNC, "MPI_Win_flush: no passive-target epoch with rank %d", target);
  FABMPI_TRY(request_and_wait(target, Kind::flush, 0));
  return wait_all_local();
}

Rc Window::flush_all() {
  if (locks_.empty()) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_flush_all outside a passive-target epoch");
  for (const auto& [target, held] : locks_) FABMPI_TRY(request_and_wait(target, Kind::flush, 0));
  return wait_all_local();
}

Rc Window::flush_local(int target) {
  if (target != MPI_PROC_NULL && !locks_.count(target))
    return fail(MPI_ERR_RMA_SYNC, "MPI_Win_flush_local: no passive-target epoch with rank %d", target);
  return wait_all_local();
}

Rc Window::flush_local_all() {
  if (locks_.empty()) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all outside a passive-target epoch");
  return wait_all_local();
}

Rc Window::post(const std::vector<int>& origins) {
  if (exposing_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_post while an exposure epoch is open (MPI_Win_wait first)");
  exposing_ = true;
  post_group_ = origins;
  for (int origin : origins) send_reply(origin, kPostTag);  // "you may access my window now"
  return Rc();
}

Rc Window::start(const std::vector<int>& targets) {
  if (in_access_group_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_start while an access epoch is open (MPI_Win_complete first)");
  for (int target : targets) {
    RequestRef posted;
    FABMPI_TRY(runtime_->pt2pt().irecv(nullptr, 0, byte_type(), target, kPostTag, comm_, Channel::user, &posted));
    FABMPI_TRY(wait_for(posted));
  }
  start_group_ = targets;
  in_access_group_ = true;
  return Rc();
}

Rc Window::complete() {
  if (!in_access_group_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
  for (int target : start_group_) {
    Header h{};
    h.kind = Kind::complete;
    h.ops_sent = sent_to_[static_cast<std::size_t>(target)];
    FABMPI_TRY(send_header(target, h, nullptr));
  }
  in_access_group_ = false;
  start_group_.clear();
  return wait_all_local();
}

Rc Window::test_exposure(bool* done) {
  if (!exposing_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_wait or MPI_Win_test without MPI_Win_post");
  progress();
  *done = std::all_of(post_group_.begin(), post_group_.end(), [this](int origin) {
    auto it = completes_.find(origin);
    return it != completes_.end() && done_from_[static_cast<std::size_t>(origin)] >= it->second;
  });
  if (*done) {
    for (int origin : post_group_) completes_.erase(origin);
    exposing_ = false;
    post_group_.clear();
  }
  return Rc();
}

Rc Window::wait_exposure() {
  if (!exposing_) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
  FABMPI_TRY(wait_until([this] {
    return std::all_of(post_group_.begin(), post_group_.end(), [this](int origin) {
      auto it = completes_.find(origin);
      return it != completes_.end() && done_from_[static_cast<std::size_t>(origin)] >= it->second;
    });
  }));
  bool done = false;
  return test_exposure(&done);
}

Rc Window::free_collective() {
  if (!locks_.empty()) return fail(MPI_ERR_RMA_SYNC, "MPI_Win_free while this process holds a lock on the window");
  FABMPI_TRY(complete_incoming_and_outgoing());
  if (registered_) {
    runtime_->remove_progress_source(this);
    registered_ = false;
  }
  freed_ = true;
  return Rc();
}

// ---- target side

DatatypeRef Window::layout_type(const Header& h, const std::vector<Block>& blocks) const {
  if (h.nblocks == 0) return byte_type();  // h.count bytes
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  for (const Block& b : blocks) {
    lengths.push_back(static_cast<int>(b.length));
    displs.push_back(static_cast<MPI_Aint>(b.offset));
  }
  DatatypeRef one = make_hindexed(lengths, displs, byte_type());
  return make_resized(one, one->lb(), static_cast<MPI_Aint>(h.extent));
}

void Window::serve_header(int origin, std::vector<std::byte>&& message) {
  Header h;
  std::memcpy(&h, message.data(), sizeof h);
  switch (h.kind) {
    case Kind::lock:
      lock_queue_.push_back({origin, h.lock_type == 1});
      return;
    case Kind::unlock:
    case Kind::flush:
      pending_acks_.push_back({origin, h.kind, h.ops_sent});
      return;
    case Kind::complete:
      completes_[origin] = h.ops_sent;
      return;
    default: break;
  }
  auto in = std::make_shared<Incoming>();
  in->origin = origin;
  in->h = h;
  std::vector<Block> blocks(h.nblocks);
  if (h.nblocks) std::memcpy(blocks.data(), message.data() + sizeof(Header), h.nblocks * sizeof(Block));
  in->layout = layout_type(h, blocks);
  in->at = target_address(h);
  if (memory_ == Memory::dynamic && h.bytes > 0) {
    // The bytes the access touches, relative to its address: the blocks of `count` elements.
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(h.count);  // contiguous: h.count bytes
    if (h.nblocks) {
      lo = INT64_MAX;
      hi = INT64_MIN;
      for (const Block& b : blocks) {
        lo = std::min(lo, b.offset);
        hi = std::max(hi, b.offset + static_cast<std::int64_t>(b.length));
      }
      hi += (static_cast<std::int64_t>(h.count) - 1) * h.extent;
    }
    const auto first = reinterpret_cast<std::uintptr_t>(in->at) + static_cast<std::uintptr_t>(lo);
    if (lo > hi || !attached(first, first + static_cast<std::uintptr_t>(hi - lo))) {
      // Erroneous (MPI-3.1 11.2.4): served on scratch memory instead, so nothing is corrupted and the
      // origin's synchronization still completes.
      FABMPI_LOG(error, runtime, "RMA: rank %d accessed %llu bytes at 0x%llx, outside the memory attached to a "
                 "dynamic window here; ignored", origin, static_cast<unsigned long long>(h.bytes),
                 static_cast<unsigned long long>(first));
      in->scratch.assign(static_cast<std::size_t>(hi - lo), std::byte{0});
      in->at = in->scratch.data() - lo;
    }
  }
  pt2pt::Engine& pt2pt = runtime_->pt2pt();
  std::byte* at = in->at;
  RequestRef r;
  Rc rc;
  switch (h.kind) {
    case Kind::put:
      rc = pt2pt.irecv(at, h.count, in->layout, origin, h.data_tag, comm_, Channel::user, &r);
      break;
    case Kind::get:
      rc = pt2pt.isend(at, h.count, in->layout, origin, h.data_tag | kReplyBit, comm_, Channel::user,
                       SendMode::standard, &r);
      break;
    case Kind::acc:
    case Kind::get_acc:
      if (h.op != MPI_NO_OP) {
        in->data.resize(h.bytes);
        rc = pt2pt.irecv(in->data.data(), in->data.size(), byte_type(), origin, h.data_tag, comm_, Channel::user, &r);
      }
      break;
    case Kind::cas:
      in->data.resize(2 * h.bytes);
      rc = pt2pt.irecv(in->data.data(), in->data.size(), byte_type(), origin, h.data_tag, comm_, Channel::user, &r);
      break;
    default: break;
  }
  if (!rc.ok()) FABMPI_LOG(warn, runtime, "RMA: serving rank %d's operation failed", origin);
  if (r) in->waiting.push_back(std::move(r));
  incoming_[static_cast<std::size_t>(origin)].push_back(std::move(in));
}

// Applies an accumulate (and sends the old contents first for the fetching forms): one step, so no
// other operation sees it half done.
void Window::apply(Incoming& in) {
  const Header& h = in.h;
  std::byte* at = in.at;
  const std::size_t bytes = h.bytes;
  std::vector<std::byte> current(bytes);
  in.layout->pack(at, h.count, 0, current.data(), bytes);
  if (h.kind == Kind::get_acc || h.kind == Kind::cas) {
    auto reply = std::make_shared<std::vector<std::byte>>(current);
    RequestRef r;
    if (runtime_->pt2pt().isend(reply->data(), reply->size(), byte_type(), in.origin, h.data_tag | kReplyBit, comm_,
                                Channel::user, SendMode::standard, &r).ok()) {
      replies_.push_back(std::move(r));
      reply_buffers_.push_back(std::move(reply));
    }
  }
  if (h.kind == Kind::cas) {
    // operands: compare, then the new value
    if (bytes > 0 && std::memcmp(current.data(), in.data.data(), bytes) == 0)
      in.layout->unpack(in.data.data() + bytes, bytes, 0, at, h.count);
    return;
  }
  if (h.op == MPI_NO_OP) return;
  const DatatypeRef element = builtin_datatype(predefined_for(static_cast<ElementType>(h.element)));
  const OpRef op = builtin_op(h.op);
  if (!element || !op || element->size() == 0) return;
  if (h.op == MPI_REPLACE) {
    in.layout->unpack(in.data.data(), bytes, 0, at, h.count);
    return;
  }
  const std::size_t n = bytes / element->size();
  if (element->is_contiguous()) {
    op->apply(in.data.data(), current.data(), n, *element);
  } else {
    // A pair type with padding (MPI_LONG_DOUBLE_INT, MPI_SHORT_INT...): the operands arrive packed, the
    // op works on its C layout.
    const std::size_t span = n * static_cast<std::size_t>(element->extent());
    std::vector<std::byte> operand(span), target(span);
    element->unpack(in.data.data(), bytes, 0, operand.data(), n);
    element->unpack(current.data(), bytes, 0, target.data(), n);
    op->apply(operand.data(), target.data(), n, *element);
    element->pack(target.data(), n, 0, current.data(), bytes);
  }
  in.layout->unpack(current.data(), bytes, 0, at, h.count);
}

void Window::advance_incoming() {
  for (auto& queue : incoming_) {
    while (!queue.empty()) {
      Incoming& in = *queue.front();
      if (!std::all_of(in.waiting.begin(), in.waiting.end(), [](const RequestRef& r) { return r->is_complete(); }))
        break;
      if (in.h.kind == Kind::acc || in.h.kind == Kind::get_acc || in.h.kind == Kind::cas) apply(in);
      ++done_from_[static_cast<std::size_t>(in.origin)];
      ++done_total_;
      queue.pop_front();
    }
  }
}

void Window::send_reply(int origin, int tag) {
  RequestRef r;
  if (runtime_->pt2pt().isend(nullptr, 0, byte_type(), origin, tag, comm_, Channel::user, SendMode::standard, &r).ok())
    replies_.push_back(std::move(r));
}

void Window::try_grant() {
  while (!lock_queue_.empty() && exclusive_holder_ < 0) {
    const LockQueueEntry next = lock_queue_.front();
    if (next.exclusive && shared_holders_ > 0) return;
    lock_queue_.erase(lock_queue_.begin());
    if (next.exclusive) exclusive_holder_ = next.origin;
    else ++shared_holders_;
    send_reply(next.origin, kGrantTag);
  }
}

void Window::answer_pending_acks() {
  for (auto it = pending_acks_.begin(); it != pending_acks_.end();) {
    if (done_from_[static_cast<std::size_t>(it->origin)] < it->ops) {
      ++it;
      continue;
    }
    if (it->kind == Kind::unlock) {
      if (exclusive_holder_ == it->origin) exclusive_holder_ = -1;
      else if (shared_holders_ > 0) --shared_holders_;
      send_reply(it->origin, kUnlockAckTag);
    } else {
      send_reply(it->origin, kFlushAckTag);
    }
    it = pending_acks_.erase(it);
  }
}

int Window::progress() {
  if (in_progress_ || freed_) return 0;
  in_progress_ = true;
  int events = 0;
  pt2pt::Engine& pt2pt = runtime_->pt2pt();
  // Headers, taken in arrival order per origin (improbe matches in order), served in that order.
  while (true) {
    bool found = false;
    pt2pt::MessageRef message;
    if (!pt2pt.improbe(MPI_ANY_SOURCE, kHeaderTag, comm_, Channel::user, &found, &message).ok() || !found) break;
    PendingHeader p;
    p.buffer.resize(message->info.bytes);
    if (!pt2pt.imrecv(p.buffer.data(), p.buffer.size(), byte_type(), message, &p.request).ok()) break;
    header_queue_[static_cast<std::size_t>(message->info.source)].push_back(std::move(p));
    ++events;
  }
  for (int origin = 0; origin < static_cast<int>(header_queue_.size()); ++origin) {
    auto& queue = header_queue_[static_cast<std::size_t>(origin)];
    while (!queue.empty() && queue.front().request->is_complete()) {
      serve_header(origin, std::move(queue.front().buffer));
      queue.pop_front();
      ++events;
    }
  }
  const std::uint64_t before = done_total_;
  advance_incoming();
  events += static_cast<int>(done_total_ - before);
  answer_pending_acks();
  try_grant();
  std::erase_if(replies_, [](const RequestRef& r) { return r->is_complete(); });
  if (replies_.empty()) reply_buffers_.clear();
  if (condition_request_ && condition_ && condition_()) condition_request_->mark_complete();
  for (std::size_t i = 0; i < rma_requests_.size();) {
    auto& parts = rma_request_parts_[i];
    if (!std::all_of(parts.begin(), parts.end(), [](const RequestRef& r) { return r->is_complete(); })) {
      ++i;
      continue;
    }
    for (const RequestRef& r : parts)
      if (r->error != MPI_SUCCESS && rma_requests_[i]->error == MPI_SUCCESS) rma_requests_[i]->error = r->error;
    rma_requests_[i]->mark_complete();
    rma_requests_.erase(rma_requests_.begin() + static_cast<std::ptrdiff_t>(i));
    rma_request_parts_.erase(rma_request_parts_.begin() + static_cast<std::ptrdiff_t>(i));
    ++events;
  }
  in_progress_ = false;
  return events;
}

void Window::describe_waiting(std::vector<std::string>* lines) const {
  std::size_t incoming = 0;
  for (const auto& q : incoming_) incoming += q.size();
  if (!lock_queue_.empty() || incoming > 0 || !pending_acks_.empty() || condition_request_)
    lines->push_back("RMA window: " + std::to_string(incoming) + " operation(s) from origins in progress here, " +
                     std::to_string(lock_queue_.size()) + " lock request(s) queued" +
                     (condition_request_ ? ", this process waits in a fence or MPI_Win_free for operations aimed at it"
                                         : ""));
}

}  // namespace fabmpi::rma
