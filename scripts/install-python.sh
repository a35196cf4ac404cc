#!/usr/bin/env bash
# Installs the Python package `tosakit` the one way docs/API.md ("Python") describes, `pip install
# --no-build-isolation ./python`, for a Python: Debian's /usr/bin/python3 by default (-> /usr/local/lib/
# python3.11/dist-packages; Debian marks that Python externally managed, so pip is told to install anyway),
# or the Python given as PYTHON=... (e.g. a virtual environment's python made from /usr/bin/python3: the
# module is built for that interpreter's ABI). Reuses the module of this build (BUILD_DIR as in
# scripts/build.sh: run after it) instead of building it again. No network.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
if ! ls "$BUILD_DIR"/python/tosakit/_tosakit*.so >/dev/null 2>&1; then
  echo "install-python: $BUILD_DIR has no Python module (build with ./scripts/build.sh; needs pybind11-dev)" >&2
  exit 1
fi
FLAGS=(--no-build-isolation --no-index --no-deps --no-cache-dir --disable-pip-version-check --root-user-action=ignore)
# PEP 668: a system Python (not a virtual environment) whose standard library carries EXTERNALLY-MANAGED.
if "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(0 if sys.prefix == sys.base_prefix and os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
  FLAGS+=(--break-system-packages)
fi
SUDO=""
SITE="$("$PYTHON" -c 'import site; print(site.getsitepackages()[0])')"
if [ ! -w "$(dirname "$SITE")" ] && [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO env TOSAKIT_BUILD_DIR="$BUILD_DIR" "$PYTHON" -m pip install "${FLAGS[@]}" "$ROOT/python"
# Check from / (so the source tree cannot shadow it) with a clean environment.
if ! where="$(cd / && env -u PYTHONPATH "$PYTHON" -c 'import tosakit; print(tosakit.__file__.rsplit("/", 1)[0], tosakit.__version__)')"; then
  echo "install-python: the installed package does not import" >&2
  exit 1
fi
echo "install-python: installed $where"
