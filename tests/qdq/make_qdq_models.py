#!/usr/bin/python3
"""Makes pre-quantized (QDQ) ONNX test models the way PyTorch users do.

Eager-mode post-training static quantization (torch.ao.quantization, fbgemm qconfig) of a small CNN and of
torchvision's quantizable resnet18 / mobilenet_v2 (random weights, seeded), calibrated on seeded random
images, exported with torch.onnx.export (opset 13). torch 1.13 exports quantized modules in QDQ form
(QuantizeLinear/DequantizeLinear around float Conv/Gemm/Add/...).

usage: make_qdq_models.py OUT_DIR [small_cnn resnet18 mobilenet_v2]
"""
import os
import sys
import warnings

import torch
import torch.nn as nn
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

    def fuse_model(self):
        tq.fuse_modules(self, [["conv1", "relu1"], ["conv2", "relu2"]], inplace=True)


def build(name):
    if name == "small_cnn":
        return SmallCnn(), (1, 3, 32, 32)
    import torchvision.models.quantization as qm
    ctor = {"resnet18": qm.resnet18, "mobilenet_v2": qm.mobilenet_v2}[name]
    return ctor(weights=None, quantize=False), (1, 3, 224, 224)


def quantize(model, shape):
    model.eval()
    model.fuse_model()
    model.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(model, inplace=True)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(shape, generator=g) * 2 - 1)
    tq.convert(model, inplace=True)
    return model


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or ["small_cnn", "resnet18", "mobilenet_v2"]
    os.makedirs(out, exist_ok=True)
    for name in names:
        torch.manual_seed(0)
        model, shape = build(name)
        model = quantize(model, shape)
        path = os.path.join(out, name + "_qdq.onnx")
        torch.onnx.export(model, torch.zeros(shape), path, opset_version=13, input_names=["input"],
                          output_names=["output"])
        print(path)


if __name__ == "__main__":
    main()
