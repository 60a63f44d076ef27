// Throughput of the predefined reduction kernels (MPI_SUM on float, double, int32), in cache and from
// memory. Prints GB/s of reduced data (bytes of one operand per second; the kernel reads 2x and writes 1x).
// Usage: bench_reduce [seconds-per-case]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/op.hpp"

using namespace fabmpi;

namespace {

template <class V>
double measure(MPI_Datatype handle, std::size_t bytes, double seconds) {
  const std::size_t n = bytes / sizeof(V);
  std::vector<V> in(n, V(1)), inout(n, V(0));
  const Datatype& type = *builtin_datatype(handle);
  const Op& sum = *builtin_op(MPI_SUM);
  sum.apply(in.data(), inout.data(), n, type);  // warm up
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::size_t reps = 0;
  double elapsed = 0;
  do {
    sum.apply(in.data(), inout.data(), n, type);
    ++reps;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < seconds);
  volatile V sink = inout[n / 2];
  (void)sink;
  return static_cast<double>(reps) * static_cast<double>(n * sizeof(V)) / elapsed / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
  std::printf("%-8s %14s %14s\n", "type", "32KiB GB/s", "64MiB GB/s");
  std::printf("%-8s %14.2f %14.2f\n", "float", measure<float>(MPI_FLOAT, 32 << 10, seconds),
              measure<float>(MPI_FLOAT, 64 << 20, seconds));
  std::printf("%-8s %14.2f %14.2f\n", "double", measure<double>(MPI_DOUBLE, 32 << 10, seconds),
              measure<double>(MPI_DOUBLE, 64 << 20, seconds));
  std::printf("%-8s %14.2f %14.2f\n", "int32", measure<int>(MPI_INT, 32 << 10, seconds),
              measure<int>(MPI_INT, 64 << 20, seconds));
  return 0;
}
