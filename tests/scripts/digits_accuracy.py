#!/usr/bin/python3
"""digits_accuracy.py OUTPUTS.npz LABELS.npy -> prints the top-1 accuracy (percent) of the 'logits' output."""
import sys

import numpy as np

logits = np.load(sys.argv[1])["logits"]
labels = np.load(sys.argv[2])
if logits.dtype != np.float32:
    raise SystemExit(f"{sys.argv[1]}: logits are {logits.dtype}, expected float32")
print(f"{(logits.reshape(len(labels), -1).argmax(1) == labels).mean() * 100:.4f}")
