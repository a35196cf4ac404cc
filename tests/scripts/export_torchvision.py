#!/usr/bin/python3
"""export_torchvision.py MODEL OUT_DIR [--opset 13]
Exports a torchvision classifier (resnet18, mobilenet_v2, ...) with random weights to OUT_DIR/MODEL.onnx and
writes a random input OUT_DIR/MODEL.input.npz (key 'input', 1x3x224x224 float32) and PyTorch's own output
OUT_DIR/MODEL.torch.npz (key 'output'). Everything is seeded: the same torch/torchvision give the same files.

The weights are torchvision's default initialisation plus randomised BatchNorm statistics and affine
parameters (left at their defaults, BatchNorm would be the identity in eval mode and test nothing)."""
import argparse
import os

import numpy as np
import torch
import torchvision


def build(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)
    return model.eval()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("out_dir")
    p.add_argument("--opset", type=int, default=13)
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    model = build(args.model)
    x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(np.float32)
    base = os.path.join(args.out_dir, args.model)
    with torch.no_grad():
        y = model(torch.from_numpy(x)).numpy()
        torch.onnx.export(model, torch.from_numpy(x), base + ".onnx", opset_version=args.opset,
                          input_names=["input"], output_names=["output"], do_constant_folding=True)
    np.savez(base + ".input.npz", input=x)
    np.savez(base + ".torch.npz", output=y)
    print(f"{base}.onnx: opset {args.opset}, output {y.shape}")


if __name__ == "__main__":
    main()
