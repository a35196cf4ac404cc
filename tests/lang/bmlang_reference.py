#!/usr/bin/python3
"""Independent expected values for tests/lang: BMLang's operator formulas (its operator reference)
written out in numpy / exact Python integers and fractions, with no TOSA in sight.

Usage: bmlang_reference.py OUTDIR   -> one OUTDIR/<case>.npz per case: the operands, the parameters (p_*) and
"expected". The C++ tests (lang_ops_test.cpp) build the same operator with tosakit::lang, run it on the
reference backend and compare bit for bit (integer outputs) or within a tolerance (fp32 outputs).

Conventions taken from the document:
  * "四舍五入的算术右移" (rounding arithmetic right shift) as the conv pseudocode writes it,
    (x + (1 << (r - 1))) >> r, and as mul_shift writes it, ((x >> (s - 1)) + 1) >> 1;
  * Round{} / round() of a real value: half away from zero (C round(), "四舍五入");
  * the float compensation of the HighPrecision modes, round(res * scale * 2^rshift + bias * scale), is
    evaluated exactly (fractions) - the document's "no precision loss" intent;
  * HighPrecisionAsymmetric: the document writes res = part1 + part2 and bias_v2 = bias + conv(zp_l, w - zp_r)
    and omits "+ zp_o"; the formula it implements, Round{[(x - zp_l) Conv (w - zp_r) + bias] * scale} + zp_o,
    needs part1 - part2, bias - zp_l * sum(w - zp_r) and + zp_o (an evident slip): we use those, and
    check_asym_intent() verifies them against the top-level formula.
"""
import math
import os
import sys
from fractions import Fraction

import numpy as np

RNG = np.random.default_rng(20261125)
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ---- arithmetic helpers ------------------------------------------------------------------------------

RANGE = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767), "u16": (0, 65535),
         "i32": (-2**31, 2**31 - 1)}
NP = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "fp32": np.float32}


def sat(x, t):
    lo, hi = RANGE[t]
    return np.clip(np.asarray(x, dtype=object), lo, hi).astype(np.int64).astype(NP[t])


def rs_conv(x, r):
    """(x + (1 << (r - 1))) >> r, for r > 0 (conv pseudocode)."""
    x = np.asarray(x, dtype=np.int64)
    return x if r == 0 else (x + (1 << (r - 1))) >> r


def rs_mul_shift(x, s):
    """((x >> (s - 1)) + 1) >> 1 (mul_shift's definition)."""
    x = np.asarray(x, dtype=np.int64)
    return x if s <= 0 else ((x >> (s - 1)) + 1) >> 1


def round_away(q):
    """Half away from zero of a Fraction."""
    f = math.floor(abs(q) + Fraction(1, 2))
    return f if q >= 0 else -f


def round_away_arr(vals):
    return np.array([round_away(v) for v in np.ravel(vals)], dtype=np.int64).reshape(np.shape(vals))


def bm_rshift(scale, use_floor=False):
    s = float(np.float32(scale))
    if not (0 < s <= 1):
        return 0
    l = math.log2(1.0 / s)
    return int(math.floor(l) if use_floor else math.ceil(l))


def rand_int(t, shape, lo=None, hi=None):
    a, b = RANGE[t]
    a = a if lo is None else lo
    b = b if hi is None else hi
    return RNG.integers(a, b + 1, size=shape).astype(NP[t])


def conv_nchw(x, w, pads, strides, dil, groups):
    """Plain grouped 2-D convolution in int64 (zero padding), NCHW x, OIHW w."""
    x = np.asarray(x, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    pt, pb, pl, pr = pads
    sh, sw = strides
    dh, dw = dil
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.int64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, oc, oh, ow), dtype=np.int64)
    ocg = oc // groups
    for o in range(oc):
        gi = o // ocg
        for y in range(oh):
            for xx in range(ow):
                win = xp[:, gi * icg:(gi + 1) * icg, y * sh:y * sh + (kh - 1) * dh + 1:dh,
                         xx * sw:xx * sw + (kw - 1) * dw + 1:dw]
                out[:, o, y, xx] = (win * w[o]).sum(axis=(1, 2, 3))
    return out


def conv_f(x, w, pads, strides, dil, groups):
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    pt, pb, pl, pr = pads
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - (kh - 1) * dil[0] - 1) // strides[0] + 1
    ow = (wd + pl + pr - (kw - 1) * dil[1] - 1) // strides[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for o in range(oc):
        gi = o // ocg
        for y in range(oh):
            for xx in range(ow):
                win = xp[:, gi * icg:(gi + 1) * icg, y * strides[0]:y * strides[0] + (kh - 1) * dil[0] + 1:dil[0],
                         xx * strides[1]:xx * strides[1] + (kw - 1) * dil[1] + 1:dil[1]]
                out[:, o, y, xx] = (win * w[o]).sum(axis=(1, 2, 3))
    return out


# ---- the three QCalModes, as the document's pseudocode ---------------------------------------------------

def quant_low(acc_fn, bias, scale, out_t):
    """LowPrecisionSymmetric: acc_fn(w) gives Convolution(input, weight)."""
    s = np.float32(scale)
    r = bm_rshift(scale)
    acc = acc_fn()
    if bias is not None:
        acc = acc + bias
    imm = rs_conv(acc, r)
    res = sat(imm, out_t).astype(np.int64)
    left = np.float32(np.float64(s) * 2.0 ** r)
    if left != np.float32(1.0):
        m = int(np.float64(left) * 2.0 ** 7)
        imm2 = (res * m + (1 << 6)) >> 7
        res = sat(imm2, out_t).astype(np.int64)
    return sat(res, out_t)


def quant_high_sym(acc_fn, bias, bias32, scale, out_t):
    S = Fraction(float(np.float32(scale)))
    r = bm_rshift(scale)
    acc = acc_fn()
    if bias is not None and not bias32:
        acc = acc + bias
    res = sat(rs_conv(acc, r), "i16").astype(np.int64)
    if bias32:
        vals = np.vectorize(lambda v, b: Fraction(int(v)) * S * 2 ** r + Fraction(int(b)) * S, otypes=[object])(res, bias)
    else:
        vals = np.vectorize(lambda v: Fraction(int(v)) * S * 2 ** r, otypes=[object])(res)
    return sat(round_away_arr(vals), out_t)


