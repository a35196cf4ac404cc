#!/usr/bin/env python3
"""Float vs INT8 outputs of a MediaPipe model on held-out photographs (tests/scripts/mediapipe_quantize.sh).

    mediapipe_quantize_eval.py KIND FLOAT_DIR INT8_DIR [--min-cos 0.99] [--min-cos-for NAME=C ...] [--max-px P]
                               [--label L]

FLOAT_DIR and INT8_DIR hold one `tosakit run` output .npz per photograph (same file names). Per output: the
cosine similarity per photograph (min / mean); scalar outputs (a presence flag, handedness: already
probabilities) as their largest difference; face detection's classificators (logits) also as the largest
difference of sigmoid(logit), the score a detector thresholds. Pixel errors, in pixels of the model's input (MediaPipe's regressors and
landmarks are in input pixels):
  face  on photographs where float finds a face (best anchor's sigmoid score > 0.5): the largest difference of
        that anchor's 16 regressor values (box centre offset, width, height, six keypoints);
  hand  the largest distance between float's and INT8's (x, y) of the 21 landmarks (output Identity);
  pose  the same over the 33 body landmarks of Identity (39 x (x, y, z, visibility, presence)).
Exit 1 when a goal output is below --min-cos on some photograph, or a pixel error exceeds --max-px (when
given); --min-cos-for sets another bound for one output. Prints one line per output and one summary line.
"""
import argparse
import os
import sys

import numpy as np

GOAL = {"face": None, "hand": ["Identity", "Identity_3"], "pose": ["Identity", "Identity_4"]}


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def sigmoid(x):
    return 1 / (1 + np.exp(-np.clip(x, -80, 80)))


def pixel_error(kind, f, q):
    if kind == "face":
        reg = [k for k in f if f[k].shape[-1] == 16][0]
        cls = [k for k in f if f[k].shape[-1] == 1][0]
        i = int(np.argmax(f[cls].ravel()))
        if sigmoid(f[cls].ravel()[i]) <= 0.5:
            return None
        return float(np.abs(f[reg].reshape(-1, 16)[i] - q[reg].reshape(-1, 16)[i]).max())
    n, stride = (21, 3) if kind == "hand" else (33, 5)
    lf = f["Identity"].reshape(-1, stride)[:n, :2]
    lq = q["Identity"].reshape(-1, stride)[:n, :2]
    return float(np.hypot(*(lf - lq).T).max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["face", "hand", "pose"])
    ap.add_argument("float_dir")
    ap.add_argument("int8_dir")
    ap.add_argument("--min-cos", type=float, default=0.99)
    ap.add_argument("--min-cos-for", action="append", default=[], metavar="NAME=C")
    ap.add_argument("--max-px", type=float, default=None)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.float_dir) if f.endswith(".npz"))
    if not files:
        print(f"no outputs in {a.float_dir}", file=sys.stderr)
        return 4
    cos, scalar, px = {}, {}, []
    for name in files:
        f = dict(np.load(os.path.join(a.float_dir, name)))
        q = dict(np.load(os.path.join(a.int8_dir, name)))
        for k in f:
            if f[k].size == 1:
                scalar.setdefault(k, []).append(abs(float(f[k].ravel()[0] - q[k].ravel()[0])))
            else:
                cos.setdefault(k, []).append(cosine(f[k], q[k]))
            if a.kind == "face" and f[k].shape[-1] == 1:
                scalar.setdefault(k + " score", []).append(float(np.abs(sigmoid(f[k]) - sigmoid(q[k])).max()))
        e = pixel_error(a.kind, f, q)
        if e is not None:
            px.append(e)
    goal = GOAL[a.kind] or list(cos)
    bound = {k: a.min_cos for k in goal}
    for item in a.min_cos_for:
        name, value = item.split("=")
        bound[name] = float(value)
    ok = True
    for k, v in cos.items():
        mark = ""
        if k in bound:
            mark = f" (bound {bound[k]})" if min(v) >= bound[k] else f" (bound {bound[k]}: BELOW)"
            ok = ok and min(v) >= bound[k]
        worst = files[int(np.argmin(v))]
        print(f"{a.label} {k}: cosine min {min(v):.5f} mean {np.mean(v):.5f} (worst {worst}){mark}")
    for k, v in scalar.items():
        print(f"{a.label} {k}: |difference| max {max(v):.4f}")
    if px:
        print(f"{a.label} pixel error: max {max(px):.2f} mean {np.mean(px):.2f} px on {len(px)} photographs")
        if a.max_px is not None and max(px) > a.max_px:
            ok = False
    goal_min = min(min(cos[k]) for k in goal)
    print(f"{a.label} summary: goal outputs' cosine min {goal_min:.5f}, pixel error max "
          f"{max(px) if px else float('nan'):.2f}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
