#!/usr/bin/env bash
# Installs every Debian 12 package tosakit needs to build, test and benchmark. Run as root (or with sudo).
set -euo pipefail
PACKAGES=(
  g++ cmake ninja-build pkg-config git
  mlir-22-tools libmlir-22-dev llvm-22-dev zlib1g-dev libzstd-dev
  libzip-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy
  libonnx-dev libprotobuf-dev libonnx-testdata
)
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
