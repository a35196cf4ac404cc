#!/usr/bin/env bash
# Installs the Debian 12 packages tosakit needs (as root or with sudo).
#   scripts/install-deps.sh          everything to build, test and benchmark (scripts/test.sh), then ONNX Runtime
#                                    for the model tests: `npm ci --ignore-scripts` in tools/ort (as the invoking
#                                    user; the npm package ships its native library, the skipped install script
#                                    only fetches optional GPU providers).
#   scripts/install-deps.sh --demo   only what the `tosakit` CLI target and scripts/demo.sh need, without
#                                    recommended packages and without npm (the demo compares with ONNX Runtime
#                                    outputs checked in beside the model, models/ppocr_cls/).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE=all
case "${1:-}" in
  --demo) MODE=demo ;;
  "") ;;
  *) echo "usage: install-deps.sh [--demo]" >&2; exit 2 ;;
esac
# The `tosakit` target (the library and the CLI) and the demo's numpy checks. mlir-22-tools: MLIR's CMake
# package refers to its tools (mlir-tblgen, mlir-opt); oneDNN: the fast backend; OpenCV: image inputs.
DEMO_PACKAGES=(
  g++ cmake ninja-build pkg-config
  mlir-22-tools libmlir-22-dev llvm-22-dev zlib1g-dev libzstd-dev
  libzip-dev nlohmann-json3-dev libcli11-dev
  libonnx-dev libprotobuf-dev
  # Debian's oneDNN CMake package looks for OpenCL (find_package(OpenCL) in dnnl-config.cmake) but only recommends
  # it: without recommends (--demo) configuring fails on a fresh machine.
  libdnnl-dev ocl-icd-opencl-dev
  libopencv-imgcodecs-dev libopencv-imgproc-dev
  # FlatBuffers: flatc generates the TFLite reader (src/frontends/tflite) from its schema at build time.
  libflatbuffers-dev flatbuffers-compiler
  # Graphviz's layout library (cgraph/gvc) and its dot plugins: tosakit graph/visual (src/inspect).
  graphviz libgraphviz-dev
  python3 python3-numpy
)
TEST_PACKAGES=(
  git clang-format ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-testdata
  # Model tests: torchvision exports (tests/scripts/torchvision_models.sh), ONNX Runtime via node.
  python3-torch python3-torchvision
  # Image tests: python3-pil writes the images of their tests, scipy's erfc serves the numpy oracle of the
  # ACIQ thresholds.
  python3-pil python3-scipy
  # Quantization: the digits end-to-end test (tests/scripts/digits_quantize.sh), compare --html in a browser;
  # the PaddleOCR accuracy tests render text lines with the DejaVu fonts (tests/scripts/ppocr_quantize.sh).
  python3-sklearn chromium fonts-dejavu-core
  # Real photos for the torchvision accuracy test (tests/scripts/torchvision_quantize.sh).
  python3-skimage
  # The Python package (python/, pybind11), its pytest suite and `pip install ./python` into a virtual environment
  # without a download (ctest python_pip_install; python/tosakit_build.py needs no setuptools or wheel).
  pybind11-dev python3-dev python3-pytest python3-venv python3-pip
  # The fuzz smoke (ctest label fuzz, scripts/fuzz_smoke.sh): libFuzzer harnesses built with clang, ASan + UBSan.
  clang-14 libclang-rt-14-dev
  # The TFLite INT8 test generator writes .tflite files with the FlatBuffers Python bindings.
  python3-flatbuffers
  # QDQ tests (tests/qdq) write and check ONNX models with the ONNX Python package; without it they skip, which
  # scripts/check-skips.py does not allow.
  python3-onnx
)
PACKAGES=("${DEMO_PACKAGES[@]}")
APT_FLAGS=(-y -q --no-install-recommends)
if [ "$MODE" = all ]; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
  APT_FLAGS=(-y -q)
  # Debian's npm brings Debian's nodejs; a node from elsewhere (e.g. NodeSource, which bundles npm and
  # conflicts with Debian's npm package) is used as it is.
  if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi
fi
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
  $SUDO apt-get install "${APT_FLAGS[@]}" "${missing[@]}"
else
  echo "install-deps: all packages present ($MODE)"
fi
if [ "$MODE" = demo ]; then exit 0; fi

# onnxruntime-node, pinned by tools/ort/package-lock.json (re-installed when the lock file changes).
ORT="$ROOT/tools/ort"
if [ ! -f "$ORT/node_modules/.package-lock.json" ] || [ "$ORT/package-lock.json" -nt "$ORT/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci --ignore-scripts in tools/ort"
  (cd "$ORT" && npm ci --ignore-scripts --no-audit --no-fund)
fi
(cd "$ORT" && node -e "require('onnxruntime-node')") || { echo "install-deps: onnxruntime-node does not load"; exit 1; }
echo "install-deps: onnxruntime-node $(cd "$ORT" && node -p "require('onnxruntime-node/package.json').version")"

# TensorFlow Lite 2.9 (libtensorflowlite_c.so inside tfjs-tflite-node) and MediaPipe's .tflite models, pinned by
# tools/tflite/package-lock.json: the TFLite tests' oracle. --legacy-peer-deps: tfjs-tflite-node's peers (tfjs)
# are not needed, only its native library; --ignore-scripts skips its node-gyp build.
TFL="$ROOT/tools/tflite"
if [ ! -f "$TFL/node_modules/.package-lock.json" ] || [ "$TFL/package-lock.json" -nt "$TFL/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci --ignore-scripts --legacy-peer-deps in tools/tflite"
  (cd "$TFL" && npm ci --ignore-scripts --legacy-peer-deps --no-audit --no-fund)
fi
/usr/bin/python3 "$TFL/run_tflite.py" --info "$TFL/node_modules/@mediapipe/face_detection/face_detection_short_range.tflite" \
  >/dev/null || { echo "install-deps: TensorFlow Lite does not load"; exit 1; }
echo "install-deps: TensorFlow Lite 2.9 (tfjs-tflite-node 0.0.2)"
