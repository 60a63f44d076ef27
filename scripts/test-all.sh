#!/bin/bash
# Installs dependencies (tests included), builds and installs fabmpi, runs every test suite, and ends with
# the line "N passed, N failed". Exit status is non-zero if any test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
FABMPI_SETUP_TESTS=1 bash scripts/setup-deps.sh || exit 1
bash scripts/build.sh || exit 1
build=${FABMPI_BUILD_DIR:-build}
# MPI jobs are serialized (is_parallel: false); pure unit tests run two at a time.
meson test -C "$build" --num-processes 2 --print-errorlogs "$@"
rc=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
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
            print(f"failed: {r.get('name')} ({res})")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
