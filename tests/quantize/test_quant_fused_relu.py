#!/usr/bin/python3
"""test_quant_fused_relu.py INT8.mlir x.npy layers.npz: the integer codes of tests/quantize/test_quant_fused_relu.sh
computed independently (float64, round half away from zero as the rescale's +1/2 and floor do for these values):
  x_q = clamp(round(x / S_x)),                       S_x = 4 / 127
  conv_a (fused into relu6, so its integer result is named conv_a/relu_grid): S = 5.1 / 255, Z = -128
      w_q = round(1.5 / S_w) = 127, S_w = 1.5 / 127;  b_q = round(0.25 / (S_x S_w))
      q = clamp(round((x_q w_q + b_q) S_x S_w / S) + Z, -128, 127);  relu6_q = clamp(q, Z, round(6 / S) + Z)
  conv_b (two consumers, not fused): S = 6 / 127, Z = 0; relu_q = max(q, 0) on conv_b's grid."""
import re
import sys

import numpy as np


def rnd(v):
    return np.floor(np.asarray(v, np.float64) + 0.5)


def main():
    mlir, x_path, layers_path = sys.argv[1:4]
    x = np.load(x_path).astype(np.float64).ravel()
    layers = np.load(layers_path)
    sx = 4.0 / 127
    xq = np.clip(rnd(x / sx), -128, 127)
    failures = []

    def check(name, expected):
        got = layers[name].astype(np.int64).ravel()
        if not np.array_equal(got, expected.astype(np.int64)):
            failures.append(f"{name}: got {got.tolist()}, expected {expected.astype(np.int64).tolist()}")

    # conv_a on relu6's unsigned grid
    s_a, z_a = 5.1 / 255, -128
    sw_a = 1.5 / 127
    bq_a = rnd(0.25 / (sx * sw_a))
    q_a = np.clip(rnd((xq * 127 + bq_a) * sx * sw_a / s_a) + z_a, -128, 127)
    check("conv_a/relu_grid", q_a)
    if "conv_a" in layers.files:  # the float name must not claim the ReLU's values (compare pairs by name)
        failures.append("conv_a: the fused result is still named after the conv")
    check("relu6", np.clip(q_a, z_a, min(127, rnd(6 / s_a) + z_a)))
    # conv_b on its own signed grid (it is also an output)
    s_b = 6.0 / 127
    sw_b = 2.0 / 127
    q_b = np.clip(rnd(xq * -127 * sx * sw_b / s_b), -128, 127)
    check("conv_b", q_b)
    check("relu", np.maximum(q_b, 0))
    # The recorded scale and zero point of conv_a / relu6: the unsigned grid.
    text = open(mlir).read()
    aliases = dict(re.findall(r'^(#loc\d+) = loc\("([^"]*)"\)', text, re.M))
    recorded = {}
    for scale, zp, loc in re.findall(r'tosakit\.qscale = ([-0-9.eE+]+) : f64, tosakit\.qzp = (-?\d+) : i64\}'
                                     r'.*loc\((#loc\d+|"[^"]*")\)$', text, re.M):
        recorded[aliases.get(loc, loc.strip('"'))] = (float(scale), int(zp))
    for name, scale, zp in (("conv_a/relu_grid", s_a, -128), ("relu6", s_a, -128), ("conv_b", s_b, 0)):
        if name not in recorded:
            failures.append(f"{name}: no recorded tosakit.qscale/qzp")
        elif abs(recorded[name][0] - scale) > 1e-12 * scale or recorded[name][1] != zp:
            failures.append(f"{name}: recorded scale/zp {recorded[name]}, expected {scale} {zp}")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("fused ReLU grids: conv_a/relu6 unsigned (S = 5.1/255, Z = -128), conv_b signed; codes as computed")


if __name__ == "__main__":
    main()
