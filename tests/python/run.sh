#!/bin/bash
# Runs the torch_fabmpi suite at 1..4 ranks and prints "N passed, N failed".
#   tests/python/run.sh [LAUNCHER]      LAUNCHER defaults to $FABMPI_LAUNCHER, else mpiexec.hydra
# The launcher is called as "$LAUNCHER -n N /usr/bin/python3 -m pytest ...", so fabmpi's mpirun fits too.
# A test counts as passed only if it passed on every rank; a rank that never reports (crash, hang killed by
# the per-run timeout) counts its tests as failed. Each run is bounded by FABMPI_TEST_RUN_TIMEOUT seconds.
set -u
LAUNCHER=${1:-${FABMPI_LAUNCHER:-mpiexec.hydra}}
PYTHON=${PYTHON:-/usr/bin/python3}
RUN_TIMEOUT=${FABMPI_TEST_RUN_TIMEOUT:-240}
SIZES=${FABMPI_TEST_SIZES:-"1 2 3 4"}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$(mktemp -d /tmp/torch_fabmpi_tests.XXXXXX)
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export FABMPI_TEST_GROUP_TIMEOUT=${FABMPI_TEST_GROUP_TIMEOUT:-60}

if ! "$PYTHON" -c "import torch_fabmpi" 2>/dev/null; then
    echo "building torch_fabmpi..."
    (cd "$ROOT/python" && timeout 1200 "$PYTHON" setup.py build_ext --inplace >"$OUT/build.log" 2>&1) \
        || { echo "build failed, see $OUT/build.log"; echo "0 passed, 1 failed"; exit 1; }
fi

for n in $SIZES; do
    mkdir -p "$OUT/np$n"
    echo "=== $n rank(s): $LAUNCHER -n $n"
    FABMPI_TEST_XML_DIR="$OUT/np$n" timeout -k 10 "$RUN_TIMEOUT" \
        $LAUNCHER -n "$n" "$PYTHON" -m pytest -q -p no:cacheprovider "$HERE" \
        >"$OUT/np$n/log" 2>&1
    echo "    exit $? (log: $OUT/np$n/log)"
done

"$PYTHON" - "$OUT" $SIZES <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET
out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
passed = failed = skipped = 0
for n in sizes:
    results = {}  # test id -> list of per-rank outcomes
    files = glob.glob(os.path.join(out, f"np{n}", "rank*.xml"))
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
            print(f"  FAILED np={n} {tid} {outs}")
        elif all(o == "skipped" for o in outs):
            s += 1
        else:
            p += 1
    if ranks < n or not results:
        f += max(1, n - ranks)
        print(f"  np={n}: only {ranks} of {n} ranks reported")
    print(f"np={n}: {p} passed, {f} failed, {s} skipped")
    passed, failed, skipped = passed + p, failed + f, skipped + s
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
