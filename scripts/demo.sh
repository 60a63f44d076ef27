#!/bin/bash
# Newcomer's demo: installs dependencies, builds and installs fabmpi, then runs examples/hello.c on 4 ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
bash scripts/build.sh
prefix=${FABMPI_PREFIX:-$PWD/install}
"$prefix/bin/mpicc" -o build/hello-demo examples/hello.c
"$prefix/bin/mpirun" -np 4 build/hello-demo
