#!/bin/bash
# Installs what fabmpi needs on Debian 12: build tools, libfabric, hwloc, Catch2, and for the tests the
# reference MPIs (interop), CMake, PyTorch (Debian's python3-torch) and pytest.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(build-essential pkg-config meson ninja-build libfabric-dev libfabric-bin libhwloc-dev catch2
          cmake python3 mpich libmpich-dev man-db groff-base procps)
if [ "${FABMPI_SETUP_TESTS:-0}" = 1 ]; then
  # pybind11-dev: torch's extension headers include it (libtorch-dev only recommends it)
  packages+=(python3-torch libtorch-dev pybind11-dev python3-pytest python3-numpy python3-dev python3-setuptools)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /tmp/fabmpi-apt.log 2>&1 \
    || { tail -30 /tmp/fabmpi-apt.log; exit 1; }
fi
echo "setup-deps: all dependencies present"
