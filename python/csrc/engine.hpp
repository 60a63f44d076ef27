// The MPI side of torch_fabmpi: one worker thread per process makes every MPI call.
//
// Process groups turn each torch operation into an Op (phase Queued -> Started -> Done) and submit it.
// The worker starts queued ops in submission order with nonblocking MPI calls, tests the started ones,
// and finishes each on completion, failure or deadline. Because every call goes through this one thread,
// MPI_THREAD_SERIALIZED (or FUNNELED when the worker itself initialised MPI) is all we need.
#pragma once

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fabmpi_torch {

using Clock = std::chrono::steady_clock;

// An error raised by an MPI call or by the worker; the message names the torch operation.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// MPIX_Init_with_store from the MPI library in use (fabmpi's extension), or nullptr (MPICH, Open MPI).
void* find_mpix_init_with_store();

// Throws Error("fabmpi: <what>: <call> failed: <MPI error string>") unless rc == MPI_SUCCESS.
void check_mpi(int rc, const std::string& what, const char* call);

// A communicator owned by one process group. `broken` is set once a collective on it has timed out:
// the other ranks may be inside that collective forever, so later collectives fail fast instead.
struct CommState {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 0;
    std::string broken;
};

struct Op {
    enum class Phase { Queued, Started, Done };
    std::string name;                        // torch operation, for messages ("allreduce")
    Phase phase = Phase::Queued;
    Clock::time_point deadline = Clock::time_point::max();
    bool cancel_on_timeout = false;          // receives are cancelled; collectives cannot be
    bool collective = false;                 // a timeout breaks the communicator
    std::shared_ptr<CommState> comm;         // null for runtime calls
    std::vector<MPI_Request> reqs;
    std::vector<MPI_Status> statuses;
    int source = -1;                         // set by finish() for receives
    std::function<void(Op&)> start;          // issue nonblocking calls into reqs (or do the whole job)
    std::function<void(Op&)> finish;         // success path on the worker: copy back, divide, unpack
    std::function<void(Op&, std::exception_ptr)> notify;  // always called once, nullptr on success
    std::string timeout_text;                // e.g. "1800000 ms"
};

// How MPI gets initialised when the runtime starts it.
struct InitRequest {
    bool use_store = false;                  // bootstrap through MPIX_Init_with_store
    int rank = 0, size = 1, local_rank = -1, local_size = -1, node_id = -1;
    int timeout_ms = 0;
    void* store_ctx = nullptr;               // c10d::Store*, valid for the duration of init
    int (*put)(void*, const char*, const void*, size_t) = nullptr;
    int (*get)(void*, const char*, void*, size_t, size_t*) = nullptr;
    int (*fence)(void*) = nullptr;
};

// Which 2-byte float representation the worker uses for float16 / bfloat16.
struct HalfTypes {
    MPI_Datatype f16 = MPI_DATATYPE_NULL, bf16 = MPI_DATATYPE_NULL;
    bool native_f16 = false, native_bf16 = false;  // MPIX_C_FLOAT16 / MPIX_BFLOAT16 with built-in ops
    MPI_Op sum = MPI_OP_NULL, prod = MPI_OP_NULL, min = MPI_OP_NULL, max = MPI_OP_NULL;
};

class Engine {
public:
    static Engine& get();  // MPI is per process, so is its worker

    // Starts the worker and initialises MPI (or adopts an MPI someone else initialised). Idempotent.
    void ensure_initialized(const InitRequest& req);
    bool initialized() const;
    int world_rank() const { return world_rank_; }
    int world_size() const { return world_size_; }
    int thread_level() const { return provided_; }
    const HalfTypes& half() const { return half_; }
    // How MPI was started: "init" (MPI_Init_thread: PMI, or a singleton), "store" (MPIX_Init_with_store),
    // "adopted" (initialised by someone else); empty before initialisation.
    std::string bootstrap() const {
        std::lock_guard<std::mutex> lk(mu_);
        return mpi_ready_ ? bootstrap_ : std::string();
    }

    void submit(std::shared_ptr<Op> op);
    // Runs fn on the worker (between progress steps) and waits; rethrows what fn throws.
    void call(const std::string& what, std::function<void()> fn);
    // Frees a communicator later on the worker; safe after shutdown (then it does nothing).
    void release(MPI_Comm comm);
    // Fails queued ops, waits briefly for started ones, finalises MPI if we initialised it, joins.
    void shutdown();

    ~Engine();

private:
    Engine() = default;
    void loop();
    bool step();  // one pass; returns true if anything changed
    void start_op(const std::shared_ptr<Op>& op);
    void finish_op(Op& op, std::exception_ptr e);
    void init_mpi(const InitRequest& req);
    void init_types();

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<Op>> queue_;      // submitted, not yet seen by the worker
    std::vector<std::shared_ptr<Op>> active_;    // started, requests in flight
    std::vector<std::shared_ptr<Op>> zombies_;   // timed out but not cancellable: buffers kept alive
    std::thread thread_;
    bool stop_ = false;
    bool running_ = false;
    bool mpi_ready_ = false;
    bool we_initialized_ = false;
    int world_rank_ = 0, world_size_ = 1, provided_ = 0;
    HalfTypes half_;
    std::string bootstrap_;
};

}  // namespace fabmpi_torch
