// Worker thread, MPI initialisation and the float16/bfloat16 reduction operators.
#include "engine.hpp"

#include "mpix_store_bootstrap.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fabmpi_torch {

namespace {

// Every environment variable the C++ side reads, read once here (the Python side has its own list in
// torch_fabmpi/_config.py; docs/torch.md documents both).
struct Tunables {
    // FABMPI_TORCH_SPIN_US: how long the worker busy-polls (with yields) after the last progress before it
    // starts sleeping between MPI_Test rounds. Default 1000.
    std::chrono::microseconds spin{1000};
    // FABMPI_TORCH_NATIVE_HALF: "f16", "bf16", "f16,bf16" or "all": use MPIX_C_FLOAT16 / MPIX_BFLOAT16 with
    // the built-in reduction ops instead of our own MPI_Op over a 2-byte type; "none": never. Default (unset
    // or "auto"): native on fabmpi's libmpi (it has both types and reduces them natively), user ops elsewhere.
    bool half_auto = true;
    bool native_f16 = false, native_bf16 = false;
    // FABMPI_TORCH_SHUTDOWN_GRACE_MS: at exit, how long to wait for ops still in flight. Default 2000.
    std::chrono::milliseconds grace{2000};

    static const Tunables& get() {
        static const Tunables t = [] {
            Tunables r;
            if (const char* s = std::getenv("FABMPI_TORCH_SPIN_US")) r.spin = std::chrono::microseconds(std::atol(s));
            const char* half = std::getenv("FABMPI_TORCH_NATIVE_HALF");
            if (half && *half && std::string(half) != "auto") {
                r.half_auto = false;
                std::string v = std::string(half) + ",";
                for (size_t b = 0, e; (e = v.find(',', b)) != std::string::npos; b = e + 1) {
                    std::string tok = v.substr(b, e - b);
                    if (tok == "all" || tok == "f16" || tok == "fp16" || tok == "float16") r.native_f16 = true;
                    if (tok == "all" || tok == "bf16" || tok == "bfloat16") r.native_bf16 = true;
                }
            }
            if (const char* s = std::getenv("FABMPI_TORCH_SHUTDOWN_GRACE_MS"))
                r.grace = std::chrono::milliseconds(std::atol(s));
            return r;
        }();
        return t;
    }
};

// The 2-byte datatypes our user-defined ops recognise (set once by init_types on the worker).
MPI_Datatype g_f16 = MPI_DATATYPE_NULL;
MPI_Datatype g_bf16 = MPI_DATATYPE_NULL;

template <class T, class F>
void combine(const void* in, void* inout, int n, F f) {
    auto a = static_cast<const T*>(in);
    auto b = static_cast<T*>(inout);
    for (int i = 0; i < n; ++i) b[i] = T(f(static_cast<float>(a[i]), static_cast<float>(b[i])));
}

template <class F>
void combine_half(void* in, void* inout, int* len, MPI_Datatype* dt, F f) {
    if (*dt == g_bf16)
        combine<c10::BFloat16>(in, inout, *len, f);
    else
        combine<c10::Half>(in, inout, *len, f);
}

void half_sum(void* in, void* io, int* len, MPI_Datatype* dt) {
    combine_half(in, io, len, dt, [](float a, float b) { return a + b; });
}
void half_prod(void* in, void* io, int* len, MPI_Datatype* dt) {
    combine_half(in, io, len, dt, [](float a, float b) { return a * b; });
}
void half_min(void* in, void* io, int* len, MPI_Datatype* dt) {
    combine_half(in, io, len, dt, [](float a, float b) { return a < b ? a : b; });
}
void half_max(void* in, void* io, int* len, MPI_Datatype* dt) {
    combine_half(in, io, len, dt, [](float a, float b) { return a > b ? a : b; });
}

std::string library_version() {
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) return "unknown MPI";
    std::string s(buf, len);
    auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

void* find_mpix_init_with_store() {
    if (void* p = dlsym(RTLD_DEFAULT, "MPIX_Init_with_store")) return p;
    // libmpi came in as a dependency of this extension, which Python loads RTLD_LOCAL: then it is not in the
    // global scope, so ask the library that provides MPI_Init itself.
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&MPI_Init), &info) || !info.dli_fname) return nullptr;
    void* lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) return nullptr;
    void* p = dlsym(lib, "MPIX_Init_with_store");
    dlclose(lib);  // only drops the reference RTLD_NOLOAD took; the library stays loaded
    return p;
}

