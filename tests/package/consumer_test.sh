#!/usr/bin/env bash
# ctest cmake_package_consumer: `cmake --install` this build into a temporary prefix, build the out-of-tree
# project tests/package/consumer against it with find_package(tosakit), run it on PaddleOCR's classifier
# (models/ppocr_cls) and check the .npz it writes against ONNX Runtime's output checked in beside the model.
# Usage: consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1"
SRC="$2"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log" || { cat "$WORK/install.log"; exit 1; }
for f in lib/cmake/tosakit/tosakitConfig.cmake lib/cmake/tosakit/tosakitConfigVersion.cmake bin/tosakit \
         include/tosakit/import.h include/tosakit/npz.h include/tosakit/session.h include/tosakit/core/status.h; do
  [ -e "$WORK/prefix/$f" ] || { echo "cmake_package_consumer: $f not installed"; exit 1; }
done
"$WORK/prefix/bin/tosakit" version >/dev/null
cmake -S "$SRC/tests/package/consumer" -B "$WORK/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" >"$WORK/configure.log" || { cat "$WORK/configure.log"; exit 1; }
cmake --build "$WORK/consumer"
MODEL="$SRC/models/ppocr_cls"
(cd "$WORK" && ./consumer/consumer "$MODEL/model.onnx" x=1x3x48x192 "$MODEL/input.npz" "$WORK/out.npz")
/usr/bin/python3 - "$WORK/out.npz" "$MODEL/ort_output.npz" <<'PY'
import sys
import numpy as np
out, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
assert list(out.keys()) == ["softmax_0.tmp_0"], f"outputs {list(out.keys())}"
got, want = out["softmax_0.tmp_0"], ref["softmax_0.tmp_0"]
assert got.shape == (1, 2) and got.dtype == np.float32, f"{got.shape} {got.dtype}"
assert np.allclose(got, want, rtol=0, atol=1e-4), f"{got} vs ONNX Runtime {want}"
print(f"cmake_package_consumer: softmax_0.tmp_0 {got.shape} {got.ravel()} (ONNX Runtime {want.ravel()})")
PY
