#!/bin/bash
# A CMake project using find_package(MPI) finds fabmpi through its mpicc/mpicxx, builds and runs.
# Usage: test_cmake.sh PREFIX SOURCE_DIR MPIRUN
set -eu
prefix=$1; src=$2; mpirun=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake -S "$src/tests/tools/cmake_project" -B "$work" -DMPI_C_COMPILER="$prefix/bin/mpicc" \
      -DMPI_CXX_COMPILER="$prefix/bin/mpicxx" -DMPIEXEC_EXECUTABLE="$prefix/bin/mpirun" > "$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
grep -q "MPI_C_INCLUDE_DIRS=$prefix/include" "$work/configure.log" || { echo "FindMPI did not pick fabmpi's include dir"; cat "$work/configure.log"; exit 1; }
cmake --build "$work" -j 2 > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
out=$(timeout 60 "$mpirun" -np 2 "$work/rank_size")
echo "$out"
grep -q "cmake-built rank 1 of 2" <<<"$out"
out=$(timeout 60 "$mpirun" -np 2 "$work/rank_size_cxx")
echo "$out"
grep -q "cmake-built C++ rank 0 of 2" <<<"$out"
echo "cmake find_package(MPI) check passed"