void check_mpi(int rc, const std::string& what, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = std::snprintf(msg, sizeof msg, "error %d", rc);
    throw Error("fabmpi: " + what + ": " + call + " failed: " + std::string(msg, len));
}

Engine& Engine::get() {
    static Engine* e = new Engine();  // never destroyed: static destruction order vs. torch is unknowable
    return *e;
}

Engine::~Engine() = default;

bool Engine::initialized() const {
    std::lock_guard<std::mutex> lk(mu_);
    return mpi_ready_;
}

void Engine::ensure_initialized(const InitRequest& req) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (mpi_ready_) return;
        if (!running_) {
            if (stop_) throw Error("fabmpi: the MPI runtime was already shut down in this process");
            running_ = true;
            thread_ = std::thread([this] { loop(); });
        }
    }
    call("MPI initialisation", [this, req] { init_mpi(req); });
}

void Engine::init_mpi(const InitRequest& req) {
    if (mpi_ready_) return;
    int flag = 0;
    MPI_Initialized(&flag);
    if (flag) {
        MPI_Query_thread(&provided_);
        if (provided_ < MPI_THREAD_SERIALIZED)
            throw Error("fabmpi: MPI was initialised elsewhere with thread level " + std::to_string(provided_) +
                        "; torch_fabmpi calls MPI from its own worker thread and needs MPI_THREAD_SERIALIZED or "
                        "MPI_THREAD_MULTIPLE (initialise with MPI_Init_thread, or import torch_fabmpi first)");
        bootstrap_ = "adopted";
    } else if (req.use_store) {
        auto fn = reinterpret_cast<MPIX_Init_with_store_fn>(find_mpix_init_with_store());
        if (!fn)
            throw Error("fabmpi: no PMI in the environment (not started by mpirun) and the MPI library (" +
                        library_version() +
                        ") has no MPIX_Init_with_store to bootstrap through torch's store; launch with "
                        "fabmpi's mpirun (or mpiexec), or use fabmpi's libmpi which provides the extension");
        MPIX_Store_bootstrap bs{};
        bs.version = MPIX_STORE_BOOTSTRAP_VERSION;
        bs.rank = req.rank;
        bs.size = req.size;
        bs.local_rank = req.local_rank;
        bs.local_size = req.local_size;
        bs.node_id = req.node_id;
        bs.timeout_ms = req.timeout_ms;
        bs.ctx = req.store_ctx;
        bs.put = req.put;
        bs.get = req.get;
        bs.fence = req.fence;
        check_mpi(fn(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided_, &bs), "init", "MPIX_Init_with_store");
        we_initialized_ = true;
        bootstrap_ = "store";
    } else {
        // The worker is the thread that initialises MPI, so even FUNNELED would do.
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided_), "init", "MPI_Init_thread");
        we_initialized_ = true;
        bootstrap_ = "init";
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size_);
    init_types();
    std::lock_guard<std::mutex> lk(mu_);
    mpi_ready_ = true;
}

void Engine::init_types() {
    const auto& t = Tunables::get();
    // MPI_Get_library_version rather than the FABMPI macro: a build against MPICH's mpi.h may run on
    // fabmpi's libmpi (installed as libmpich.so.12 too), and the other way round.
    const bool on_fabmpi = library_version().rfind("fabmpi", 0) == 0;
    half_.native_f16 = t.half_auto ? on_fabmpi : t.native_f16;
    half_.native_bf16 = t.half_auto ? on_fabmpi : t.native_bf16;
    auto two_bytes = [](MPI_Datatype* out) {
        check_mpi(MPI_Type_contiguous(2, MPI_BYTE, out), "init", "MPI_Type_contiguous");
        check_mpi(MPI_Type_commit(out), "init", "MPI_Type_commit");
    };
    if (half_.native_f16)
        half_.f16 = (MPI_Datatype)0x4c000246;  // MPIX_C_FLOAT16 (MPICH ABI)
    else
        two_bytes(&half_.f16);
    if (half_.native_bf16)
        half_.bf16 = (MPI_Datatype)0x4c000247;  // MPIX_BFLOAT16 (fabmpi extension)
    else
        two_bytes(&half_.bf16);
    g_f16 = half_.f16;
    g_bf16 = half_.bf16;
    check_mpi(MPI_Op_create(half_sum, 1, &half_.sum), "init", "MPI_Op_create");
    check_mpi(MPI_Op_create(half_prod, 1, &half_.prod), "init", "MPI_Op_create");
    check_mpi(MPI_Op_create(half_min, 1, &half_.min), "init", "MPI_Op_create");
    check_mpi(MPI_Op_create(half_max, 1, &half_.max), "init", "MPI_Op_create");
}

