#!/usr/bin/python3
"""Randomized single-op graphs judged by `tosakit check` without --mode (each operator's own rule).

    check_random_ops.py --tosakit BIN [--seed S] [--per-op N] [--ops exp,conv2d,...] [--no-upstream] [--keep DIR]

For every floating-point operator and float type (f32, f16, bf16; the fp8 operators in fp8e4m3/fp8e5m2, on
tosakit's results only: upstream does not lower fp8 arithmetic) a few random graphs are generated from fixed
seeds; for each:
  1. tosakit's own result (`tosakit run`) and upstream MLIR 22's result (mlir-runner-22, tests/oracle) must be
     judged compliant;
  2. the same result with one element moved to 8x the spec's bound must be judged NOT compliant.
The bound of step 2 is computed here from the operator's "Precision Requirements" as the spec writes them
(the fp64 reference and, for dot products, output_bnd = the fp64 op on absolute values come from
`tosakit run --precise`; the formulas - ULP counts, calcAbsErrorBound forms, ksb - are this file's own).
Each case prints one line; the last line is `N passed, N failed`.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
import mlir_oracle as mo  # noqa: E402
import random_graphs as rg  # noqa: E402

FLOATS = ("f32", "f16", "bf16")
FP8 = ("f8E4M3FN", "f8E5M2")
FRAC = {"f32": 23, "f16": 10, "bf16": 7, "f8E4M3FN": 3, "f8E5M2": 2}
NMIN = {"f32": 2.0 ** -126, "f16": 2.0 ** -14, "bf16": 2.0 ** -126, "f8E4M3FN": 2.0 ** -6, "f8E5M2": 2.0 ** -14}
NMAX = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38, "f8E4M3FN": 448.0,
        "f8E5M2": 57344.0}


def fp8_table(elem):
    """Values of the 256 codes of an OCP fp8 format (e4m3fn: no infinity, 0x7F/0xFF NaN)."""
    e4 = elem == "f8E4M3FN"
    eb, mb, bias = (4, 3, 7) if e4 else (5, 2, 15)
    c = np.arange(256)
    sign, ex, m = c >> 7, (c >> mb) & ((1 << eb) - 1), c & ((1 << mb) - 1)
    v = np.where(ex == 0, m * 2.0 ** (1 - bias - mb), (1 + m / 2.0 ** mb) * 2.0 ** (ex - bias))
    if e4:
        v = np.where((ex == 15) & (m == 7), np.nan, v)
    else:
        v = np.where(ex == 31, np.where(m == 0, np.inf, np.nan), v)
    return np.where(sign == 1, -v, v)


def fp8_bits(values, elem):
    """Round to nearest, ties to even code (the values used here are far from overflow)."""
    t = fp8_table(elem)
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    fin = np.where(np.isfinite(t), t, np.inf)
    d = np.abs(v[:, None] - fin[None, :])
    best = d.min(axis=1, initial=np.inf)
    cand = d == best[:, None]
    even = cand & (np.arange(256)[None, :] % 2 == 0)
    pick = np.where(even.any(axis=1), even.argmax(axis=1), cand.argmax(axis=1))
    return pick.astype(np.uint8).reshape(np.shape(values))


def fp8_arg(g, shape, elem, lo=-2.0, hi=2.0):
    return g.arg(shape, elem, arr=fp8_bits(g.rng.uniform(lo, hi, size=shape), elem))


def fp8_zero(g, elem):
    return g.const(np.zeros([1], dtype=np.uint8), [1], elem)


def ty(shape, e):
    return rg.ty(shape, e)


# ---------------------------------------------------------------------------------------------------------
# Generators: (g, rng, e) -> (results, info). info: what the bound needs ("rule" and its parameters).

def unary(opname, lo, hi):
    def f(g, rng, e):
        s = rg.rshape(rng)
        a = g.arg(s, e, lo=lo, hi=hi)
        v = g.op(f"tosa.{opname} {a}", [ty(s, e)], [ty(s, e)])
        return [(v, ty(s, e))], {"rule": opname}
    return f


def binary(opname, lo=None, hi=None, lo2=None, hi2=None):
    def f(g, rng, e):
        s = rg.rshape(rng)
        s1, s2 = rg.bshape(rng, s), rg.bshape(rng, s)
        out = [max(x, y) for x, y in zip(s1, s2)]
        a = g.arg(s1, e, lo=lo, hi=hi)
        b = g.arg(s2, e, lo=lo2, hi=hi2)
        if opname == "mul":
            sh = g.zp("i8", 0)
            v = g.op(f"tosa.mul {a}, {b}, {sh}", [ty(s1, e), ty(s2, e), "tensor<1xi8>"], [ty(out, e)])
        else:
            v = g.op(f"tosa.{opname} {a}, {b}", [ty(s1, e), ty(s2, e)], [ty(out, e)])
        return [(v, ty(out, e))], {"rule": opname}
    return f


def cast_from(src):
    def f(g, rng, e):
        s = rg.rshape(rng)
        if src == e:
            return None
        lo, hi = {"i32": (-60000, 60000), "f32": (-300.0, 300.0)}.get(src, (None, None))
        a = g.arg(s, src, lo=lo, hi=hi)
        v = g.op(f"tosa.cast {a}", [ty(s, src)], [ty(s, e)])
        return [(v, ty(s, e))], {"rule": "cast"}
    return f


def conv2d(g, rng, e):
    IH, IW, KH, KW, pad, st, dil = rg.pick_conv_geometry(rng)
    N, IC, OC = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    ops, types, bt, acc = rg.conv_operands(g, rng, e, [N, IH, IW, IC], [OC, KH, KW, IC], OC)
    OH = rg.conv_out(IH, KH, pad[0], pad[1], st[0], dil[0])
    OW = rg.conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
    out = ty([N, OH, OW, OC], bt)
    v = g.op(f"tosa.conv2d {ops} {{acc_type = {acc}, dilation = array<i64: {dil[0]}, {dil[1]}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}", types, [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW * IC, "acc": acc, "bias": 2, "local_bound": False}


def conv3d(g, rng, e):
    KD, KH, KW = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
    ID, IH, IW = KD + int(rng.integers(0, 3)), KH + int(rng.integers(0, 3)), KW + int(rng.integers(0, 3))
    N, IC, OC = 1, int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ops, types, bt, acc = rg.conv_operands(g, rng, e, [N, ID, IH, IW, IC], [OC, KD, KH, KW, IC], OC)
    out = ty([N, ID - KD + 1, IH - KH + 1, IW - KW + 1, OC], bt)
    v = g.op(f"tosa.conv3d {ops} {{acc_type = {acc}, dilation = array<i64: 1, 1, 1>, "
             f"pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>}}", types, [out])
    return [(v, out)], {"rule": "dot", "ks": KD * KH * KW * IC, "acc": acc, "bias": 2, "local_bound": False}


def depthwise(g, rng, e):
    IH, IW, KH, KW, pad, st, dil = rg.pick_conv_geometry(rng)
    N, C, M = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    ops, types, bt, acc = rg.conv_operands(g, rng, e, [N, IH, IW, C], [KH, KW, C, M], C * M)
    OH = rg.conv_out(IH, KH, pad[0], pad[1], st[0], dil[0])
    OW = rg.conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
    out = ty([N, OH, OW, C * M], bt)
    v = g.op(f"tosa.depthwise_conv2d {ops} {{acc_type = {acc}, dilation = array<i64: {dil[0]}, {dil[1]}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}", types, [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW, "acc": acc, "bias": 2, "local_bound": False}


def transpose_conv(g, rng, e):
    N, IH, IW = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    IC, OC = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    KH, KW = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    st = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    ops, types, bt, acc = rg.conv_operands(g, rng, e, [N, IH, IW, IC], [OC, KH, KW, IC], OC)
    out = ty([N, (IH - 1) * st[0] + KH, (IW - 1) * st[1] + KW, OC], bt)
    v = g.op(f"tosa.transpose_conv2d {ops} {{acc_type = {acc}, out_pad = array<i64: 0, 0, 0, 0>, "
             f"stride = array<i64: {st[0]}, {st[1]}>}}", types, [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW * IC, "acc": acc, "bias": 2, "local_bound": False}


def matmul(g, rng, e):
    N, H, C, W = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(1, 5))
    oe = "f32" if e != "f16" or rng.random() < 0.5 else "f16"
    a, b = g.arg([N, H, C], e), g.arg([N, C, W], e)
    z = g.zp(e, 0)
    out = ty([N, H, W], oe)
    v = g.op(f"tosa.matmul {a}, {b}, {z}, {z}", [ty([N, H, C], e), ty([N, C, W], e), f"tensor<1x{e}>",
                                                 f"tensor<1x{e}>"], [out])
    return [(v, out)], {"rule": "dot", "ks": C, "acc": oe, "bias": None, "local_bound": True, "out": oe}


def avg_pool(g, rng, e):
    IH, IW, KH, KW, pad, st, OH, OW = rg.pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = g.arg([N, IH, IW, C], e)
    z = g.zp(e, 0)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.avg_pool2d {a}, {z}, {z} {{acc_type = f32, kernel = array<i64: {KH}, {KW}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
             [ty([N, IH, IW, C], e), f"tensor<1x{e}>", f"tensor<1x{e}>"], [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW, "acc": "f32", "bias": None, "local_bound": True}


def reduce(opname, lo=None, hi=None):
    def f(g, rng, e):
        s = rg.rshape(rng)
        ax = int(rng.integers(len(s)))
        a = g.arg(s, e, lo=lo, hi=hi)
        out = list(s)
        out[ax] = 1
        v = g.op(f"tosa.{opname} {a} {{axis = {ax} : i32}}", [ty(s, e)], [ty(out, e)])
        info = {"rule": opname, "n": s[ax]}
        if opname == "reduce_sum":
            info = {"rule": "dot", "ks": s[ax], "acc": e, "bias": None, "local_bound": True}
        return [(v, ty(out, e))], info
    return f


def resize(g, rng, e):
    while True:
        N, IH, IW, C = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 3))
        syn, sxn = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        syd, sxd = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        oy, ox = int(rng.integers(0, syn)), int(rng.integers(0, sxn))
        by, bx = int(rng.integers(-syn, syn)), int(rng.integers(-sxn, sxn))
        ny, nx = (IH - 1) * syn - oy + by, (IW - 1) * sxn - ox + bx
        if ny >= 0 and nx >= 0 and ny % syd == 0 and nx % sxd == 0 and syd < 16 * syn and sxd < 16 * sxn:
            break
    OH, OW = ny // syd + 1, nx // sxd + 1
    a = g.arg([N, IH, IW, C], e)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.resize {a}, {g.shape_const([syn, syd, sxn, sxd])}, {g.shape_const([oy, ox])}, "
             f"{g.shape_const([by, bx])} {{mode = BILINEAR}}",
             [ty([N, IH, IW, C], e), "!tosa.shape<4>", "!tosa.shape<2>", "!tosa.shape<2>"], [out])
    return [(v, out)], {"rule": "resize"}


def fft(real):
    def f(g, rng, e):
        if e != "f32":
            return None
        N, H, W = int(rng.integers(1, 3)), 2 ** int(rng.integers(0, 3)), 2 ** int(rng.integers(1, 3))
        local = bool(rng.random() < 0.5)
        attrs = ["local_bound = true"] if local else []
        re = g.arg([N, H, W], e)
        ow = W // 2 + 1 if real else W
        outs = [ty([N, H, ow], e)] * 2
        if real:
            a = f" {{{', '.join(attrs)}}}" if attrs else ""
            v = g.op(f"tosa.rfft2d {re}{a}", [ty([N, H, W], e)], outs)
        else:
            im = g.arg([N, H, W], e)
            v = g.op(f"tosa.fft2d {re}, {im} {{{', '.join(['inverse = false'] + attrs)}}}", [ty([N, H, W], e)] * 2,
                     outs)
        return [(f"{v}#0", outs[0]), (f"{v}#1", outs[1])], {"rule": "fft", "real": real, "local_bound": local,
                                                              "ks": (1 if real else 2) * H * W}
    return f


def exact_op(make):
    def f(g, rng, e):
        r = make(g, rng, e)
        return r, {"rule": "exact"}
    return f


def clamp(g, rng, e):
    s = rg.rshape(rng)
    a = g.arg(s, e)
    v = g.op(f"tosa.clamp {a} {{max_val = {rg.fmt_scalar(1.0, e)}, min_val = {rg.fmt_scalar(-1.0, e)}}}",
             [ty(s, e)], [ty(s, e)])
    return [(v, ty(s, e))]


def max_pool(g, rng, e):
    IH, IW, KH, KW, pad, st, OH, OW = rg.pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = g.arg([N, IH, IW, C], e)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.max_pool2d {a} {{kernel = array<i64: {KH}, {KW}>, pad = array<i64: {', '.join(map(str, pad))}>, "
             f"stride = array<i64: {st[0]}, {st[1]}>}}", [ty([N, IH, IW, C], e)], [out])
    return [(v, out)]


def simple(opname, nargs=1):
    def f(g, rng, e):
        s = rg.rshape(rng)
        args = [g.arg(s, e) for _ in range(nargs)]
        v = g.op(f"tosa.{opname} {', '.join(args)}", [ty(s, e)] * nargs, [ty(s, e)])
        return [(v, ty(s, e))]
    return f


def negate(g, rng, e):
    s = rg.rshape(rng)
    a = g.arg(s, e)
    z = g.zp(e, 0)
    v = g.op(f"tosa.negate {a}, {z}, {z}", [ty(s, e), f"tensor<1x{e}>", f"tensor<1x{e}>"], [ty(s, e)])
    return [(v, ty(s, e))]


def fp8_conv2d(g, rng, e):
    IH, IW, KH, KW, pad, st, dil = rg.pick_conv_geometry(rng)
    N, IC, OC = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    x, w = fp8_arg(g, [N, IH, IW, IC], e), fp8_arg(g, [OC, KH, KW, IC], e)
    b = g.arg([OC], "f16")
    z = fp8_zero(g, e)
    OH = rg.conv_out(IH, KH, pad[0], pad[1], st[0], dil[0])
    OW = rg.conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
    out = ty([N, OH, OW, OC], "f16")
    v = g.op(f"tosa.conv2d {x}, {w}, {b}, {z}, {z} {{acc_type = f16, dilation = array<i64: {dil[0]}, {dil[1]}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
             [ty([N, IH, IW, IC], e), ty([OC, KH, KW, IC], e), ty([OC], "f16"), f"tensor<1x{e}>", f"tensor<1x{e}>"],
             [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW * IC, "acc": "f16", "bias": 2, "local_bound": False,
                        "out": "f16"}


def fp8_matmul(g, rng, e):
    N, H, C, W = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(1, 5))
    a, b = fp8_arg(g, [N, H, C], e), fp8_arg(g, [N, C, W], e)
    z = fp8_zero(g, e)
    out = ty([N, H, W], "f16")
    v = g.op(f"tosa.matmul {a}, {b}, {z}, {z}", [ty([N, H, C], e), ty([N, C, W], e), f"tensor<1x{e}>",
                                                 f"tensor<1x{e}>"], [out])
    return [(v, out)], {"rule": "dot", "ks": C, "acc": "f16", "bias": None, "local_bound": True, "out": "f16"}


def fp8_avg_pool(g, rng, e):
    IH, IW, KH, KW, pad, st, OH, OW = rg.pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = fp8_arg(g, [N, IH, IW, C], e)
    z = fp8_zero(g, e)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.avg_pool2d {a}, {z}, {z} {{acc_type = f16, kernel = array<i64: {KH}, {KW}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
             [ty([N, IH, IW, C], e), f"tensor<1x{e}>", f"tensor<1x{e}>"], [out])
    return [(v, out)], {"rule": "dot", "ks": KH * KW, "acc": "f16", "bias": None, "local_bound": True}


def fp8_cast(to_fp8):
    def f(g, rng, e):
        s = rg.rshape(rng)
        if to_fp8:
            a = g.arg(s, "f32", lo=-100.0, hi=100.0)
            v = g.op(f"tosa.cast {a}", [ty(s, "f32")], [ty(s, e)])
            return [(v, ty(s, e))], {"rule": "cast"}
        a = fp8_arg(g, s, e, -100.0, 100.0)
        v = g.op(f"tosa.cast {a}", [ty(s, e)], [ty(s, "bf16")])
        return [(v, ty(s, "bf16"))], {"rule": "exact"}  # every fp8 value is a bf16 value
    return f


def fp8_max_pool(g, rng, e):
    IH, IW, KH, KW, pad, st, OH, OW = rg.pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = fp8_arg(g, [N, IH, IW, C], e)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.max_pool2d {a} {{kernel = array<i64: {KH}, {KW}>, pad = array<i64: {', '.join(map(str, pad))}>, "
             f"stride = array<i64: {st[0]}, {st[1]}>}}", [ty([N, IH, IW, C], e)], [out])
    return [(v, out)], {"rule": "exact"}


# fp8 operators of TOSA 1.0 (pro_fp fp8 extensions); upstream MLIR 22 does not lower fp8 arithmetic, so these
# judge tosakit's own results only.
FP8_OPS = {"conv2d": fp8_conv2d, "matmul": fp8_matmul, "avg_pool2d": fp8_avg_pool, "cast_to_fp8": fp8_cast(True),
           "cast_from_fp8": fp8_cast(False), "max_pool2d": fp8_max_pool}

OPS = {
    "add": binary("add"), "sub": binary("sub"), "mul": binary("mul"),
    "pow": binary("pow", 0.1, 4.0, -2.0, 2.0),
    "ceil": unary("ceil", -8.0, 8.0), "floor": unary("floor", -8.0, 8.0),
    "reciprocal": unary("reciprocal", 0.1, 10.0), "rsqrt": unary("rsqrt", 0.01, 10.0),
    "log": unary("log", 0.01, 10.0), "erf": unary("erf", -3.0, 3.0),
    "exp": unary("exp", -6.0, 6.0), "sigmoid": unary("sigmoid", -8.0, 8.0), "tanh": unary("tanh", -5.0, 5.0),
    "sin": unary("sin", -6.0, 6.0), "cos": unary("cos", -6.0, 6.0),
    "cast_from_f32": cast_from("f32"), "cast_from_i16": cast_from("i16"), "cast_from_i32": cast_from("i32"),
    "conv2d": conv2d, "conv3d": conv3d, "depthwise_conv2d": depthwise, "transpose_conv2d": transpose_conv,
    "matmul": matmul, "avg_pool2d": avg_pool, "reduce_sum": reduce("reduce_sum"),
    "reduce_product": reduce("reduce_product", 0.5, 1.5), "resize_bilinear": resize,
    "fft2d": fft(False), "rfft2d": fft(True),
    "abs": exact_op(simple("abs")), "negate": exact_op(negate), "maximum": exact_op(simple("maximum", 2)),
    "minimum": exact_op(simple("minimum", 2)), "clamp": exact_op(clamp), "max_pool2d": exact_op(max_pool),
}

# Where upstream MLIR 22 is not compliant with the spec (the spec wins; kept as spec-following checks): the
# result must be judged NOT compliant, with this reason. (None at present. RFFT2D's imaginary terms at
# a = pi, where upstream adds -x*sin(float(pi)) = x*8.7e-8, are not one: 2.3.9 lets an implementation
# calculate them instead of skipping them; see fft_bound.)
KNOWN_DEVIATIONS = {}

ULP_COUNT = {"add": 0.5, "sub": 0.5, "mul": 0.5, "ceil": 0.5, "floor": 0.5, "cast": 0.5, "reciprocal": 1,
             "rsqrt": 2, "log": 5, "erf": 5}


# ---------------------------------------------------------------------------------------------------------
# Spec bounds (independent of src/compliance)

def ulp(ref, e):
    ref = np.asarray(ref, dtype=np.float64)
    a = np.abs(ref)
    with np.errstate(divide="ignore"):
        p = np.where(a > 0, 2.0 ** np.floor(np.log2(np.where(a > 0, a, 1.0))), 0.0)
    return np.where(a > 0, np.maximum(p, NMIN[e]) * 2.0 ** -FRAC[e], 0.0)


def calc_abs_error_bound(e, magnitude, bounds_value, lower_bound, normal_divisor):
    vb = np.maximum(np.abs(magnitude), NMIN[e])
    return 2.0 ** (-FRAC[e] / normal_divisor) * np.maximum(lower_bound, vb * bounds_value)


def bcast(a, shape):
    return np.broadcast_to(np.asarray(a, dtype=np.float64), shape)


def spec_bound(info, e, inputs_f64, ref, precise_abs):
    """Per-element allowed |out - ref| of the operator's precision requirements. precise_abs: a callable
    giving the fp64 op on the given inputs (output_bnd of 1.10.3)."""
    rule = info["rule"]
    shape = ref.shape
    x = bcast(inputs_f64[0], shape) if rule in ("exp", "sigmoid", "tanh", "sin", "cos", "pow") else None
    if rule in ULP_COUNT:
        return ULP_COUNT[rule] * ulp(ref, e)
    if rule == "exp":
        return calc_abs_error_bound(e, ref, 1 + np.abs(x), 0, 1)
    if rule == "sigmoid":
        return calc_abs_error_bound(e, ref, 2 * (1 + np.abs(x)), 0, 1)
    if rule == "tanh":
        return calc_abs_error_bound(e, ref, 4 * (1 + np.abs(x)), 0.5, 1)
    if rule == "sin":
        return np.maximum(calc_abs_error_bound(e, x, 1, 0, 2), math.pi * NMIN[e])
    if rule == "cos":
        return calc_abs_error_bound(e, 1 + np.abs(x), 1, 0, 2)
    if rule == "pow":
        y = bcast(inputs_f64[1], shape)
        return calc_abs_error_bound(e, ref, 2 * (1 + np.abs(np.log(np.abs(x)) * y)), 0, 1)
    if rule == "resize":
        m = np.max(np.abs(inputs_f64[0]))
        return np.full(shape, max(calc_abs_error_bound(e, m, 20.0, 0, 1), m * 0.006))
    if rule == "reduce_product":
        return np.maximum(np.abs(ref), NMIN[e]) * ((1 + 2.0 ** (-FRAC[e] - 1)) ** info["n"] - 1)
    if rule == "exact":
        return np.zeros(shape)
    if rule in ("dot", "fft"):
        out_e = info.get("out", e)
        bnd = precise_abs()
        acc = info.get("acc", e)
        bias = info.get("bias")
        has_bias = bias is not None and np.max(np.abs(inputs_f64[bias])) > 0
        ks = info["ks"]
        ksb = math.ceil(ks / 2 ** ((FRAC[acc] - FRAC[out_e]) // 2)) + (1 if has_bias else 0)
        return ksb * np.maximum(bnd * 2.0 ** (-1 - FRAC[out_e]), NMIN[out_e])
    raise ValueError(rule)


def fft_bound(inputs_f64, k, real, local_bound):
    """output_bnd of 1.10.3 for FFT2D/RFFT2D output k: sum of |input| * |coefficient|; without local_bound
    (the default of both operators) every |input| is the global maximum of the (interleaved) input."""
    re = np.abs(inputs_f64[0])
    im = np.zeros_like(re) if real else np.abs(inputs_f64[1])
    if not local_bound:
        m = max(re.max(), im.max())
        re, im = np.full(re.shape, m), (np.zeros_like(re) if real else np.full(im.shape, m))
    N, H, W = re.shape
    OW = W // 2 + 1 if real else W
    out = np.zeros((N, H, OW))
    for oy in range(H):
        for ox in range(OW):
            iy, ix = np.meshgrid(np.arange(H), np.arange(W), indexing="ij")
            a = 2 * np.pi * (((iy * oy) % H) / H + ((ix * ox) % W) / W)
            c, s = np.abs(np.cos(a)), np.abs(np.sin(a))
            if real:  # 2.3.9: no imaginary term unless (H > 1 && ay % (H/2) > 0) || (W > 1 && ax % (W/2) > 0)
                ay, ax = (iy * oy) % H, (ix * ox) % W
                term = ((H > 1) & (ay % max(1, H // 2) > 0)) | ((W > 1) & (ax % max(1, W // 2) > 0))
                # The terms it leaves out (a a multiple of pi) may still be calculated (2.3.9 lets an
                # implementation calculate the imaginary values rather than skip them): x*sin(a) with a = pi
                # or 2*pi rounded is not 0, so they count with the modulus 1 of exp(-i*a); a = 0 stays 0.
                s = np.where(term, s, np.where((ay == 0) & (ax == 0), 0.0, 1.0))
            out[:, oy, ox] = ((re * c + im * s) if k == 0 else (re * s + im * c)).sum(axis=(1, 2))
    return out


# ---------------------------------------------------------------------------------------------------------

def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def to_f64(a, elem):
    if elem in FP8:
        return fp8_table(elem)[np.asarray(a).astype(np.uint8)]
    if elem == "bf16":
        return mo.bf16_bits_to_f32(np.asarray(a).astype(np.uint16)).astype(np.float64)
    return np.asarray(a).astype(np.float64)


def from_f64(v, elem):
    if elem in FP8:
        return fp8_bits(v, elem)
    if elem == "bf16":
        return mo.f32_to_bf16_bits(np.asarray(v, dtype=np.float32))
    return np.asarray(v).astype(mo.ELEM[elem][0])


def check(tk, model, inputs, result):
    r = run([tk, "check", "--model", model, "--inputs", inputs, "--result", result, "--json"])
    try:
        rep = json.loads(r.stdout)
    except json.JSONDecodeError:
        return None, f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[:300]}"
    return (r.returncode, rep), ""


def summary(rep):
    return "; ".join(f"{x['name']}: {x['verdict']} {x['rule']} {x['reason']}" for x in rep["entries"])


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def record(self, case, verdict, detail=""):
        print(f"{verdict:<11} {case} {detail}".rstrip(), flush=True)
        if verdict == "PASS":
            self.passed += 1
        elif verdict == "FAIL":
            self.failed += 1
        else:
            self.skipped += 1


def run_case(a, name, e, index, tally, root):
    rng = np.random.default_rng([a.seed, index, sum(ord(c) * (i + 1) for i, c in enumerate(name + e))])
    g = rg.G(rng)
    made = (FP8_OPS if e in FP8 else OPS)[name](g, rng, e)
    if made is None:
        return
    results, info = made
    case = f"{name}_{e}_{index}"
    d = os.path.join(root, case)
    os.makedirs(d, exist_ok=True)
    model = os.path.join(d, "model.mlir")
    with open(model, "w") as f:
        f.write(g.module(results))
    inputs = os.path.join(d, "inputs.npz")
    np.savez(inputs, **g.inputs())
    out_elems = [mo.TensorType(t).elem for _, t in results]
    # tosakit's own result and the fp64 reference.
    own = os.path.join(d, "tosakit.npz")
    r = run([a.tosakit, "run", model, "--inputs", inputs, "-o", own])
    if r.returncode != 0:
        tally.record(case, "FAIL", f"tosakit run: {(r.stderr or r.stdout).strip()[:200]}")
        return
    precise = os.path.join(d, "precise.npz")
    r = run([a.tosakit, "run", model, "--inputs", inputs, "-o", precise, "--precise"])
    if r.returncode != 0:
        tally.record(case, "FAIL", f"tosakit run --precise: {(r.stderr or r.stdout).strip()[:200]}")
        return
    refs = [np.load(precise)[f"out{i}"].astype(np.float64) for i in range(len(results))]
    impls = [("tosakit", own)]
    if not a.no_upstream and e not in FP8:
        try:
            _, _, outs = mo.run_oracle(model, "main", inputs=g.inputs())
            up = os.path.join(d, "upstream.npz")
            np.savez(up, **{f"out{i}": o for i, o in enumerate(outs)})
            impls.append(("mlir22", up))
        except mo.Unsupported as ex:
            tally.record(case + "/mlir22", "UNSUPPORTED", str(ex)[:120])
        except (mo.BadInput, mo.OracleError) as ex:
            tally.record(case + "/mlir22", "FAIL", f"oracle: {ex}")
    # Spec bound of output 0.
    in_types = [t for t, _ in g.args]
    inputs_f64 = [to_f64(arr, mo.TensorType(t).elem) for t, arr in g.args]

    def precise_abs():
        if info["rule"] == "fft":
            return fft_bound(inputs_f64, 0, info["real"], info["local_bound"])
        absd = {}
        for i, (t, arr) in enumerate(g.args):
            el = mo.TensorType(t).elem
            v = np.abs(to_f64(arr, el))
            if i == 0 and not info.get("local_bound", True):
                v = np.full(v.shape, v.max() if v.size else 0.0)
            absd[f"arg{i}"] = from_f64(v, el) if el in FLOATS + FP8 else arr
        p_in = os.path.join(d, "abs_inputs.npz")
        p_out = os.path.join(d, "abs_precise.npz")
        np.savez(p_in, **absd)
        rr = run([a.tosakit, "run", model, "--inputs", p_in, "-o", p_out, "--precise"])
        if rr.returncode != 0:
            raise RuntimeError("tosakit run --precise on |inputs|: " + rr.stderr.strip()[:200])
        return np.load(p_out)["out0"].astype(np.float64)

    # Spec bound of output 0 (and of RFFT2D/FFT2D's imaginary output 1, whose terms at a = pi matter).
    moves = [(0, spec_bound(info, out_elems[0], inputs_f64, refs[0], precise_abs))]
    if info["rule"] == "fft":
        moves.append((1, spec_bound(info, out_elems[1], inputs_f64, refs[1],
                                    lambda: fft_bound(inputs_f64, 1, info["real"], info["local_bound"]))))
    for who, path in impls:
        got, err = check(a.tosakit, model, inputs, path)
        if got is None:
            tally.record(f"{case}/{who}", "FAIL", f"check: {err}")
            continue
        rc, rep = got
        known = KNOWN_DEVIATIONS.get((name, who))
        if known:
            bad = [x for x in rep["entries"] if x["verdict"] == "not_compliant"]
            if rc == 1 and bad and all(known in x["reason"] for x in bad):
                tally.record(f"{case}/{who}", "PASS", f"known upstream deviation: {bad[0]['reason'][:100]}")
            else:
                tally.record(f"{case}/{who}", "FAIL", f"expected the known deviation '{known}': {summary(rep)}")
            continue
        if rc != 0 or rep["counts"]["not_compliant"] or rep["counts"]["not_judged"]:
            tally.record(f"{case}/{who}", "FAIL", f"expected compliant: {summary(rep)}")
            continue
        verdict, detail = "PASS", ""
        for k, bound in moves:
            verdict, detail = check_moved(a, info, d, model, inputs, path, who, k, out_elems[k], refs[k], bound,
                                          inputs_f64)
            if verdict != "PASS":
                break
        tally.record(f"{case}/{who}", verdict, detail)


def check_moved(a, info, d, model, inputs, path, who, k, e0, ref_k, bound, inputs_f64):
    """Moves one element of output k to 8x the spec bound: check must say NOT compliant."""
    name = f"out{k}"
    z = np.load(path)
    outs = {n: z[n] for n in z.files}
    vals = to_f64(outs[name], e0).reshape(-1)
    ref = ref_k.reshape(-1)
    b = np.asarray(bound, dtype=np.float64).reshape(-1)
    elementwise = info["rule"] in ("exp", "sigmoid", "tanh", "sin", "cos", "pow", "log", "erf", "reciprocal",
                                   "rsqrt", "ceil", "floor", "add", "sub", "mul")
    x0 = np.asarray(bcast(inputs_f64[0], ref_k.shape)).reshape(-1) if elementwise else np.zeros_like(ref)
    pick = None
    for i in range(ref.size):
        step = 8 * b[i] if b[i] > 0 else 8 * ulp(ref[i], e0)
        if not (np.isfinite(ref[i]) and np.isfinite(x0[i]) and step > 0 and abs(ref[i]) + 2 * step < NMAX[e0] / 2):
            continue
        moved = float(to_f64(from_f64(ref[i] + step, e0), e0))
        if abs(moved - ref[i]) > (b[i] if b[i] > 0 else 0):
            pick = (i, moved)
            break
    if pick is None:
        return "SKIP", f"no element of {name} to move"
    i, moved = pick
    vals[i] = moved
    outs[name] = from_f64(vals.reshape(np.asarray(outs[name]).shape), e0)
    bad = os.path.join(d, f"{who}_moved{k}.npz")
    np.savez(bad, **outs)
    got, err = check(a.tosakit, model, inputs, bad)
    if got is None:
        return "FAIL", f"check (moved): {err}"
    rc, rep = got
    verdicts = {x["name"]: x["verdict"] for x in rep["entries"]}
    if rc != 1 or verdicts.get(name) != "not_compliant":
        return "FAIL", (f"{name} element {i} moved to {moved} (ref {ref[i]}, bound {b[i]}): "
                        f"expected NOT compliant: {summary(rep)}")
    return "PASS", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit", required=True)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--per-op", type=int, default=2)
    ap.add_argument("--ops", default="")
    ap.add_argument("--types", default=",".join(FLOATS + FP8))
    ap.add_argument("--no-upstream", action="store_true")
    ap.add_argument("--keep")
    a = ap.parse_args()
    names = [n for n in a.ops.split(",") if n] or list(OPS)
    for n in names:
        if n not in OPS and n not in FP8_OPS:
            print(f"check_random_ops: unknown op '{n}' (have: {', '.join(OPS)})", file=sys.stderr)
            return 2
    tally = Tally()
    root = a.keep or tempfile.mkdtemp(prefix="check-random-")
    cases = [(n, e) for n in names for e in a.types.split(",") if e in FLOATS]
    cases += [(n, e) for n in FP8_OPS for e in a.types.split(",") if e in FP8 and (not a.ops or n in names)]
    for n, e in cases:
        for i in range(a.per_op):
            try:
                run_case(a, n, e, i, tally, root)
            except Exception as ex:  # a bug of this script or of a tool: one failing case
                tally.record(f"{n}_{e}_{i}", "FAIL", f"{type(ex).__name__}: {ex}")
    if not a.keep:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
