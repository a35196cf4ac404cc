#!/usr/bin/python3
"""Compare tosakit's outputs (.npz) with an expected .npz: integers bit-exact, floats within a relative
tolerance of 1e-5 (the fp32 bound for these small dot products). Prints one line per output."""
import sys

import numpy as np


def main(actual_path, expected_path):
    actual = np.load(actual_path)
    expected = np.load(expected_path)
    ok = True
    for name in expected.files:
        if name not in actual.files:
            print(f"{name}: MISSING in {actual_path}")
            ok = False
            continue
        a, e = actual[name], expected[name]
        if a.shape != e.shape or a.dtype != e.dtype:
            print(f"{name}: shape/dtype {a.shape} {a.dtype} vs expected {e.shape} {e.dtype}")
            ok = False
        elif np.issubdtype(e.dtype, np.floating):
            err = np.max(np.abs(a.astype(np.float64) - e.astype(np.float64)) / (np.abs(e) + 1e-6)) if e.size else 0.0
            good = err <= 1e-5
            print(f"{name}: {'match' if good else 'MISMATCH'} (max relative error {err:.3g})")
            ok &= bool(good)
        else:
            diff = int(np.count_nonzero(a != e))
            print(f"{name}: {'bit-exact match' if diff == 0 else f'MISMATCH in {diff} elements'}")
            ok &= diff == 0
    print("default model: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
