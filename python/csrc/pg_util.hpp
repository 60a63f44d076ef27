// Small helpers shared by the ProcessGroupFabmpi sources (argument checks, staging, request slots).
#pragma once

#include "process_group.hpp"

#include <climits>

namespace fabmpi_torch {

using Tensors = std::vector<at::Tensor>;

inline std::string msg(const char* what, const std::string& s) { return std::string("fabmpi: ") + what + ": " + s; }

inline int as_count(const char* what, int64_t n) {
    TORCH_CHECK_VALUE(n >= 0 && n <= INT_MAX,
                      msg(what, "element count " + std::to_string(n) + " does not fit an MPI int count"));
    return static_cast<int>(n);
}

// The contiguous host buffer MPI works on: the tensor itself when it is contiguous, else a copy.
// (Device tensors will be staged here too.)
inline at::Tensor staged(const at::Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

inline void copy_back(const at::Tensor& dst, const at::Tensor& buf) {
    if (!dst.is_same(buf)) dst.copy_(buf);
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
