// Multi-rank check of one collective (argv[1]: barrier, bcast, reduce, allreduce, scan, exscan,
// reduce_scatter, reduce_scatter_block, allgather, allgatherv, gather, gatherv, scatter, scatterv,
// alltoall, alltoallv, alltoallw), run under mpirun with the algorithm forced by FABMPI_<COLL>_ALGORITHM.
// Loops over counts (0, 1, odd, large), datatypes (MPI_INT, MPI_DOUBLE, a non-contiguous derived int
// type), roots, MPI_IN_PLACE where allowed, SUM and a non-commutative user op (rank order); runs every
// case blocking and as a batch of nonblocking calls outstanding at once (also on a duplicated
// communicator when MPI_Comm_dup exists); checks every element against a serial computation.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

int rank_, size_;
MPI_Datatype resized_int, affine_type;
MPI_Op affine_op;
long long failures = 0;
std::string current;

void report(const char* what, long long i, double got, double want) {
  if (failures++ < 10)
    std::fprintf(stderr, "rank %d: %s: %s: element %lld is %g, expected %g\n", rank_, current.c_str(), what, i, got, want);
}

// A datatype the tests store logical integer values in: element i at stride*i of the base type.
struct Type {
  const char* name;
  MPI_Datatype* dt;
  int stride;   // base elements per extent
  bool real;    // double instead of int
  std::size_t base() const { return real ? sizeof(double) : sizeof(int); }
  std::vector<char> make(std::size_t count) const { return std::vector<char>((count + 1) * stride * base(), 0x5a); }
  void set(std::vector<char>& b, std::size_t i, long long v, std::size_t at = 0) const {
    char* p = b.data() + (at + i) * stride * base();
    if (real) { double d = static_cast<double>(v); std::memcpy(p, &d, 8); }
    else { int x = static_cast<int>(v); std::memcpy(p, &x, 4); }
  }
  long long get(const std::vector<char>& b, std::size_t i, std::size_t at = 0) const {
    const char* p = b.data() + (at + i) * stride * base();
    if (real) { double d; std::memcpy(&d, p, 8); return static_cast<long long>(d); }
    int x; std::memcpy(&x, p, 4); return x;
  }
};
MPI_Datatype int_type = MPI_INT, double_type = MPI_DOUBLE;
const Type kTypes[] = {{"MPI_INT", &int_type, 1, false}, {"MPI_DOUBLE", &double_type, 1, true},
                       {"resized int", &resized_int, 2, false}};

long long value(int r, std::size_t i) { return static_cast<long long>((r * 131 + i * 7) % 997) + 1; }

// Non-commutative: composition of affine maps t -> a*t + b (in then inout).
void affine(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* x = static_cast<unsigned long long*>(in);
  auto* y = static_cast<unsigned long long*>(inout);
  for (int i = 0; i < *len; ++i) {
    const unsigned long long a = x[2 * i] * y[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
    y[2 * i] = a;
    y[2 * i + 1] = b;
  }
}
void affine_value(int r, std::size_t i, unsigned long long* out) { out[0] = 2 * (r + i) + 1; out[1] = r * 31 + i; }
void affine_prefix(int last, std::size_t i, unsigned long long* out) {
  affine_value(0, i, out);
  for (int r = 1; r <= last; ++r) {
    unsigned long long next[2];
    affine_value(r, i, next);
    int one = 1;
    affine(out, next, &one, nullptr);
    out[0] = next[0];
    out[1] = next[1];
  }
}

// One collective call: prepare buffers, start (blocking when req is null), check the result.
struct Job {
  virtual ~Job() = default;
  virtual void start(MPI_Comm comm, MPI_Request* req) = 0;
  virtual void check() = 0;
};
using JobFactory = std::function<std::unique_ptr<Job>()>;

void run_cases(const std::vector<std::pair<std::string, JobFactory>>& cases, MPI_Comm comm) {
  for (const auto& [name, make] : cases) {
    current = name + " (blocking)";
    auto job = make();
    job->start(comm, nullptr);
    job->check();
  }
  // Every case outstanding at once (nonblocking), completed together.
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<MPI_Request> reqs(cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    jobs.push_back(cases[k].second());
    jobs.back()->start(comm, &reqs[k]);
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    current = cases[k].first + " (nonblocking batch)";
    jobs[k]->check();
  }
}

}  // namespace

#include "coll_check_jobs.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (argc < 2) {
    if (rank_ == 0) std::fprintf(stderr, "usage: coll_check COLLECTIVE [LARGE_COUNT]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string coll = argv[1];
  const std::size_t large = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 20000;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &resized_int);
  MPI_Type_commit(&resized_int);
  MPI_Type_contiguous(2, MPI_UNSIGNED_LONG_LONG, &affine_type);
  MPI_Type_commit(&affine_type);
  MPI_Op_create(affine, 0, &affine_op);

  std::vector<std::pair<std::string, JobFactory>> cases;
  if (!add_cases(coll, large, &cases)) {
    if (rank_ == 0) std::fprintf(stderr, "unknown collective '%s'\n", coll.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  run_cases(cases, MPI_COMM_WORLD);

  long long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%s on %d ranks: %zu cases, %lld bad elements\n", coll.c_str(), size_, cases.size(), total);
  MPI_Op_free(&affine_op);
  MPI_Type_free(&affine_type);
  MPI_Type_free(&resized_int);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