def quant_high_asym(acc1, acc2, bias_v2, scale, zpo, out_t, use_floor):
    S = Fraction(float(np.float32(scale)))
    r = bm_rshift(scale, use_floor)
    p1 = sat(rs_conv(acc1, r), "i16").astype(np.int64)
    p2 = sat(rs_conv(acc2, r), "i16").astype(np.int64)
    res = sat(p1 - p2, "i16").astype(np.int64)
    vals = np.vectorize(lambda v, b: Fraction(int(v)) * S * 2 ** r + Fraction(int(b)) * S, otypes=[object])(res, bias_v2)
    return sat(round_away_arr(vals) + zpo, out_t)


def check_asym_intent(x, w, bias, zpl, zpr, zpo, scale, got, conv):
    """The corrected decomposition agrees with Round{[(x - zp_l) Conv (w - zp_r) + bias] * scale} + zp_o
    up to the rounding of the two partial shifts (one unit per rounding, times scale * 2^r, plus one)."""
    # Padding: the decomposition reads padded positions as integer 0 (bias_v2 is one offline constant), i.e.
    # (pad(x, 0) - zp_l) Conv (w - zp_r).
    wz = w.astype(np.int64) - zpr
    ideal = conv(x.astype(np.int64), wz) - zpl * wz.reshape(wz.shape[0], -1).sum(axis=1).reshape(
        (1, -1) + (1,) * (x.ndim - 2)) if x.ndim == 4 else (x.astype(np.int64) - zpl) @ wz
    ideal = (ideal + bias) * float(np.float32(scale)) + zpo
    ideal = np.clip(ideal, *RANGE[{np.dtype(np.int8): "i8", np.dtype(np.uint8): "u8",
                                   np.dtype(np.int16): "i16", np.dtype(np.uint16): "u16"}[got.dtype]])
    assert np.max(np.abs(ideal - got.astype(np.float64))) <= 2.5, "asymmetric decomposition drifts from the formula"


def save(out, name, **arrays):
    np.savez(os.path.join(out, name + ".npz"), **arrays)


def conv_params(pads=(1, 1, 1, 1), strides=(1, 1), dil=(1, 1), groups=1):
    return dict(p_pad=np.array(pads), p_stride=np.array(strides), p_dil=np.array(dil), p_groups=np.array([groups]))


# ---- conv / matrix_mul per mode ----------------------------------------------------------------------

