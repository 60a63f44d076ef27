// Python bindings: MPI initialisation (PMI or store bootstrap), group creation, shutdown.
#include "mpix_store_bootstrap.h"
#include "process_group.hpp"

#include <torch/extension.h>

namespace py = pybind11;
using namespace fabmpi_torch;

namespace {

// Adapts torch's c10d::Store to the MPIX_Store_bootstrap callbacks. Keys live under "fabmpi/".
struct StoreCtx {
    c10::intrusive_ptr<c10d::Store> store;
    int size = 1;
    int fences = 0;
};

int store_put(void* ctx, const char* key, const void* value, size_t len) {
    try {
        auto* c = static_cast<StoreCtx*>(ctx);
        auto p = static_cast<const uint8_t*>(value);
        c->store->set(std::string("fabmpi/kv/") + key, std::vector<uint8_t>(p, p + len));
        return 0;
    } catch (...) {
        return -1;
    }
}

int store_get(void* ctx, const char* key, void* value, size_t capacity, size_t* len) {
    try {
        auto* c = static_cast<StoreCtx*>(ctx);
        auto v = c->store->get(std::string("fabmpi/kv/") + key);  // blocks up to the store's timeout
        std::memcpy(value, v.data(), std::min(capacity, v.size()));
        *len = v.size();
        return 0;
    } catch (...) {
        return -1;
    }
}

int store_fence(void* ctx) {
    try {
        auto* c = static_cast<StoreCtx*>(ctx);
        std::string key = "fabmpi/fence/" + std::to_string(c->fences++);
        if (c->store->add(key, 1) == c->size) c->store->set(key + "/done", std::vector<uint8_t>{1});
        c->store->wait({key + "/done"});
        return 0;
    } catch (...) {
        return -1;
    }
}

void init_mpi(const c10::intrusive_ptr<c10d::Store>& store, bool use_store, int rank, int size, int local_rank,
              int local_size, int node_id, int64_t timeout_ms) {
    auto& eng = Engine::get();
    if (eng.initialized()) return;
    InitRequest req;
    // The library may look peers' addresses up long after init (on first contact), so the store adapter
    // lives until the process ends (MPIX_Init_with_store's contract: valid until MPI_Finalize).
    static StoreCtx* ctx = new StoreCtx();
    if (use_store) {
        TORCH_CHECK(store, "fabmpi: store bootstrap needs a store");
        ctx->store = store;
        ctx->size = size;
        req.use_store = true;
        req.store_ctx = ctx;
        req.put = store_put;
        req.get = store_get;
        req.fence = store_fence;
    }
    req.rank = rank;
    req.size = size;
    req.local_rank = local_rank;
    req.local_size = local_size;
    req.node_id = node_id;
    req.timeout_ms = (int)std::min<int64_t>(timeout_ms, INT_MAX);
    eng.ensure_initialized(req);
}

std::string bcast_string(const std::string& s, int root) {
    std::string out = s;
    Engine::get().call("bcast_string", [&] {
        int n = (int)out.size();
        check_mpi(MPI_Bcast(&n, 1, MPI_INT, root, MPI_COMM_WORLD), "bcast_string", "MPI_Bcast");
        out.resize(n);
        check_mpi(MPI_Bcast(out.data(), n, MPI_CHAR, root, MPI_COMM_WORLD), "bcast_string", "MPI_Bcast");
    });
    return out;
}

std::string library_version() {
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    return std::string(buf, len);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "torch_fabmpi native part: the 'fabmpi' torch.distributed backend over MPI";
    py::module_::import("torch.distributed");

    py::class_<ProcessGroupFabmpi, PGBase, c10::intrusive_ptr<ProcessGroupFabmpi>>(m, "ProcessGroupFabmpi")
        .def("comm_handle", [](const ProcessGroupFabmpi& pg) { return (int64_t)pg.comm(); },
             "The MPI_Comm handle (an int under the MPICH ABI) of this group.")
        .def("allgather_into_tensor_coalesced",
             [](ProcessGroupFabmpi& pg, std::vector<at::Tensor> outs, std::vector<at::Tensor> ins) {
                 return pg.allgather_into_tensor_coalesced_impl(outs, ins);
             },
             py::call_guard<py::gil_scoped_release>())
        .def("reduce_scatter_tensor_coalesced",
             [](ProcessGroupFabmpi& pg, std::vector<at::Tensor> outs, std::vector<at::Tensor> ins,
                const c10d::ReduceOp& op) {
                 c10d::ReduceScatterOptions opts;
                 opts.reduceOp = op;
                 return pg.reduce_scatter_tensor_coalesced_impl(outs, ins, opts);
             },
             py::call_guard<py::gil_scoped_release>());

    m.def("init_mpi", &init_mpi, py::arg("store"), py::arg("use_store"), py::arg("rank"), py::arg("size"),
          py::arg("local_rank") = -1, py::arg("local_size") = -1, py::arg("node_id") = -1,
          py::arg("timeout_ms") = 0, py::call_guard<py::gil_scoped_release>(),
          "Initialise MPI on the worker thread (PMI, or MPIX_Init_with_store when use_store).");
    m.def("create_group",
          [](int rank, int size, std::vector<int64_t> ranks, int64_t timeout_ms, std::string name) {
              GroupSpec spec;
              spec.rank = rank;
              spec.size = size;
              spec.global_ranks = std::move(ranks);
              spec.timeout = std::chrono::milliseconds(timeout_ms);
              spec.group_name = std::move(name);
              return c10::intrusive_ptr<PGBase>(ProcessGroupFabmpi::create(spec));
          },
          py::call_guard<py::gil_scoped_release>());
    m.def("shutdown", [] { Engine::get().shutdown(); }, py::call_guard<py::gil_scoped_release>());
    m.def("initialized", [] { return Engine::get().initialized(); });
    m.def("world_rank", [] { return Engine::get().world_rank(); });
    m.def("world_size", [] { return Engine::get().world_size(); });
    m.def("thread_level", [] { return Engine::get().thread_level(); });
    m.def("bcast_string", &bcast_string, py::call_guard<py::gil_scoped_release>());
    m.def("library_version", &library_version);
    m.def("bootstrap", [] { return Engine::get().bootstrap(); });
    m.def("half_types", [] {
        const auto& h = Engine::get().half();
        py::dict d;
        d["float16"] = h.native_f16 ? "MPIX_C_FLOAT16" : "user op";
        d["bfloat16"] = h.native_bf16 ? "MPIX_BFLOAT16" : "user op";
        return d;
    });
    m.def("has_store_bootstrap", [] { return find_mpix_init_with_store() != nullptr; });
    m.attr("torch_version_major") = TORCH_VERSION_MAJOR;
}
