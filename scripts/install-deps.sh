#!/usr/bin/env bash
# Installs every Debian 12 package tosakit needs to build, test and benchmark (as root or with sudo), then
# ONNX Runtime for the model tests: `npm ci --ignore-scripts` in tools/ort (as the invoking user; the npm
# package ships its native library, the skipped install script only fetches optional GPU providers).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PACKAGES=(
  g++ cmake ninja-build pkg-config git clang-format
  mlir-22-tools libmlir-22-dev llvm-22-dev zlib1g-dev libzstd-dev
  libzip-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy
  libonnx-dev libprotobuf-dev libonnx-testdata
  # Model tests: torchvision exports (tests/scripts/torchvision_models.sh), ONNX Runtime via node.
  python3-torch python3-torchvision
  # The fast backend (src/fast): oneDNN convolutions/matmuls/pools; ccache keeps rebuilds of the tree quick.
  libdnnl-dev ccache
  # Image inputs (calibrate, run --input NAME=photo.jpg); python3-pil writes the images of their tests, scipy's
  # erfc serves the numpy oracle of the ACIQ thresholds.
  libopencv-imgcodecs-dev libopencv-imgproc-dev python3-pil python3-scipy
  # Quantization: the digits end-to-end test (tests/scripts/digits_quantize.sh), compare --html in a browser;
  # the PaddleOCR accuracy tests render text lines with the DejaVu fonts (tests/scripts/ppocr_quantize.sh).
  python3-sklearn chromium fonts-dejavu-core
  # Real photos for the torchvision accuracy test (tests/scripts/torchvision_quantize.sh).
  python3-skimage
  # Arm's TOSA flatbuffer (.tosa, src/formats/tosafb): flatc generates the C++ of tosa.fbs at build time.
  libflatbuffers-dev flatbuffers-compiler
  # The Python package (python/, pybind11) and its pytest suite.
  pybind11-dev python3-dev python3-pytest
  # The fuzz smoke (ctest label fuzz, scripts/fuzz_smoke.sh): libFuzzer harnesses built with clang, ASan + UBSan.
  clang-14 libclang-rt-14-dev
)
# Debian's npm brings Debian's nodejs; a node from elsewhere (e.g. NodeSource, which bundles npm and conflicts
# with Debian's npm package) is used as it is.
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi
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

# onnxruntime-node, pinned by tools/ort/package-lock.json (re-installed when the lock file changes).
ORT="$ROOT/tools/ort"
if [ ! -f "$ORT/node_modules/.package-lock.json" ] || [ "$ORT/package-lock.json" -nt "$ORT/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci --ignore-scripts in tools/ort"
  (cd "$ORT" && npm ci --ignore-scripts --no-audit --no-fund)
fi
(cd "$ORT" && node -e "require('onnxruntime-node')") || { echo "install-deps: onnxruntime-node does not load"; exit 1; }
echo "install-deps: onnxruntime-node $(cd "$ORT" && node -p "require('onnxruntime-node/package.json').version")"
