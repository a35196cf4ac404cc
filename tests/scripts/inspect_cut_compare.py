#!/usr/bin/python3
"""inspect_cut_compare.py ORIG_OUT.npz ORIG_LAYERS.npz SUB_OUT.npz SUB_LAYERS.npz [--exact | --rtol R]
Every tensor the cut model produced (its outputs and its intermediates, named as in the original) equals the
original model's tensor of the same name: bit for bit with --exact, else within rtol (numpy.allclose)."""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("orig_out")
    p.add_argument("orig_layers")
    p.add_argument("sub_out")
    p.add_argument("sub_layers")
    p.add_argument("--exact", action="store_true")
    p.add_argument("--rtol", type=float, default=1e-5)
    a = p.parse_args()
    orig = dict(np.load(a.orig_layers))
    orig.update(np.load(a.orig_out))
    sub = dict(np.load(a.sub_layers))
    sub.update(np.load(a.sub_out))
    compared, bad = 0, []
    for name, got in sub.items():
        if name not in orig:
            bad.append(f"{name}: not in the original")
            continue
        want = orig[name]
        same = np.array_equal(got, want) if a.exact else np.allclose(got, want, rtol=a.rtol, atol=a.rtol)
        if got.dtype != want.dtype or got.shape != want.shape or not same:
            bad.append(f"{name}: {got.dtype}{got.shape} differs from {want.dtype}{want.shape}")
        compared += 1
    print(f"{compared} tensors of the cut model compared ({'bit for bit' if a.exact else f'rtol {a.rtol}'})")
    for b in bad:
        print("FAIL:", b)
    sys.exit(1 if bad or compared < 2 else 0)


if __name__ == "__main__":
    main()
