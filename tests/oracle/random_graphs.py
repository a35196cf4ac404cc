#!/usr/bin/python3
"""Random single-op (and a few small multi-op) TOSA graphs, run through tosakit and upstream MLIR 22.

    random_graphs.py --tosakit BIN [--seed S] [--per-op N] [--ops add,conv2d_i8,...] [--keep DIR] [--list]

Every case is generated from (seed, generator name, index), so a case is reproducible by name. Each module is
checked with `mlir-opt-22` (parse + verify) and `tosa-validate` before use; a module upstream rejects is a
generator bug and counts as a failure. Cases upstream cannot lower count as 'unsupported' (not failures).
Each case prints one line; the last line is `N passed, N failed`.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diff_harness as dh  # noqa: E402
import mlir_oracle as mo  # noqa: E402

FLOAT = ("f32", "f16", "bf16")
INT_RANGE = {"i4": (-8, 7), "i8": (-128, 127), "i16": (-32768, 32767), "i32": (-(1 << 31), (1 << 31) - 1),
             "i48": (-(1 << 47), (1 << 47) - 1)}


def ty(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


class G:
    """Builds one @main function: arguments with data, constants, ops; plus a compare policy."""

    def __init__(self, rng):
        self.rng = rng
        self.args = []      # (type text, array)
        self.body = []
        self.n = 0
        self.policy = "exact"

    def val(self):
        self.n += 1
        return f"%v{self.n}"

    def data(self, shape, elem, lo=None, hi=None):
        r = self.rng
        if elem == "i1":
            return r.integers(0, 2, size=shape).astype(np.bool_)
        if elem in INT_RANGE:
            a, b = INT_RANGE[elem]
            lo = a if lo is None else lo
            hi = b if hi is None else hi
            return r.integers(lo, hi, size=shape, endpoint=True).astype(mo.ELEM[elem][0])
        lo = -2.0 if lo is None else lo
        hi = 2.0 if hi is None else hi
        f = r.uniform(lo, hi, size=shape).astype(np.float32)
        if elem == "f16":
            return f.astype(np.float16)
        if elem == "bf16":
            return mo.f32_to_bf16_bits(f)
        return f

    def arg(self, shape, elem, arr=None, **kw):
        a = self.data(shape, elem, **kw) if arr is None else arr
        self.args.append((ty(shape, elem), a))
        return f"%arg{len(self.args) - 1}"

    def const(self, arr, shape, elem):
        v = self.val()
        tt = mo.TensorType(ty(shape, elem))
        lit = mo.const_literal(mo.to_storage(np.asarray(arr).reshape(shape), tt, "const"), tt)
        self.body.append(f'{v} = "tosa.const"() <{{values = dense<{lit}> : {tt.text}}}> : () -> {tt.text}')
        return v

    def zp(self, elem, value=0):
        if elem in FLOAT:
            return self.const(np.array([float(value)], dtype=np.float32), [1], elem)
        return self.const(np.array([value]), [1], elem)

    def shape_const(self, vals):
        v = self.val()
        self.body.append(f"{v} = tosa.const_shape {{values = dense<[{', '.join(str(int(x)) for x in vals)}]> : "
                         f"tensor<{len(vals)}xindex>}} : () -> !tosa.shape<{len(vals)}>")
        return v

    def op(self, text, in_types, out_types):
        v = self.val()
        outs = ", ".join(out_types)
        if len(out_types) > 1:
            v = f"{v}:{len(out_types)}"
            outs = f"({outs})"
        self.body.append(f"{v} = {text} : ({', '.join(in_types)}) -> {outs}")
        return v.split(":")[0]

    def module(self, results):
        """results: list of (ssa, type text)."""
        sig = ", ".join(f"%arg{i}: {t}" for i, (t, _) in enumerate(self.args))
        rt = ", ".join(t for _, t in results)
        lines = ["module {", f"  func.func @main({sig}) -> ({rt}) {{"]
        lines += ["    " + b for b in self.body]
        lines.append(f"    return {', '.join(v for v, _ in results)} : {rt}")
        lines += ["  }", "}", ""]
        return "\n".join(lines)

    def inputs(self):
        return {f"arg{i}": a for i, (_, a) in enumerate(self.args)}


def rshape(rng, rank=None, lo=1, hi=5):
    rank = int(rng.integers(1, 5)) if rank is None else rank
    return [int(x) for x in rng.integers(lo, hi, size=rank, endpoint=True)]


def bshape(rng, shape):
    """A shape broadcast-compatible with `shape` (same rank, some dims 1)."""
    return [d if rng.random() < 0.7 else 1 for d in shape]


# ---------------------------------------------------------------------------------------------------------
# Generators: each takes (g, rng) and returns the list of results [(ssa, type)].

def gen_binary(opname, elems, int_range=None, attrs=""):
    def f(g, rng):
        e = elems[int(rng.integers(len(elems)))]
        s = rshape(rng)
        s1, s2 = bshape(rng, s), bshape(rng, s)
        out = [max(a, b) for a, b in zip(s1, s2)]
        lo, hi = int_range if (int_range and e not in FLOAT) else (None, None)
        a = g.arg(s1, e, lo=lo, hi=hi)
        b = g.arg(s2, e, lo=lo, hi=hi)
        v = g.op(f"tosa.{opname} {a}, {b}{attrs}", [ty(s1, e), ty(s2, e)], [ty(out, e)])
        return [(v, ty(out, e))]
    return f


def gen_compare(opname):
    def f(g, rng):
        e = ["i32", "f32", "f16"][int(rng.integers(3))]
        s = rshape(rng)
        s1, s2 = bshape(rng, s), bshape(rng, s)
        out = [max(a, b) for a, b in zip(s1, s2)]
        lo, hi = (-3, 3) if e == "i32" else (None, None)
        a = g.arg(s1, e, lo=lo, hi=hi)
        b = g.arg(s2, e, lo=lo, hi=hi)
        if e != "i32":  # make ties likely
            g.args[-1] = (g.args[-1][0], np.round(g.args[-1][1]).astype(g.args[-1][1].dtype))
            g.args[-2] = (g.args[-2][0], np.round(g.args[-2][1]).astype(g.args[-2][1].dtype))
        v = g.op(f"tosa.{opname} {a}, {b}", [ty(s1, e), ty(s2, e)], [ty(out, "i1")])
        return [(v, ty(out, "i1"))]
    return f


def gen_unary(opname, elems, policy="exact", lo=None, hi=None, attrs=""):
    def f(g, rng):
        e = elems[int(rng.integers(len(elems)))]
        s = rshape(rng)
        a = g.arg(s, e, lo=lo, hi=hi)
        if e in FLOAT:
            g.policy = policy
        v = g.op(f"tosa.{opname} {a}{attrs}", [ty(s, e)], [ty(s, e)])
        return [(v, ty(s, e))]
    return f


def gen_mul(g, rng):
    kind = int(rng.integers(4))
    s = rshape(rng)
    s1, s2 = bshape(rng, s), bshape(rng, s)
    out = [max(a, b) for a, b in zip(s1, s2)]
    if kind == 0:  # i32 with shift: (a*b + round) >> shift must fit int32
        shift = int(rng.integers(1, 20))
        a, b = g.arg(s1, "i32", lo=-(1 << 15), hi=1 << 15), g.arg(s2, "i32", lo=-(1 << 15), hi=1 << 15)
        e, oe = "i32", "i32"
    elif kind == 1:  # i8 x i8 -> i32, shift 0
        shift, e, oe = 0, "i8", "i32"
        a, b = g.arg(s1, e), g.arg(s2, e)
    elif kind == 2:
        shift, e, oe = 0, "i16", "i32"
        a, b = g.arg(s1, e), g.arg(s2, e)
    else:
        shift = 0
        e = oe = ["f32", "f16", "bf16"][int(rng.integers(3))]
        a, b = g.arg(s1, e), g.arg(s2, e)
    sh = g.zp("i8", shift)
    v = g.op(f"tosa.mul {a}, {b}, {sh}", [ty(s1, e), ty(s2, e), "tensor<1xi8>"], [ty(out, oe)])
    return [(v, ty(out, oe))]


def fmt_scalar(x, elem):
    if elem == "f32":
        return f"{float(x):.6e} : f32"
    if elem == "f16":
        return f"0x{int(np.float16(x).view(np.uint16)):04X} : f16"
    if elem == "bf16":
        return f"0x{int(mo.f32_to_bf16_bits(np.float32(x))):04X} : bf16"
    return f"{int(x)} : {elem}"


def gen_clamp(g, rng):
    e = ["i8", "i16", "f32", "f16", "bf16"][int(rng.integers(5))]
    s = rshape(rng)
    a = g.arg(s, e)
    if e in FLOAT:
        lo = float(rng.uniform(-1.5, 0))
        hi = float(rng.uniform(0, 1.5))
        if e == "bf16":  # min/max must be representable; round through bf16
            lo = float(mo.bf16_bits_to_f32(mo.f32_to_bf16_bits(np.float32(lo))))
            hi = float(mo.bf16_bits_to_f32(mo.f32_to_bf16_bits(np.float32(hi))))
        if e == "f32":
            lo, hi = float(np.float32(lo)), float(np.float32(hi))
    else:
        a0, b0 = INT_RANGE[e]
        lo = int(rng.integers(a0, 0))
        hi = int(rng.integers(0, b0))
    nan = ' nan_mode = IGNORE,' if (e in FLOAT and rng.random() < 0.3) else ""
    v = g.op(f"tosa.clamp {a} {{max_val = {fmt_scalar(hi, e)},{nan} min_val = {fmt_scalar(lo, e)}}}",
             [ty(s, e)], [ty(s, e)])
    return [(v, ty(s, e))]


def gen_reshape(g, rng):
    e = ["i8", "i32", "f32", "i1"][int(rng.integers(4))]
    s = rshape(rng)
    n = int(np.prod(s))
    # factor n into a random new shape
    new = []
    rest = n
    while rest > 1 and len(new) < 5:
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = divs[int(rng.integers(len(divs)))]
        new.append(d)
        rest //= d
    new.append(rest)
    a = g.arg(s, e)
    sh = g.shape_const(new)
    v = g.op(f"tosa.reshape {a}, {sh}", [ty(s, e), f"!tosa.shape<{len(new)}>"], [ty(new, e)])
    return [(v, ty(new, e))]


def gen_transpose(g, rng):
    e = ["i8", "i16", "i32", "f32", "bf16"][int(rng.integers(5))]
    s = rshape(rng)
    perm = [int(x) for x in rng.permutation(len(s))]
    out = [s[p] for p in perm]
    a = g.arg(s, e)
    v = g.op(f"tosa.transpose {a} {{perms = array<i32: {', '.join(map(str, perm))}>}}", [ty(s, e)], [ty(out, e)])
    return [(v, ty(out, e))]


def conv_out(i, k, pa, pb, st, dil):
    return (i - 1 + pa + pb - (k - 1) * dil) // st + 1


def pick_conv_geometry(rng, rank2=True):
    """Returns IH, IW, KH, KW, pad, stride, dilation with idiv_check exact."""
    while True:
        KH, KW = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        st = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        dil = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        pad = [int(x) for x in rng.integers(0, 2, size=4)]
        IH, IW = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        nh = IH - 1 + pad[0] + pad[1] - (KH - 1) * dil[0]
        nw = IW - 1 + pad[2] + pad[3] - (KW - 1) * dil[1]
        if nh >= 0 and nw >= 0 and nh % st[0] == 0 and nw % st[1] == 0:
            return IH, IW, KH, KW, pad, st, dil


CONV_TYPES = {  # name: (in, weight, bias/out, acc)
    "i8": ("i8", "i8", "i32", "i32"),
    "i8xi4": ("i8", "i4", "i32", "i32"),
    "i16": ("i16", "i8", "i48", "i48"),
    "f32": ("f32", "f32", "f32", "f32"),
    "f16": ("f16", "f16", "f16", "f32"),
    "bf16": ("bf16", "bf16", "bf16", "f32"),
}


def conv_operands(g, rng, kind, in_shape, w_shape, oc):
    it, wt, bt, acc = CONV_TYPES[kind]
    x = g.arg(in_shape, it)
    w = g.arg(w_shape, wt)
    bc = oc if rng.random() < 0.7 else 1
    if bt in ("i32", "i48"):
        b = g.arg([bc], bt, lo=-1000, hi=1000)
    else:
        b = g.arg([bc], bt)
    izp = int(rng.integers(-128, 128)) if it == "i8" else 0
    wzp = int(rng.integers(-128, 128)) if wt == "i8" and it == "i8" else 0
    izv, wzv = g.zp(it, izp), g.zp(wt, wzp)
    types = [ty(in_shape, it), ty(w_shape, wt), ty([bc], bt), f"tensor<1x{it}>", f"tensor<1x{wt}>"]
    if it in FLOAT:
        g.policy = f"dot:{int(np.prod(w_shape[1:]))}"
    return f"{x}, {w}, {b}, {izv}, {wzv}", types, bt, acc


def gen_conv2d(kind):
    def f(g, rng):
        IH, IW, KH, KW, pad, st, dil = pick_conv_geometry(rng)
        N, IC, OC = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        ops, types, bt, acc = conv_operands(g, rng, kind, [N, IH, IW, IC], [OC, KH, KW, IC], OC)
        OH, OW = conv_out(IH, KH, pad[0], pad[1], st[0], dil[0]), conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
        out = ty([N, OH, OW, OC], bt)
        v = g.op(f"tosa.conv2d {ops} {{acc_type = {acc}, dilation = array<i64: {dil[0]}, {dil[1]}>, "
                 f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
                 types, [out])
        return [(v, out)]
    return f


def gen_depthwise(kind):
    def f(g, rng):
        IH, IW, KH, KW, pad, st, dil = pick_conv_geometry(rng)
        N, C, M = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        ops, types, bt, acc = conv_operands(g, rng, kind, [N, IH, IW, C], [KH, KW, C, M], C * M)
        if kind in FLOAT:
            g.policy = f"dot:{KH * KW}"
        OH, OW = conv_out(IH, KH, pad[0], pad[1], st[0], dil[0]), conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
        out = ty([N, OH, OW, C * M], bt)
        v = g.op(f"tosa.depthwise_conv2d {ops} {{acc_type = {acc}, dilation = array<i64: {dil[0]}, {dil[1]}>, "
                 f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
                 types, [out])
        return [(v, out)]
    return f


def gen_transpose_conv(kind):
    def f(g, rng):
        N, IH, IW = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        IC, OC = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        KH, KW = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        st = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        # out_pad > -K; keep it 0 for the cases upstream decomposes (see README: padding breaks some types).
        op = [0, 0, 0, 0] if kind != "f32" else [int(x) for x in rng.integers(0, 2, size=4)]
        ops, types, bt, acc = conv_operands(g, rng, kind, [N, IH, IW, IC], [OC, KH, KW, IC], OC)
        OH = (IH - 1) * st[0] + op[0] + op[1] + KH
        OW = (IW - 1) * st[1] + op[2] + op[3] + KW
        out = ty([N, OH, OW, OC], bt)
        v = g.op(f"tosa.transpose_conv2d {ops} {{acc_type = {acc}, out_pad = array<i64: {', '.join(map(str, op))}>, "
                 f"stride = array<i64: {st[0]}, {st[1]}>}}", types, [out])
        return [(v, out)]
    return f


def gen_matmul(g, rng):
    kind = ["i8", "i16", "f32", "f16", "bf16"][int(rng.integers(5))]
    N, H, C, W = (int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 8)),
                  int(rng.integers(1, 5)))
    oe = {"i8": "i32", "i16": "i48", "f32": "f32", "f16": "f32", "bf16": "f32"}[kind]
    a, b = g.arg([N, H, C], kind), g.arg([N, C, W], kind)
    z = int(rng.integers(-128, 128)) if kind == "i8" else 0
    za, zb = g.zp(kind, z), g.zp(kind, 0 if kind != "i8" else int(rng.integers(-128, 128)))
    if kind in FLOAT:
        g.policy = f"dot:{C}"
    out = ty([N, H, W], oe)
    v = g.op(f"tosa.matmul {a}, {b}, {za}, {zb}", [ty([N, H, C], kind), ty([N, C, W], kind),
                                                   f"tensor<1x{kind}>", f"tensor<1x{kind}>"], [out])
    return [(v, out)]


def pool_geometry(rng):
    while True:
        KH, KW = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        st = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        pad = [int(rng.integers(0, KH)), int(rng.integers(0, KH)), int(rng.integers(0, KW)), int(rng.integers(0, KW))]
        IH, IW = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        nh, nw = IH + pad[0] + pad[1] - KH, IW + pad[2] + pad[3] - KW
        if nh >= 0 and nw >= 0 and nh % st[0] == 0 and nw % st[1] == 0:
            return IH, IW, KH, KW, pad, st, nh // st[0] + 1, nw // st[1] + 1


def gen_max_pool(g, rng):
    e = ["i8", "i16", "f32", "f16", "bf16"][int(rng.integers(5))]
    IH, IW, KH, KW, pad, st, OH, OW = pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = g.arg([N, IH, IW, C], e)
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.max_pool2d {a} {{kernel = array<i64: {KH}, {KW}>, pad = array<i64: {', '.join(map(str, pad))}>, "
             f"stride = array<i64: {st[0]}, {st[1]}>}}", [ty([N, IH, IW, C], e)], [out])
    return [(v, out)]


def gen_avg_pool(g, rng):
    e = ["i8", "i16", "f32", "f16", "bf16"][int(rng.integers(5))]
    acc = {"i8": "i32", "i16": "i32", "f32": "f32", "f16": "f32", "bf16": "f32"}[e]
    IH, IW, KH, KW, pad, st, OH, OW = pool_geometry(rng)
    N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    a = g.arg([N, IH, IW, C], e)
    izp = int(rng.integers(-128, 128)) if e == "i8" else 0
    ozp = int(rng.integers(-128, 128)) if e == "i8" else 0
    zi, zo = g.zp(e, izp), g.zp(e, ozp)
    if e in FLOAT:
        g.policy = f"dot:{KH * KW}"
    out = ty([N, OH, OW, C], e)
    v = g.op(f"tosa.avg_pool2d {a}, {zi}, {zo} {{acc_type = {acc}, kernel = array<i64: {KH}, {KW}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
             [ty([N, IH, IW, C], e), f"tensor<1x{e}>", f"tensor<1x{e}>"], [out])
    return [(v, out)]


def gen_rescale(g, rng):
    """Covers scale32 true/false, single/double round, per-channel, unsigned input/output."""
    while True:
        it = ["i8", "i16", "i32", "i48"][int(rng.integers(4))]
        ot = ["i8", "i16", "i32"][int(rng.integers(3))]
        scale32 = bool(rng.random() < 0.6) and it != "i48"
        double = scale32 and bool(rng.random() < 0.5)
        iu = bool(rng.random() < 0.25) and it in ("i8", "i16") and ot != "i32"
        ou = (not iu) and bool(rng.random() < 0.25) and ot in ("i8", "i16") and it not in ("i32", "i48")
        break
    s = rshape(rng)
    per_channel = bool(rng.random() < 0.4)
    nc = s[-1] if per_channel else 1
    lo, hi = INT_RANGE[it]
    if it in ("i32", "i48"):
        lo, hi = -(1 << 20), 1 << 20
    x = g.arg(s, it, lo=lo, hi=hi)
    if scale32:
        mult = rng.integers(1 << 30, (1 << 31) - 1, size=nc)
        shift = rng.integers(20, 40, size=nc)
    else:
        mult = rng.integers(1 << 14, (1 << 15) - 1, size=nc)
        shift = rng.integers(10, 30, size=nc)
    # apply_scale_32 REQUIRE: |value| < 2^(shift-1); value = x - zp fits within 2^21 here.
    shift = np.maximum(shift, 23) if scale32 else shift
    izp = 0
    if it == "i8":
        izp = int(rng.integers(-128, 128))
    elif it == "i16" and iu:
        izp = [0, -32768][int(rng.integers(2))]  # 32768 as a signless i16 bit pattern
    ozp = 0
    if ot == "i8":
        ozp = int(rng.integers(-128, 128))
    elif ot == "i16" and ou:
        ozp = [0, -32768][int(rng.integers(2))]
    mt = "i32" if scale32 else "i16"
    m = g.const(mult, [nc], mt)
    sh = g.const(shift, [nc], "i8")
    zi, zo = g.zp(it, izp), g.zp(ot, ozp)
    rm = "DOUBLE_ROUND" if double else "SINGLE_ROUND"
    out = ty(s, ot)
    v = g.op(f"tosa.rescale {x}, {m}, {sh}, {zi}, {zo} {{input_unsigned = {str(iu).lower()}, "
             f"output_unsigned = {str(ou).lower()}, per_channel = {str(per_channel).lower()}, rounding_mode = {rm}, "
             f"scale32 = {str(scale32).lower()}}}",
             [ty(s, it), f"tensor<{nc}x{mt}>", f"tensor<{nc}xi8>", f"tensor<1x{it}>", f"tensor<1x{ot}>"], [out])
    return [(v, out)]


def gen_const(g, rng):
    e = ["i8", "i16", "i32", "f32", "f16", "bf16", "i1"][int(rng.integers(7))]
    s = rshape(rng)
    c = g.const(g.data(s, e), s, e)
    a = g.arg(s, e)
    v = g.op(f"tosa.identity {a}", [ty(s, e)], [ty(s, e)])
    return [(c, ty(s, e)), (v, ty(s, e))]


def gen_identity(g, rng):
    e = ["i1", "i4", "i8", "i16", "i32", "i48", "f32", "f16", "bf16"][int(rng.integers(9))]
    s = rshape(rng)
    a = g.arg(s, e)
    v = g.op(f"tosa.identity {a}", [ty(s, e)], [ty(s, e)])
    return [(v, ty(s, e))]


def gen_negate(g, rng):
    e = ["i8", "i16", "i32", "f32", "f16", "bf16"][int(rng.integers(6))]
    s = rshape(rng)
    lo, hi = (-(1 << 30), 1 << 30) if e == "i32" else (None, None)
    a = g.arg(s, e, lo=lo, hi=hi)
    z1 = int(rng.integers(-128, 128)) if e == "i8" else 0
    z2 = int(rng.integers(-128, 128)) if e == "i8" else 0
    v = g.op(f"tosa.negate {a}, {g.zp(e, z1)}, {g.zp(e, z2)}", [ty(s, e), f"tensor<1x{e}>", f"tensor<1x{e}>"],
             [ty(s, e)])
    return [(v, ty(s, e))]


def gen_shift(opname):
    def f(g, rng):
        e = ["i8", "i16", "i32"][int(rng.integers(3))]
        bits = int(e[1:])
        s = rshape(rng)
        a = g.arg(s, e)
        b = g.arg(s, e, lo=0, hi=bits - 1)
        attrs = f" {{round = {str(bool(rng.random() < 0.5)).lower()}}}" if opname == "arithmetic_right_shift" else ""
        v = g.op(f"tosa.{opname} {a}, {b}{attrs}", [ty(s, e), ty(s, e)], [ty(s, e)])
        return [(v, ty(s, e))]
    return f


def gen_select(g, rng):
    e = ["i8", "i32", "f32", "bf16", "i1"][int(rng.integers(5))]
    s = rshape(rng)
    c = g.arg(bshape(rng, s), "i1")
    a, b = g.arg(bshape(rng, s), e), g.arg(s, e)
    ts = [t for t, _ in g.args[-3:]]
    v = g.op(f"tosa.select {c}, {a}, {b}", ts, [ty(s, e)])
    return [(v, ty(s, e))]


def gen_reduce(opname, elems):
    def f(g, rng):
        e = elems[int(rng.integers(len(elems)))]
        s = rshape(rng)
        ax = int(rng.integers(len(s)))
        lo, hi = None, None
        if opname == "reduce_sum" and e == "i32":
            lo, hi = -(1 << 24), 1 << 24
        if opname == "reduce_product":
            lo, hi = 0.5, 1.5
        a = g.arg(s, e, lo=lo, hi=hi)
        out = list(s)
        out[ax] = 1
        if e in FLOAT and opname in ("reduce_sum", "reduce_product"):
            g.policy = f"dot:{s[ax]}"
        v = g.op(f"tosa.{opname} {a} {{axis = {ax} : i32}}", [ty(s, e)], [ty(out, e)])
        return [(v, ty(out, e))]
    return f


def gen_argmax(g, rng):
    e = ["i8", "i16", "f32", "f16", "bf16"][int(rng.integers(5))]
    s = rshape(rng)
    ax = int(rng.integers(len(s)))
    a = g.arg(s, e, lo=-4 if e in ("i8", "i16") else None, hi=4 if e in ("i8", "i16") else None)
    out = s[:ax] + s[ax + 1:]
    v = g.op(f"tosa.argmax {a} {{axis = {ax} : i32}}", [ty(s, e)], [ty(out, "i32")])
    return [(v, ty(out, "i32"))]


def gen_concat(g, rng):
    e = ["i8", "i32", "f32", "i1"][int(rng.integers(4))]
    s = rshape(rng)
    ax = int(rng.integers(len(s)))
    n = int(rng.integers(1, 4))
    shapes = []
    for _ in range(n):
        t = list(s)
        t[ax] = int(rng.integers(1, 4))
        shapes.append(t)
    args = [g.arg(t, e) for t in shapes]
    out = list(s)
    out[ax] = sum(t[ax] for t in shapes)
    v = g.op(f"tosa.concat {', '.join(args)} {{axis = {ax} : i32}}", [ty(t, e) for t in shapes], [ty(out, e)])
    return [(v, ty(out, e))]


def gen_pad(g, rng):
    e = ["i8", "i16", "i32", "f32", "bf16", "i1"][int(rng.integers(6))]
    s = rshape(rng, rank=int(rng.integers(1, 4)))  # rank-4 PAD trips tosa-validate (known deviation)
    p = [int(x) for x in rng.integers(0, 3, size=2 * len(s))]
    out = [d + p[2 * i] + p[2 * i + 1] for i, d in enumerate(s)]
    a = g.arg(s, e)
    sp = g.shape_const(p)
    pc = g.const(g.data([1], e), [1], e)
    v = g.op(f"tosa.pad {a}, {sp}, {pc}", [ty(s, e), f"!tosa.shape<{len(p)}>", ty([1], e)], [ty(out, e)])
    return [(v, ty(out, e))]


def gen_reverse(g, rng):
    e = ["i8", "i32", "f32", "f16", "i1"][int(rng.integers(5))]
    s = rshape(rng)
    ax = int(rng.integers(len(s)))
    a = g.arg(s, e)
    v = g.op(f"tosa.reverse {a} {{axis = {ax} : i32}}", [ty(s, e)], [ty(s, e)])
    return [(v, ty(s, e))]


def gen_slice(g, rng):
    e = ["i8", "i16", "i32", "f32", "bf16"][int(rng.integers(5))]
    s = rshape(rng)
    start = [int(rng.integers(0, d)) for d in s]
    size = [int(rng.integers(1, d - st + 1)) for d, st in zip(s, start)]
    a = g.arg(s, e)
    v = g.op(f"tosa.slice {a}, {g.shape_const(start)}, {g.shape_const(size)}",
             [ty(s, e), f"!tosa.shape<{len(s)}>", f"!tosa.shape<{len(s)}>"], [ty(size, e)])
    return [(v, ty(size, e))]


def gen_tile(g, rng):
    e = ["i8", "i32", "f32", "i1"][int(rng.integers(4))]
    s = rshape(rng, hi=3)
    m = [int(x) for x in rng.integers(1, 4, size=len(s))]
    out = [a * b for a, b in zip(s, m)]
    a = g.arg(s, e)
    v = g.op(f"tosa.tile {a}, {g.shape_const(m)}", [ty(s, e), f"!tosa.shape<{len(s)}>"], [ty(out, e)])
    return [(v, ty(out, e))]


def gen_gather(g, rng):
    e = ["i8", "i16", "i32", "f32", "f16"][int(rng.integers(5))]
    N, K, C, W = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 6))
    a = g.arg([N, K, C], e)
    idx = g.arg([N, W], "i32", lo=0, hi=K - 1)
    v = g.op(f"tosa.gather {a}, {idx}", [ty([N, K, C], e), ty([N, W], "i32")], [ty([N, W, C], e)])
    return [(v, ty([N, W, C], e))]


def gen_scatter(g, rng):
    e = ["i8", "i16", "i32", "f32", "f16"][int(rng.integers(5))]
    N, K, C = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 4))
    W = int(rng.integers(1, K + 1))
    a = g.arg([N, K, C], e)
    # REQUIRE: each output index is written at most once -> distinct indices per batch
    ind = np.stack([rng.permutation(K)[:W] for _ in range(N)]).astype(np.int32)
    idx = g.arg([N, W], "i32", arr=ind)
    upd = g.arg([N, W, C], e)
    v = g.op(f"tosa.scatter {a}, {idx}, {upd}", [ty([N, K, C], e), ty([N, W], "i32"), ty([N, W, C], e)],
             [ty([N, K, C], e)])
    return [(v, ty([N, K, C], e))]


def gen_table(g, rng):
    if rng.random() < 0.5:
        s = rshape(rng)
        a = g.arg(s, "i8")
        t = g.const(g.data([256], "i8"), [256], "i8")
        v = g.op(f"tosa.table {a}, {t}", [ty(s, "i8"), "tensor<256xi8>"], [ty(s, "i8")])
        return [(v, ty(s, "i8"))]
    s = rshape(rng)
    a = g.arg(s, "i16")
    t = g.const(g.data([513], "i16", lo=-20000, hi=20000), [513], "i16")
    v = g.op(f"tosa.table {a}, {t}", [ty(s, "i16"), "tensor<513xi16>"], [ty(s, "i32")])
    return [(v, ty(s, "i32"))]


CASTS = [("i8", "i32"), ("i32", "i8"), ("i16", "i8"), ("i1", "i32"), ("i32", "i1"), ("i8", "f32"), ("i32", "f32"),
         ("f32", "i32"), ("f32", "i8"), ("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("bf16", "f32"),
         ("i16", "f16"), ("f16", "i16")]


def gen_cast(g, rng):
    it, ot = CASTS[int(rng.integers(len(CASTS)))]
    s = rshape(rng)
    if it in FLOAT:
        a = g.arg(s, it, lo=-300.0, hi=300.0)
        # make exact .5 ties likely for the round-to-nearest-even check
        arr = g.args[-1][1]
        if it == "f32":
            g.args[-1] = (g.args[-1][0], (np.round(arr * 2) / 2).astype(np.float32))
    else:
        a = g.arg(s, it)
    v = g.op(f"tosa.cast {a}", [ty(s, it)], [ty(s, ot)])
    return [(v, ty(s, ot))]


def gen_intdiv(g, rng):
    s = rshape(rng)
    a = g.arg(s, "i32")
    d = g.data(s, "i32", lo=-1000, hi=1000)
    d[d == 0] = 7
    b = g.arg(s, "i32", arr=d)
    v = g.op(f"tosa.intdiv {a}, {b}", [ty(s, "i32"), ty(s, "i32")], [ty(s, "i32")])
    return [(v, ty(s, "i32"))]


def gen_resize(g, rng):
    """Non-negative offsets only (negative offsets: known deviation, see diff_harness)."""
    while True:
        e = ["i8", "i16", "f32", "f16"][int(rng.integers(4))]
        mode = ["NEAREST_NEIGHBOR", "BILINEAR"][int(rng.integers(2))]
        N, IH, IW, C = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 3))
        syn, sxn = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        syd, sxd = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        oy, ox = int(rng.integers(0, syn)), int(rng.integers(0, sxn))
        by, bx = int(rng.integers(-syn, syn)), int(rng.integers(-sxn, sxn))
        ny = (IH - 1) * syn - oy + by
        nx = (IW - 1) * sxn - ox + bx
        if ny >= 0 and nx >= 0 and ny % syd == 0 and nx % sxd == 0 and syd < 16 * syn and sxd < 16 * sxn:
            break
    OH, OW = ny // syd + 1, nx // sxd + 1
    oe = e if (mode == "NEAREST_NEIGHBOR" or e in FLOAT) else {"i8": "i32", "i16": "i48"}[e]
    a = g.arg([N, IH, IW, C], e)
    if e in FLOAT:
        g.policy = "ulp:4"
    v = g.op(f"tosa.resize {a}, {g.shape_const([syn, syd, sxn, sxd])}, {g.shape_const([oy, ox])}, "
             f"{g.shape_const([by, bx])} {{mode = {mode}}}",
             [ty([N, IH, IW, C], e), "!tosa.shape<4>", "!tosa.shape<2>", "!tosa.shape<2>"], [ty([N, OH, OW, C], oe)])
    return [(v, ty([N, OH, OW, C], oe))]


# Multi-op graphs


def gen_chain_int8(g, rng):
    """conv2d (i8, zero points) -> rescale -> clamp."""
    IH, IW, KH, KW, pad, st, dil = pick_conv_geometry(rng)
    N, IC, OC = 1, int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ops, types, bt, acc = conv_operands(g, rng, "i8", [N, IH, IW, IC], [OC, KH, KW, IC], OC)
    OH, OW = conv_out(IH, KH, pad[0], pad[1], st[0], dil[0]), conv_out(IW, KW, pad[2], pad[3], st[1], dil[1])
    s = [N, OH, OW, OC]
    c = g.op(f"tosa.conv2d {ops} {{acc_type = i32, dilation = array<i64: {dil[0]}, {dil[1]}>, "
             f"pad = array<i64: {', '.join(map(str, pad))}>, stride = array<i64: {st[0]}, {st[1]}>}}",
             types, [ty(s, "i32")])
    m = g.const(rng.integers(1 << 30, (1 << 31) - 1, size=1), [1], "i32")
    sh = g.const([int(rng.integers(36, 42))], [1], "i8")
    rm = ["SINGLE_ROUND", "DOUBLE_ROUND"][int(rng.integers(2))]
    r = g.op(f"tosa.rescale {c}, {m}, {sh}, {g.zp('i32', 0)}, {g.zp('i8', int(rng.integers(-20, 20)))} "
             f"{{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = {rm}, "
             f"scale32 = true}}", [ty(s, "i32"), "tensor<1xi32>", "tensor<1xi8>", "tensor<1xi32>", "tensor<1xi8>"],
             [ty(s, "i8")])
    v = g.op(f"tosa.clamp {r} {{max_val = 127 : i8, min_val = {int(rng.integers(-128, 0))} : i8}}",
             [ty(s, "i8")], [ty(s, "i8")])
    return [(v, ty(s, "i8"))]


def gen_chain_fp32(g, rng):
    """matmul -> add (bias) -> transpose -> reshape."""
    N, H, C, W = 1, int(rng.integers(1, 5)), int(rng.integers(1, 8)), int(rng.integers(1, 5))
    a, b = g.arg([N, H, C], "f32"), g.arg([N, C, W], "f32")
    bias = g.arg([1, 1, W], "f32")
    z = g.zp("f32", 0)
    mm = g.op(f"tosa.matmul {a}, {b}, {z}, {z}", [ty([N, H, C], "f32"), ty([N, C, W], "f32"), "tensor<1xf32>",
                                                  "tensor<1xf32>"], [ty([N, H, W], "f32")])
    ad = g.op(f"tosa.add {mm}, {bias}", [ty([N, H, W], "f32"), ty([1, 1, W], "f32")], [ty([N, H, W], "f32")])
    tr = g.op(f"tosa.transpose {ad} {{perms = array<i32: 0, 2, 1>}}", [ty([N, H, W], "f32")], [ty([N, W, H], "f32")])
    rs = g.op(f"tosa.reshape {tr}, {g.shape_const([W * H])}", [ty([N, W, H], "f32"), "!tosa.shape<1>"],
              [ty([W * H], "f32")])
    g.policy = f"dot:{C + 1}"
    return [(rs, ty([W * H], "f32"))]


def gen_chain_elementwise(g, rng):
    """add -> mul -> maximum -> select on i32 with broadcasting."""
    s = rshape(rng)
    a, b = g.arg(s, "i32", lo=-1000, hi=1000), g.arg(bshape(rng, s), "i32", lo=-1000, hi=1000)
    tb = ty(g.args[-1][1].shape, "i32")
    ad = g.op(f"tosa.add {a}, {b}", [ty(s, "i32"), tb], [ty(s, "i32")])
    mu = g.op(f"tosa.mul {ad}, {a}, {g.zp('i8', 0)}", [ty(s, "i32"), ty(s, "i32"), "tensor<1xi8>"], [ty(s, "i32")])
    mx = g.op(f"tosa.maximum {mu}, {b}", [ty(s, "i32"), tb], [ty(s, "i32")])
    gt = g.op(f"tosa.greater {mx}, {a}", [ty(s, "i32"), ty(s, "i32")], [ty(s, "i1")])
    se = g.op(f"tosa.select {gt}, {mx}, {ad}", [ty(s, "i1"), ty(s, "i32"), ty(s, "i32")], [ty(s, "i32")])
    return [(se, ty(s, "i32")), (gt, ty(s, "i1"))]


INTF = ["i8", "i16", "i32"]
GENERATORS = {
    "add": gen_binary("add", ["i32", "f32", "f16", "bf16"], (-(1 << 30), 1 << 30)),
    "sub": gen_binary("sub", ["i32", "f32", "f16", "bf16"], (-(1 << 30), 1 << 30)),
    "mul": gen_mul,
    "clamp": gen_clamp,
    "reshape": gen_reshape,
    "transpose": gen_transpose,
    "conv2d_i8": gen_conv2d("i8"),
    "conv2d_i8xi4": gen_conv2d("i8xi4"),
    "conv2d_i16": gen_conv2d("i16"),
    "conv2d_f32": gen_conv2d("f32"),
    "conv2d_f16": gen_conv2d("f16"),
    "conv2d_bf16": gen_conv2d("bf16"),
    "rescale": gen_rescale,
    "const": gen_const,
    "identity": gen_identity,
    "depthwise_conv2d_i8": gen_depthwise("i8"),
    "depthwise_conv2d_f32": gen_depthwise("f32"),
    "transpose_conv2d_i8": gen_transpose_conv("i8"),
    "transpose_conv2d_f32": gen_transpose_conv("f32"),
    "matmul": gen_matmul,
    "max_pool2d": gen_max_pool,
    "avg_pool2d": gen_avg_pool,
    "abs": gen_unary("abs", ["i32", "f32", "f16", "bf16"], lo=None),
    "negate": gen_negate,
    "bitwise_and": gen_binary("bitwise_and", INTF),
    "bitwise_or": gen_binary("bitwise_or", INTF),
    "bitwise_xor": gen_binary("bitwise_xor", INTF),
    "bitwise_not": gen_unary("bitwise_not", INTF),
    "logical_and": gen_binary("logical_and", ["i1"]),
    "logical_or": gen_binary("logical_or", ["i1"]),
    "logical_xor": gen_binary("logical_xor", ["i1"]),
    "logical_not": gen_unary("logical_not", ["i1"]),
    "logical_left_shift": gen_shift("logical_left_shift"),
    "logical_right_shift": gen_shift("logical_right_shift"),
    "arithmetic_right_shift": gen_shift("arithmetic_right_shift"),
    "clz": gen_unary("clz", ["i32"]),
    "maximum": gen_binary("maximum", ["i32", "f32", "f16", "bf16"]),
    "minimum": gen_binary("minimum", ["i32", "f32", "f16", "bf16"]),
    "intdiv": gen_intdiv,
    "equal": gen_compare("equal"),
    "greater": gen_compare("greater"),
    "greater_equal": gen_compare("greater_equal"),
    "select": gen_select,
    "reduce_sum": gen_reduce("reduce_sum", ["i32", "f32"]),
    "reduce_max": gen_reduce("reduce_max", ["i8", "i16", "i32", "f32", "bf16"]),
    "reduce_min": gen_reduce("reduce_min", ["i8", "i16", "i32", "f32", "f16"]),
    "reduce_product": gen_reduce("reduce_product", ["f32"]),
    "reduce_all": gen_reduce("reduce_all", ["i1"]),
    "reduce_any": gen_reduce("reduce_any", ["i1"]),
    "argmax": gen_argmax,
    "concat": gen_concat,
    "pad": gen_pad,
    "reverse": gen_reverse,
    "slice": gen_slice,
    "tile": gen_tile,
    "gather": gen_gather,
    "scatter": gen_scatter,
    "table": gen_table,
    "cast": gen_cast,
    "resize": gen_resize,
    "ceil": gen_unary("ceil", ["f32", "f16", "bf16"]),
    "floor": gen_unary("floor", ["f32", "f16", "bf16"]),
    "exp": gen_unary("exp", ["f32", "f16"], "ulp:5"),
    "log": gen_unary("log", ["f32", "f16"], "ulp:5", lo=0.01, hi=10.0),
    "reciprocal": gen_unary("reciprocal", ["f32", "f16"], "ulp:1", lo=0.1, hi=10.0),
    "rsqrt": gen_unary("rsqrt", ["f32", "f16"], "ulp:2", lo=0.01, hi=10.0),
    "tanh": gen_unary("tanh", ["f32"], "abs:1e-6"),
    "sigmoid": gen_unary("sigmoid", ["f32"], "abs:1e-6"),
    "sin": gen_unary("sin", ["f32"], "abs:1e-6"),
    "cos": gen_unary("cos", ["f32"], "abs:1e-6"),
    "erf": gen_unary("erf", ["f32"], "abs:1e-6"),
    "chain_conv_rescale_clamp": gen_chain_int8,
    "chain_matmul_add_transpose": gen_chain_fp32,
    "chain_elementwise_i32": gen_chain_elementwise,
}


def make_case(name, seed, index):
    rng = np.random.default_rng([seed, index, sum(ord(c) * (i + 1) for i, c in enumerate(name))])
    g = G(rng)
    results = GENERATORS[name](g, rng)
    return g.module(results), g.inputs(), g.policy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit", help="tosakit binary (omit with --oracle-only)")
    ap.add_argument("--backend", choices=["fast", "ref"], help="tosakit run --backend (default: tosakit's)")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--per-op", type=int, default=3)
    ap.add_argument("--ops", default="", help="comma-separated generator names (default: all)")
    ap.add_argument("--keep", help="write every case (model.mlir, inputs.npz, outputs) under this directory")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--oracle-only", action="store_true", help="only generate, validate and run upstream")
    a = ap.parse_args()
    dh.BACKEND = a.backend
    names = [n for n in a.ops.split(",") if n] or list(GENERATORS)
    for n in names:
        if n not in GENERATORS:
            print(f"random_graphs: unknown generator '{n}' (have: {', '.join(GENERATORS)})", file=sys.stderr)
            return 2
    if a.list:
        print("\n".join(names))
        return 0
    if not a.oracle_only and not a.tosakit:
        print("random_graphs: --tosakit BIN is required (or --oracle-only)", file=sys.stderr)
        return 2
    tally = dh.Tally()
    root = a.keep or tempfile.mkdtemp(prefix="random-graphs-")
    for n in names:
        for i in range(a.per_op):
            case = f"{n}_{i}"
            d = os.path.join(root, case)
            os.makedirs(d, exist_ok=True)
            text, inputs, policy = make_case(n, a.seed, i)
            model = os.path.join(d, "model.mlir")
            with open(model, "w") as f:
                f.write(text)
            np.savez(os.path.join(d, "inputs.npz"), **inputs)
            ok, msg = mo.validate(model)
            if not ok:
                tally.record(case, "FAIL", f"generated module rejected by mlir-opt-22/tosa-validate: {msg}")
                continue
            if a.oracle_only:
                try:
                    mo.run_oracle(model, "main", inputs=inputs)
                    tally.record(case, "PASS", "oracle ran")
                except mo.Unsupported as ex:
                    tally.record(case, "UNSUPPORTED", str(ex))
                except (mo.BadInput, mo.OracleError) as ex:
                    tally.record(case, "FAIL", f"oracle: {ex}")
                continue
            verdict, detail = dh.diff_case(a.tosakit, model, os.path.join(d, "inputs.npz"), policy=policy, workdir=d)
            tally.record(case, verdict, detail)
    if not a.keep:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
