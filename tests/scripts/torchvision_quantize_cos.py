#!/usr/bin/python3
"""torchvision_quantize_cos.py REF_DIR TEST_DIR [--key output] [--min 0.98] [--label NAME]
Output cosine similarity of the quantized model (TEST_DIR/*.npz, one `tosakit run` output per sample) against
the float model (REF_DIR/*.npz, same file names), computed here in numpy in float64:
cos = a.b / (|a| |b|) per sample. Prints one line `LABEL: cosine min M mean A over N samples` plus the
"image-dependent" cosine (both outputs minus the float outputs' mean over the samples; a network with random
weights answers much the same to every image, which the plain cosine rewards), and exits 1 when the minimum
is below --min."""
import argparse
import glob
import os
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ref_dir")
    p.add_argument("test_dir")
    p.add_argument("--key", default="output")
    p.add_argument("--min", type=float, default=None)
    p.add_argument("--label", default="int8")
    args = p.parse_args()
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(args.ref_dir, "*.npz")))
    if not names:
        sys.exit(f"{args.ref_dir}: no .npz outputs")
    ref = np.stack([np.load(os.path.join(args.ref_dir, n))[args.key].ravel() for n in names]).astype(np.float64)
    test = np.stack([np.load(os.path.join(args.test_dir, n))[args.key].ravel() for n in names]).astype(np.float64)

    def cosines(a, b):
        return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))

    cos = cosines(ref, test)
    mean_ref = ref.mean(axis=0)
    centred = cosines(ref - mean_ref, test - mean_ref)
    print(f"{args.label}: cosine min {cos.min():.5f} mean {cos.mean():.5f} over {len(names)} samples "
          f"(image-dependent part: min {centred.min():.4f} mean {centred.mean():.4f})")
    if args.min is not None and cos.min() < args.min:
        worst = names[int(np.argmin(cos))]
        print(f"{args.label}: cosine {cos.min():.5f} on {worst} is below {args.min}")
        sys.exit(1)


if __name__ == "__main__":
    main()