def conv_case(out, name, mode, in_t, out_t, scale, bias_t, zps=(0, 0, 0), groups=1, pads=(1, 1, 1, 1),
              strides=(1, 1), dil=(1, 1), oc=4, ic=4, small=False):
    x = rand_int(in_t, (1, ic, 6, 5), *((-4, 4) if small else (None, None)))
    wt = "u8" if in_t == "u8" and mode == 2 else "i8"
    w = rand_int(wt, (oc, ic // groups, 3, 3), *((None, None) if wt == "u8" else (-3, 3) if small else (-60, 60)))
    b = None if bias_t is None else rand_int(bias_t, (oc,), *((-20, 20) if small else (-3000, 3000)))
    bb = None if b is None else b.astype(np.int64).reshape(1, oc, 1, 1)
    conv = lambda a, k: conv_nchw(a, k, pads, strides, dil, groups)
    zpl, zpr, zpo = zps
    if mode == 0:
        y = quant_low(lambda: conv(x, w), bb, scale, out_t)
    elif mode == 1:
        y = quant_high_sym(lambda: conv(x, w), bb, bias_t == "i32", scale, out_t)
    else:
        wsum = (w.astype(np.int64) - zpr).reshape(oc, -1).sum(axis=1)
        bias_v2 = (0 if b is None else b.astype(np.int64)) - zpl * wsum
        y = quant_high_asym(conv(x, w), conv(x, np.full_like(w, zpr)), bias_v2.reshape(1, oc, 1, 1), scale, zpo,
                            out_t, True)
        check_asym_intent(x, w, 0 if b is None else b.reshape(1, oc, 1, 1), zpl, zpr, zpo, scale, y, conv)
    arrays = dict(x=x, w=w, expected=y, p_scale=np.array([scale]), p_mode=np.array([mode]), p_zp=np.array(zps),
                  **conv_params(pads, strides, dil, groups))
    if b is not None:
        arrays["b"] = b
    save(out, name, **arrays)


@case
def conv_cases(out):
    conv_case(out, "conv_low_i8", 0, "i8", "i8", 1 / 256, "i16")
    conv_case(out, "conv_low_i8_scale_left", 0, "i8", "i8", 0.0046, "i16", strides=(2, 2))
    conv_case(out, "conv_low_u8_out", 0, "i8", "u8", 1 / 256, "i16", pads=(0, 1, 2, 0))
    conv_case(out, "conv_low_u8_in", 0, "u8", "i8", 1 / 256, "i16")
    conv_case(out, "conv_low_depthwise", 0, "i8", "i8", 0.02, "i16", groups=4, dil=(2, 1))
    conv_case(out, "conv_low_depthwise_m2", 0, "u8", "i8", 0.011, "i16", groups=4, oc=8)
    conv_case(out, "conv_low_grouped", 0, "i8", "i8", 1 / 128, None, groups=2)
    conv_case(out, "conv_high_sym_bias16", 1, "i8", "i8", 0.0029296875, "i16")
    conv_case(out, "conv_high_sym_bias32", 1, "i8", "i16", 0.0371, "i32")
    conv_case(out, "conv_high_sym_u16", 1, "i8", "u16", 0.5, "i32")
    conv_case(out, "conv_low_scale_above_one", 0, "i8", "i8", 1.5, "i16", pads=(0, 0, 0, 0), small=True)
    conv_case(out, "conv_high_sym_scale_above_one", 1, "i8", "i8", 2.5, "i32", pads=(0, 0, 0, 0), small=True)
    conv_case(out, "conv_high_asym", 2, "i8", "i8", 0.0071, "i32", zps=(3, -2, 5))
    conv_case(out, "conv_high_asym_u8", 2, "u8", "u8", 0.0009, "i32", zps=(128, 120, 100))
    conv_case(out, "conv_high_asym_i16", 2, "i8", "i16", 0.07, None, zps=(-7, 4, -300), groups=2)


@case
def conv_fp32(out):
    x = RNG.standard_normal((1, 4, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    y = conv_f(x, w, (1, 0, 1, 2), (2, 1), (1, 1), 2) + b.reshape(1, 6, 1, 1)
    save(out, "conv_fp32", x=x, w=w, b=b, expected=y.astype(np.float32), p_scale=np.array([1.0]), p_mode=np.array([0]),
         p_zp=np.array([0, 0, 0]), **conv_params((1, 0, 1, 2), (2, 1), (1, 1), 2))


def deconv_ref(x, w, pads, strides):
    """PyTorch ConvTranspose2d (no groups/dilation) in int64 or float: w [IC, OC, KH, KW]."""
    n, ic, h, wd = x.shape
    _, oc, kh, kw = w.shape
    full = np.zeros((n, oc, (h - 1) * strides[0] + kh, (wd - 1) * strides[1] + kw), dtype=np.result_type(x, w, np.int64))
    for y in range(h):
        for xx in range(wd):
            full[:, :, y * strides[0]:y * strides[0] + kh, xx * strides[1]:xx * strides[1] + kw] += \
                np.einsum("ni,iokl->nokl", x[:, :, y, xx], w)
    pt, pb, pl, pr = pads
    return full[:, :, pt:full.shape[2] - pb, pl:full.shape[3] - pr]


@case
def deconv_cases(out):
    x = rand_int("i8", (1, 3, 4, 4))
    w = rand_int("i8", (3, 2, 3, 3), -50, 50)
    b = rand_int("i16", (2,), -500, 500)
    acc = lambda: deconv_ref(x.astype(np.int64), w.astype(np.int64), (1, 0, 1, 1), (2, 2)) + b.astype(np.int64).reshape(1, 2, 1, 1)
    y = quant_low(acc, None, 0.03, "i8")
    save(out, "deconv_low_i8", x=x, w=w, b=b, expected=y, p_scale=np.array([0.03]), p_mode=np.array([0]),
         p_zp=np.array([0, 0, 0]), **conv_params((1, 0, 1, 1), (2, 2)))
    xu = rand_int("u8", (1, 3, 3, 3))
    wu = rand_int("u8", (3, 2, 2, 2))
    accu = lambda: deconv_ref(xu.astype(np.int64), wu.astype(np.int64), (0, 0, 0, 0), (1, 2))
    save(out, "deconv_low_u8", x=xu, w=wu, expected=quant_low(accu, None, 1 / 512, "u8"), p_scale=np.array([1 / 512]),
         p_mode=np.array([0]), p_zp=np.array([0, 0, 0]), **conv_params((0, 0, 0, 0), (1, 2)))
    xf = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    wf = RNG.standard_normal((3, 2, 3, 3)).astype(np.float32)
    yf = deconv_ref(xf.astype(np.float64), wf.astype(np.float64), (1, 0, 1, 1), (2, 2))
    save(out, "deconv_fp32", x=xf, w=wf, expected=yf.astype(np.float32), p_scale=np.array([1.0]), p_mode=np.array([0]),
         p_zp=np.array([0, 0, 0]), **conv_params((1, 0, 1, 1), (2, 2)))


def conv3d_ref(x, w, pads, strides):
    x = np.asarray(x, dtype=np.int64 if x.dtype.kind in "iu" else np.float64)
    w = np.asarray(w, dtype=x.dtype)
    n, c, d, h, wd = x.shape
    oc, _, kd, kh, kw = w.shape
    xp = np.zeros((n, c, d + pads[0] + pads[1], h + pads[2] + pads[3], wd + pads[4] + pads[5]), dtype=x.dtype)
    xp[:, :, pads[0]:pads[0] + d, pads[2]:pads[2] + h, pads[4]:pads[4] + wd] = x
    od = (xp.shape[2] - kd) // strides[0] + 1
    oh = (xp.shape[3] - kh) // strides[1] + 1
    ow = (xp.shape[4] - kw) // strides[2] + 1
    out = np.zeros((n, oc, od, oh, ow), dtype=x.dtype)
    for z in range(od):
        for y in range(oh):
            for xx in range(ow):
                win = xp[:, :, z * strides[0]:z * strides[0] + kd, y * strides[1]:y * strides[1] + kh,
                         xx * strides[2]:xx * strides[2] + kw]
                out[:, :, z, y, xx] = np.einsum("ncdhw,ocdhw->no", win, w)
    return out


@case
def conv3d_cases(out):
    pads, strides = (1, 0, 0, 1, 1, 1), (1, 2, 1)
    x = rand_int("i8", (1, 2, 3, 4, 4))
    w = rand_int("i8", (3, 2, 2, 2, 2), -60, 60)
    b = rand_int("i32", (3,), -2000, 2000)
    common = dict(p_pad=np.array(pads), p_stride=np.array(strides))
    acc = conv3d_ref(x, w, pads, strides)
    b16 = np.clip(b, -32768, 32767).astype(np.int16)
    for mode, name, scale, zps in ((0, "conv3d_low", 1 / 64, (0, 0, 0)), (1, "conv3d_high_sym", 0.0123, (0, 0, 0)),
                                   (2, "conv3d_high_asym", 0.011, (2, -3, 4))):
        if mode == 0:
            bias = b16
            y = quant_low(lambda: acc, b16.astype(np.int64).reshape(1, 3, 1, 1, 1), scale, "i8")
        elif mode == 1:
            bias = b
            y = quant_high_sym(lambda: acc, b.astype(np.int64).reshape(1, 3, 1, 1, 1), True, scale, "i8")
        else:
            bias = b
            wsum = (w.astype(np.int64) - zps[1]).reshape(3, -1).sum(axis=1)
            y = quant_high_asym(acc, conv3d_ref(x, np.full_like(w, zps[1]), pads, strides),
                                (b.astype(np.int64) - zps[0] * wsum).reshape(1, 3, 1, 1, 1), scale, zps[2], "i8", True)
        save(out, name, x=x, w=w, b=bias, expected=y, p_scale=np.array([scale]), p_mode=np.array([mode]),
             p_zp=np.array(zps), **common)
    xf = RNG.standard_normal((1, 2, 3, 4, 4)).astype(np.float32)
    wf = RNG.standard_normal((3, 2, 2, 2, 2)).astype(np.float32)
    save(out, "conv3d_fp32", x=xf, w=wf, expected=conv3d_ref(xf, wf, pads, strides).astype(np.float32),
         p_scale=np.array([1.0]), p_mode=np.array([0]), p_zp=np.array([0, 0, 0]), **common)


def matmul_case(out, name, mode, lt, rt, out_t, scale, bias_t, zps=(0, 0, 0)):
    a = rand_int(lt, (3, 5))
    b = rand_int(rt, (5, 4), *((None, None) if rt == "u8" else (-100, 100)))
    bias = None if bias_t is None else rand_int(bias_t, (4,), -2000, 2000)
    mm = lambda p, q: p.astype(np.int64) @ q.astype(np.int64)
    bb = None if bias is None else bias.astype(np.int64).reshape(1, 4)
    zpl, zpr, zpo = zps
    if mode == 0:
        y = quant_low(lambda: mm(a, b), bb, scale, out_t)
    elif mode == 1:
        y = quant_high_sym(lambda: mm(a, b), bb, bias_t == "i32", scale, out_t)
    else:
        wsum = (b.astype(np.int64) - zpr).sum(axis=0)
        bias_v2 = (0 if bias is None else bias.astype(np.int64)) - zpl * wsum
        y = quant_high_asym(mm(a, b), mm(a, np.full_like(b, zpr)), bias_v2.reshape(1, 4), scale, zpo, out_t, False)
        check_asym_intent(a, b, 0 if bias is None else bias.reshape(1, 4), zpl, zpr, zpo, scale, y, mm)
    arrays = dict(x=a, w=b, expected=y, p_scale=np.array([scale]), p_mode=np.array([mode]), p_zp=np.array(zps))
    if bias is not None:
        arrays["b"] = bias
    save(out, name, **arrays)


@case
def matmul_cases(out):
    matmul_case(out, "matmul_low", 0, "i8", "i8", "i8", 1 / 128, "i16")
    matmul_case(out, "matmul_low_left", 0, "u8", "i8", "u8", 0.0021, None)
    matmul_case(out, "matmul_high_sym", 1, "i8", "i8", "i16", 0.0625 * 1.5, "i32")
    matmul_case(out, "matmul_high_sym_b16", 1, "i8", "i8", "i8", 0.008, "i16")
    matmul_case(out, "matmul_high_asym", 2, "i8", "i8", "i8", 0.0042, "i32", zps=(-5, 7, 3))
    matmul_case(out, "matmul_high_asym_u8", 2, "u8", "u8", "u8", 0.00021, "i32", zps=(130, 125, 128))
    a = RNG.standard_normal((3, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 4)).astype(np.float32)
    c = RNG.standard_normal(4).astype(np.float32)
    save(out, "matmul_fp32", x=a, w=b, b=c, expected=(a.astype(np.float64) @ b + c).astype(np.float32),
         p_scale=np.array([1.0]), p_mode=np.array([0]), p_zp=np.array([0, 0, 0]))


@case
def fc_int_cases(out):
    for name, it, kt, izp, kzp, trans in (("fc_int_i8", "i8", "i8", 3, -2, False), ("fc_int_u8", "u8", "u8", 128, 120, True)):
        x = rand_int(it, (2, 3, 6))
        k = rand_int(kt, (6, 5))
        b = rand_int("i32", (5,), -10000, 10000)
        y = (x.astype(np.int64) - izp).reshape(6, 6) @ (k.astype(np.int64) - kzp) + b
        save(out, name, x=x, w=(k.T.copy() if trans else k), b=b, expected=y.reshape(2, 3, 5).astype(np.int32),
             p_zp=np.array([izp, kzp]), p_trans=np.array([int(trans)]))


# ---- pooling --------------------------------------------------------------------------------------------

def windows(h, k, s, p0, p1, ceil_mode):
    span = h + p0 + p1 - k
    o = (-(-span // s) if ceil_mode else span // s) + 1
    return [(max(i * s - p0, 0), min(i * s - p0 + k, h)) for i in range(o)]


@case
def pool_int_cases(out):
    for name, t, avg, qm, scale, rshift, pads, ceil_mode in (
            ("pool_int_max_i8", "i8", False, 1, 1, 0, (1, 0, 1, 1), 0),
            ("pool_int_max_u8", "u8", False, 1, 1, 0, (0, 1, 0, 0), 1),
            ("pool_int_avg_mode1", "i8", True, 1, 1, 0, (1, 1, 1, 0), 0),
            ("pool_int_avg_mode1_u8", "u8", True, 1, 1, 0, (0, 0, 1, 1), 1),
            ("pool_int_avg_mode2", "i8", True, 2, 57, 9, (1, 1, 0, 1), 0)):
        x = rand_int(t, (1, 2, 5, 6))
        hw = windows(5, 3, 2, pads[0], pads[1], ceil_mode)
        ww = windows(6, 3, 2, pads[2], pads[3], ceil_mode)
        y = np.zeros((1, 2, len(hw), len(ww)), dtype=np.int64)
        for c in range(2):
            for i, (a, b) in enumerate(hw):
                for j, (cc, d) in enumerate(ww):
                    win = x[0, c, a:b, cc:d].astype(np.int64)
                    if not avg:
                        y[0, c, i, j] = win.max()
                    elif qm == 1:
                        y[0, c, i, j] = round_away(Fraction(int(win.sum()), win.size))
                    else:
                        v = int(win.sum()) * scale
                        y[0, c, i, j] = (v + (1 << (rshift - 1))) >> rshift if rshift > 0 else v
        save(out, name, x=x, expected=sat(y, t), p_avg=np.array([int(avg)]), p_qm=np.array([qm]),
             p_scale=np.array([scale]), p_rshift=np.array([rshift]), p_pad=np.array(pads), p_ceil=np.array([ceil_mode]))


@case
def pool_fp32(out):
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    xp = np.full((1, 2, 7, 7), -np.inf)
    xp[:, :, 1:6, 1:6] = x
    mx = np.zeros((1, 2, 3, 3))
    av = np.zeros((1, 2, 3, 3))
    x0 = np.zeros((1, 2, 7, 7))
    x0[:, :, 1:6, 1:6] = x
    for i in range(3):
        for j in range(3):
            mx[:, :, i, j] = xp[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(2, 3))
            av[:, :, i, j] = x0[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].mean(axis=(2, 3))
    save(out, "pool_fp32", x=x, expected_max=mx.astype(np.float32), expected_avg=av.astype(np.float32),
         expected=mx.astype(np.float32))


def pool_ref(x, k, s, pads, ceil_mode, is_max, count_pad):
    """fp32 pooling over H, W of NCHW; windows clipped to the input (max, and average without counting the
    padding) or divided by the whole window (average counting the padding zeros)."""
    n, c, h, w = x.shape
    hw = windows(h, k, s, pads[0], pads[1], ceil_mode)
    ww = windows(w, k, s, pads[2], pads[3], ceil_mode)
    y = np.zeros((n, c, len(hw), len(ww)))
    for i, (a, b) in enumerate(hw):
        for j, (cc, d) in enumerate(ww):
            win = x[:, :, a:b, cc:d].astype(np.float64)
            y[:, :, i, j] = win.max(axis=(2, 3)) if is_max else win.sum(axis=(2, 3)) / (k * k if count_pad else win[0, 0].size)
    return y.astype(np.float32)


@case
def pool_fp32_options(out):
    x = RNG.standard_normal((1, 2, 6, 6)).astype(np.float32)
    for name, k, s, pads, ceil_mode, is_max, count_pad, glob in (
            ("pool_max_ceil", 3, 2, (0, 0, 0, 0), 1, True, True, 0),
            ("pool_avg_exclude_pad", 3, 2, (1, 2, 1, 1), 0, False, False, 0),
            ("pool_avg_global", 6, 1, (0, 0, 0, 0), 0, False, True, 1)):
        save(out, name, x=x, expected=pool_ref(x, k, s, pads, ceil_mode, is_max, count_pad), p_k=np.array([k]),
             p_s=np.array([s]), p_pad=np.array(pads), p_ceil=np.array([ceil_mode]), p_max=np.array([int(is_max)]),
             p_countpad=np.array([int(count_pad)]), p_global=np.array([glob]))


# ---- element-wise -------------------------------------------------------------------------------------

@case
def elementwise_cases(out):
    a = rand_int("i8", (2, 3, 4))
    b = rand_int("i8", (2, 1, 4))
    au = rand_int("u8", (2, 3, 4))
    a16 = rand_int("i16", (2, 3, 4))
    bc = np.broadcast_to
    A, B, AU, A16 = (t.astype(np.int64) for t in (a, b, au, a16))
    save(out, "add_i8", x=a, y=b, expected=sat(A + B, "i8"))
    save(out, "add_i8_to_i16", x=a, y=b, expected=sat(A + B, "i16"))
    save(out, "sub_u8_i8_to_u8", x=au, y=b, expected=sat(AU - B, "u8"))
    save(out, "mul_i8_to_i16", x=a, y=b, expected=sat(A * B, "i16"))
    s16 = (a16 % 5 - 2).astype(np.int16)
    save(out, "mul_i16_to_i8", x=s16, y=b, expected=sat(s16.astype(np.int64) * B, "i8"))
    save(out, "max_i8", x=a, y=b, expected=np.maximum(A, bc(B, A.shape)).astype(np.int8))
    bu = rand_int("u8", (2, 3, 1))
    save(out, "min_u8", x=au, y=bu, expected=np.minimum(AU, bu.astype(np.int64)).astype(np.uint8))
    save(out, "adds_i8", x=a, p_s=np.array([100]), expected=sat(A + 100, "i8"))
    save(out, "subs_u8", x=au, p_s=np.array([77]), expected=sat(AU - 77, "u8"))
    save(out, "rsubs_i8_to_i16", x=a, p_s=np.array([-300]), expected=sat(-300 - A, "i16"))
    save(out, "muls_i8_to_u16", x=a, p_s=np.array([-250]), expected=sat(A * -250, "u16"))
    save(out, "maxs_i16", x=a16, p_s=np.array([-5]), expected=np.maximum(A16, -5).astype(np.int16))
    save(out, "mins_u8", x=au, p_s=np.array([200]), expected=np.minimum(AU, 200).astype(np.uint8))
    # _shift forms: int32 intermediate, mul_shift's rounding shift, saturation
    save(out, "add_shift_i8", x=a, y=b, p_shift=np.array([1]), expected=sat(rs_mul_shift(A + B, 1), "i8"))
    save(out, "sub_shift_u8_i16", x=au, y=b, p_shift=np.array([2]), expected=sat(rs_mul_shift(AU - B, 2), "i16"))
    save(out, "mul_shift_i8", x=a, y=b, p_shift=np.array([6]), expected=sat(rs_mul_shift(A * B, 6), "i8"))
    save(out, "mul_shift_i16_u8", x=a16, y=au[:, :, :4], p_shift=np.array([11]), expected=sat(rs_mul_shift(A16 * AU, 11), "i16"))
    save(out, "adds_shift_i8", x=a, p_s=np.array([-33]), p_shift=np.array([3]), expected=sat(rs_mul_shift(A - 33, 3), "i8"))
    save(out, "subs_shift_i16", x=a16, p_s=np.array([1000]), p_shift=np.array([4]), expected=sat(rs_mul_shift(A16 - 1000, 4), "i16"))
    save(out, "rsubs_shift_u8", x=au, p_s=np.array([100]), p_shift=np.array([1]), expected=sat(rs_mul_shift(100 - AU, 1), "i8"))
    save(out, "muls_shift_i8", x=a, p_s=np.array([93]), p_shift=np.array([7]), expected=sat(rs_mul_shift(A * 93, 7), "i8"))
    # fp32 forms
    f = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    g = (RNG.standard_normal((2, 1, 4)) + 3).astype(np.float32)
    F, G = f.astype(np.float64), g.astype(np.float64)
    save(out, "add_fp32", x=f, y=g, expected=(f + g))
    save(out, "mul_fp32", x=f, y=g, expected=(f * g))
    save(out, "div_fp32", x=f, y=g, expected=(F / G).astype(np.float32))
    save(out, "divs_fp32", x=f, p_s=np.array([3.0]), expected=(F / 3.0).astype(np.float32))
    save(out, "rdivs_fp32", x=g, p_s=np.array([2.0]), expected=(2.0 / G).astype(np.float32))


@case
def shift_cases(out):
    x32 = rand_int("i32", (2, 5), -10**6, 10**6)
    n32 = np.array([[3, -2, 0, 5, -7]] * 2, dtype=np.int32)
    X, N = x32.astype(np.int64), n32.astype(np.int64)
    save(out, "arith_lshift_i32", x=x32, y=n32, expected=np.where(N >= 0, X << np.maximum(N, 0), X >> np.maximum(-N, 0)).astype(np.int32))
    save(out, "arith_rshift_i32", x=x32, y=n32, expected=np.where(N >= 0, X >> np.maximum(N, 0), X << np.maximum(-N, 0)).astype(np.int32))
    x16 = rand_int("i16", (2, 5), -2000, 2000)
    n16 = np.array([[1, -2, 3, 0, -4]] * 2, dtype=np.int16)
    X, N = x16.astype(np.int64), n16.astype(np.int64)
    save(out, "arith_lshift_i16", x=x16, y=n16, expected=np.where(N >= 0, X << np.maximum(N, 0), X >> np.maximum(-N, 0)).astype(np.int16))
    xu = rand_int("u16", (2, 5), 0, 65535)
    XU = xu.astype(np.int64)
    save(out, "arith_rshifts_u16", x=xu, p_s=np.array([3]), expected=(XU >> 3).astype(np.uint16))
    save(out, "arith_lshifts_i16", x=x16, p_s=np.array([2]), expected=((x16.astype(np.int64) << 2)).astype(np.int16))
    save(out, "arith_rshifts_i32_neg", x=x32, p_s=np.array([-4]), expected=(x32.astype(np.int64) << 4).astype(np.int32))
    nr = np.array([[0, 1, 4, 9, 15]] * 2, dtype=np.int16)
    xr = rand_int("i16", (2, 5), -2000, 2000)
    rr = np.array([[rs_mul_shift(v, k) for v, k in zip(r1, r2)] for r1, r2 in zip(xr.astype(np.int64), nr.astype(np.int64))])
    save(out, "round_rshift_i16_to_i8", x=xr, y=nr, expected=sat(rr, "i8"))
    xr2 = rand_int("u16", (2, 5))
    save(out, "round_rshifts_u16_to_u8", x=xr2, p_s=np.array([8]), expected=sat(rs_mul_shift(xr2.astype(np.int64), 8), "u8"))


@case
def misc_cases(out):
    a = rand_int("i8", (2, 8))
    A = a.astype(np.int64)
    save(out, "clamp_i8", x=a, p_lo=np.array([-20.0]), p_hi=np.array([50.0]), expected=np.clip(A, -20, 50).astype(np.int8))
    au = rand_int("u8", (2, 8))
    save(out, "clamp_u8", x=au, p_lo=np.array([10.0]), p_hi=np.array([200.0]), expected=np.clip(au, 10, 200).astype(np.uint8))
    # cast: saturate; float -> int rounds half away from zero
    f = np.array([[-130.5, -2.5, -0.5, 0.49999997, 0.5, 1.5, 2.5, 300.2],
                  [126.5, 127.5, -127.5, -128.5, 3.7, -3.7, 1e10, -1e10]], dtype=np.float32)
    fr = np.sign(f.astype(np.float64)) * np.floor(np.abs(f.astype(np.float64)) + 0.5)
    save(out, "cast_fp32_i8", x=f, expected=sat(fr.astype(np.int64), "i8"))
    save(out, "cast_fp32_u8", x=f, expected=sat(fr.astype(np.int64), "u8"))
    save(out, "cast_fp32_i32", x=f, expected=np.clip(fr, -2**31, 2**31 - 1).astype(np.int64).astype(np.int32))
    x16 = rand_int("i16", (2, 8))
    x16 = (x16 % 600 - 100).astype(np.int16)
    save(out, "cast_i16_u8", x=x16, expected=sat(x16, "u8"))
    save(out, "cast_u8_fp32", x=au, expected=au.astype(np.float32))
    xu16 = rand_int("u16", (2, 8))
    save(out, "cast_u16_i16", x=xu16, expected=sat(xu16, "i16"))
    # active (integer: relu/abs with saturation; fp32 activations)
    x = rand_int("i16", (2, 8), -256, 255)
    save(out, "active_relu_i16_to_i8", x=x, expected=sat(np.maximum(x.astype(np.int64), 0), "i8"))
    save(out, "active_abs_i8", x=a, expected=sat(np.abs(A), "i8"))
    f = RNG.uniform(-3, 3, (2, 8)).astype(np.float32)
    F = f.astype(np.float64)
    fp = np.abs(F) + 0.1
    acts = {"tanh": np.tanh(F), "sigmoid": 1 / (1 + np.exp(-F)), "relu": np.maximum(F, 0), "exp": np.exp(F),
            "elu": np.where(F > 0, F, np.exp(F) - 1), "square": F * F, "absval": np.abs(F),
            "round": np.sign(F) * np.floor(np.abs(F) + 0.5), "ceil": np.ceil(F), "floor": np.floor(F),
            "sin": np.sin(F), "cos": np.cos(F), "leaky_relu": np.where(F > 0, F, 0.1 * F)}
    for k, v in acts.items():
        save(out, "active_" + k, x=f, expected=v.astype(np.float32))
    for k, v in {"sqrt": np.sqrt(fp), "rsqrt": 1 / np.sqrt(fp), "ln": np.log(fp)}.items():
        save(out, "active_" + k, x=fp.astype(np.float32), expected=v.astype(np.float32))
    # comparisons: 1/0 in the input type
    b = rand_int("i8", (2, 8))
    b[0, :4] = a[0, :4]
    B = b.astype(np.int64)
    for k, v in {"gt": A > B, "ge": A >= B, "lt": A < B, "le": A <= B, "eq": A == B, "ne": A != B}.items():
        save(out, "cmp_" + k, x=a, y=b, expected=v.astype(np.int8))
    # lut: entry index = the input byte read as unsigned
    tab = rand_int("i8", (256,))
    save(out, "lut_i8", x=a, w=tab, expected=tab[a.view(np.uint8)])
    tabu = rand_int("u8", (256,))
    save(out, "lut_u8", x=au, w=tabu, expected=tabu[au])
    tabf = RNG.standard_normal(256).astype(np.float32)
    save(out, "lut_fp32", x=a, w=tabf, expected=tabf[a.view(np.uint8)])
    # select / condition_select
    c, d = rand_int("i8", (2, 8)), rand_int("i8", (2, 8))
    save(out, "select_gt", x=a, y=b, w=c, b=d, expected=np.where(A > B, c, d))
    save(out, "select_ge", x=a, y=b, w=c, b=d, expected=np.where(A >= B, c, d))
    save(out, "condition_select", x=a, w=c, b=np.array([7], dtype=np.int8), expected=np.where(A > 0, c, np.int8(7)))


# ---- quantization -------------------------------------------------------------------------------------

def requant_int32_ref(x, mult, shift, offset, mode, out_t):
    """The document's three modes, in exact integers. mult/shift/offset broadcast along axis 1."""
    x = x.astype(np.int64)
    m = np.broadcast_to(mult, x.shape).astype(np.int64)
    s = np.broadcast_to(shift, x.shape).astype(np.int64)
    o = np.broadcast_to(offset, x.shape).astype(np.int64)
    y = np.zeros_like(x)
    half_up = lambda v, k: (v + (1 << (k - 1))) >> k if k > 0 else v
    half_away = lambda v, k: (np.sign(v) * ((abs(v) + (1 << (k - 1))) >> k)) if k > 0 else v
    for i in np.ndindex(x.shape):
        v, mm, ss, oo = int(x[i]), int(m[i]), int(s[i]), int(o[i])
        if mode == 0:
            v = v << ss if ss > 0 else v
            v = v & 0xFFFFFFFF
            v = v - (1 << 32) if v >= 1 << 31 else v   # int32 shift result
            v = min(max(half_up(v * mm, 31), -2**31), 2**31 - 1)
            v = half_away(v, -ss) if ss < 0 else v
        elif mode == 1:
            v = min(max(half_up(v * mm, 31), -2**31), 2**31 - 1)
            v = half_away(v, -ss)
        else:
            v = v * mm
            v = v << ss if ss > 0 else half_up(v, -ss)
        y[i] = v + oo
    return sat(y, out_t)


@case
def quant_cases(out):
    x = rand_int("i32", (1, 3, 2, 4), -2**20, 2**20)
    for name, mode, pc, mult, shift, offset, out_t in (
            ("requant_int32_mode0", 0, False, 1518500250, -13, 3, "i8"),
            ("requant_int32_mode0_left", 0, False, 1073741824 + 12345, 2, -7, "i16"),
            ("requant_int32_mode0_pc", 0, True, [1518500250, 2000000000, 123456789], [-14, -13, -9], [1, -2, 100], "u8"),
            ("requant_int32_mode1", 1, False, 1932735283, -14, -4, "i8"),
            ("requant_int32_mode1_pc", 1, True, [1932735283, -1000000000, 7], [-3, -10, 0], [0, 5, -5], "i16"),
            ("requant_int32_mode2", 2, False, 77, -13, 2, "i8"),
            ("requant_int32_mode2_pc", 2, True, [3, -5, 9], [-4, -2, -3], [30000, 30000, 30001], "u16")):
        xx = (x // 64).astype(np.int32) if mode == 2 else (x // 256).astype(np.int32) if name.endswith("left") else x
        pcs = lambda v: np.array(v, dtype=np.int64).reshape(1, 3, 1, 1) if pc else np.array(v, dtype=np.int64)
        y = requant_int32_ref(xx, pcs(mult), pcs(shift), pcs(offset), mode, out_t)
        save(out, name, x=xx, expected=y, p_mode=np.array([mode]), p_pc=np.array([int(pc)]),
             p_mult=np.atleast_1d(mult), p_shift=np.atleast_1d(shift), p_offset=np.atleast_1d(offset))
    f = (RNG.standard_normal((1, 3, 2, 4)) * 40).astype(np.float32)
    f[0, 0, 0, :4] = [2.5, -2.5, 0.5, -1.5]
    for name, mode, pc, scale, offset, out_t in (
            ("requant_fp32_mode0", 0, False, 1.0, 3, "i8"),
            ("requant_fp32_mode0_pc", 0, True, [0.5, 2.0, 1.25], [0, -3, 128], "u8"),
            ("requant_fp32_mode1", 1, False, 0.75, 0.5, "i16")):
        sc = np.array(scale, dtype=np.float32).reshape((1, 3, 1, 1) if pc else ())
        v = (f * sc).astype(np.float32)   # fp32 product, as the hardware's float multiply
        if mode == 1:
            v = (v + np.float32(offset)).astype(np.float32)
        r = np.sign(v.astype(np.float64)) * np.floor(np.abs(v.astype(np.float64)) + 0.5)
        if mode == 0:
            r = r + np.array(offset, dtype=np.float64).reshape((1, 3, 1, 1) if pc else ())
        save(out, name, x=f, expected=sat(r.astype(np.int64), out_t), p_mode=np.array([mode]), p_pc=np.array([int(pc)]),
             p_scale=np.atleast_1d(np.array(scale, dtype=np.float64)), p_offset=np.atleast_1d(np.array(offset, dtype=np.float64)))
    xi = rand_int("i8", (1, 3, 2, 2))
    xu = rand_int("u8", (1, 3, 2, 2))
    xf = rand_int("i16", (1, 3, 2, 2))
    y = ((xf.astype(np.float32) - np.float32(2.5)) * np.float32(0.125)).astype(np.float32)
    save(out, "dequant_mode1_i16", x=xf, expected=y, p_mode=np.array([1]), p_pc=np.array([0]),
         p_scale=np.array([0.125]), p_offset=np.array([2.5]))
    for name, x_, pc, scale, offset in (("dequant_i8", xi, False, 0.05, -3), ("dequant_u8_pc", xu, True, [0.1, 0.02, 1.5], [128, 120, 0])):
        sc = np.array(scale, dtype=np.float32).reshape((1, 3, 1, 1) if pc else ())
        of = np.array(offset, dtype=np.int64).reshape((1, 3, 1, 1) if pc else ())
        y = ((x_.astype(np.int64) - of).astype(np.float32) * sc).astype(np.float32)
        save(out, name, x=x_, expected=y, p_mode=np.array([0]), p_pc=np.array([int(pc)]),
             p_scale=np.atleast_1d(np.array(scale, dtype=np.float64)), p_offset=np.atleast_1d(np.array(offset, dtype=np.float64)))


# ---- data arrangement ---------------------------------------------------------------------------------

@case
def data_cases(out):
    x = rand_int("i8", (2, 3, 4))
    save(out, "permute", x=x, expected=np.transpose(x, (1, 2, 0)).copy())
    save(out, "tile", x=x, expected=np.tile(x, (2, 1, 3)))
    save(out, "broadcast", x=x, expected=np.tile(x, (1, 2, 2)))
    y = rand_int("i8", (2, 2, 4))
    save(out, "concat", x=x, y=y, expected=np.concatenate([x, y], axis=1))
    save(out, "split", x=x, expected0=x[:, :1], expected1=x[:, 1:], expected=x[:, :1])
    m = np.arange(1, 10, dtype=np.int16).reshape(3, 3)
    save(out, "pad_constant", x=m, expected=np.pad(m, ((2, 1), (1, 2)), constant_values=-4))
    save(out, "pad_reflect", x=m, expected=np.pad(m, ((2, 1), (1, 2)), mode="reflect"))
    save(out, "pad_symmetric", x=m, expected=np.pad(m, ((2, 1), (1, 2)), mode="symmetric"))
    save(out, "pad_edge", x=m, expected=np.pad(m, ((2, 1), (1, 2)), mode="edge"))
    r = rand_int("i8", (10, 2, 3, 4))
    save(out, "reshape", x=r, expected=r.reshape(10, 6, 2, 2))
    s = rand_int("i8", (1, 3, 1, 2))
    save(out, "squeeze", x=s, expected=s.reshape(3, 2))
    save(out, "expand_dims", x=x, expected=x.reshape(2, 1, 1, 3, 4))
    t = (RNG.standard_normal((3, 4))).astype(np.float32)
    idx = np.array([2, 0, 2], dtype=np.int32)
    save(out, "index_select", x=t, y=idx, expected=t[:, idx])
    # reduce
    f = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    F = f.astype(np.float64)
    save(out, "reduce_mean", x=f, expected=F.mean(axis=(0, 2), keepdims=True).astype(np.float32))
    save(out, "reduce_prod", x=f, expected=F.prod(axis=(1,)).astype(np.float32))
    save(out, "reduce_sum_i8", x=x, expected=sat(x.astype(np.int64).sum(axis=2, keepdims=True), "i8"))
    xu = rand_int("u8", (2, 3, 4))
    save(out, "reduce_max_u8", x=xu, expected=xu.max(axis=1))
    # arg / topk(k=1): first index on ties
    xa = rand_int("i8", (6, 7), -3, 3)
    save(out, "arg_max", x=xa, expected=np.argmax(xa, axis=1).reshape(6, 1).astype(np.int32))
    save(out, "arg_min", x=xa, expected=np.argmin(xa, axis=1).reshape(6, 1).astype(np.int32))
    xau = rand_int("u8", (5, 8))
    save(out, "arg_min_u8", x=xau, expected=np.argmin(xau, axis=0).reshape(1, 8).astype(np.int32))
    save(out, "topk1", x=f, expected=f.max(axis=2, keepdims=True), expected1=np.argmax(f, axis=2)[..., None].astype(np.int32))
    # upsample / interpolate
    u = np.array([[[[2, 3, 4], [7, 8, 9]]]], dtype=np.int8)
    save(out, "upsample", x=u, expected=u.repeat(2, axis=2).repeat(2, axis=3))
    img = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    save(out, "interpolate_bilinear_align", x=img, expected=bilinear(img, 5, 7, True))
    save(out, "interpolate_bilinear_half", x=img, expected=bilinear(img, 6, 8, False))
    # nearest, asymmetric coordinates in = out * I / O, TOSA rounding half up: index floor(in + 1/2)
    iy = [min(int(np.floor(o * 3 / 6 + 0.5)), 2) for o in range(6)]
    ix = [min(int(np.floor(o * 4 / 8 + 0.5)), 3) for o in range(8)]
    save(out, "interpolate_nearest", x=img, expected=img[:, :, iy][:, :, :, ix])
    # softmax, batch_norm
    save(out, "softmax", x=f, expected=(np.exp(F - F.max(axis=1, keepdims=True)) /
                                         np.exp(F - F.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)).astype(np.float32))
    bn = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    mean, var = RNG.standard_normal(3).astype(np.float32), RNG.uniform(0.5, 2, 3).astype(np.float32)
    gamma, beta = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    c = lambda v: v.astype(np.float64).reshape(1, 3, 1, 1)
    save(out, "batch_norm", x=bn, mean=mean, var=var, gamma=gamma, beta=beta,
         expected=((bn - c(mean)) / np.sqrt(c(var) + 1e-5) * c(gamma) + c(beta)).astype(np.float32))


def bilinear(x, oh, ow, align):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    def src(o, O, I):
        if align:
            return o * (I - 1) / (O - 1)
        return max((o + 0.5) * I / O - 0.5, 0.0)
    for i in range(oh):
        y = src(i, oh, h)
        y0 = min(int(np.floor(y)), h - 1)
        y1 = min(y0 + 1, h - 1)
        dy = y - y0
        for j in range(ow):
            xx = src(j, ow, w)
            x0 = min(int(np.floor(xx)), w - 1)
            x1 = min(x0 + 1, w - 1)
            dx = xx - x0
            out[:, :, i, j] = ((1 - dy) * (1 - dx) * x[:, :, y0, x0] + (1 - dy) * dx * x[:, :, y0, x1] +
                               dy * (1 - dx) * x[:, :, y1, x0] + dy * dx * x[:, :, y1, x1])
    return out.astype(np.float32)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for fn in CASES.values():
        fn(out)


if __name__ == "__main__":
    main()

