#!/usr/bin/python3
"""export_torchvision_realbn.py MODEL OUT_DIR [--calib-crops N] [--heldout-crops N] [--bn-crops N]

A torchvision classifier (resnet18, mobilenet_v2) whose activations look like a trained network's on real
photos, for the quantization accuracy test (issue 10, tests/scripts/torchvision_quantize.sh):

- conv/linear weights: torchvision's default initialisation (torch.manual_seed(0));
- BatchNorm running statistics recomputed on real photos: model.train() with momentum=None (a cumulative
  average over the batches) on fixed-seed random resized crops of the calibration photos, ImageNet
  normalisation, then eval() and ONNX export (OUT_DIR/MODEL.onnx, input "input" 1x3x224x224, output "output").

The photos are Debian python3-skimage's skimage.data photographs and sklearn.datasets.load_sample_images
(china, flower). Two DISJOINT sets:
- calibration photos -> OUT_DIR/calib/*.png (also the BatchNorm batches, as a network's training data);
- held-out photos    -> OUT_DIR/heldout/*.png (never seen by BatchNorm nor by calibration), and PyTorch's
  outputs on them -> OUT_DIR/heldout_torch/*.npz (key "output", as `tosakit run -o` writes it).
The crops are written as 224x224 RGB PNG files, so `tosakit import --mean 123.675,116.28,103.53
--scale 0.0171,0.0175,0.0174 --pixel-format rgb` applies the same normalisation as here (TPU-MLIR's way).
Everything is seeded: the same torch/torchvision/skimage give the same files."""
import argparse
import os

import numpy as np
import torch
import torchvision
from PIL import Image
from skimage import data as skdata
from sklearn.datasets import load_sample_images

# The constants `tosakit import --mean/--scale` receives; the scales are 1/std of ImageNet rounded as TPU-MLIR's
# examples write them, used here too so PyTorch and tosakit see identical inputs.
MEAN = np.array([123.675, 116.28, 103.53], np.float32)
SCALE = np.array([0.0171, 0.0175, 0.0174], np.float32)

CALIB_PHOTOS = ["astronaut", "chelsea", "rocket", "china", "motorcycle", "camera", "hubble_deep_field",
                "immunohistochemistry"]
HELDOUT_PHOTOS = ["coffee", "flower", "coins", "retina"]


def load_photo(name):
    """An HxWx3 uint8 RGB photo (gray ones repeated over three channels)."""
    if name in ("china", "flower"):
        images = load_sample_images()
        index = [os.path.basename(f) for f in images.filenames].index(name + ".jpg")
        img = images.images[index]
    elif name == "motorcycle":
        img = skdata.stereo_motorcycle()[0]  # the left view
    else:
        img = getattr(skdata, name)()
    img = np.asarray(img)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    return np.ascontiguousarray(img[:, :, :3]).astype(np.uint8)


def random_resized_crop(img, rng, size=224, scale=(0.25, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop drawn from a numpy generator, bilinear resize with PIL, random h-flip."""
    h, w = img.shape[:2]
    for _ in range(10):
        area = h * w * rng.uniform(*scale)
        aspect = np.exp(rng.uniform(np.log(ratio[0]), np.log(ratio[1])))
        cw = int(round(np.sqrt(area * aspect)))
        ch = int(round(np.sqrt(area / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            break
    else:
        ch = cw = min(h, w)
    top = int(rng.integers(0, h - ch + 1))
    left = int(rng.integers(0, w - cw + 1))
    crop = Image.fromarray(img[top:top + ch, left:left + cw]).resize((size, size), Image.BILINEAR)
    out = np.asarray(crop)
    if rng.uniform() < 0.5:
        out = out[:, ::-1]
    return np.ascontiguousarray(out)


def crops(photos, per_photo, seed):
    rng = np.random.default_rng(seed)
    out = []
    for name in photos:
        img = load_photo(name)
        for k in range(per_photo):
            out.append((f"{name}_{k:02d}", random_resized_crop(img, rng)))
    return out


def normalize(pixels):
    """HxWx3 uint8 -> 3xHxW float32, (x - mean) * scale per channel."""
    return ((pixels.astype(np.float32) - MEAN) * SCALE).transpose(2, 0, 1)


def build(name, bn_batches):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative moving average: every batch counts equally
    model.train()
    with torch.no_grad():
        for batch in bn_batches:
            model(torch.from_numpy(batch))
    return model.eval()


def write_pngs(directory, items):
    os.makedirs(directory, exist_ok=True)
    for stem, pixels in items:
        Image.fromarray(pixels).save(os.path.join(directory, stem + ".png"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("out_dir")
    p.add_argument("--calib-crops", type=int, default=8, help="calibration crops per calibration photo")
    p.add_argument("--heldout-crops", type=int, default=4, help="held-out crops per held-out photo")
    p.add_argument("--bn-crops", type=int, default=16, help="BatchNorm crops per calibration photo")
    p.add_argument("--opset", type=int, default=13)
    args = p.parse_args()
    assert not set(CALIB_PHOTOS) & set(HELDOUT_PHOTOS)
    os.makedirs(args.out_dir, exist_ok=True)

    bn = crops(CALIB_PHOTOS, args.bn_crops, seed=10)
    bn_x = np.stack([normalize(px) for _, px in bn])
    order = np.random.default_rng(11).permutation(len(bn_x))
    bn_batches = [bn_x[order[i:i + 16]] for i in range(0, len(bn_x), 16)]
    model = build(args.model, bn_batches)

    calib = crops(CALIB_PHOTOS, args.calib_crops, seed=20)
    heldout = crops(HELDOUT_PHOTOS, args.heldout_crops, seed=30)
    write_pngs(os.path.join(args.out_dir, "calib"), calib)
    write_pngs(os.path.join(args.out_dir, "heldout"), heldout)

    base = os.path.join(args.out_dir, args.model)
    x = torch.from_numpy(normalize(heldout[0][1])[None])
    with torch.no_grad():
        torch.onnx.export(model, x, base + ".onnx", opset_version=args.opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        # PyTorch's own outputs on the held-out crops, to check the imported float model against.
        hx = torch.from_numpy(np.stack([normalize(px) for _, px in heldout]))
        hy = model(hx).numpy()
    torch_dir = os.path.join(args.out_dir, "heldout_torch")
    os.makedirs(torch_dir, exist_ok=True)
    for i, (stem, _) in enumerate(heldout):
        np.savez(os.path.join(torch_dir, stem + ".npz"), output=hy[i:i + 1])
    print(f"{base}.onnx: BatchNorm statistics from {len(bn)} crops of {len(CALIB_PHOTOS)} photos; "
          f"{len(calib)} calibration crops, {len(heldout)} held-out crops of {len(HELDOUT_PHOTOS)} other photos")


if __name__ == "__main__":
    main()
