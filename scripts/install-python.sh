#!/usr/bin/env bash
# Installs the built Python package `tosakit` into a Python's site-packages so `python3 -c "import tosakit"`
# works without setting paths: Debian's /usr/bin/python3 by default (-> /usr/local/lib/python3.11/dist-packages),
# or the Python given as PYTHON=... (e.g. a virtual environment's python made from /usr/bin/python3: the module
# is built for that interpreter's ABI). Run after ./scripts/build.sh (BUILD_DIR as there). No network.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-/usr/bin/python3}"
if ! ls "$BUILD_DIR"/python/tosakit/_tosakit*.so >/dev/null 2>&1; then
  echo "install-python: $BUILD_DIR has no Python module (build with ./scripts/build.sh; needs pybind11-dev)" >&2
  exit 1
fi
# The first site-packages directory of that Python (Debian: /usr/local/lib/python3.X/dist-packages, a venv:
# its own), created if it does not exist yet.
SITE="$("$PYTHON" -c 'import site; print(site.getsitepackages()[0])')"
SUDO=""
if [ ! -w "$(dirname "$SITE")" ] && [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO mkdir -p "$SITE"
$SUDO cmake --install "$BUILD_DIR" --component python --prefix "$SITE"
# Check from / (so the source tree cannot shadow it) with a clean environment.
if ! where="$(cd / && env -u PYTHONPATH "$PYTHON" -c 'import tosakit; print(tosakit.__file__.rsplit("/", 1)[0], tosakit.__version__)')"; then
  echo "install-python: the installed package does not import" >&2
  exit 1
fi
echo "install-python: installed $where"
