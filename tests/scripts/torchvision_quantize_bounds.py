#!/usr/bin/python3
"""torchvision_quantize_bounds.py WORK_DIR: where the INT8 error of mobilenet_v2 (random default-init weights,
BatchNorm statistics recomputed on real photos; tests/scripts/export_torchvision_realbn.py) comes from, measured
with a PyTorch fake-quantized copy of the network instead of tosakit (so that each error source can be switched
on alone). WORK_DIR is the directory torchvision_quantize.sh mobilenet_v2 writes (calib/ and heldout/ PNGs);
the network is rebuilt with the export script's own seeds.

Fake quantization as tosakit's INT8 does it: BatchNorm folded into the convolutions; weights int8 symmetric per
output channel (max|w| / 127); every activation per tensor, symmetric, threshold = 99.99th percentile of |x| on
the calibration crops (tosakit's KLD+tune thresholds give the same all-INT8 figures), a conv -> ReLU6 written on
the unsigned grid (threshold / 255); residual adds, the pool and the logits requantized. Each line prints the
held-out output cosine against the float network (min / mean over the crops) and its image-dependent part
(both outputs minus the float outputs' mean), as torchvision_quantize_cos.py does."""
import glob
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_torchvision_realbn as ex  # noqa: E402


def folded(conv, bn):
    s = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    return conv.weight * s.reshape(-1, 1, 1, 1), bn.bias - bn.running_mean * s, conv


def network(model):
    """[(block name, [(weight, bias, conv, relu6)], residual)] of torchvision's mobilenet_v2."""
    def cbr(m):
        w, b, c = folded(m[0], m[1])
        return (w, b, c, len(m) > 2)
    f = model.features
    blocks = [("stem", [cbr(f[0])], False)]
    for i in range(1, 18):
        seq = f[i].conv
        layers = [cbr(m) for m in seq if isinstance(m, torchvision.ops.misc.Conv2dNormActivation)]
        convs = [m for m in seq if isinstance(m, torch.nn.Conv2d)]
        bns = [m for m in seq if isinstance(m, torch.nn.BatchNorm2d)]
        w, b, c = folded(convs[-1], bns[-1])
        blocks.append((f"b{i}", layers + [(w, b, c, False)], f[i].use_res_connect))
    blocks.append(("head", [cbr(f[18])], False))
    return blocks


def quant_weights(w):
    s = (w.abs().reshape(w.shape[0], -1).amax(1).clamp(min=1e-12) / 127).reshape(-1, *([1] * (w.dim() - 1)))
    return torch.round(w / s) * s


def quant_act(x, t, unsigned, bits):
    levels = 2 ** bits - 1 if unsigned else 2 ** (bits - 1) - 1
    lo = 0 if unsigned else -levels - 1
    s = t / levels
    return torch.clamp(torch.round(x / s), lo, levels) * s


def forward(blocks, fc, x, act_bits, quant_w, thr):
    """act_bits(tag) -> 8, 16 or None (float); quant_w(block) -> bool; thr None: collect |x| samples."""
    seen = {}

    def act(tag, v, unsigned):
        if thr is None:
            seen[tag] = v.detach().abs().flatten()[::7]
            return v
        bits = act_bits(tag)
        return v if bits is None else quant_act(v, thr[tag], unsigned, bits)

    x = act("input", x, False)
    for name, layers, residual in blocks:
        skip = x
        for j, (w, b, c, relu6) in enumerate(layers):
            x = F.conv2d(x, quant_weights(w) if quant_w(name) else w, b, c.stride, c.padding, 1, c.groups)
            if relu6:
                x = x.clamp(0, 6)
            x = act(f"{name}.{j}", x, relu6)
        if residual:
            x = act(f"{name}.add", x + skip, False)
    x = act("pool", x.mean((2, 3)), True)
    x = act("logits", F.linear(x, quant_weights(fc.weight) if quant_w("fc") else fc.weight, fc.bias), False)
    return x, seen


def main():
    work = sys.argv[1]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    bn = ex.crops(ex.CALIB_PHOTOS, 16, seed=10)  # as export_torchvision_realbn.py's default --bn-crops
    bn_x = np.stack([ex.normalize(px) for _, px in bn])
    order = np.random.default_rng(11).permutation(len(bn_x))
    model = ex.build("mobilenet_v2", [bn_x[order[i:i + 16]] for i in range(0, len(bn_x), 16)])

    def load(d):
        files = sorted(glob.glob(os.path.join(work, d, "*.png")))
        return torch.from_numpy(np.stack([ex.normalize(np.asarray(Image.open(f).convert("RGB"))) for f in files]))

    calib, held = load("calib"), load("heldout")
    fc = model.classifier[1]
    with torch.no_grad():
        blocks = network(model)
        ref = model(held).double()
        _, seen = forward(blocks, fc, calib, None, lambda b: False, None)
        thr = {k: torch.quantile(v, 0.9999).item() for k, v in seen.items()}
        mean_ref = ref.mean(0)

        def cos(a, b):
            return ((a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1))).numpy()

        def report(label, y):
            y = y.double()
            c, centred = cos(y, ref), cos(y - mean_ref, ref - mean_ref)
            print(f"{label:58s} min {c.min():.5f} mean {c.mean():.5f}  image-dependent mean {centred.mean():.4f}",
                  flush=True)

        def run(label, act_bits, quant_w, x=held):
            report(label, forward(blocks, fc, x, act_bits, quant_w, thr)[0])

        pixel = torch.tensor(ex.SCALE).reshape(1, 3, 1, 1)
        g = torch.Generator().manual_seed(1)
        for amp in (0.5, 0.25):
            noise = (torch.rand(held.shape, generator=g) * 2 - 1) * amp * pixel
            report(f"float, input + uniform noise of +-{amp} pixel level", model(held + noise))
        every, none = (lambda t: 8), (lambda t: None)
        run("all INT8", every, lambda b: True)
        run("all INT8 but the logits (dequantized from int32)", lambda t: None if t == "logits" else 8, lambda b: True)
        run("only the input quantized", lambda t: 8 if t == "input" else None, lambda b: False)
        run("only the weights quantized", none, lambda b: True)
        run("only the activations, input float", lambda t: None if t == "input" else 8, lambda b: False)
        run("16-bit activations, int8 weights", lambda t: 16, lambda b: True)
        names = [b[0] for b in blocks]
        for lo, hi in [(0, 4), (4, 8), (8, 12), (12, 16), (16, 19)]:
            sel = set(names[lo:hi]) | ({"input"} if lo == 0 else set())
            run(f"only the activations of {names[lo]}..{names[hi - 1]}",
                lambda t, sel=sel: 8 if t.split(".")[0] in sel else None, lambda b: False)
        for k in (3, 4, 6):
            fl = set(names[:k])
            n_layers = 1 + sum(len(l) + sum(r for *_, r in l) + (1 if res else 0) for n, l, res in blocks[:k])
            run(f"{names[0]}..{names[k - 1]} float ({n_layers} tosakit layers), rest INT8",
                lambda t, fl=fl: None if t == "input" or t.split(".")[0] in fl else 8, lambda b, fl=fl: b not in fl)


if __name__ == "__main__":
    main()
