#!/usr/bin/python3
"""photo_input.py OUT.npz SIZE: a real photograph (scikit-image's bundled 'chelsea' cat, CC0) resized to
SIZE x SIZE, ImageNet-normalized, NCHW float32, keyed 'input'."""
import sys

import numpy as np
from skimage import data, transform

size = int(sys.argv[2])
img = transform.resize(data.chelsea(), (size, size), anti_aliasing=True).astype(np.float32)  # HWC in [0, 1]
mean = np.array([0.485, 0.456, 0.406], np.float32)
std = np.array([0.229, 0.224, 0.225], np.float32)
x = ((img - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)
np.savez(sys.argv[1], input=np.ascontiguousarray(x))
