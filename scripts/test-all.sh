#!/bin/bash
# Installs dependencies (tests included), builds and installs fabmpi, runs every test suite, and ends with
# the line "N passed, N failed". Exit status is non-zero if any test failed.
#   scripts/test-all.sh [meson test arguments]     e.g. --suite pt2pt
# FABMPI_SKIP_TORCH=1 skips the torch.distributed suite (built against the installed libmpi).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
FABMPI_SETUP_TESTS=1 bash scripts/setup-deps.sh || exit 1
bash scripts/build.sh || exit 1
build=${FABMPI_BUILD_DIR:-build}
prefix=${FABMPI_PREFIX:-$root/install}
summary=$(mktemp)

# MPI jobs are serialized (is_parallel: false); pure unit tests run two at a time.
meson test -C "$build" --no-rebuild --num-processes 2 --print-errorlogs "$@"
meson_rc=$?
python3 - "$build/meson-logs/testlog.json" > "$summary" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        res = r.get("result")
        if res in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif res == "SKIP":
            skipped += 1
        else:
            failed += 1
            print(f"failed: {r.get('name')} ({res})", file=sys.stderr)
print(passed, failed, skipped)
PY

torch_rc=0
if [ "${FABMPI_SKIP_TORCH:-0}" != 1 ] && [ $# -eq 0 ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "=== torch.distributed backend (fabmpi mpirun 1..4 ranks, torchrun 2 and 4 ranks)"
  (cd python && FABMPI_PREFIX="$prefix" MAX_JOBS=2 timeout 1500 /usr/bin/python3 setup.py build_ext --inplace \
      > "$root/$build/torch_build.log" 2>&1) || { echo "torch_fabmpi build failed:"; tail -30 "$build/torch_build.log"; }
  # build_ext skips an extension newer than its sources, so one linked against another MPI (or another fabmpi
  # install) would stay: check which libmpi it loads, and force a rebuild if it is not ours.
  loaded=$(cd python && /usr/bin/python3 -c "import os, torch_fabmpi
print(next((os.path.realpath(l.split()[-1]) for l in open('/proc/self/maps') if '/libmpi' in l), ''))" 2>/dev/null)
  if [ "$loaded" != "$(realpath "$prefix/lib/libmpi.so.12")" ]; then
    echo "torch_fabmpi: loads '${loaded:-nothing}', not $prefix/lib/libmpi.so.12; rebuilding"
    (cd python && FABMPI_PREFIX="$prefix" MAX_JOBS=2 timeout 1500 /usr/bin/python3 setup.py build_ext --inplace --force \
        > "$root/$build/torch_build.log" 2>&1) || { echo "torch_fabmpi build failed:"; tail -30 "$build/torch_build.log"; }
  fi
  torch_out=$(bash tests/python/run.sh "$prefix/bin/mpirun" 2>&1)
  torch_rc=$?
  echo "$torch_out" | tail -25
  line=$(echo "$torch_out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
  if [ -n "$line" ]; then
    read -r p f s < "$summary"
    tp=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    tf=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    ts=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
    echo "$((p + tp)) $((f + tf)) $((s + ${ts:-0}))" > "$summary"
  else
    read -r p f s < "$summary"
    echo "$p $((f + 1)) $s" > "$summary"
    torch_rc=1
  fi
fi

read -r passed failed skipped < "$summary"
rm -f "$summary"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$meson_rc" -eq 0 ] && [ "$torch_rc" -eq 0 ] && [ "$failed" -eq 0 ]
