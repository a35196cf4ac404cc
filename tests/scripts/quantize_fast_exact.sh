#!/bin/bash
# The fast backend is bit-exact on quantized graphs, through the CLI as a user runs them: the bundled PaddleOCR
# classifier is imported, calibrated and quantized to INT8 (symmetric and --asymmetric, fp32 in/out as a user
# serving it gets it); `tosakit run --backend fast` and `--backend ref` must give byte-identical outputs and
# byte-identical intermediates (every op's result, --dump-intermediates) on the bundled input and on random
# inputs (fixed seeds, one scaled far beyond the calibrated range so that quantization saturates).
# Env: TK (tosakit binary), ROOT (source tree), OUT (work directory).
set -euo pipefail
PY=/usr/bin/python3
W="$OUT/quantize_fast_exact"
rm -rf "$W" && mkdir -p "$W/calib" "$W/inputs"
"$TK" import "$ROOT/models/ppocr_cls/model.onnx" -o "$W/cls.mlir" --input-shape x=1x3x48x192
# Calibration samples and test inputs (fixed seeds; the test inputs are not calibration samples).
$PY - "$W" "$ROOT/models/ppocr_cls/input.npz" <<'PY'
import sys
import numpy as np
w, bundled = sys.argv[1], sys.argv[2]
x = np.load(bundled)["x"].astype(np.float32)
np.savez(f"{w}/calib/0.npz", x=x)
rng = np.random.default_rng(11)
for i in (1, 2):
    np.savez(f"{w}/calib/{i}.npz", x=rng.standard_normal(x.shape).astype(np.float32))
np.savez(f"{w}/inputs/bundled.npz", x=x)
np.savez(f"{w}/inputs/random.npz", x=rng.uniform(-1, 1, x.shape).astype(np.float32))
np.savez(f"{w}/inputs/saturating.npz", x=(8 * rng.standard_normal(x.shape)).astype(np.float32))
PY
"$TK" calibrate "$W/cls.mlir" --dataset "$W/calib" --tune-num 0 -o "$W/cali.txt"

fail=0
for mode in sym asym; do
  flags="--quantize INT8"
  [ "$mode" = asym ] && flags="$flags --asymmetric"
  "$TK" quantize "$W/cls.mlir" $flags --calibration-table "$W/cali.txt" -o "$W/cls_$mode.mlir"
  for input in bundled random saturating; do
    for backend in fast ref; do
      "$TK" run "$W/cls_$mode.mlir" --backend "$backend" --inputs "$W/inputs/$input.npz" \
        -o "$W/$mode.$input.$backend.out.npz" --dump-intermediates "$W/$mode.$input.$backend.layers.npz" > /dev/null
    done
    if ! $PY - "$W/$mode.$input" <<'PY'
import sys
import numpy as np
base = sys.argv[1]
bad = 0
for kind in ("out", "layers"):
    f, r = np.load(f"{base}.fast.{kind}.npz"), np.load(f"{base}.ref.{kind}.npz")
    if sorted(f.files) != sorted(r.files):
        print(f"{base} {kind}: different names: {sorted(set(f.files) ^ set(r.files))[:5]}")
        bad += 1
        continue
    for k in r.files:
        a, b = f[k], r[k]
        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
            diff = "" if a.shape != b.shape else f", {int(np.sum(a != b))} of {a.size} elements differ"
            print(f"{base} {kind}: {k} differs ({a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}{diff})")
            bad += 1
    if kind == "layers":
        ints = sum(1 for k in r.files if np.issubdtype(r[k].dtype, np.integer))
        print(f"{base}: {len(r.files)} intermediates ({ints} integer) and outputs bit-identical on fast and ref"
              if not bad else f"{base}: {bad} mismatches")
sys.exit(1 if bad else 0)
PY
    then fail=1; fi
  done
done
exit $fail
