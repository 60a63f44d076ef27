// ProcessGroupFabmpi point-to-point: send, recv, recv from any source (source reported via sourceRank()).
#include "pg_util.hpp"

namespace fabmpi_torch {

// ------------------------------------------------------------------------------------ point-to-point

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::send(Tensors& tensors, int dst, int tag) {
    const char* what = "send";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    TORCH_CHECK_VALUE(dst >= 0 && dst < size_, msg(what, "invalid destination rank " + std::to_string(dst)));
    TORCH_CHECK_VALUE(tag >= 0, msg(what, "tag must be non-negative"));
    auto dt = datatype(what, t);
    int n = as_count(what, t.numel());
    auto buf = staged(t);
    MPI_Comm c = comm();
    return enqueue(what, c10d::OpType::SEND, tensors, false, [=](Op& op) {
        check_mpi(MPI_Isend(buf.data_ptr(), n, dt, dst, tag, c, slot(op)), op.name, "MPI_Isend");
    });
}

namespace {
std::function<void(Op&)> recv_finish(const at::Tensor& t, const at::Tensor& buf, MPI_Datatype dt, int n) {
    return [=](Op& op) {
        int got = 0;
        MPI_Get_count(&op.statuses[0], dt, &got);
        op.source = op.statuses[0].MPI_SOURCE;
        if (got != n)
            throw Error("fabmpi: " + op.name + ": received " + std::to_string(got) + " elements from rank " +
                        std::to_string(op.source) + ", expected " + std::to_string(n));
        copy_back(t, buf);
    };
}
}  // namespace

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::recv(Tensors& tensors, int src, int tag) {
    const char* what = "recv";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    TORCH_CHECK_VALUE(src >= 0 && src < size_, msg(what, "invalid source rank " + std::to_string(src)));
    TORCH_CHECK_VALUE(tag >= 0, msg(what, "tag must be non-negative"));
    auto dt = datatype(what, t);
    int n = as_count(what, t.numel());
    auto buf = staged_output(t);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::RECV, tensors, false,
        [=](Op& op) { check_mpi(MPI_Irecv(buf.data_ptr(), n, dt, src, tag, c, slot(op)), op.name, "MPI_Irecv"); },
        recv_finish(t, buf, dt, n), true);
}

ProcessGroupFabmpi::WorkPtr ProcessGroupFabmpi::recvAnysource(Tensors& tensors, int tag) {
    const char* what = "recvAnysource";
    check_one(what, tensors, "");
    const auto t = tensors[0];
    check_tensor(what, t);
    TORCH_CHECK_VALUE(tag >= 0, msg(what, "tag must be non-negative"));
    auto dt = datatype(what, t);
    int n = as_count(what, t.numel());
    auto buf = staged_output(t);
    MPI_Comm c = comm();
    return enqueue(
        what, c10d::OpType::RECVANYSOURCE, tensors, false,
        [=](Op& op) {
            check_mpi(MPI_Irecv(buf.data_ptr(), n, dt, MPI_ANY_SOURCE, tag, c, slot(op)), op.name, "MPI_Irecv");
        },
        recv_finish(t, buf, dt, n), true);
}

}  // namespace fabmpi_torch