void Engine::submit(std::shared_ptr<Op> op) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!running_ || stop_) {
            auto e = std::make_exception_ptr(Error("fabmpi: " + op->name + ": the MPI runtime is not running"));
            op->phase = Op::Phase::Done;
            if (op->notify) op->notify(*op, e);
            return;
        }
        queue_.push_back(std::move(op));
    }
    cv_.notify_all();
}

void Engine::call(const std::string& what, std::function<void()> fn) {
    if (std::this_thread::get_id() == thread_.get_id()) {  // already on the worker
        fn();
        return;
    }
    std::mutex m;
    std::condition_variable done_cv;
    bool done = false;
    std::exception_ptr err;
    auto op = std::make_shared<Op>();
    op->name = what;
    op->start = [fn = std::move(fn)](Op&) { fn(); };
    op->notify = [&](Op&, std::exception_ptr e) {
        std::lock_guard<std::mutex> lk(m);
        err = e;
        done = true;
        done_cv.notify_all();
    };
    submit(op);
    std::unique_lock<std::mutex> lk(m);
    done_cv.wait(lk, [&] { return done; });
    if (err) std::rethrow_exception(err);
}

void Engine::release(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) return;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!running_ || stop_ || !mpi_ready_) return;
    }
    auto op = std::make_shared<Op>();
    op->name = "MPI_Comm_free";
    op->start = [comm](Op&) mutable {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Comm_free(&comm);
    };
    submit(op);
}

void Engine::start_op(const std::shared_ptr<Op>& p) {
    Op& op = *p;
    try {
        if (op.comm && op.collective && !op.comm->broken.empty())
            throw Error("fabmpi: " + op.name + ": this process group can no longer run collectives: " +
                        op.comm->broken);
        op.start(op);
        op.phase = Op::Phase::Started;
    } catch (...) {
        auto e = std::current_exception();
        bool issued = false;
        for (auto r : op.reqs) issued |= r != MPI_REQUEST_NULL;
        if (issued) zombies_.push_back(p);  // requests issued before the failure keep their buffers alive
        finish_op(op, e);
        return;
    }
    op.statuses.resize(op.reqs.size());
}

void Engine::finish_op(Op& op, std::exception_ptr e) {
    if (!e && op.finish) {
        try {
            op.finish(op);
        } catch (...) {
            e = std::current_exception();
        }
    }
    op.phase = Op::Phase::Done;
    if (op.notify) {
        try {
            op.notify(op, e);
        } catch (const std::exception& ex) {
            std::fprintf(stderr, "fabmpi: %s: completion callback threw: %s\n", op.name.c_str(), ex.what());
        } catch (...) {
            std::fprintf(stderr, "fabmpi: %s: completion callback threw\n", op.name.c_str());
        }
    }
}

