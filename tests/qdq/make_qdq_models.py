#!/usr/bin/python3
"""Makes pre-quantized (QDQ) ONNX test models the way PyTorch users do.

Eager-mode post-training static quantization (torch.ao.quantization, fbgemm qconfig) of a small CNN and of
torchvision's quantizable resnet18 / mobilenet_v2 (default-initialized weights, seeded; BatchNorm running
statistics recomputed on real photographs so that activations look like a trained network's), calibrated on
real photographs (scikit-image's bundled ones; not 'chelsea', the test photo: photo_input.py), exported with torch.onnx.export (opset 13). torch 1.13 exports quantized modules in QDQ form
(QuantizeLinear/DequantizeLinear around float Conv/Gemm/Add/...).

Variants: NAME_qat is quantization-aware training instead (fused conv-bn-relu with fake quantization, a few
SGD steps on the same photographs with fixed labels, then convert); NAME_fx is FX graph mode post-training
static quantization (torch.ao.quantization.quantize_fx, default fbgemm qconfig mapping) of the float model;
NAME_float is the float model itself (BatchNorm statistics from the photographs, eval mode, so the export folds
BatchNorm into the convolutions), written with its calibration samples (the photographs as NAME_float_calib/*.npz)
for `tosakit calibrate` + `tosakit export-qdq` (tests/qdq/export_qdq_vs_ort.sh).

usage: make_qdq_models.py OUT_DIR [small_cnn resnet18 mobilenet_v2 small_cnn_qat mobilenet_v2_qat resnet18_fx ...]
"""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
from skimage import data, transform
import torch.ao.quantization as tq

warnings.filterwarnings("ignore")


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 8 * 8, 10)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.conv1(x))
        x = self.pool(self.relu2(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.dequant(self.fc(x))

    def fuse_model(self, is_qat=False):
        fuse = tq.fuse_modules_qat if is_qat else tq.fuse_modules
        fuse(self, [["conv1", "relu1"], ["conv2", "relu2"]], inplace=True)


class SmallCnnFloat(SmallCnn):
    """The small CNN without quantization stubs (FX graph mode inserts its own)."""

    def forward(self, x):
        x = self.relu1(self.conv1(x))
        x = self.pool(self.relu2(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def build(name, fx=False):
    if name == "small_cnn":
        return (SmallCnnFloat() if fx else SmallCnn()), (1, 3, 32, 32)
    if fx:
        import torchvision.models as fm
        return {"resnet18": fm.resnet18, "mobilenet_v2": fm.mobilenet_v2}[name](weights=None), (1, 3, 224, 224)
    import torchvision.models.quantization as qm
    ctor = {"resnet18": qm.resnet18, "mobilenet_v2": qm.mobilenet_v2}[name]
    return ctor(weights=None, quantize=False), (1, 3, 224, 224)


PHOTOS = ["astronaut", "rocket", "coffee", "immunohistochemistry"]
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def photo_batch(size):
    """The calibration photos and their mirror images, resized, ImageNet-normalized, NCHW."""
    images = []
    for name in PHOTOS:
        img = transform.resize(getattr(data, name)(), (size, size), anti_aliasing=True).astype(np.float32)
        for im in (img, img[:, ::-1]):
            images.append(((im - MEAN) / STD).transpose(2, 0, 1))
    return torch.from_numpy(np.ascontiguousarray(np.stack(images)))


def photo_bn_statistics(model, batch):
    """BatchNorm running statistics of the photos (a cumulative average), as a trained network has them."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    if bns:
        model.train()
        with torch.no_grad():
            model(batch)


def quantize_qat(model, shape, steps=4):
    """Quantization-aware training: fake-quantized fused model, a few SGD steps, convert."""
    batch = photo_batch(shape[-1])
    photo_bn_statistics(model, batch)
    model.train()
    model.fuse_model(is_qat=True)
    model.qconfig = tq.get_default_qat_qconfig("fbgemm")
    tq.prepare_qat(model, inplace=True)
    labels = torch.arange(len(batch)) % 10
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(batch), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    tq.convert(model, inplace=True)
    return model


def quantize_fx(model, shape):
    """FX graph mode post-training static quantization (default fbgemm qconfig mapping)."""
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    batch = photo_batch(shape[-1])
    photo_bn_statistics(model, batch)
    model.eval()
    prepared = prepare_fx(model, tq.get_default_qconfig_mapping("fbgemm"), example_inputs=(batch[:1],))
    with torch.no_grad():
        prepared(batch)
    return convert_fx(prepared)


def quantize(model, shape):
    batch = photo_batch(shape[-1])
    photo_bn_statistics(model, batch)
    model.eval()
    model.fuse_model()
    model.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        model(batch)
    tq.convert(model, inplace=True)
    return model


def export_float(name, out):
    """The float model and its calibration samples (the calibration photographs, one .npz each)."""
    base = name.removesuffix("_float")
    model, shape = build(base, fx=True)
    batch = photo_batch(shape[-1])
    photo_bn_statistics(model, batch)
    model.eval()
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, torch.zeros(shape), path, opset_version=13, input_names=["input"],
                      output_names=["output"])
    calib = os.path.join(out, name + "_calib")
    os.makedirs(calib, exist_ok=True)
    for i, x in enumerate(batch.numpy()):
        np.savez(os.path.join(calib, f"sample{i}.npz"), input=x[None])
    print(path)


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or ["small_cnn", "resnet18", "mobilenet_v2"]
    os.makedirs(out, exist_ok=True)
    for name in names:
        torch.manual_seed(0)
        if name.endswith("_float"):
            export_float(name, out)
            continue
        base = name.removesuffix("_qat").removesuffix("_fx")
        model, shape = build(base, fx=name.endswith("_fx"))
        if name.endswith("_qat"):
            model = quantize_qat(model, shape)
        elif name.endswith("_fx"):
            model = quantize_fx(model, shape)
        else:
            model = quantize(model, shape)
        path = os.path.join(out, name + "_qdq.onnx")
        torch.onnx.export(model, torch.zeros(shape), path, opset_version=13, input_names=["input"],
                          output_names=["output"])
        print(path)


if __name__ == "__main__":
    main()
