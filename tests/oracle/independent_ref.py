#!/usr/bin/python3
"""Plain numpy transcriptions of a few TOSA 1.0 operators, written from the spec pseudocode (not from tosakit).

Used to compute expected values of the hand-written fixtures and of the known-deviation cases, independently of
both tosakit and upstream MLIR. Integer math is done in Python ints / int64 so nothing wraps silently.
Section numbers refer to tosa-1.0-specification.txt.
"""
import numpy as np


def conv2d(x, w, bias, input_zp=0, weight_zp=0, pad=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1),
           acc="int"):
    """2.3.3 CONV2D. x: [N,IH,IW,IC], w: [OC,KH,KW,IC], bias: [OC] or [1]; pad = top,bottom,left,right.

    acc="int": exact integer accumulation (int32/int48 acc_t; the fixture values stay far from overflow).
    acc="f64": fp64 accumulation, the spec's reference_fp64 for floating-point compliance (1.10.3).
    """
    N, IH, IW, IC = x.shape
    OC, KH, KW, _ = w.shape
    pt, pb, pl, pr = pad
    sy, sx = stride
    dy, dx = dilation
    OH = (IH - 1 + pt + pb - (KH - 1) * dy) // sy + 1
    OW = (IW - 1 + pl + pr - (KW - 1) * dx) // sx + 1
    if acc == "int":
        xs = x.astype(np.int64) - int(input_zp)
        ws = w.astype(np.int64) - int(weight_zp)
        out = np.zeros((N, OH, OW, OC), dtype=np.int64)
    else:
        xs = x.astype(np.float64)
        ws = w.astype(np.float64)
        out = np.zeros((N, OH, OW, OC), dtype=np.float64)
    for n in range(N):
        for oy in range(OH):
            for ox in range(OW):
                iy = oy * sy - pt
                ix = ox * sx - pl
                for oc in range(OC):
                    a = 0
                    for ky in range(KH):
                        for kx in range(KW):
                            y = iy + ky * dy
                            xx = ix + kx * dx
                            if 0 <= y < IH and 0 <= xx < IW:  # padding contributes value 0
                                a += np.dot(xs[n, y, xx, :], ws[oc, ky, kx, :])
                    b = bias[0] if len(bias) == 1 else bias[oc]
                    out[n, oy, ox, oc] = a + (int(b) if acc == "int" else float(b))
    return out


def apply_scale_32(value, multiplier, shift, double_round):
    """4.5.5 apply_scale_32 (the REQUIREs are asserted)."""
    value, multiplier, shift = int(value), int(multiplier), int(shift)
    assert multiplier >= 0 and 2 <= shift <= 62
    assert -(1 << (shift - 1)) <= value < (1 << (shift - 1))
    rnd = 1 << (shift - 1)
    if double_round and shift > 31:
        rnd += (1 << 30) if value >= 0 else -(1 << 30)
    return (value * multiplier + rnd) >> shift  # Python >> floors, as the spec's int64 arithmetic shift


def apply_scale_16(value, multiplier, shift):
    value, multiplier, shift = int(value), int(multiplier), int(shift)
    assert multiplier >= 0 and 2 <= shift <= 62
    r = (value * multiplier + (1 << (shift - 1))) >> shift
    assert -(1 << 31) <= r < (1 << 31)
    return r


def rescale(x, multiplier, shift, input_zp, output_zp, out_bits, scale32=True, double_round=False,
            per_channel=False, input_unsigned=False, output_unsigned=False, in_bits=32):
    """2.13.2 RESCALE for signed/unsigned integer data (x holds the signless bit patterns as ints)."""
    out = np.zeros(x.shape, dtype=np.int64)
    for idx in np.ndindex(*x.shape):
        v = int(x[idx])
        izp = int(input_zp)
        if input_unsigned:
            v &= (1 << in_bits) - 1
            izp &= (1 << in_bits) - 1
        v -= izp
        c = idx[-1] if per_channel else 0
        r = (apply_scale_32(v, multiplier[c], shift[c], double_round) if scale32
             else apply_scale_16(v, multiplier[c], shift[c]))
        if output_unsigned:
            r += int(output_zp) & ((1 << out_bits) - 1)
            r = min(max(r, 0), (1 << out_bits) - 1)
            r = r - (1 << out_bits) if r >= (1 << (out_bits - 1)) else r  # store the bit pattern signless
        else:
            r += int(output_zp)
            r = min(max(r, -(1 << (out_bits - 1))), (1 << (out_bits - 1)) - 1)
        out[idx] = r
    return out


