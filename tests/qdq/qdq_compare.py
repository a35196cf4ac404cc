#!/usr/bin/python3
"""qdq_compare.py MODEL.onnx TOSAKIT.npz ORT.npz [--max-lsb N]

Compares tosakit's outputs of a QDQ model with ONNX Runtime's, in output quantization steps (LSB): each graph
output of a QDQ model is a DequantizeLinear, so both results are (q - zp) * scale and differ by whole steps.
Integer tosakit outputs (`import --qdq-integer-io`) are dequantized with the DequantizeLinear's parameters first.
Prints the count of differing elements and the largest difference; exits 1 above --max-lsb (default 1).
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def output_scales(model):
    consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = numpy_helper.to_array(a.t)
    scales = {}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[1] in consts:
            zp = int(np.asarray(consts.get(n.input[2], 0)).reshape(-1)[0]) if len(n.input) > 2 else 0
            scales[n.output[0]] = (float(np.asarray(consts[n.input[1]]).reshape(-1)[0]), zp)
    return scales


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("tosakit")
    ap.add_argument("ort")
    ap.add_argument("--max-lsb", type=int, default=1)
    a = ap.parse_args()
    scales = output_scales(onnx.load(a.model))
    got, want = np.load(a.tosakit), np.load(a.ort)
    worst = 0
    for name in want.files:
        if name not in scales:
            print(f"{name}: not a DequantizeLinear output", file=sys.stderr)
            return 1
        scale, zp = scales[name]
        x, y = got[name].astype(np.float64), want[name].astype(np.float64)
        if np.issubdtype(got[name].dtype, np.integer):
            x = (x - zp) * np.float64(np.float32(scale))
        if x.shape != y.shape:
            print(f"{name}: shape {x.shape} vs ONNX Runtime {y.shape}", file=sys.stderr)
            return 1
        lsb = np.rint(np.abs(x - y) / scale).astype(np.int64)
        differing = int(np.count_nonzero(lsb))
        worst = max(worst, int(lsb.max(initial=0)))
        print(f"{name}: {differing} of {lsb.size} elements differ from ONNX Runtime, max {int(lsb.max(initial=0))} LSB"
              f" (scale {scale:.6g}); argmax equal: {bool(np.argmax(x) == np.argmax(y))}")
    return 0 if worst <= a.max_lsb else 1


if __name__ == "__main__":
    sys.exit(main())
