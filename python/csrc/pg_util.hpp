// Small helpers shared by the ProcessGroupFabmpi sources (argument checks, staging, request slots).
#pragma once

#include "process_group.hpp"

#include <algorithm>
#include <climits>

namespace fabmpi_torch {

using Tensors = std::vector<at::Tensor>;

inline std::string msg(const char* what, const std::string& s) { return std::string("fabmpi: ") + what + ": " + s; }

inline int as_count(const char* what, int64_t n) {
    TORCH_CHECK_VALUE(n >= 0 && n <= INT_MAX,
                      msg(what, "element count " + std::to_string(n) + " does not fit an MPI int count"));
    return static_cast<int>(n);
}

// Options for a host buffer that stands in for t: CPU, and pinned when t lives on a GPU (page-locked memory
// is what the GPU's copy engine transfers from directly; pageable memory costs a bounce through the driver).
inline at::TensorOptions host_options(const at::Tensor& t) {
    auto o = t.options().device(at::kCPU);
    return t.is_cpu() ? o : o.pinned_memory(true);
}

// The contiguous host buffer MPI works on: a CPU tensor itself when it is contiguous, else a copy. A CUDA
// tensor is copied to pinned host memory here, on the calling thread: the copy is queued on the caller's
// current stream and waited for, so it sees every kernel the caller queued before the collective (the MPI
// library is not CUDA-aware, so MPI never sees a device pointer). copy_back() brings results back.
inline at::Tensor staged(const at::Tensor& t) {
    if (t.is_cpu()) return t.is_contiguous() ? t : t.contiguous();
    auto host = at::empty(t.sizes(), host_options(t));
    host.copy_(t);
    return host;
}

// Like staged(), for a tensor MPI only writes: a CUDA tensor's old contents are not copied in.
inline at::Tensor staged_output(const at::Tensor& t) {
    return t.is_cpu() ? staged(t) : at::empty(t.sizes(), host_options(t));
}

// On the worker, once MPI is done: results into the caller's tensor. For a CUDA tensor this is a blocking
// host-to-device copy on the worker's stream, finished before the Work completes (its future then records
// an event that consumers on other streams wait for).
inline void copy_back(const at::Tensor& dst, const at::Tensor& buf) {
    if (!dst.is_same(buf)) dst.copy_(buf);
}

// The distinct GPU devices among ts (empty for CPU-only tensors): a Work's future is created for them.
inline std::vector<c10::Device> gpu_devices(const std::vector<at::Tensor>& ts) {
    std::vector<c10::Device> devices;
    for (const auto& t : ts)
        if (t.defined() && !t.is_cpu() && std::find(devices.begin(), devices.end(), t.device()) == devices.end())
            devices.push_back(t.device());
    return devices;
}

template <class List>
void check_one(const char* what, const List& ts, const char* name) {
    TORCH_CHECK_VALUE(ts.size() == 1, msg(what, std::string("expects exactly one ") + name + " tensor, got " +
                                                    std::to_string(ts.size())));
}

inline void check_same_dtype(const char* what, const at::Tensor& a, const at::Tensor& b) {
    TORCH_CHECK_TYPE(a.scalar_type() == b.scalar_type(),
                     msg(what, std::string("dtype mismatch: ") + c10::toString(a.scalar_type()) + " vs " +
                                   c10::toString(b.scalar_type())));
}

// Adds a request slot and returns it (MPI writes it at once, so a later reallocation is harmless).
inline MPI_Request* slot(Op& op) {
    op.reqs.push_back(MPI_REQUEST_NULL);
    return &op.reqs.back();
}

}  // namespace fabmpi_torch
