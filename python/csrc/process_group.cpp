// ProcessGroupFabmpi: each torch operation is checked on the calling thread, then queued as an Op whose
// start() issues one nonblocking MPI call (or a few, for the coalesced forms) on the worker thread and whose
// finish() copies results back into the caller's tensors. Tensors are staged through a contiguous host
// buffer ("buf", pg_util.hpp): a contiguous CPU tensor itself, else a contiguous copy; CUDA tensors go
// through pinned host memory. A CUDA-aware MPI could later take device pointers here directly, without
// changing the Op protocol.
#include "pg_util.hpp"

#include <climits>
#include <numeric>

namespace fabmpi_torch {

namespace {

// One contiguous 1-D host tensor holding every tensor of the list, in order (like: the tensor whose dtype
// an empty list gets). Tensors on one GPU are joined there and staged in one copy.
at::Tensor flatten(const Tensors& ts, const at::Tensor& like) {
    if (ts.empty()) return at::empty({0}, host_options(like));
    bool one_device =
        std::all_of(ts.begin(), ts.end(), [&](const at::Tensor& t) { return t.device() == ts[0].device(); });
    Tensors flat;
    flat.reserve(ts.size());
    for (const auto& t : ts) flat.push_back(one_device ? t.reshape({-1}) : staged(t).reshape({-1}));
    return staged(at::cat(flat));
}

void unflatten(const at::Tensor& flat, int64_t offset, const Tensors& outs) {
    for (const auto& t : outs) {
        t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
        offset += t.numel();
    }
}

struct Layout {
    std::vector<int> counts, displs;
    int64_t total = 0;
    bool even = true;
};

Layout layout_of(const char* what, const Tensors& ts) {
    Layout l;
    for (const auto& t : ts) {
        l.counts.push_back(as_count(what, t.numel()));
        l.displs.push_back(as_count(what, l.total));
        l.total += t.numel();
        if (l.counts.back() != l.counts.front()) l.even = false;
    }
    as_count(what, l.total);
    return l;
}

const char* dtype_name(at::ScalarType t) { return c10::toString(t); }

const char* op_name(c10d::ReduceOp::RedOpType op) {
    switch (op) {
    case c10d::ReduceOp::SUM: return "SUM";
    case c10d::ReduceOp::AVG: return "AVG";
    case c10d::ReduceOp::PRODUCT: return "PRODUCT";
    case c10d::ReduceOp::MIN: return "MIN";
    case c10d::ReduceOp::MAX: return "MAX";
    case c10d::ReduceOp::BAND: return "BAND";
    case c10d::ReduceOp::BOR: return "BOR";
    case c10d::ReduceOp::BXOR: return "BXOR";
    case c10d::ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
    default: return "UNUSED";
    }
}

uint32_t fnv1a(const std::string& s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

std::weak_ptr<CommState>& world_comm() {  // the current default group's communicator, for subgroups
    static std::weak_ptr<CommState> w;
    return w;
}
std::mutex& world_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------- Work

WorkFabmpi::WorkFabmpi(int rank, c10d::OpType type, std::string name, Tensors outputs)
    : c10d::Work(rank, type), name_(std::move(name)), outputs_(std::move(outputs)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                       gpu_devices(outputs_))) {}

bool WorkFabmpi::isCompleted() {
    std::lock_guard<std::mutex> lk(mutex_);
    return completed_;
}

bool WorkFabmpi::isSuccess() const {
    std::lock_guard<std::mutex> lk(mutex_);
    return completed_ && !exception_;
}

std::exception_ptr WorkFabmpi::exception() const {
    std::lock_guard<std::mutex> lk(mutex_);
    return exception_;
}

int WorkFabmpi::sourceRank() const {
    std::lock_guard<std::mutex> lk(mutex_);
    TORCH_CHECK(completed_ && source_ >= 0,
                msg(name_.c_str(), "sourceRank() is only defined for a completed recv from any source"));
    return source_;
}

Tensors WorkFabmpi::result() { return outputs_; }

bool WorkFabmpi::wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lk(mutex_);
    if (timeout == kNoTimeout)
        cv_.wait(lk, [&] { return completed_; });
    else if (!cv_.wait_for(lk, timeout, [&] { return completed_; }))
        throw Error(msg(name_.c_str(), "wait() timed out after " + std::to_string(timeout.count()) +
                                           " ms; the operation is still in progress"));
    if (exception_) std::rethrow_exception(exception_);
    return true;
}

c10::intrusive_ptr<c10::ivalue::Future> WorkFabmpi::getFuture() { return future_; }

void WorkFabmpi::mark_done(std::exception_ptr e, int source) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        source_ = source;
        exception_ = e;
        completed_ = true;
    }
    cv_.notify_all();
    if (e)
        future_->setError(e);
    else
        future_->markCompleted(c10::IValue(outputs_));
}

