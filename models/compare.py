#!/usr/bin/python3
"""compare.py ACTUAL.npz EXPECTED.npz [--cosine 0.99999] [--euclidean 0.999]
Per output: cosine similarity and euclidean similarity as TPU-MLIR's npz comparison defines them
(cosine = a.b / (|a| |b|); euclidean = 1 - |a - b| / |(a + b) / 2|), and the max absolute difference.
Exit 0 when every expected output is present and at or above both thresholds."""
import argparse
import sys

import numpy as np


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    return float(np.dot(a, b) / (na * nb))


def euclidean(a, b):
    return float(1.0 - np.linalg.norm(a - b) / (np.linalg.norm((a + b) / 2) + 1e-7))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("actual")
    p.add_argument("expected")
    p.add_argument("--cosine", type=float, default=0.99999)
    p.add_argument("--euclidean", type=float, default=0.999)
    args = p.parse_args()
    actual, expected = np.load(args.actual), np.load(args.expected)
    ok = True
    for name in expected.files:
        if name not in actual.files:
            print(f"{name}: MISSING from {args.actual} (has: {', '.join(actual.files)})")
            ok = False
            continue
        a = actual[name].astype(np.float64).ravel()
        e = expected[name].astype(np.float64).ravel()
        if a.shape != e.shape:
            print(f"{name}: {actual[name].shape} vs expected {expected[name].shape}")
            ok = False
            continue
        c, d = cosine(a, e), euclidean(a, e)
        good = c >= args.cosine and d >= args.euclidean
        ok &= good
        print(f"{name}: cosine {c:.8f}, euclidean {d:.8f}, max |diff| {np.max(np.abs(a - e)):.3g} "
              f"-> {'PASS' if good else 'FAIL'} (thresholds {args.cosine}, {args.euclidean})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
