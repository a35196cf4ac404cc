#!/usr/bin/python3
"""export_compare.py GOT.npz WANT.npz [--max-rel R] [--min-cos C] [--label TEXT]

Compares the float outputs of two runs of an exported QDQ model (tests/qdq/export_qdq_vs_ort.sh): the model's
last layer is not requantized (its int32 accumulator is dequantized, as `tosakit quantize` does), so the outputs
are floats; equal integer layers leave only float32 rounding of the last scaling (relative ~1e-7), a layer that
differs by one step somewhere shows as a larger difference. Prints per output the largest |got - want| relative
to max |want|, the cosine similarity and whether the argmax agrees; exits 1 above --max-rel or below --min-cos.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("want")
    ap.add_argument("--max-rel", type=float, default=1e-5)
    ap.add_argument("--min-cos", type=float, default=0.0)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    got, want = np.load(a.got), np.load(a.want)
    ok = True
    for name in want.files:
        if name not in got.files:
            print(f"{name}: missing in {a.got}", file=sys.stderr)
            return 1
        x, y = got[name].astype(np.float64).ravel(), want[name].astype(np.float64).ravel()
        if x.shape != y.shape:
            print(f"{name}: shape {got[name].shape} vs {want[name].shape}", file=sys.stderr)
            return 1
        rel = float(np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-30))
        cos = float(np.dot(x, y) / max(np.linalg.norm(x) * np.linalg.norm(y), 1e-30))
        same = bool(np.argmax(x) == np.argmax(y))
        print(f"{a.label}{name}: max |diff| / max |ref| = {rel:.3g}, cosine {cos:.7f}, argmax equal: {same}")
        ok = ok and rel <= a.max_rel and cos >= a.min_cos and same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