// ------------------------------------------------------------------------------------ creation

c10::intrusive_ptr<ProcessGroupFabmpi> ProcessGroupFabmpi::create(const GroupSpec& spec) {
    auto& eng = Engine::get();
    TORCH_CHECK(eng.initialized(), "fabmpi: MPI is not initialised (torch_fabmpi's creator does this)");
    auto cs = std::make_shared<CommState>();
    if (spec.global_ranks.empty()) {
        eng.call("init_process_group", [&] {
            if (spec.size != eng.world_size())
                throw Error("fabmpi: init_process_group: torch's world size " + std::to_string(spec.size) +
                            " differs from MPI_COMM_WORLD's size " + std::to_string(eng.world_size()) +
                            " (RANK/WORLD_SIZE from another launch? see docs/torch.md)");
            // Ordered by torch rank, so group ranks are torch ranks even if the launchers number differently.
            check_mpi(MPI_Comm_split(MPI_COMM_WORLD, 0, spec.rank, &cs->comm), "init_process_group",
                      "MPI_Comm_split");
        });
    } else {
        std::shared_ptr<CommState> world;
        {
            std::lock_guard<std::mutex> lk(world_mutex());
            world = world_comm().lock();
        }
        TORCH_CHECK(world, "fabmpi: new_group: no default fabmpi process group to derive the group from");
        for (auto r : spec.global_ranks)
            TORCH_CHECK_VALUE(r >= 0 && r < world->size, "fabmpi: new_group: rank ", r, " is not in the world");
        TORCH_CHECK_VALUE(spec.rank >= 0 && spec.rank < (int64_t)spec.global_ranks.size() &&
                              spec.global_ranks[spec.rank] == world->rank,
                          "fabmpi: new_group: this process (world rank ", world->rank, ") is not member ",
                          spec.rank, " of the group");
        std::vector<int> ranks(spec.global_ranks.begin(), spec.global_ranks.end());
        int tag = static_cast<int>(fnv1a(spec.group_name) % 32767u);  // 32767 <= MPI_TAG_UB always
        eng.call("new_group", [&] {
            MPI_Group wg = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
            check_mpi(MPI_Comm_group(world->comm, &wg), "new_group", "MPI_Comm_group");
            int rc = MPI_Group_incl(wg, (int)ranks.size(), ranks.data(), &g);
            MPI_Group_free(&wg);
            check_mpi(rc, "new_group", "MPI_Group_incl");
            // Collective over the members only: ranks outside the group never take part, so no hang.
            rc = MPI_Comm_create_group(world->comm, g, tag, &cs->comm);
            MPI_Group_free(&g);
            check_mpi(rc, "new_group", "MPI_Comm_create_group");
        });
    }
    eng.call("group setup", [&] {
        MPI_Comm_set_errhandler(cs->comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(cs->comm, &cs->rank);
        MPI_Comm_size(cs->comm, &cs->size);
    });
    TORCH_CHECK(cs->rank == spec.rank && cs->size == spec.size, "fabmpi: group rank/size mismatch: MPI says ",
                cs->rank, "/", cs->size, ", torch says ", spec.rank, "/", spec.size);
    if (spec.global_ranks.empty()) {
        std::lock_guard<std::mutex> lk(world_mutex());
        world_comm() = cs;
    }
    return c10::make_intrusive<ProcessGroupFabmpi>(spec, cs);
}

ProcessGroupFabmpi::ProcessGroupFabmpi(const GroupSpec& spec, std::shared_ptr<CommState> comm)
    : PGBase(spec.rank, spec.size), comm_(std::move(comm)), timeout_(spec.timeout), group_name_(spec.group_name) {}

ProcessGroupFabmpi::~ProcessGroupFabmpi() {
    Engine::get().release(comm_->comm);  // queued after every op of this group, so it runs last
}

// ------------------------------------------------------------------------------------ checks

MPI_Datatype ProcessGroupFabmpi::datatype(const char* what, const at::Tensor& t) const {
    const auto& h = Engine::get().half();
    switch (t.scalar_type()) {
    case at::kFloat: return MPI_FLOAT;
    case at::kDouble: return MPI_DOUBLE;
    case at::kHalf: return h.f16;
    case at::kBFloat16: return h.bf16;
    case at::kChar: return MPI_INT8_T;
    case at::kByte: return MPI_UINT8_T;
    case at::kShort: return MPI_INT16_T;
    case at::kInt: return MPI_INT32_T;
    case at::kLong: return MPI_INT64_T;
    case at::kBool: return MPI_C_BOOL;
    default:
        TORCH_CHECK_TYPE(false, msg(what, std::string("unsupported dtype ") + dtype_name(t.scalar_type())));
    }
}

ProcessGroupFabmpi::Reduction ProcessGroupFabmpi::reduction(const char* what, const at::Tensor& t,
                                                            const c10d::ReduceOp& rop) const {
    const auto op = rop.op_;
    const auto st = t.scalar_type();
    Reduction r{datatype(what, t), MPI_OP_NULL, false};
    auto refuse = [&](const char* why) {
        TORCH_CHECK_TYPE(false, msg(what, std::string("ReduceOp.") + op_name(op) + " is not supported for " +
                                              dtype_name(st) + " tensors" + why));
    };
    if (op == c10d::ReduceOp::PREMUL_SUM || op == c10d::ReduceOp::UNUSED) refuse("");
    if (st == at::kBool) {  // logical ops, as NCCL does for bool
        switch (op) {
        case c10d::ReduceOp::SUM: case c10d::ReduceOp::MAX: case c10d::ReduceOp::BOR: r.op = MPI_LOR; break;
        case c10d::ReduceOp::PRODUCT: case c10d::ReduceOp::MIN: case c10d::ReduceOp::BAND: r.op = MPI_LAND; break;
        case c10d::ReduceOp::BXOR: r.op = MPI_LXOR; break;
        default: refuse(" (AVG needs a floating-point dtype)");
        }
        return r;
    }
    bool floating = at::isFloatingType(st);
    bool user_half = (st == at::kHalf && !Engine::get().half().native_f16) ||
                     (st == at::kBFloat16 && !Engine::get().half().native_bf16);
    const auto& h = Engine::get().half();
    switch (op) {
    case c10d::ReduceOp::AVG:
        if (!floating) refuse(" (AVG needs a floating-point dtype; use SUM and divide)");
        r.average = true;
        r.op = user_half ? h.sum : MPI_SUM;
        break;
    case c10d::ReduceOp::SUM: r.op = user_half ? h.sum : MPI_SUM; break;
    case c10d::ReduceOp::PRODUCT: r.op = user_half ? h.prod : MPI_PROD; break;
    case c10d::ReduceOp::MIN: r.op = user_half ? h.min : MPI_MIN; break;
    case c10d::ReduceOp::MAX: r.op = user_half ? h.max : MPI_MAX; break;
    case c10d::ReduceOp::BAND: case c10d::ReduceOp::BOR: case c10d::ReduceOp::BXOR:
        if (floating) refuse(" (bitwise ops need an integer or bool dtype)");
        r.op = op == c10d::ReduceOp::BAND ? MPI_BAND : op == c10d::ReduceOp::BOR ? MPI_BOR : MPI_BXOR;
        break;
    default: refuse("");
    }
    return r;
}

void ProcessGroupFabmpi::check_tensor(const char* what, const at::Tensor& t) const {
    TORCH_CHECK_VALUE(t.defined(), msg(what, "undefined tensor"));
    TORCH_CHECK(t.device().is_cpu() || t.device().is_cuda(),
                msg(what, "tensor on " + t.device().str() + ": torch_fabmpi supports CPU and CUDA tensors"));
    TORCH_CHECK(t.layout() == at::kStrided, msg(what, "sparse tensors are not supported"));
    datatype(what, t);
}

void ProcessGroupFabmpi::check_root(const char* what, int64_t root) const {
    TORCH_CHECK_VALUE(root >= 0 && root < size_, msg(what, "invalid root rank " + std::to_string(root) +
                                                                " for a group of " + std::to_string(size_)));
}


ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::enqueue(const char* what, c10d::OpType type, Tensors outputs,
                                                        bool collective, std::function<void(Op&)> start,
                                                        std::function<void(Op&)> finish, bool cancel_on_timeout) {
    auto work = c10::make_intrusive<WorkFabmpi>(rank_, type, what, std::move(outputs));
    auto op = std::make_shared<Op>();
    op->name = what;
    op->comm = comm_;
    op->collective = collective;
    op->cancel_on_timeout = cancel_on_timeout;
    if (timeout_.count() > 0 && timeout_ < std::chrono::hours(24 * 365))
        op->deadline = Clock::now() + timeout_;
    op->timeout_text = std::to_string(timeout_.count()) + " ms";
    op->start = std::move(start);
    op->finish = std::move(finish);
    op->notify = [work](Op& o, std::exception_ptr e) { work->mark_done(e, o.source); };
    Engine::get().submit(std::move(op));
    return work;
}


// ------------------------------------------------------------------------------------ collectives

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::broadcast(Tensors& tensors, const c10d::BroadcastOptions& opts) {
    const char* what = "broadcast";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    check_root(what, opts.rootRank);
    auto dt = datatype(what, t);
    int n = as_count(what, t.numel()), root = (int)opts.rootRank;
    auto buf = staged(t);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::BROADCAST, tensors, true,
        [=](Op& op) { check_mpi(MPI_Ibcast(buf.data_ptr(), n, dt, root, c, slot(op)), op.name, "MPI_Ibcast"); },
        [=](Op&) { copy_back(t, buf); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::allreduce(Tensors& tensors, const c10d::AllreduceOptions& opts) {
    const char* what = "allreduce";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    auto red = reduction(what, t, opts.reduceOp);
    int n = as_count(what, t.numel());
    int size = size_;
    auto buf = staged(t);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::ALLREDUCE, tensors, true,
        [=](Op& op) {
            check_mpi(MPI_Iallreduce(MPI_IN_PLACE, buf.data_ptr(), n, red.type, red.op, c, slot(op)), op.name,
                      "MPI_Iallreduce");
        },
        [=](Op&) {
            if (red.average) buf.div_(size);
            copy_back(t, buf);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::allreduce_coalesced(Tensors& tensors,
                                                                    const c10d::AllreduceCoalescedOptions& opts) {
    const char* what = "allreduce_coalesced";
    TORCH_CHECK_VALUE(!tensors.empty(), msg(what, "needs at least one tensor"));
    for (const auto& t : tensors) {
        check_tensor(what, t);
        check_same_dtype(what, tensors[0], t);
    }
    auto red = reduction(what, tensors[0], opts.reduceOp);
    auto flat = flatten(tensors, tensors[0]);
    int n = as_count(what, flat.numel()), size = size_;
    MPI_Comm c = comm();
    Tensors outs = tensors;
    return enqueue(
        what, c10d::OpType::ALLREDUCE_COALESCED, tensors, true,
        [=](Op& op) {
            check_mpi(MPI_Iallreduce(MPI_IN_PLACE, flat.data_ptr(), n, red.type, red.op, c, slot(op)), op.name,
                      "MPI_Iallreduce");
        },
        [=](Op&) {
            if (red.average) flat.div_(size);
            unflatten(flat, 0, outs);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::reduce(Tensors& tensors, const c10d::ReduceOptions& opts) {
    const char* what = "reduce";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    check_root(what, opts.rootRank);
    auto red = reduction(what, t, opts.reduceOp);
    int n = as_count(what, t.numel()), root = (int)opts.rootRank, size = size_;
    bool am_root = rank_ == root;
    auto buf = staged(t);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::REDUCE, tensors, true,
        [=](Op& op) {
            check_mpi(MPI_Ireduce(am_root ? MPI_IN_PLACE : buf.data_ptr(), am_root ? buf.data_ptr() : nullptr, n,
                                  red.type, red.op, root, c, slot(op)),
                      op.name, "MPI_Ireduce");
        },
        [=](Op&) {
            if (!am_root) return;
            if (red.average) buf.div_(size);
            copy_back(t, buf);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::allgather(std::vector<Tensors>& outputs, Tensors& inputs,
                                                          const c10d::AllgatherOptions&) {
    const char* what = "allgather";
    check_one(what, inputs, "input");
    check_one(what, outputs, "output list");
    const auto in = inputs[0];
    check_tensor(what, in);
    const Tensors outs = outputs[0];
    TORCH_CHECK_VALUE((int)outs.size() == size_, msg(what, "expects " + std::to_string(size_) +
                                                               " output tensors, got " + std::to_string(outs.size())));
    for (const auto& o : outs) {
        check_tensor(what, o);
        check_same_dtype(what, in, o);
    }
    auto l = layout_of(what, outs);
    TORCH_CHECK_VALUE(l.counts[rank_] == in.numel(),
                      msg(what, "output tensor " + std::to_string(rank_) + " has " + std::to_string(l.counts[rank_]) +
                                    " elements but this rank's input has " + std::to_string(in.numel())));
    auto dt = datatype(what, in);
    int n = (int)in.numel();
    auto inbuf = staged(in);
    auto flat = at::empty({l.total}, host_options(in));
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::ALLGATHER, outs, true,
        [=](Op& op) {
            if (l.even)
                check_mpi(MPI_Iallgather(inbuf.data_ptr(), n, dt, flat.data_ptr(), n, dt, c, slot(op)), op.name,
                          "MPI_Iallgather");
            else
                check_mpi(MPI_Iallgatherv(inbuf.data_ptr(), n, dt, flat.data_ptr(), l.counts.data(), l.displs.data(),
                                          dt, c, slot(op)),
                          op.name, "MPI_Iallgatherv");
        },
        [=](Op&) { unflatten(flat, 0, outs); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                const c10d::AllgatherOptions&) {
    const char* what = "_allgather_base";
    check_tensor(what, input);
    check_tensor(what, output);
    check_same_dtype(what, input, output);
    TORCH_CHECK_VALUE(output.numel() == input.numel() * size_,
                      msg(what, "output has " + std::to_string(output.numel()) + " elements, expected input size " +
                                    std::to_string(input.numel()) + " x group size " + std::to_string(size_)));
    auto dt = datatype(what, input);
    int n = as_count(what, input.numel());
    as_count(what, output.numel());
    auto inbuf = staged(input), outbuf = staged_output(output);
    const auto out = output;
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::_ALLGATHER_BASE, {output}, true,
        [=](Op& op) {
            check_mpi(MPI_Iallgather(inbuf.data_ptr(), n, dt, outbuf.data_ptr(), n, dt, c, slot(op)), op.name,
                      "MPI_Iallgather");
        },
        [=](Op&) { copy_back(out, outbuf); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::allgather_coalesced(std::vector<Tensors>& output_lists,
                                                                    Tensors& inputs, const c10d::AllgatherOptions&) {
    const char* what = "allgather_coalesced";
    TORCH_CHECK_VALUE(!inputs.empty(), msg(what, "needs at least one input tensor"));
    TORCH_CHECK_VALUE((int)output_lists.size() == size_,
                      msg(what, "expects one output list per rank (" + std::to_string(size_) + "), got " +
                                    std::to_string(output_lists.size())));
    for (const auto& t : inputs) {
        check_tensor(what, t);
        check_same_dtype(what, inputs[0], t);
    }
    for (const auto& list : output_lists) {
        TORCH_CHECK_VALUE(list.size() == inputs.size(), msg(what, "each output list needs one tensor per input"));
        for (size_t j = 0; j < list.size(); ++j) {
            check_tensor(what, list[j]);
            check_same_dtype(what, inputs[0], list[j]);
            TORCH_CHECK_VALUE(list[j].numel() == inputs[j].numel(), msg(what, "output/input size mismatch"));
        }
    }
    auto flat_in = flatten(inputs, inputs[0]);
    int n = as_count(what, flat_in.numel());
    auto flat_out = at::empty({as_count(what, flat_in.numel() * size_)}, host_options(inputs[0]));
    auto dt = datatype(what, inputs[0]);
    auto lists = output_lists;
    MPI_Comm c = comm();
    Tensors all;
    for (const auto& l : lists) all.insert(all.end(), l.begin(), l.end());
    return enqueue(
        what, c10d::OpType::ALLGATHER_COALESCED, all, true,
        [=](Op& op) {
            check_mpi(MPI_Iallgather(flat_in.data_ptr(), n, dt, flat_out.data_ptr(), n, dt, c, slot(op)), op.name,
                      "MPI_Iallgather");
        },
        [=](Op&) {
            for (size_t r = 0; r < lists.size(); ++r) unflatten(flat_out, (int64_t)r * n, lists[r]);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::gather(std::vector<Tensors>& outputs, Tensors& inputs,
                                                       const c10d::GatherOptions& opts) {
    const char* what = "gather";
    check_one(what, inputs, "input");
    const auto in = inputs[0];
    check_tensor(what, in);
    check_root(what, opts.rootRank);
    int root = (int)opts.rootRank;
    bool am_root = rank_ == root;
    Tensors outs;
    Layout l;
    if (am_root) {
        check_one(what, outputs, "output list");
        outs = outputs[0];
        TORCH_CHECK_VALUE((int)outs.size() == size_, msg(what, "the root needs " + std::to_string(size_) +
                                                                   " output tensors, got " + std::to_string(outs.size())));
        for (const auto& o : outs) {
            check_tensor(what, o);
            check_same_dtype(what, in, o);
        }
        l = layout_of(what, outs);
        TORCH_CHECK_VALUE(l.counts[rank_] == in.numel(), msg(what, "the root's output tensor for itself has " +
                                                                       std::to_string(l.counts[rank_]) +
                                                                       " elements, its input " +
                                                                       std::to_string(in.numel())));
    } else {
        TORCH_CHECK_VALUE(outputs.empty() || outputs[0].empty(),
                          msg(what, "only the root (rank " + std::to_string(root) + ") may pass output tensors"));
    }
    auto dt = datatype(what, in);
    int n = as_count(what, in.numel());
    auto inbuf = staged(in);
    auto flat = am_root ? at::empty({l.total}, host_options(in)) : at::Tensor();
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::GATHER, outs, true,
        [=](Op& op) {
            check_mpi(MPI_Igatherv(inbuf.data_ptr(), n, dt, am_root ? flat.data_ptr() : nullptr,
                                   am_root ? l.counts.data() : nullptr, am_root ? l.displs.data() : nullptr, dt, root,
                                   c, slot(op)),
                      op.name, "MPI_Igatherv");
        },
        [=](Op&) {
            if (am_root) unflatten(flat, 0, outs);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::scatter(Tensors& outputs, std::vector<Tensors>& inputs,
                                                        const c10d::ScatterOptions& opts) {
    const char* what = "scatter";
    check_one(what, outputs, "output");
    const auto out = outputs[0];
    check_tensor(what, out);
    check_root(what, opts.rootRank);
    int root = (int)opts.rootRank;
    bool am_root = rank_ == root;
    at::Tensor flat;
    Layout l;
    if (am_root) {
        check_one(what, inputs, "input list");
        const auto& ins = inputs[0];
        TORCH_CHECK_VALUE((int)ins.size() == size_, msg(what, "the root needs " + std::to_string(size_) +
                                                                  " input tensors, got " + std::to_string(ins.size())));
        for (const auto& t : ins) {
            check_tensor(what, t);
            check_same_dtype(what, out, t);
        }
        l = layout_of(what, ins);
        TORCH_CHECK_VALUE(l.counts[rank_] == out.numel(), msg(what, "the root's input tensor for itself has " +
                                                                        std::to_string(l.counts[rank_]) +
                                                                        " elements, its output " +
                                                                        std::to_string(out.numel())));
        flat = flatten(ins, out);
    } else {
        TORCH_CHECK_VALUE(inputs.empty() || inputs[0].empty(),
                          msg(what, "only the root (rank " + std::to_string(root) + ") may pass input tensors"));
    }
    auto dt = datatype(what, out);
    int n = as_count(what, out.numel());
    auto outbuf = staged_output(out);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::SCATTER, outputs, true,
        [=](Op& op) {
            check_mpi(MPI_Iscatterv(am_root ? flat.data_ptr() : nullptr, am_root ? l.counts.data() : nullptr,
                                    am_root ? l.displs.data() : nullptr, dt, outbuf.data_ptr(), n, dt, root, c,
                                    slot(op)),
                      op.name, "MPI_Iscatterv");
        },
        [=](Op&) { copy_back(out, outbuf); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::reduce_scatter(Tensors& outputs, std::vector<Tensors>& inputs,
                                                               const c10d::ReduceScatterOptions& opts) {
    const char* what = "reduce_scatter";
    check_one(what, outputs, "output");
    check_one(what, inputs, "input list");
    const auto out = outputs[0];
    check_tensor(what, out);
    const auto& ins = inputs[0];
    TORCH_CHECK_VALUE((int)ins.size() == size_, msg(what, "expects " + std::to_string(size_) +
                                                              " input tensors, got " + std::to_string(ins.size())));
    for (const auto& t : ins) {
        check_tensor(what, t);
        check_same_dtype(what, out, t);
    }
    auto l = layout_of(what, ins);
    TORCH_CHECK_VALUE(l.counts[rank_] == out.numel(),
                      msg(what, "input tensor " + std::to_string(rank_) + " has " + std::to_string(l.counts[rank_]) +
                                    " elements but the output has " + std::to_string(out.numel())));
    auto red = reduction(what, out, opts.reduceOp);
    auto flat = flatten(ins, out);
    auto outbuf = staged_output(out);
    int n = (int)out.numel(), size = size_;
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::REDUCE_SCATTER, outputs, true,
        [=](Op& op) {
            if (l.even)
                check_mpi(MPI_Ireduce_scatter_block(flat.data_ptr(), outbuf.data_ptr(), n, red.type, red.op, c,
                                                    slot(op)),
                          op.name, "MPI_Ireduce_scatter_block");
            else
                check_mpi(MPI_Ireduce_scatter(flat.data_ptr(), outbuf.data_ptr(), l.counts.data(), red.type, red.op, c,
                                              slot(op)),
                          op.name, "MPI_Ireduce_scatter");
        },
        [=](Op&) {
            if (red.average) outbuf.div_(size);
            copy_back(out, outbuf);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                     const c10d::ReduceScatterOptions& opts) {
    const char* what = "_reduce_scatter_base";
    check_tensor(what, input);
    check_tensor(what, output);
    check_same_dtype(what, input, output);
    TORCH_CHECK_VALUE(input.numel() == output.numel() * size_,
                      msg(what, "input has " + std::to_string(input.numel()) + " elements, expected output size " +
                                    std::to_string(output.numel()) + " x group size " + std::to_string(size_)));
    auto red = reduction(what, output, opts.reduceOp);
    int n = as_count(what, output.numel()), size = size_;
    as_count(what, input.numel());
    auto inbuf = staged(input), outbuf = staged_output(output);
    const auto out = output;
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::_REDUCE_SCATTER_BASE, {output}, true,
        [=](Op& op) {
            check_mpi(MPI_Ireduce_scatter_block(inbuf.data_ptr(), outbuf.data_ptr(), n, red.type, red.op, c, slot(op)),
                      op.name, "MPI_Ireduce_scatter_block");
        },
        [=](Op&) {
            if (red.average) outbuf.div_(size);
            copy_back(out, outbuf);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                              std::vector<int64_t>& output_splits,
                                                              std::vector<int64_t>& input_splits,
                                                              const c10d::AllToAllOptions&) {
    const char* what = "alltoall_base";
    check_tensor(what, input);
    check_tensor(what, output);
    check_same_dtype(what, input, output);
    auto dt = datatype(what, input);
    auto inbuf = staged(input), outbuf = staged_output(output);
    const auto out = output;
    MPI_Comm c = comm();
    int size = size_;
    auto finish = [=](Op&) { copy_back(out, outbuf); };
    if (input_splits.empty() && output_splits.empty()) {
        TORCH_CHECK_VALUE(input.numel() == output.numel() && input.numel() % size == 0,
                          msg(what, "input and output need the same number of elements, divisible by the group size "
                                    "(input " + std::to_string(input.numel()) + ", output " +
                                    std::to_string(output.numel()) + ")"));
        int n = as_count(what, input.numel() / size);
        return enqueue(
            what, c10d::OpType::ALLTOALL_BASE, {output}, true,
            [=](Op& op) {
                check_mpi(MPI_Ialltoall(inbuf.data_ptr(), n, dt, outbuf.data_ptr(), n, dt, c, slot(op)), op.name,
                          "MPI_Ialltoall");
            },
            finish);
    }
    auto split_layout = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* which) {
        TORCH_CHECK_VALUE(t.dim() > 0, msg(what, std::string(which) + " must have at least one dimension"));
        int64_t rows = t.size(0), row = rows ? t.numel() / rows : 0;
        std::vector<int64_t> s = splits;
        if (s.empty()) {
            TORCH_CHECK_VALUE(rows % size == 0, msg(what, std::string(which) + " dim 0 (" + std::to_string(rows) +
                                                              ") is not divisible by the group size"));
            s.assign(size, rows / size);
        }
        TORCH_CHECK_VALUE((int)s.size() == size, msg(what, std::string(which) + " split sizes need one entry per rank"));
        TORCH_CHECK_VALUE(std::accumulate(s.begin(), s.end(), int64_t{0}) == rows,
                          msg(what, std::string(which) + " split sizes do not add up to dim 0 (" +
                                        std::to_string(rows) + ")"));
        Layout l;
        for (auto v : s) {
            TORCH_CHECK_VALUE(v >= 0, msg(what, "negative split size"));
            l.counts.push_back(as_count(what, v * row));
            l.displs.push_back(as_count(what, l.total));
            l.total += v * row;
        }
        return l;
    };
    auto sl = split_layout(input, input_splits, "input");
    auto rl = split_layout(output, output_splits, "output");
    return enqueue(
        what, c10d::OpType::ALLTOALL_BASE, {output}, true,
        [=](Op& op) {
            check_mpi(MPI_Ialltoallv(inbuf.data_ptr(), sl.counts.data(), sl.displs.data(), dt, outbuf.data_ptr(),
                                     rl.counts.data(), rl.displs.data(), dt, c, slot(op)),
                      op.name, "MPI_Ialltoallv");
        },
        finish);
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::alltoall(Tensors& outputs, Tensors& inputs,
                                                         const c10d::AllToAllOptions&) {
    const char* what = "alltoall";
    TORCH_CHECK_VALUE((int)inputs.size() == size_ && (int)outputs.size() == size_,
                      msg(what, "expects " + std::to_string(size_) + " input and output tensors, got " +
                                    std::to_string(inputs.size()) + " and " + std::to_string(outputs.size())));
    for (const auto& t : inputs) {
        check_tensor(what, t);
        check_same_dtype(what, inputs[0], t);
    }
    for (const auto& t : outputs) {
        check_tensor(what, t);
        check_same_dtype(what, inputs[0], t);
    }
    auto sl = layout_of(what, inputs), rl = layout_of(what, outputs);
    auto dt = datatype(what, inputs[0]);
    auto flat_in = flatten(inputs, inputs[0]);
    auto flat_out = at::empty({rl.total}, host_options(inputs[0]));
    const Tensors outs = outputs;
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::ALLTOALL, outputs, true,
        [=](Op& op) {
            check_mpi(MPI_Ialltoallv(flat_in.data_ptr(), sl.counts.data(), sl.displs.data(), dt, flat_out.data_ptr(),
                                     rl.counts.data(), rl.displs.data(), dt, c, slot(op)),
                      op.name, "MPI_Ialltoallv");
        },
        [=](Op&) { unflatten(flat_out, 0, outs); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::barrier(const c10d::BarrierOptions&) {
    MPI_Comm c = comm();
    return enqueue("barrier", c10d::OpType::BARRIER, {}, true,
                   [=](Op& op) { check_mpi(MPI_Ibarrier(c, slot(op)), op.name, "MPI_Ibarrier"); });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::allgather_into_tensor_coalesced_impl(Tensors& outputs,
                                                                                     Tensors& inputs) {
    const char* what = "allgather_into_tensor_coalesced";
    TORCH_CHECK_VALUE(outputs.size() == inputs.size(), msg(what, "needs as many outputs as inputs"));
    struct Item { at::Tensor in, out, user; MPI_Datatype dt; int n; };
    std::vector<Item> items;
    for (size_t i = 0; i < inputs.size(); ++i) {
        check_tensor(what, inputs[i]);
        check_tensor(what, outputs[i]);
        check_same_dtype(what, inputs[i], outputs[i]);
        TORCH_CHECK_VALUE(outputs[i].numel() == inputs[i].numel() * size_, msg(what, "output size != input x group size"));
        items.push_back({staged(inputs[i]), staged_output(outputs[i]), outputs[i], datatype(what, inputs[i]),
                         as_count(what, inputs[i].numel())});
    }
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::_ALLGATHER_BASE, outputs, true,
        [=](Op& op) {
            for (const auto& it : items)
                check_mpi(MPI_Iallgather(it.in.data_ptr(), it.n, it.dt, it.out.data_ptr(), it.n, it.dt, c, slot(op)),
                          op.name, "MPI_Iallgather");
        },
        [=](Op&) {
            for (const auto& it : items) copy_back(it.user, it.out);
        });
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::reduce_scatter_tensor_coalesced_impl(
    Tensors& outputs, Tensors& inputs, const c10d::ReduceScatterOptions& opts) {
    const char* what = "reduce_scatter_tensor_coalesced";
    TORCH_CHECK_VALUE(outputs.size() == inputs.size(), msg(what, "needs as many outputs as inputs"));
    struct Item { at::Tensor in, out, user; Reduction red; int n; };
    std::vector<Item> items;
    for (size_t i = 0; i < inputs.size(); ++i) {
        check_tensor(what, inputs[i]);
        check_tensor(what, outputs[i]);
        check_same_dtype(what, inputs[i], outputs[i]);
        TORCH_CHECK_VALUE(inputs[i].numel() == outputs[i].numel() * size_, msg(what, "input size != output x group size"));
        items.push_back({staged(inputs[i]), staged_output(outputs[i]), outputs[i],
                         reduction(what, outputs[i], opts.reduceOp), as_count(what, outputs[i].numel())});
    }
    MPI_Comm c = comm();
    int size = size_;
    return enqueue(
        what, c10d::OpType::_REDUCE_SCATTER_BASE, outputs, true,
        [=](Op& op) {
            for (const auto& it : items)
                check_mpi(MPI_Ireduce_scatter_block(it.in.data_ptr(), it.out.data_ptr(), it.n, it.red.type, it.red.op,
                                                    c, slot(op)),
                          op.name, "MPI_Ireduce_scatter_block");
        },
        [=](Op&) {
            for (const auto& it : items) {
                if (it.red.average) it.out.div_(size);
                copy_back(it.user, it.out);
            }
        });
}

}  // namespace fabmpi_torch
