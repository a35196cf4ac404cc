#!/usr/bin/python3
"""inspect_torchvision_figures.py MODEL INFO.json: checks `tosakit info --json` of a torchvision export
(tests/scripts/export_torchvision.py) against PyTorch's own model, the independent oracle:
- parameters: torchvision's count (sum of p.numel(), 25.56 M for resnet50, 3.50 M for mobilenet_v2) less one
  per BatchNorm channel: the export folds each BatchNorm into the convolution before it, so its two per-channel
  parameters (weight, bias) become one (the conv's bias) and its scale is multiplied into the conv weights;
- MACs: one per kernel tap and input channel of a group for every conv output element, in x out for Linear,
  counted with forward hooks on the PyTorch model (4.09 G for resnet50, 0.30 G for mobilenet_v2)."""
import json
import sys

import torch
import torchvision

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from export_torchvision import build  # noqa: E402

PUBLISHED = {"resnet50": (25.56, 4.09), "mobilenet_v2": (3.50, 0.30)}


def torch_figures(name):
    model = build(name)
    params = sum(p.numel() for p in model.parameters())
    bn_channels = sum(m.num_features for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))
    macs = 0

    def conv_hook(m, _, out):
        nonlocal macs
        macs += out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def linear_hook(m, _, out):
        nonlocal macs
        macs += out.numel() * m.in_features

    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            m.register_forward_hook(conv_hook)
        elif isinstance(m, torch.nn.Linear):
            m.register_forward_hook(linear_hook)
    with torch.no_grad():
        model(torch.zeros(1, 3, 224, 224))
    return params, bn_channels, macs


def main():
    name, info_path = sys.argv[1], sys.argv[2]
    info = json.load(open(info_path))
    params, bn_channels, macs = torch_figures(name)
    got_params, got_macs = info["parameters"]["count"], info["macs"]["total"]
    print(f"{name}: torchvision {params} parameters ({params / 1e6:.2f} M), {bn_channels} BatchNorm channels, "
          f"{macs} MACs ({macs / 1e9:.2f} G); tosakit info {got_params} parameters, {got_macs} MACs")
    ok = True
    if got_params != params - bn_channels:
        print(f"FAIL: parameters {got_params} != {params} - {bn_channels}")
        ok = False
    if got_macs != macs:
        print(f"FAIL: MACs {got_macs} != {macs}")
        ok = False
    want_params, want_gmacs = PUBLISHED[name]
    if round(params / 1e6, 2) != want_params or round(got_macs / 1e9, 2) != want_gmacs:
        print(f"FAIL: published figures {want_params} M / {want_gmacs} G not met")
        ok = False
    if info["fast_plan"] is None or "arena_bytes" not in info["fast_plan"]:
        print(f"FAIL: no fast plan: {info['fast_plan']}")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
