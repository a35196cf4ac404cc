#!/usr/bin/env python3
"""Real photographs for quantizing MediaPipe's models: square crops as PNG files at the model's input size.

    mediapipe_photos.py KIND SIZE OUT_DIR [--calib N] [--heldout N]

writes OUT_DIR/calib/*.png and OUT_DIR/heldout/*.png. The photographs are Debian python3-skimage's
`skimage.data` and sklearn's `load_sample_images`; calibration and held-out crops come from disjoint photographs
(the lfw_subset faces: the first 100 calibrate, the last 100 are held out). KIND says what the model expects in
the middle of its input, as MediaPipe's pipelines crop it:
  face  a face filling about a third to a half of the crop (face detection; astronaut and lfw faces calibrate,
        the cameraman and other lfw faces are held out), plus crops of the other photographs;
  hand  a hand (the cameraman's, held out) or any part of a photograph (hand landmarks);
  pose  a person (astronaut calibrates, the cameraman is held out) or any part of a photograph (pose landmarks).
Crops: fixed seed, random position and size, random horizontal flip, resized with PIL's bilinear filter.
"""
import argparse
import os

import numpy as np
from PIL import Image


def rgb(a):
    a = np.asarray(a)
    if a.ndim == 2:
        a = np.stack([a] * 3, axis=-1)
    if a.dtype != np.uint8:
        a = a.astype(np.float64)
        a = (255 * (a - a.min()) / max(float(a.max() - a.min()), 1e-9)).astype(np.uint8)
    return a[..., :3]


def photos():
    import skimage.data as d
    from sklearn.datasets import load_sample_images
    china, flower = load_sample_images().images
    p = {
        "astronaut": d.astronaut(), "chelsea": d.chelsea(), "coffee": d.coffee(), "rocket": d.rocket(),
        "china": china, "motorcycle": d.stereo_motorcycle()[0], "immunohistochemistry": d.immunohistochemistry(),
        "hubble": d.hubble_deep_field(), "camera": d.camera(), "flower": flower, "coins": d.coins(),
        "retina": d.retina(), "horse": d.horse(), "clock": d.clock(),
    }
    return {k: rgb(v) for k, v in p.items()}


CALIB = ["astronaut", "chelsea", "coffee", "rocket", "china", "motorcycle", "immunohistochemistry", "hubble"]
HELDOUT = ["camera", "flower", "coins", "retina", "horse", "clock"]
# Face / hand / person centres (row, column) and sizes in the full-size photographs, read off the images.
FACES = {"astronaut": (110, 235, 130), "camera": (120, 220, 100)}
HANDS = {"camera": (190, 300, 70)}
PEOPLE = {"astronaut": (256, 256, 512), "camera": (256, 200, 480)}


def crop(img, cy, cx, side, size, flip):
    h, w = img.shape[:2]
    side = int(min(side, h, w))
    y0 = int(np.clip(cy - side // 2, 0, h - side))
    x0 = int(np.clip(cx - side // 2, 0, w - side))
    c = Image.fromarray(img[y0:y0 + side, x0:x0 + side]).resize((size, size), Image.BILINEAR)
    return c.transpose(Image.FLIP_LEFT_RIGHT) if flip else c


def random_crop(rng, img, size):
    h, w = img.shape[:2]
    side = int(rng.uniform(0.4, 1.0) * min(h, w))
    return crop(img, rng.integers(side // 2, h - side // 2 + 1), rng.integers(side // 2, w - side // 2 + 1), side,
                size, rng.random() < 0.5)


def centred_crop(rng, img, cy, cx, extent, zoom, size):
    side = extent * rng.uniform(*zoom)
    j = 0.1 * side
    return crop(img, cy + rng.uniform(-j, j), cx + rng.uniform(-j, j), side, size, rng.random() < 0.5)


def lfw_face(rng, face, size):
    # A 25x25 face pasted at a random place of a neutral gray square covering about 40% of it.
    canvas = np.full((size, size, 3), rng.integers(60, 200), np.uint8)
    fs = int(size * rng.uniform(0.35, 0.5))
    f = np.asarray(Image.fromarray(rgb(face)).resize((fs, fs), Image.BILINEAR))
    y, x = rng.integers(0, size - fs + 1, size=2)
    canvas[y:y + fs, x:x + fs] = f
    return Image.fromarray(canvas)


def make(kind, size, names, n, rng, lfw):
    ph = photos()
    centres = {"face": FACES, "hand": HANDS, "pose": PEOPLE}[kind]
    zoom = {"face": (2.0, 3.0), "hand": (1.6, 2.4), "pose": (1.0, 1.1)}[kind]
    out = []
    for i in range(n):
        name = names[i % len(names)]
        if kind == "face" and i % 4 == 3:
            out.append((f"lfw{i:03d}", lfw_face(rng, lfw[rng.integers(len(lfw))], size)))
        elif name in centres and i % 2 == 0:
            cy, cx, extent = centres[name]
            out.append((f"{name}{i:03d}", centred_crop(rng, ph[name], cy, cx, extent, zoom, size)))
        else:
            out.append((f"{name}{i:03d}", random_crop(rng, ph[name], size)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["face", "hand", "pose"])
    ap.add_argument("size", type=int)
    ap.add_argument("out")
    ap.add_argument("--calib", type=int, default=32)
    ap.add_argument("--heldout", type=int, default=12)
    a = ap.parse_args()
    import skimage.data as d
    lfw = d.lfw_subset()
    sets = {"calib": (CALIB, a.calib, lfw[:100], 1), "heldout": (HELDOUT, a.heldout, lfw[100:], 2)}
    for sub, (names, n, faces, seed) in sets.items():
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
        rng = np.random.default_rng(seed)
        # Held-out sets start with the photograph that holds the face / hand / person.
        for name, img in make(a.kind, a.size, names, n, rng, faces):
            img.save(os.path.join(a.out, sub, name + ".png"))


if __name__ == "__main__":
    main()