// One pass over the ops in flight. Returns true if any op changed state.
bool Engine::step() {
    bool changed = false;
    auto now = Clock::now();
    for (size_t i = 0; i < active_.size();) {
        Op& op = *active_[i];
        int flag = 0;
        int rc = MPI_Testall((int)op.reqs.size(), op.reqs.data(), &flag, op.statuses.data());
        std::exception_ptr err;
        if (rc != MPI_SUCCESS) {
            try {
                check_mpi(rc, op.name, "MPI_Testall");
            } catch (...) {
                err = std::current_exception();
            }
            flag = 1;
        }
        if (!flag && now > op.deadline) {
            bool cancelled = true;
            if (op.cancel_on_timeout) {
                for (auto& r : op.reqs)
                    if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);
                MPI_Waitall((int)op.reqs.size(), op.reqs.data(), op.statuses.data());
                for (auto& s : op.statuses) {
                    int c = 0;
                    MPI_Test_cancelled(&s, &c);
                    if (!c) cancelled = false;
                }
                flag = !cancelled;  // it matched while we were cancelling: a normal completion
            } else {
                zombies_.push_back(active_[i]);
            }
            if (cancelled) {
                std::string msg = "fabmpi: " + op.name + ": timed out after " + op.timeout_text +
                                  " (the process group's timeout); a peer never joined or the operation is stuck";
                if (op.collective && op.comm && op.comm->broken.empty())
                    op.comm->broken = "an earlier " + op.name + " timed out";
                err = std::make_exception_ptr(Error(msg));
                flag = 1;
            }
        }
        if (flag) {
            finish_op(op, err);
            active_.erase(active_.begin() + (long)i);
            changed = true;
        } else {
            ++i;
        }
    }
    for (size_t i = 0; i < zombies_.size();) {
        Op& z = *zombies_[i];
        int flag = 0;
        if (MPI_Testall((int)z.reqs.size(), z.reqs.data(), &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS || flag) {
            zombies_.erase(zombies_.begin() + (long)i);
            changed = true;
        } else {
            ++i;
        }
    }
    return changed;
}

void Engine::loop() {
    const auto spin = Tunables::get().spin;
    auto last_change = Clock::now();
    Clock::time_point stop_since{};
    for (;;) {
        std::deque<std::shared_ptr<Op>> fresh;
        bool stopping;
        {
            std::unique_lock<std::mutex> lk(mu_);
            if (active_.empty() && zombies_.empty() && queue_.empty() && !stop_)
                cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
            else if (queue_.empty() && Clock::now() - last_change > spin)
                cv_.wait_for(lk, std::chrono::microseconds(100), [&] { return stop_ || !queue_.empty(); });
            fresh.swap(queue_);
            stopping = stop_;
        }
        for (auto& op : fresh) {
            start_op(op);
            if (op->phase == Op::Phase::Started) {
                if (op->reqs.empty())
                    finish_op(*op, nullptr);
                else
                    active_.push_back(op);
            }
        }
        bool changed = !fresh.empty();
        if (mpi_ready_ && (!active_.empty() || !zombies_.empty())) changed |= step();
        if (changed) last_change = Clock::now();
        else if (Clock::now() - last_change <= spin) std::this_thread::yield();
        if (stopping) {
            if (stop_since == Clock::time_point{}) stop_since = Clock::now();
            bool drained = active_.empty() && zombies_.empty();
            if (drained || Clock::now() - stop_since > Tunables::get().grace) break;
        }
    }
    // Shutting down: nothing else will be started.
    for (auto& op : active_) {
        auto e = std::make_exception_ptr(Error("fabmpi: " + op->name + ": still running at shutdown"));
        finish_op(*op, e);
    }
    bool clean = active_.empty() && zombies_.empty();
    active_.clear();
    if (mpi_ready_ && we_initialized_) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) {
            if (clean) {
                MPI_Op_free(&half_.sum);
                MPI_Op_free(&half_.prod);
                MPI_Op_free(&half_.min);
                MPI_Op_free(&half_.max);
                if (!half_.native_f16) MPI_Type_free(&half_.f16);
                if (!half_.native_bf16) MPI_Type_free(&half_.bf16);
                MPI_Finalize();
            } else {
                std::fprintf(stderr, "fabmpi: operations still in flight at exit; skipping MPI_Finalize\n");
            }
        }
    }
}

void Engine::shutdown() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!running_ || stop_) return;
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::deque<std::shared_ptr<Op>> left;
    {
        std::lock_guard<std::mutex> lk(mu_);
        left.swap(queue_);
    }
    for (auto& op : left) {
        auto e = std::make_exception_ptr(Error("fabmpi: " + op->name + ": submitted after shutdown"));
        finish_op(*op, e);
    }
}

}  // namespace fabmpi_torch
