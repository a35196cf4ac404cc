#!/usr/bin/python3
"""Writes input.npz: a synthetic 48x192 text-line image (dark glyph-like strokes on a light background, fixed
seed), normalized as PaddleOCR's classifier expects ((pixel / 255 - 0.5) / 0.5), NCHW float32, key "x"."""
import numpy as np

rng = np.random.default_rng(20261122)
img = np.full((48, 192), 235.0)
x = 6
while x < 180:  # glyphs: random vertical/horizontal strokes of varying width along a baseline
    w = int(rng.integers(6, 14))
    top, bottom = int(rng.integers(10, 18)), int(rng.integers(32, 40))
    img[top:bottom, x:x + 2] = 30
    if rng.random() < 0.6:
        img[top:top + 2, x:x + w] = 30
    if rng.random() < 0.5:
        img[bottom - 2:bottom, x:x + w] = 30
    if rng.random() < 0.4:
        img[top:bottom, x + w - 2:x + w] = 30
    x += w + int(rng.integers(3, 7))
img += rng.normal(0, 6, img.shape)
img = np.clip(img, 0, 255)
chw = np.repeat(img[None, :, :], 3, axis=0)
x = ((chw / 255.0 - 0.5) / 0.5).astype(np.float32)[None]
np.savez("input.npz", x=x)
print(x.shape, x.dtype, float(x.min()), float(x.max()))
