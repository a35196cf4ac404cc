#!/usr/bin/env bash
# inspect_cut_ppocr.sh: `tosakit cut` of the bundled PaddleOCR classifier, INT8-quantized (min/max calibration
# on its input.npz) and float: the subgraph from a middle layer (and from two layers) to the output, run on the
# original's intermediates dump, reproduces every downstream tensor bit for bit (INT8, .mlir and .spv) and
# within float tolerance (float, on the reference backend too).
set -euo pipefail
PY=/usr/bin/python3
W="$OUT/cut_ppocr"
rm -rf "$W" && mkdir -p "$W/dataset"
M="$ROOT/models/ppocr_cls"
cp "$M/input.npz" "$W/dataset/sample0.npz"
"$TK" import "$M/model.onnx" --input-shape x=1x3x48x192 -o "$W/float.mlir"
"$TK" calibrate "$W/float.mlir" --dataset "$W/dataset" --method minmax --tune-num 0 -o "$W/cali.txt"
"$TK" quantize "$W/float.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/int8.mlir"
compare="$PY $ROOT/tests/scripts/inspect_cut_compare.py"
for model in int8 float; do
  "$TK" run "$W/$model.mlir" --inputs "$M/input.npz" -o "$W/$model.out.npz" --dump-intermediates "$W/$model.layers.npz"
  # Layer names in execution order; the first layer from a third on (and from two thirds on) through which
  # every path to the output runs: cut fails on the others (a branch leaves the output depending on x).
  # (int8 tensors only in the INT8 model: their recorded scale must move to the argument).
  mapfile -t names < <($PY -c "import numpy as np, sys; d = np.load(sys.argv[1]); print('\n'.join(k for k in d.keys() if sys.argv[2] == 'float' or d[k].dtype == np.int8))" "$W/$model.layers.npz" $model)
  n=${#names[@]}
  out=$($PY -c "import numpy as np, sys; print(','.join(np.load(sys.argv[1]).keys()))" "$W/$model.out.npz")
  first_cut() {  # start index -> the first layer at or after it the output can be cut from
    for ((i = $1; i < n; i++)); do
      if "$TK" cut "$W/$model.mlir" --inputs "${names[$i]}" --outputs "$out" -o "$W/probe.mlir" 2>/dev/null; then
        echo "${names[$i]}"; return 0
      fi
    done
    return 1
  }
  a=$(first_cut $((n / 3)))
  b=$(first_cut $((2 * n / 3)))
  echo "$model: $n layers; cut at '$a', and at '$a' + '$b' -> $out"
  "$TK" cut "$W/$model.mlir" --inputs "$a" --outputs "$out" -o "$W/$model.sub1.mlir"
  # Two pieces: a -> b and b -> out in one function (b is both an output and an argument).
  "$TK" cut "$W/$model.mlir" --inputs "$a,$b" --outputs "$out,$b" -o "$W/$model.sub2.mlir"
  "$TK" cut "$W/$model.mlir" --inputs "$a" --outputs "$out" -o "$W/$model.sub1.spv"
  for sub in sub1.mlir sub2.mlir sub1.spv; do
    for backend in fast ref; do
      "$TK" run "$W/$model.$sub" --backend $backend --inputs "$W/$model.layers.npz" -o "$W/s.out.npz" \
        --dump-intermediates "$W/s.layers.npz" 2>/dev/null
      if [ $model = int8 ]; then
        # The original ran on the fast backend; INT8 results are identical on both backends (docs/FAST.md).
        $compare "$W/$model.out.npz" "$W/$model.layers.npz" "$W/s.out.npz" "$W/s.layers.npz" --exact
      else
        $compare "$W/$model.out.npz" "$W/$model.layers.npz" "$W/s.out.npz" "$W/s.layers.npz" --rtol 1e-4
      fi
    done
  done
done
# Quantization records kept: the cut's argument carries the scale its tensor had in the quantized model.
# The .spv keeps them in its sidecar, which info reads back.
for sub in sub1.mlir sub1.spv; do
  "$TK" info "$W/int8.$sub" --json --no-plan > "$W/int8.$sub.info.json"
  $PY -c "import json, sys; i = json.load(open(sys.argv[1]))['inputs'][0]; assert 'scale' in i, i; print(sys.argv[1], 'argument', i)" "$W/int8.$sub.info.json"
done
echo "cut ppocr_cls: PASS"