def clamp_int(x, lo, hi):
    """2.4.1 CLAMP for integers: apply_min_s(apply_max_s(x, min_val), max_val)."""
    return np.minimum(np.maximum(x, lo), hi)


def idiv_floor(a, b):
    return a // b  # Python floors, as the spec's idiv_floor


def resize_int(x, scale, offset, border, mode):
    """2.12.1 RESIZE with integer resize_t (int8 -> int32 bilinear / int8 nearest). scale = [yn, yd, xn, xd]."""
    N, IH, IW, C = x.shape
    syn, syd, sxn, sxd = scale
    oy_off, ox_off = offset
    by, bx = border
    OH = (IH - 1) * syn - oy_off + by
    OW = (IW - 1) * sxn - ox_off + bx
    assert OH % syd == 0 and OW % sxd == 0
    OH, OW = OH // syd + 1, OW // sxd + 1
    out = np.zeros((N, OH, OW, C), dtype=np.int64)
    for n in range(N):
        for oy in range(OH):
            for ox in range(OW):
                y = oy * syd + oy_off
                xx = ox * sxd + ox_off
                iy = idiv_floor(y, syn)
                ix = idiv_floor(xx, sxn)
                dy = y - iy * syn
                dx = xx - ix * sxn
                iy0, iy1 = max(iy, 0), min(iy + 1, IH - 1)
                ix0, ix1 = max(ix, 0), min(ix + 1, IW - 1)
                for c in range(C):
                    if mode == "BILINEAR":
                        v00, v01 = int(x[n, iy0, ix0, c]), int(x[n, iy0, ix1, c])
                        v10, v11 = int(x[n, iy1, ix0, c]), int(x[n, iy1, ix1, c])
                        a = v00 * (syn - dy) * (sxn - dx) + v01 * (syn - dy) * dx
                        a += v10 * dy * (sxn - dx) + v11 * dy * dx
                        out[n, oy, ox, c] = a
                    else:
                        yy = iy1 if 2 * dy >= syn else iy0
                        xq = ix1 if 2 * dx >= sxn else ix0
                        out[n, oy, ox, c] = int(x[n, yy, xq, c])
    return out


def max_pool2d_float(x, kernel, stride, pad, nan_mode="PROPAGATE"):
    """2.3.8 MAX_POOL2D for floats. Padding never contributes (the spec starts from the lowest value and
    reads only in-bounds elements); nan_mode IGNORE: NaN elements are skipped, an all-NaN window gives NaN."""
    N, IH, IW, C = x.shape
    ky, kx = kernel
    sy, sx = stride
    pt, pb, pl, pr = pad
    OH = (IH + pt + pb - ky) // sy + 1
    OW = (IW + pl + pr - kx) // sx + 1
    out = np.zeros((N, OH, OW, C), dtype=x.dtype)
    for n in range(N):
        for oy in range(OH):
            for ox in range(OW):
                for c in range(C):
                    vals = [x[n, y, xx, c] for y in range(oy * sy - pt, oy * sy - pt + ky)
                            for xx in range(ox * sx - pl, ox * sx - pl + kx) if 0 <= y < IH and 0 <= xx < IW]
                    if nan_mode == "IGNORE":
                        real = [v for v in vals if not np.isnan(v)]
                        out[n, oy, ox, c] = max(real) if real else np.nan
                    else:
                        out[n, oy, ox, c] = np.nan if any(np.isnan(v) for v in vals) else max(vals)
    return out
