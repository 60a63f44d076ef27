// ProcessGroupFabmpi: torch.distributed operations over MPI, through the Engine's worker thread.
#pragma once

#include "engine.hpp"

#include <torch/csrc/api/include/torch/version.h>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

#include <ATen/core/ivalue.h>

namespace fabmpi_torch {

#if TORCH_VERSION_MAJOR >= 2
using PGBase = c10d::Backend;  // torch 2.x wraps backends in a ProcessGroup itself
#else
using PGBase = c10d::ProcessGroup;
#endif

class WorkFabmpi : public c10d::Work {
public:
    WorkFabmpi(int rank, c10d::OpType type, std::string name, std::vector<at::Tensor> outputs);

    bool isCompleted() override;
    bool isSuccess() const override;
    std::exception_ptr exception() const override;
    int sourceRank() const override;
    std::vector<at::Tensor> result() override;
    void synchronize() override {}
    bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

    // Called once by the worker when the op is done (e == nullptr on success).
    void mark_done(std::exception_ptr e, int source);

private:
    std::string name_;
    std::vector<at::Tensor> outputs_;
    c10::intrusive_ptr<c10::ivalue::Future> future_;
    int source_ = -1;
};

// Per-group options decided by the Python creator.
struct GroupSpec {
    int rank = 0;
    int size = 1;
    std::vector<int64_t> global_ranks;  // ranks in the world group; empty for the world group itself
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    std::string group_name;
};

class ProcessGroupFabmpi : public PGBase {
public:
    // Builds the communicator: for the world group an MPI_Comm_split of MPI_COMM_WORLD ordered by torch rank;
    // for a subgroup MPI_Comm_create_group over the world group's communicator (members only, no world
    // collective). MPI must already be initialised (Engine::ensure_initialized).
    static c10::intrusive_ptr<ProcessGroupFabmpi> create(const GroupSpec& spec);

    ProcessGroupFabmpi(const GroupSpec& spec, std::shared_ptr<CommState> comm);
    ~ProcessGroupFabmpi() override;

    const std::string getBackendName() const override { return "fabmpi"; }
    MPI_Comm comm() const { return comm_->comm; }

    using WorkPtr = c10::intrusive_ptr<c10d::Work>;
    using Tensors = std::vector<at::Tensor>;

    WorkPtr broadcast(Tensors& tensors, const c10d::BroadcastOptions& opts = c10d::BroadcastOptions()) override;
    WorkPtr allreduce(Tensors& tensors, const c10d::AllreduceOptions& opts = c10d::AllreduceOptions()) override;
    WorkPtr allreduce_coalesced(Tensors& tensors, const c10d::AllreduceCoalescedOptions& opts =
                                                      c10d::AllreduceCoalescedOptions()) override;
    WorkPtr reduce(Tensors& tensors, const c10d::ReduceOptions& opts = c10d::ReduceOptions()) override;
    WorkPtr allgather(std::vector<Tensors>& outputs, Tensors& inputs,
                      const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
    WorkPtr _allgather_base(at::Tensor& output, at::Tensor& input,
                            const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
    WorkPtr allgather_coalesced(std::vector<Tensors>& output_lists, Tensors& inputs,
                                const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override;
    WorkPtr gather(std::vector<Tensors>& outputs, Tensors& inputs,
                   const c10d::GatherOptions& opts = c10d::GatherOptions()) override;
    WorkPtr scatter(Tensors& outputs, std::vector<Tensors>& inputs,
                    const c10d::ScatterOptions& opts = c10d::ScatterOptions()) override;
    WorkPtr reduce_scatter(Tensors& outputs, std::vector<Tensors>& inputs,
                           const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
    WorkPtr _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                 const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override;
    WorkPtr alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
                          std::vector<int64_t>& input_splits,
                          const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
    WorkPtr alltoall(Tensors& outputs, Tensors& inputs,
                     const c10d::AllToAllOptions& opts = c10d::AllToAllOptions()) override;
    WorkPtr send(Tensors& tensors, int dst, int tag) override;
    WorkPtr recv(Tensors& tensors, int src, int tag) override;
    WorkPtr recvAnysource(Tensors& tensors, int tag) override;
    WorkPtr barrier(const c10d::BarrierOptions& opts = c10d::BarrierOptions()) override;

    // Coalesced tensor forms: virtual in torch 2.x; callable directly from Python on every version.
    WorkPtr allgather_into_tensor_coalesced_impl(Tensors& outputs, Tensors& inputs);
    WorkPtr reduce_scatter_tensor_coalesced_impl(Tensors& outputs, Tensors& inputs,
                                                 const c10d::ReduceScatterOptions& opts);
#if TORCH_VERSION_MAJOR >= 2
    WorkPtr allgather_into_tensor_coalesced(Tensors& outputs, Tensors& inputs,
                                            const c10d::AllgatherOptions& opts = c10d::AllgatherOptions()) override {
        return allgather_into_tensor_coalesced_impl(outputs, inputs);
    }
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
    // Backend gained this virtual in torch 2.1 (pytorch#103561); on 2.0 an override would not compile.
    WorkPtr reduce_scatter_tensor_coalesced(
        Tensors& outputs, Tensors& inputs,
        const c10d::ReduceScatterOptions& opts = c10d::ReduceScatterOptions()) override {
        return reduce_scatter_tensor_coalesced_impl(outputs, inputs, opts);
    }
#endif

private:
    struct Reduction {
        MPI_Datatype type;
        MPI_Op op;
        bool average;  // SUM, then divide by the group size
    };
    MPI_Datatype datatype(const char* what, const at::Tensor& t) const;
    Reduction reduction(const char* what, const at::Tensor& t, const c10d::ReduceOp& op) const;
    void check_tensor(const char* what, const at::Tensor& t) const;
    void check_root(const char* what, int64_t root) const;
    // Queues an op; start issues the MPI calls, finish runs on success.
    WorkPtr enqueue(const char* what, c10d::OpType type, Tensors outputs, bool collective,
                    std::function<void(Op&)> start, std::function<void(Op&)> finish = nullptr,
                    bool cancel_on_timeout = false);

    std::shared_ptr<CommState> comm_;
    std::chrono::milliseconds timeout_;
    std::string group_name_;
};

}  // namespace fabmpi_torch
