#!/usr/bin/python3
"""Writes calib/line_NN.png and test_line.png: 16 + 1 text lines (48x192, RGB) rendered with Debian's DejaVu fonts (fonts-dejavu-core)
from a fixed-seed word list, every second one turned 180 degrees — the classifier's two classes. They are the
calibration set of the README's quantization flow (real glyphs, as the classifier sees in PaddleOCR), not an
accuracy benchmark (tests/scripts hold those). Run from this directory: /usr/bin/python3 make_calib.py"""
import os
import random

from PIL import Image, ImageDraw, ImageFont

FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf"]
WORDS = ["invoice", "total", "amount", "date", "street", "station", "open", "closed", "exit", "north", "price",
         "order", "receipt", "tax", "cash", "change", "market", "coffee", "bread", "milk", "2026", "No.", "17:45"]


def line(rng, i):
    font = ImageFont.truetype(os.path.join("/usr/share/fonts/truetype/dejavu", FONTS[i % len(FONTS)]),
                              rng.randint(20, 28))
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 3)))
    img = Image.new("RGB", (192, 48), (rng.randint(215, 255),) * 3)
    ink = (rng.randint(0, 60),) * 3
    ImageDraw.Draw(img).text((rng.randint(2, 10), rng.randint(6, 14)), text, font=font, fill=ink)
    return img.rotate(180) if i % 2 else img


def main():
    rng = random.Random(20261125)
    os.makedirs("calib", exist_ok=True)
    for i in range(16):
        line(rng, i).save(f"calib/line_{i:02d}.png", optimize=True)
    # A held-out line (upright) for `quantize --test-input`; test_line_ort.npz is ONNX Runtime's output on it.
    line(rng, 16).save("test_line.png", optimize=True)


if __name__ == "__main__":
    main()
