#!/bin/bash
# Checks the installed compiler wrappers: flag reporting in MPICH and Open MPI styles, compiler swap,
# and a real compile + link + run of a program (singleton) with mpicc and mpicxx.
# Usage: test_wrappers.sh PREFIX SOURCE_DIR
set -u
prefix=$1
src=$2
fails=0
check() {  # check "what" command...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
[ -x "$prefix/bin/mpicc" ] || { echo "FAIL: $prefix/bin/mpicc missing (run meson install first)"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

show=$("$prefix/bin/mpicc" -show -O2 hello.c -o hello)
check "-show names the include dir" grep -q -- "-I$prefix/include" <<<"$show"
check "-show links libmpi with an rpath" grep -q -- "-lmpi" <<<"$show"
check "-show keeps user arguments" grep -q -- "-O2 hello.c -o hello" <<<"$show"
check "-c does not link" bash -c "! '$prefix/bin/mpicc' -show -c x.c | grep -q -- -lmpi"
check "-showme:compile" grep -q -- "-I" <<<"$("$prefix/bin/mpicc" -showme:compile)"
check "-showme:link" grep -q -- "-lmpi" <<<"$("$prefix/bin/mpicc" -showme:link)"
check "-showme:incdirs" test "$("$prefix/bin/mpicc" -showme:incdirs)" = "$prefix/include"
check "-compile-info starts with the compiler" grep -q "^cc " <<<"$("$prefix/bin/mpicc" -compile-info)"
check "-link-info" grep -q -- "-lmpi" <<<"$("$prefix/bin/mpicc" -link-info)"
check "mpicxx uses c++" grep -q "^c++ " <<<"$("$prefix/bin/mpicxx" -show x.cpp)"
check "mpic++ is mpicxx" grep -q "^c++ " <<<"$("$prefix/bin/mpic++" -show x.cpp)"
check "FABMPI_CC swaps the compiler" grep -q "^clang " <<<"$(FABMPI_CC=clang "$prefix/bin/mpicc" -show x.c)"
check "FABMPI_CXX swaps the compiler" grep -q "^clang++ " <<<"$(FABMPI_CXX=clang++ "$prefix/bin/mpicxx" -show x.cpp)"

cp "$src/tests/tools/cmake_project/main.c" "$src/tests/tools/cmake_project/main.cpp" "$work/"
check "mpicc compiles and links" "$prefix/bin/mpicc" -o "$work/c_prog" "$work/main.c"
check "mpicxx compiles and links" "$prefix/bin/mpicxx" -o "$work/cxx_prog" "$work/main.cpp"
# A -L naming a directory with another MPI's libmpi.so (as Python's build tools pass -L/usr/lib/<triplet>)
# must not capture -lmpi.
mkdir -p "$work/other_mpi"
echo 'int other_mpi(void) { return 0; }' > "$work/other.c"
cc -shared -fPIC -Wl,-soname,libmpi.so.40 -o "$work/other_mpi/libmpi.so" "$work/other.c"
check "a user -L does not shadow fabmpi's libmpi" bash -c "'$prefix/bin/mpicc' -o '$work/c_prog_l' '$work/main.c' -L'$work/other_mpi' && readelf -d '$work/c_prog_l' | grep NEEDED | grep -q 'libmpi.so.12'"
check "C program runs as a singleton" grep -q "rank 0 of 1" <<<"$(timeout 30 "$work/c_prog")"
check "C++ program runs as a singleton" grep -q "rank 0 of 1" <<<"$(timeout 30 "$work/cxx_prog")"
check "only MPI symbols are exported" bash -c "! nm -D --defined-only '$prefix/lib'*/libmpi.so.12 '$prefix/lib/libmpi.so.12' 2>/dev/null | awk '{print \$3}' | grep -v -E '^(P?MPIX?_|MPIR_Dup_fn$|_init$|_fini$|_edata$|_end$|__bss_start$)' | grep -q ."
check "every MPI_ function has its PMPI_ twin (MPI_UNWEIGHTED & co. are data)" bash -c "lib=\$(ls '$prefix'/lib*/libmpi.so.12 '$prefix'/lib/*/libmpi.so.12 2>/dev/null | head -1); syms=\$(nm -D --defined-only \"\$lib\" | awk '\$2 ~ /^[TWi]\$/ {print \$3}'); for s in \$(grep '^MPI_' <<<\"\$syms\"); do grep -qx \"P\$s\" <<<\"\$syms\" || { echo missing P\$s; exit 1; }; done"

echo "wrapper checks: $fails failed"
[ "$fails" -eq 0 ]
