#!/bin/bash
# Runs the torch_fabmpi suite and prints "N passed, N failed, N skipped".
#   tests/python/run.sh [LAUNCHER]      LAUNCHER defaults to $FABMPI_LAUNCHER, else mpiexec.hydra
# The launcher is called as "$LAUNCHER -n N /usr/bin/python3 -m pytest ...", so fabmpi's mpirun fits too, and
# so does tests/python/torchrun.sh (torchrun: store bootstrap).
# Passes, each bounded by FABMPI_TEST_RUN_TIMEOUT seconds:
#   FABMPI_TEST_SIZES ("1 2 3 4")        the whole suite under LAUNCHER at these rank counts
#   FABMPI_TEST_HALF_SIZES ("2 4")       on fabmpi, the float16/bfloat16 tests again on the user-op path
#                                        (FABMPI_TORCH_NATIVE_HALF=none; native MPIX types are the default)
#   FABMPI_TEST_TORCHRUN_SIZES ("2 4" when the MPI library has MPIX_Init_with_store, else "")
#                                        the whole suite under tests/python/torchrun.sh
# A test counts as passed only if it passed on every rank; a rank that never reports (crash, hang killed by
# the per-run timeout) counts its tests as failed.
set -u
LAUNCHER=${1:-${FABMPI_LAUNCHER:-mpiexec.hydra}}
PYTHON=${PYTHON:-/usr/bin/python3}
RUN_TIMEOUT=${FABMPI_TEST_RUN_TIMEOUT:-240}
SIZES=${FABMPI_TEST_SIZES-"1 2 3 4"}
HALF_SIZES=${FABMPI_TEST_HALF_SIZES-"2 4"}  # (fabmpi only, see below)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$(mktemp -d /tmp/torch_fabmpi_tests.XXXXXX)
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export FABMPI_TEST_GROUP_TIMEOUT=${FABMPI_TEST_GROUP_TIMEOUT:-60}

# A launcher inside a fabmpi installation (PREFIX/bin/mpirun) names the MPI to build against, unless told.
launcher_prefix=$(cd "$(dirname "$(command -v "${LAUNCHER%% *}" || echo .)")/.." 2>/dev/null && pwd)
if [ -z "${FABMPI_PREFIX:-}" ] && [ -f "$launcher_prefix/lib/libmpi.so.12" ] &&
    grep -q '^#define FABMPI 1' "$launcher_prefix/include/mpi.h" 2>/dev/null; then
    export FABMPI_PREFIX=$launcher_prefix
fi
if ! "$PYTHON" -c "import torch_fabmpi" 2>/dev/null; then
    echo "building torch_fabmpi..."
    (cd "$ROOT/python" && timeout 1200 "$PYTHON" setup.py build_ext --inplace >"$OUT/build.log" 2>&1) \
        || { echo "build failed, see $OUT/build.log"; echo "0 passed, 1 failed"; exit 1; }
fi

# The half-type path the library does not use by default, and whether torchrun can work at all.
probe=$("$PYTHON" -c "import torch_fabmpi as t; v = t.mpi_library_version(); \
print(int(v.startswith('fabmpi')), int(t.has_store_bootstrap()))" 2>/dev/null || echo "0 0")
read -r on_fabmpi has_store <<<"$probe"
# On other MPIs the native path is opt-in and may not work at all (under MPICH 4.0.2 a rank dies reducing
# MPIX_C_FLOAT16 and lacks MPIX_BFLOAT16), so the second half pass runs on fabmpi only.
[ "$on_fabmpi" = 1 ] || HALF_SIZES=""
if [ "$has_store" = 1 ]; then TORCHRUN_SIZES=${FABMPI_TEST_TORCHRUN_SIZES-"2 4"}; else TORCHRUN_SIZES=""; fi

passes=()  # directory names under $OUT; the rank count is the number after "np"
run_pass() {  # run_pass DIR N LAUNCHER [env assignments...] -- [pytest args...]
    local dir=$1 n=$2 launcher=$3
    shift 3
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    mkdir -p "$OUT/$dir"
    passes+=("$dir")
    echo "=== $dir: $launcher -n $n ${envs[*]} $*"
    env FABMPI_TEST_XML_DIR="$OUT/$dir" "${envs[@]}" timeout -k 10 "$RUN_TIMEOUT" \
        $launcher -n "$n" "$PYTHON" -m pytest -q -p no:cacheprovider "$HERE" "$@" \
        >"$OUT/$dir/log" 2>&1
    echo "    exit $? (log: $OUT/$dir/log)"
}
for n in $SIZES; do run_pass "np$n" "$n" "$LAUNCHER" --; done
for n in $HALF_SIZES; do
    run_pass "np$n-half-none" "$n" "$LAUNCHER" FABMPI_TORCH_NATIVE_HALF=none -- \
        -k "float16 or bfloat16 or half_types"
done
for n in $TORCHRUN_SIZES; do run_pass "np$n-torchrun" "$n" "$HERE/torchrun.sh" --; done

"$PYTHON" - "$OUT" "${passes[@]}" <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET
out, passes = sys.argv[1], sys.argv[2:]
passed = failed = skipped = 0
for name in passes:
    n = int(name[2:].split("-")[0])
    results = {}  # test id -> list of per-rank outcomes
    files = glob.glob(os.path.join(out, name, "rank*.xml"))
    for f in files:
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError:
            continue
        for tc in root.iter("testcase"):
            tid = tc.get("classname", "") + "::" + tc.get("name", "")
            if tc.find("failure") is not None or tc.find("error") is not None:
                o = "failed"
            elif tc.find("skipped") is not None:
                o = "skipped"
            else:
                o = "passed"
            results.setdefault(tid, []).append(o)
    ranks = len(files)
    p = f = s = 0
    for tid, outs in results.items():
        if "failed" in outs or len(outs) < n:
            f += 1
            print(f"  FAILED {name} {tid} {outs}")
        elif all(o == "skipped" for o in outs):
            s += 1
        else:
            p += 1
    if ranks < n or not results:
        f += max(1, n - ranks)
        print(f"  {name}: only {ranks} of {n} ranks reported")
    print(f"{name}: {p} passed, {f} failed, {s} skipped")
    passed, failed, skipped = passed + p, failed + f, skipped + s
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
