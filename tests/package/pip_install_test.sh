#!/usr/bin/env bash
# ctest python_pip_install: `pip install --no-build-isolation ./python` into fresh virtual environments made
# from Debian's Python, offline (--no-index), reusing this build's module (TOSAKIT_BUILD_DIR). A plain venv
# imports tosakit from any directory (numpy is not needed to import); one with --system-site-packages (Debian's
# numpy) imports PaddleOCR's classifier, runs it and matches ONNX Runtime's output checked in beside the model.
# Usage: pip_install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD="$1"
SRC="$2"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PIP_FLAGS=(--no-build-isolation --no-index --no-deps --no-cache-dir --disable-pip-version-check --root-user-action=ignore -q)
install_into() {
  /usr/bin/python3 -m venv "$@"
  local venv="${*: -1}"
  TOSAKIT_BUILD_DIR="$BUILD" "$venv/bin/pip" install "${PIP_FLAGS[@]}" "$SRC/python"
}

install_into "$WORK/plain"
where="$(cd / && env -u PYTHONPATH "$WORK/plain/bin/python" -c 'import tosakit; print(tosakit.__file__, tosakit.version())')"
case "$where" in
  "$WORK/plain/"*) echo "python_pip_install: plain venv: $where" ;;
  *) echo "python_pip_install: the plain venv imported tosakit from elsewhere: $where"; exit 1 ;;
esac

install_into --system-site-packages "$WORK/numpy"
cd / && env -u PYTHONPATH "$WORK/numpy/bin/python" - "$WORK/numpy" "$SRC/models/ppocr_cls" <<'PY'
import sys
import numpy as np
import tosakit
venv, model = sys.argv[1], sys.argv[2]
assert tosakit.__file__.startswith(venv + "/"), f"tosakit imported from {tosakit.__file__}, not the venv"
module = tosakit.import_onnx(model + "/model.onnx", input_shapes={"x": [1, 3, 48, 192]})
outputs = tosakit.Session(module).run({"x": np.load(model + "/input.npz")["x"]})
want = np.load(model + "/ort_output.npz")["softmax_0.tmp_0"]
got = outputs["softmax_0.tmp_0"]
assert got.shape == (1, 2) and np.allclose(got, want, rtol=0, atol=1e-4), f"{got} vs ONNX Runtime {want}"
print(f"python_pip_install: venv with Debian's numpy: softmax_0.tmp_0 {got.ravel()} (ONNX Runtime {want.ravel()})")
PY
