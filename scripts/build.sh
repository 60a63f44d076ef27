#!/bin/bash
# Configures (once), builds and installs fabmpi into ./install (or $FABMPI_PREFIX). Extra arguments go to
# `meson setup` (e.g. -Dsanitize=true with FABMPI_BUILD_DIR=build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FABMPI_BUILD_DIR:-build}
prefix=${FABMPI_PREFIX:-$PWD/install}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --prefix="$prefix" "$@"
fi
ninja -C "$build" -j "$(nproc)"
meson install -C "$build" --quiet
echo "build: installed into $prefix"
