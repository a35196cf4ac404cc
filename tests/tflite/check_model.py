#!/usr/bin/python3
"""Imports a .tflite model with `tosakit import`, runs it with `tosakit run` on the fast and the reference
backends on a real photograph, and compares every output with TensorFlow Lite's own on the same input
(tools/tflite/run_tflite.py): cosine similarity >= --min-cosine per output.

  check_model.py --tosakit TK --model M.tflite --out DIR [--range -1,1] [--image astronaut] [--backends fast,ref]

The photograph is one of scikit-image's sample images, resized to the model's input and scaled to --range.
Exit 77 (ctest skip) when TFLite or scikit-image is not installed; 1 when an output is below the bound.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "tflite"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def photo(name, shape, lo, hi):
    """A scikit-image sample photograph as [1, H, W, C] float32 in [lo, hi]."""
    import skimage.data
    import skimage.transform
    img = getattr(skimage.data, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    img = skimage.transform.resize(img[..., :shape[3]], shape[1:3], anti_aliasing=True)  # floats in [0, 1]
    return (lo + (hi - lo) * img).astype(np.float32)[None]


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    return float(a @ b / (na * nb))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--range", default="-1,1")
    ap.add_argument("--image", default="astronaut")
    ap.add_argument("--backends", default="fast,ref")
    ap.add_argument("--min-cosine", type=float, default=0.99999)
    ap.add_argument("--decompose-custom", action="store_true",
                    help="run TFLite on the model with MediaPipe's Convolution2DTransposeBias replaced by the builtin "
                         "TRANSPOSE_CONV (tests/tflite/selfie_decomposed.py): TFLite 2.9 lacks the custom operator")
    a = ap.parse_args()
    try:
        import run_tflite
        import skimage.data  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e}")
        sys.exit(77)
    if not os.path.exists(run_tflite.LIB) or not os.path.exists(a.model):
        print(f"SKIP: TFLite or the model is not installed (scripts/install-deps.sh): {a.model}")
        sys.exit(77)
    os.makedirs(a.out, exist_ok=True)
    stem = os.path.join(a.out, os.path.splitext(os.path.basename(a.model))[0])
    mlir = stem + ".mlir"
    subprocess.run([a.tosakit, "import", a.model, "-o", mlir], check=True)

    oracle_model = a.model
    if a.decompose_custom:
        import selfie_decomposed
        oracle_model = stem + ".decomposed.tflite"
        with open(a.model, "rb") as f, open(oracle_model, "wb") as g:
            g.write(selfie_decomposed.decompose(f.read()))
    info = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tflite", "run_tflite.py"), "--info", oracle_model],
                          check=True, capture_output=True, text=True).stdout.split("\n")
    lo, hi = (float(v) for v in a.range.split(","))
    inputs = {}
    for line in info:
        if line.startswith("input "):
            _, name, _, rest = line.split(" ", 3)
            shape = [int(d) for d in rest[rest.index("[") + 1:rest.index("]")].split(",")]
            inputs[name] = photo(a.image, shape, lo, hi)
    np.savez(stem + ".in.npz", **inputs)
    expected = run_tflite.run(oracle_model, inputs)

    ok = True
    for backend in a.backends.split(","):
        out = f"{stem}.{backend}.npz"
        subprocess.run([a.tosakit, "run", mlir, "--inputs", stem + ".in.npz", "-o", out, "--backend", backend],
                       check=True)
        got = dict(np.load(out))
        for name, ref in expected.items():
            if name not in got:
                print(f"{backend}: output '{name}' missing")
                ok = False
                continue
            c = cosine(got[name], ref)
            err = float(np.max(np.abs(got[name].astype(np.float64) - ref)))
            good = got[name].shape == ref.shape and c >= a.min_cosine
            ok &= good
            print(f"{backend}: {name} {list(ref.shape)} cosine {c:.9f} max|diff| {err:.3g}{'' if good else '  BELOW'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
