#!/usr/bin/python3
"""Pre-quantized INT8 TFLite models, op by op, checked bit for bit against TensorFlow Lite itself.

Each case writes a small .tflite model (tests/tflite/tflite_writer.py: random shapes, per-tensor and per-channel
scales, zero points, fused activations), runs it on TFLite 2.9 (tools/tflite/run_tflite.py) on random int8
inputs and keeps TFLite's outputs as the expected values. With --tosakit, each model is then imported with
`tosakit import` and run with `tosakit run` on every backend of --backends; the outputs must equal TFLite's
exactly, except the operators listed in BOUNDS (documented in docs/TFLITE.md) which may differ by at most their
bound in LSB.

    gen_quant_ops.py --out DIR [--tosakit TK] [--backends fast,ref] [--cases conv,add] [--seed 0]

Exit 77 (ctest skip) without TFLite; 1 when a case differs from TFLite beyond its bound.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "tflite"))
from tflite_writer import ModelWriter  # noqa: E402

RELU, RELU_N1_TO_1, RELU6 = 1, 2, 3
SAME, VALID = 0, 1
# case prefix -> LSB bound where TFLite's arithmetic cannot be reproduced exactly in TOSA (docs/TFLITE.md):
# LOG_SOFTMAX takes the log of a float sum, TOSA's log is not glibc's logf.
BOUNDS = {"log_softmax": 1}


class Case:
    """A model under construction with int8 tensors that carry random quantization parameters."""

    def __init__(self, rng):
        self.rng = rng
        self.w = ModelWriter()
        self.inputs = []
        self.feeds = {}

    def act(self, name, shape, scale=None, zp=None, is_input=False, dtype="int8"):
        """An activation tensor; int16 ones have zero point 0 (TFLite's 16x8 scheme)."""
        scale = float(scale if scale is not None else self.rng.uniform(0.01, 0.1))
        zp = 0 if dtype == "int16" else int(zp if zp is not None else self.rng.integers(-20, 20) + (128 if dtype == "uint8" else 0))
        t = self.w.tensor(name, shape, dtype, scale=scale, zero_point=zp)
        if is_input:
            self.inputs.append(t)
            info = np.iinfo(dtype)
            self.feeds[name] = self.rng.integers(info.min, info.max + 1, shape).astype(dtype)
        return t

    def weights(self, name, shape, channels_dim=None, per_channel=True, dtype="int8"):
        if dtype == "uint8":  # TFLite's legacy scheme: asymmetric, per tensor
            scale, zp = float(self.rng.uniform(0.002, 0.02)), int(self.rng.integers(100, 156))
            data = self.rng.integers(0, 256, shape).astype(np.uint8)
            return self.w.tensor(name, shape, "uint8", data=data, scale=scale, zero_point=zp), [scale]
        data = self.rng.integers(-127, 128, shape).astype(np.int8)
        if per_channel and channels_dim is not None:
            scale = list(self.rng.uniform(0.002, 0.02, shape[channels_dim]))
            zp = [0] * shape[channels_dim]
            return self.w.tensor(name, shape, "int8", data=data, scale=scale, zero_point=zp, qdim=channels_dim), scale
        scale = float(self.rng.uniform(0.002, 0.02))
        return self.w.tensor(name, shape, "int8", data=data, scale=scale, zero_point=0), [scale]

    def bias(self, name, n, in_scale, w_scales, dtype="int32"):
        scales = [in_scale * s for s in (w_scales if len(w_scales) == n else w_scales * n)]
        bound = 2000 if dtype == "int32" else 500000
        data = self.rng.integers(-bound, bound, n).astype(dtype)
        return self.w.tensor(name, [n], dtype, data=data, scale=scales, zero_point=[0] * n)

    def finish(self, outputs):
        return self.w.finish(self.inputs, outputs), self.feeds


def scale_of(case, t):
    return float(np.atleast_1d(case.w.tensors[t]["scale"])[0])


def conv(rng, padding=SAME, stride=1, dil=1, act=RELU6, per_channel=True):
    c = Case(rng)
    n, h, w_, ci, co, k = 1, int(rng.integers(5, 10)), int(rng.integers(5, 10)), int(rng.integers(1, 6)), int(rng.integers(1, 9)), int(rng.choice([1, 3]))
    x = c.act("x", [n, h, w_, ci], is_input=True)
    kw, ws = c.weights("w", [co, k, k, ci], 0, per_channel)
    b = c.bias("b", co, scale_of(c, x), ws)
    span = (k - 1) * dil + 1
    oh = -(-h // stride) if padding == SAME else (h - span) // stride + 1
    ow = -(-w_ // stride) if padding == SAME else (w_ - span) // stride + 1
    y = c.act("y", [n, oh, ow, co], scale=rng.uniform(0.05, 0.5))
    c.w.op("CONV_2D", [x, kw, b], [y], "Conv2DOptions", padding=padding, stride_w=stride, stride_h=stride,
           dilation_w_factor=dil, dilation_h_factor=dil, fused_activation_function=act)
    return c.finish([y])


def depthwise(rng, mult=1, padding=SAME, stride=1, act=RELU):
    c = Case(rng)
    h, w_, ci, k = int(rng.integers(5, 10)), int(rng.integers(5, 10)), int(rng.integers(1, 6)), 3
    x = c.act("x", [1, h, w_, ci], is_input=True)
    kw, ws = c.weights("w", [1, k, k, ci * mult], 3)
    b = c.bias("b", ci * mult, scale_of(c, x), ws)
    oh = -(-h // stride) if padding == SAME else (h - k) // stride + 1
    ow = -(-w_ // stride) if padding == SAME else (w_ - k) // stride + 1
    y = c.act("y", [1, oh, ow, ci * mult], scale=rng.uniform(0.05, 0.5))
    c.w.op("DEPTHWISE_CONV_2D", [x, kw, b], [y], "DepthwiseConv2DOptions", padding=padding, stride_w=stride,
           stride_h=stride, depth_multiplier=mult, fused_activation_function=act)
    return c.finish([y])


def fully_connected(rng, act=0):
    c = Case(rng)
    rows, k, n = int(rng.integers(1, 4)), int(rng.integers(4, 40)), int(rng.integers(1, 12))
    x = c.act("x", [rows, k], is_input=True)
    kw, ws = c.weights("w", [n, k], None, per_channel=False)
    b = c.bias("b", n, scale_of(c, x), ws)
    y = c.act("y", [rows, n], scale=rng.uniform(0.1, 1.0))
    c.w.op("FULLY_CONNECTED", [x, kw, b], [y], "FullyConnectedOptions", fused_activation_function=act)
    return c.finish([y])


def binary(rng, op, broadcast=False, act=0):
    c = Case(rng)
    shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5))]
    a = c.act("a", shape, is_input=True)
    b = c.act("b", [1, 1, 1, shape[3]] if broadcast else shape, is_input=True)
    # squares reach (255 s)^2: a coarser output scale keeps most of them unsaturated
    y = c.act("y", shape, scale=rng.uniform(0.5, 4) if op == "SQUARED_DIFFERENCE" else None)
    if op == "SQUARED_DIFFERENCE":
        c.w.op(op, [a, b], [y])
        return c.finish([y])
    options = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions"}[op]
    c.w.op(op, [a, b], [y], options, fused_activation_function=act)
    return c.finish([y])


def pool(rng, op, padding=SAME, act=0):
    c = Case(rng)
    shape = [1, int(rng.integers(4, 9)), int(rng.integers(4, 9)), int(rng.integers(1, 5))]
    x = c.act("x", shape, is_input=True)
    k, s = 3, 2
    oh = -(-shape[1] // s) if padding == SAME else (shape[1] - k) // s + 1
    ow = -(-shape[2] // s) if padding == SAME else (shape[2] - k) // s + 1
    xs = c.w.tensors[x]
    y = c.act("y", [1, oh, ow, shape[3]], scale=xs["scale"], zp=xs["zero_point"])  # TFLite: same params
    c.w.op(op, [x], [y], "Pool2DOptions", padding=padding, stride_w=s, stride_h=s, filter_width=k, filter_height=k,
           fused_activation_function=act)
    return c.finish([y])


def table_op(rng, op):
    c = Case(rng)
    shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    x = c.act("x", shape, is_input=True)
    # TFLite's fixed output parameters: LOGISTIC 1/256 with zero point -128, TANH 1/128 with 0.
    y = c.act("y", shape, scale=1 / 256, zp=-128) if op == "LOGISTIC" else c.act("y", shape, scale=1 / 128, zp=0)
    c.w.op(op, [x], [y])
    return c.finish([y])


def reshape_concat(rng):
    c = Case(rng)
    a = c.act("a", [1, 2, 3, 4], is_input=True)
    ta = c.w.tensors[a]
    b = c.act("b", [1, 2, 3, 2], scale=ta["scale"], zp=ta["zero_point"], is_input=True)
    cc = c.act("c", [1, 2, 3, 6], scale=ta["scale"], zp=ta["zero_point"])
    y = c.act("y", [6, 6], scale=ta["scale"], zp=ta["zero_point"])
    shape = c.w.tensor("shape", [2], "int32", data=[6, 6])
    c.w.op("CONCATENATION", [a, b], [cc], "ConcatenationOptions", axis=3)
    c.w.op("RESHAPE", [cc, shape], [y], "ReshapeOptions", new_shape=[6, 6])
    return c.finish([y])


def quantize_dequantize(rng):
    """float in -> QUANTIZE -> CONV_2D -> DEQUANTIZE -> float out (the usual boundary of a converted model)."""
    c = Case(rng)
    xf = c.w.tensor("xf", [1, 6, 6, 3], "float32")
    c.inputs.append(xf)
    c.feeds["xf"] = rng.uniform(-2, 2, (1, 6, 6, 3)).astype(np.float32)
    x = c.act("xq", [1, 6, 6, 3], scale=4 / 255, zp=0)
    kw, ws = c.weights("w", [4, 3, 3, 3], 0)
    b = c.bias("b", 4, 4 / 255, ws)
    y = c.act("y", [1, 6, 6, 4], scale=0.2)
    yf = c.w.tensor("yf", [1, 6, 6, 4], "float32")
    c.w.op("QUANTIZE", [xf], [x])
    c.w.op("CONV_2D", [x, kw, b], [y], "Conv2DOptions", padding=SAME, stride_w=1, stride_h=1)
    c.w.op("DEQUANTIZE", [y], [yf])
    return c.finish([yf])


def quantize_ties(rng, scale):
    """QUANTIZE on values at and next to rounding ties (k + 1/2) * scale, both signs, and random ones."""
    c = Case(rng)
    k = np.arange(-140, 140)
    ties = ((k + 0.5) * scale).astype(np.float32)
    near = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(-np.inf)),
                           rng.uniform(-40 * scale, 40 * scale, 160).astype(np.float32)])
    xf = c.w.tensor("xf", [near.size], "float32")
    c.inputs.append(xf)
    c.feeds["xf"] = near.astype(np.float32)
    y = c.act("y", [near.size], scale=scale, zp=int(rng.integers(-10, 10)))
    c.w.op("QUANTIZE", [xf], [y])
    return c.finish([y])


def same_params(c, t):
    """scale and zero point of tensor t, for outputs TFLite requires to be quantized like their input."""
    ts = c.w.tensors[t]
    return dict(scale=ts["scale"], zp=ts["zero_point"])


def data_movement(rng):
    """TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, PACK, UNPACK, SQUEEZE, EXPAND_DIMS, TILE, GATHER on int8:
    TFLite copies the raw values (output quantized like the input)."""
    c = Case(rng)
    x = c.act("x", [1, 4, 6, 3], is_input=True)
    q = same_params(c, x)
    i32 = lambda name, v: c.w.tensor(name, [len(v)], "int32", data=np.array(v, np.int32))  # noqa: E731
    t = c.act("transposed", [1, 6, 4, 3], **q)
    c.w.op("TRANSPOSE", [x, i32("perm", [0, 2, 1, 3])], [t])
    s = c.act("sliced", [1, 3, 4, 2], **q)
    c.w.op("SLICE", [t, i32("begin", [0, 1, 0, 1]), i32("size", [1, 3, -1, 2])], [s])
    ss = c.act("strided", [2, 4, 3], **q)
    c.w.op("STRIDED_SLICE", [x, i32("b", [0, 1, 1, 0]), i32("e", [1, 3, 5, 3]), i32("st", [1, 1, 1, 1])], [ss],
           "StridedSliceOptions", begin_mask=8, end_mask=8, shrink_axis_mask=1)
    a, b = c.act("split0", [2, 2, 3], **q), c.act("split1", [2, 2, 3], **q)
    c.w.op("SPLIT", [c.w.tensor("axis", [], "int32", data=np.array(1, np.int32)), ss], [a, b], "SplitOptions",
           num_splits=2)
    v0, v1 = c.act("splitv0", [1, 4, 2, 3], **q), c.act("splitv1", [1, 4, 4, 3], **q)
    c.w.op("SPLIT_V", [x, i32("sizes", [2, -1]), c.w.tensor("axis2", [], "int32", data=np.array(2, np.int32))],
           [v0, v1], "SplitVOptions", num_splits=2)
    pk = c.act("packed", [2, 2, 2, 3], **q)
    c.w.op("PACK", [a, b], [pk], "PackOptions", values_count=2, axis=1)
    u0, u1, u2 = (c.act(f"unpacked{i}", [1, 4, 6], **q) for i in range(3))
    c.w.op("UNPACK", [x], [u0, u1, u2], "UnpackOptions", num=3, axis=3)
    sq = c.act("squeezed", [4, 6, 3], **q)
    c.w.op("SQUEEZE", [x], [sq], "SqueezeOptions", squeeze_dims=[0])
    ed = c.act("expanded", [4, 1, 6, 3], **q)
    c.w.op("EXPAND_DIMS", [sq, c.w.tensor("dim", [], "int32", data=np.array(1, np.int32))], [ed])
    tl = c.act("tiled", [2, 3, 4, 2], **q)
    c.w.op("TILE", [s, i32("multiples", [2, 1, 1, 1])], [tl])
    return c.finish([t, s, ss, a, b, v0, v1, pk, u0, u2, ed, tl])


def pad(rng, v2=False):
    c = Case(rng)
    x = c.act("x", [1, 3, 4, 2], is_input=True)
    q = same_params(c, x)
    y = c.act("y", [1, 5, 7, 2], **q)
    paddings = c.w.tensor("paddings", [4, 2], "int32", data=np.array([[0, 0], [1, 1], [2, 1], [0, 0]], np.int32))
    if v2:
        value = c.w.tensor("value", [], "int8", data=np.array(int(rng.integers(-128, 128)), np.int8),
                           scale=q["scale"], zero_point=q["zp"])
        c.w.op("PADV2", [x, paddings, value], [y])
    else:
        c.w.op("PAD", [x, paddings], [y])
    return c.finish([y])


def max_min(rng, op):
    """MAXIMUM / MINIMUM: TFLite compares the raw values; the converter gives inputs and output one quantization."""
    c = Case(rng)
    a = c.act("a", [1, 3, 4, 5], is_input=True)
    q = same_params(c, a)
    b = c.act("b", [1, 1, 4, 5], is_input=True, **q)
    y = c.act("y", [1, 3, 4, 5], **q)
    c.w.op(op, [a, b], [y])
    return c.finish([y])


def resize_nearest(rng, align=False, half=False):
    c = Case(rng)
    x = c.act("x", [1, 3, 5, 2], is_input=True)
    y = c.act("y", [1, 7, 4, 2], **same_params(c, x))
    size = c.w.tensor("size", [2], "int32", data=np.array([7, 4], np.int32))
    c.w.op("RESIZE_NEAREST_NEIGHBOR", [x, size], [y], "ResizeNearestNeighborOptions", align_corners=align,
           half_pixel_centers=half)
    return c.finish([y])


def unary_op(rng, op, options=None, out_scale=None, out_zp=None, **fields):
    """An elementwise int8 operator on a random input (the output's parameters random unless given)."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    x = c.act("x", shape, scale=rng.uniform(0.01, 0.08), is_input=True)
    y = c.act("y", shape, scale=out_scale if out_scale is not None else rng.uniform(0.01, 0.08), zp=out_zp)
    c.w.op(op, [x], [y], options, **fields)
    return c.finish([y])


def softmax(rng, classes, beta=1.0):
    """SOFTMAX int8 -> int8; TFLite fixes the output's parameters to 1/256 and -128."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 5)), classes]
    x = c.act("x", shape, scale=rng.uniform(0.02, 0.2), is_input=True)
    y = c.act("y", shape, scale=1 / 256, zp=-128)
    c.w.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=beta)
    return c.finish([y])


def prelu(rng):
    """PRELU with a constant int8 alpha per channel (its own scale and zero point)."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 6))]
    x = c.act("x", shape, is_input=True)
    alpha = c.w.tensor("alpha", [1, 1, shape[3]], "int8", data=rng.integers(-128, 128, [1, 1, shape[3]]).astype(np.int8),
                       scale=float(rng.uniform(0.002, 0.01)), zero_point=int(rng.integers(-20, 20)))
    y = c.act("y", shape)
    c.w.op("PRELU", [x, alpha], [y])
    return c.finish([y])


def reduce_extremes(rng):
    """REDUCE_MAX / REDUCE_MIN (output quantized like the input) and ARG_MAX / ARG_MIN (int32) of int8, with
    ties: the input takes few distinct values."""
    c = Case(rng)
    x = c.act("x", [2, 3, 7], is_input=True)
    c.feeds["x"] = rng.choice([-128, -127, -3, 0, 5, 126, 127], [2, 3, 7]).astype(np.int8)
    q = same_params(c, x)
    axes = c.w.tensor("axes", [2], "int32", data=np.array([0, 2], np.int32))
    mx, mn = c.act("max", [1, 3, 1], **q), c.act("min", [3], **q)
    c.w.op("REDUCE_MAX", [x, axes], [mx], "ReducerOptions", keep_dims=True)
    c.w.op("REDUCE_MIN", [x, axes], [mn], "ReducerOptions", keep_dims=False)
    axis = c.w.tensor("axis", [1], "int32", data=np.array([2], np.int32))
    am, an = c.w.tensor("argmax", [2, 3], "int32"), c.w.tensor("argmin", [2, 3], "int32")
    c.w.op("ARG_MAX", [x, axis], [am], "ArgMaxOptions", output_type=2)
    c.w.op("ARG_MIN", [x, axis], [an], "ArgMinOptions", output_type=2)
    return c.finish([mx, mn, am, an])


def mean_hw(rng, same=False):
    """MEAN over H and W with keep_dims (global average pooling)."""
    c = Case(rng)
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 8)), int(rng.integers(1, 8)), int(rng.integers(1, 12))]
    x = c.act("x", shape, is_input=True)
    q = same_params(c, x) if same else dict(scale=rng.uniform(0.005, 0.03))
    y = c.act("y", [shape[0], 1, 1, shape[3]], **q)
    c.w.op("MEAN", [x, c.w.tensor("axes", [2], "int32", data=np.array([1, 2], np.int32))], [y], "ReducerOptions",
           keep_dims=True)
    return c.finish([y])


def mean_sum_axes(rng, op, axes, keep, same=False):
    """MEAN (outside the global-average kernel) or SUM over other axes: TFLite's float requantization, or with the
    output quantized like the input the truncated integer mean / the int8-wrapped sum."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(1, 9))]
    x = c.act("x", shape, is_input=True)
    out = [1 if i in axes else d for i, d in enumerate(shape)] if keep else [d for i, d in enumerate(shape) if i not in axes]
    scale = rng.uniform(0.005, 0.03) if op == "MEAN" else rng.uniform(0.1, 0.5)
    y = c.act("y", out, **(same_params(c, x) if same else dict(scale=scale)))
    # a negative axis, as converters write them
    axes_data = np.array([a - len(shape) if a == max(axes) else a for a in axes], np.int32)
    c.w.op(op, [x, c.w.tensor("axes", [len(axes)], "int32", data=axes_data)], [y], "ReducerOptions", keep_dims=keep)
    return c.finish([y])


def resize_bilinear(rng, align=False, half=False, out_hw=(7, 4)):
    c = Case(rng)
    x = c.act("x", [1, 3, 5, 2], is_input=True)
    y = c.act("y", [1, out_hw[0], out_hw[1], 2], **same_params(c, x))
    size = c.w.tensor("size", [2], "int32", data=np.array(out_hw, np.int32))
    c.w.op("RESIZE_BILINEAR", [x, size], [y], "ResizeBilinearOptions", align_corners=align, half_pixel_centers=half)
    return c.finish([y])


def conv16x8(rng, padding=SAME, stride=1, act=0, per_channel=True):
    """CONV_2D with int16 activations, int8 weights and int64 biases (TFLite's 16x8 quantization)."""
    c = Case(rng)
    h, w_, ci, co, k = int(rng.integers(4, 9)), int(rng.integers(4, 9)), int(rng.integers(1, 6)), int(rng.integers(1, 9)), 3
    x = c.act("x", [1, h, w_, ci], scale=rng.uniform(1e-4, 1e-3), is_input=True, dtype="int16")
    kw, ws = c.weights("w", [co, k, k, ci], 0, per_channel)
    b = c.bias("b", co, scale_of(c, x), ws, dtype="int64")
    oh = -(-h // stride) if padding == SAME else (h - k) // stride + 1
    ow = -(-w_ // stride) if padding == SAME else (w_ - k) // stride + 1
    y = c.act("y", [1, oh, ow, co], scale=rng.uniform(2e-3, 2e-2), dtype="int16")
    c.w.op("CONV_2D", [x, kw, b], [y], "Conv2DOptions", padding=padding, stride_w=stride, stride_h=stride,
           dilation_w_factor=1, dilation_h_factor=1, fused_activation_function=act)
    return c.finish([y])


def fully_connected16x8(rng, act=0):
    c = Case(rng)
    rows, k, n = int(rng.integers(1, 4)), int(rng.integers(4, 40)), int(rng.integers(1, 12))
    x = c.act("x", [rows, k], scale=rng.uniform(1e-4, 1e-3), is_input=True, dtype="int16")
    kw, ws = c.weights("w", [n, k], None, per_channel=False)
    b = c.bias("b", n, scale_of(c, x), ws, dtype="int64")
    y = c.act("y", [rows, n], scale=rng.uniform(1e-3, 1e-2), dtype="int16")
    c.w.op("FULLY_CONNECTED", [x, kw, b], [y], "FullyConnectedOptions", fused_activation_function=act)
    return c.finish([y])


def binary16(rng, op, broadcast=False, act=0):
    """ADD / SUB on int16 (zero points 0) through TFLite's general-scale path (pot_scale_int16 false)."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5))]
    a = c.act("a", shape, scale=rng.uniform(1e-4, 1e-3), is_input=True, dtype="int16")
    b = c.act("b", [1, 1, 1, shape[3]] if broadcast else shape, scale=rng.uniform(1e-4, 1e-3), is_input=True,
              dtype="int16")
    y = c.act("y", shape, scale=rng.uniform(2e-4, 2e-3), dtype="int16")
    c.w.op(op, [a, b], [y], {"ADD": "AddOptions", "SUB": "SubOptions"}[op], fused_activation_function=act,
           pot_scale_int16=False)
    return c.finish([y])


def table16(rng, op, every_value=False):
    """int16 LOGISTIC / TANH (TFLite's interpolated sigmoid table; output scale 2^-15). every_value feeds all
    65536 int16 inputs."""
    c = Case(rng)
    shape = [256, 256] if every_value else [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    # log-uniform input scales across the table's range (a power of two near 2^-12 takes another TFLite kernel)
    scale = float(np.exp(rng.uniform(np.log(2e-5), np.log(5e-3))))
    x = c.act("x", shape, scale=scale, is_input=True, dtype="int16")
    if every_value:
        c.feeds["x"] = np.arange(-32768, 32768, dtype=np.int16).reshape(shape)
    y = c.act("y", shape, scale=1 / 32768, dtype="int16")
    c.w.op(op, [x], [y])
    return c.finish([y])


def softmax16(rng, classes, beta=1.0, narrow=False):
    """SOFTMAX int16 -> int16 (output scale 2^-15, zero points 0). narrow: inputs within +-512 of each other,
    so that many classes contribute to the sum."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 4)), classes]
    scale = float(np.exp(rng.uniform(np.log(2e-5), np.log(3e-3))))
    x = c.act("x", shape, scale=scale, is_input=True, dtype="int16")
    if narrow:
        c.feeds["x"] = rng.integers(-512, 512, shape).astype(np.int16)
    y = c.act("y", shape, scale=1 / 32768, dtype="int16")
    c.w.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=beta)
    return c.finish([y])


def uint8_model(rng, op):
    """TFLite's legacy uint8 quantization (asymmetric activations and per-tensor weights, zero points near 128)."""
    c = Case(rng)
    u8 = dict(dtype="uint8")
    if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        h, w_, ci, co = int(rng.integers(4, 9)), int(rng.integers(4, 9)), int(rng.integers(1, 5)), int(rng.integers(1, 6))
        x = c.act("x", [1, h, w_, ci], is_input=True, **u8)
        if op == "CONV_2D":
            kw, ws = c.weights("w", [co, 3, 3, ci], **u8)
            y = c.act("y", [1, h, w_, co], scale=rng.uniform(0.05, 0.5), **u8)
            c.w.op(op, [x, kw, c.bias("b", co, scale_of(c, x), ws)], [y], "Conv2DOptions", padding=SAME, stride_w=1,
                   stride_h=1, dilation_w_factor=1, dilation_h_factor=1, fused_activation_function=RELU6)
        else:
            kw, ws = c.weights("w", [1, 3, 3, ci], **u8)
            y = c.act("y", [1, h, w_, ci], scale=rng.uniform(0.05, 0.5), **u8)
            c.w.op(op, [x, kw, c.bias("b", ci, scale_of(c, x), ws)], [y], "DepthwiseConv2DOptions", padding=SAME,
                   stride_w=1, stride_h=1, depth_multiplier=1, fused_activation_function=RELU)
    elif op == "FULLY_CONNECTED":
        rows, k, n = int(rng.integers(1, 4)), int(rng.integers(4, 40)), int(rng.integers(1, 12))
        x = c.act("x", [rows, k], is_input=True, **u8)
        kw, ws = c.weights("w", [n, k], **u8)
        y = c.act("y", [rows, n], scale=rng.uniform(0.1, 1.0), **u8)
        c.w.op(op, [x, kw, c.bias("b", n, scale_of(c, x), ws)], [y], "FullyConnectedOptions")
    elif op == "ADD":
        shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5))]
        a, b = c.act("a", shape, is_input=True, **u8), c.act("b", shape, is_input=True, **u8)
        y = c.act("y", shape, **u8)
        c.w.op(op, [a, b], [y], "AddOptions", fused_activation_function=RELU)
        return c.finish([y])
    elif op in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        shape = [1, int(rng.integers(4, 9)), int(rng.integers(4, 9)), int(rng.integers(1, 5))]
        x = c.act("x", shape, is_input=True, **u8)
        y = c.act("y", [1, -(-shape[1] // 2), -(-shape[2] // 2), shape[3]], **same_params(c, x), **u8)
        c.w.op(op, [x], [y], "Pool2DOptions", padding=SAME, stride_w=2, stride_h=2, filter_width=3, filter_height=3)
    elif op == "SOFTMAX":  # TFLite fixes a uint8 softmax output to 1/256 and zero point 0
        shape = [int(rng.integers(1, 4)), int(rng.integers(2, 40))]
        x = c.act("x", shape, scale=rng.uniform(0.02, 0.2), is_input=True, **u8)
        y = c.act("y", shape, scale=1 / 256, zp=0, **u8)
        c.w.op(op, [x], [y], "SoftmaxOptions", beta=1.0)
    elif op in ("LOGISTIC", "TANH"):  # TFLite's uint8 outputs: LOGISTIC 1/256 with 0, TANH 1/128 with 128
        shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
        x = c.act("x", shape, is_input=True, **u8)
        y = c.act("y", shape, scale=1 / 256 if op == "LOGISTIC" else 1 / 128, zp=0 if op == "LOGISTIC" else 128, **u8)
        c.w.op(op, [x], [y])
    elif op in ("MUL", "SUB"):
        shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5))]
        a, b = c.act("a", shape, is_input=True, **u8), c.act("b", [1, 1, 1, shape[3]], is_input=True, **u8)
        y = c.act("y", shape, **u8)
        c.w.op(op, [a, b], [y], op.capitalize() + "Options", fused_activation_function=0)
    elif op == "CONCATENATION":  # then RESHAPE; inputs and output share their quantization, as TFLite requires
        a = c.act("a", [1, 2, 3, 4], is_input=True, **u8)
        q = same_params(c, a)
        b = c.act("b", [1, 2, 3, 2], is_input=True, **q, **u8)
        cc = c.act("c", [1, 2, 3, 6], **q, **u8)
        y = c.act("y", [6, 6], **q, **u8)
        c.w.op(op, [a, b], [cc], "ConcatenationOptions", axis=3)
        c.w.op("RESHAPE", [cc, c.w.tensor("shape", [2], "int32", data=[6, 6])], [y], "ReshapeOptions", new_shape=[6, 6])
    elif op == "PAD":
        x = c.act("x", [1, 3, 4, 2], is_input=True, **u8)
        y = c.act("y", [1, 5, 7, 2], **same_params(c, x), **u8)
        c.w.op(op, [x, c.w.tensor("paddings", [4, 2], "int32", data=np.array([[0, 0], [1, 1], [2, 1], [0, 0]], np.int32))], [y])
    elif op == "QUANTIZE":  # float -> uint8 -> DEQUANTIZE
        xf = c.w.tensor("xf", [1, 40], "float32")
        c.inputs.append(xf)
        c.feeds["xf"] = rng.uniform(-3, 3, (1, 40)).astype(np.float32)
        q = c.act("q", [1, 40], scale=6 / 255, **u8)
        y = c.w.tensor("y", [1, 40], "float32")
        c.w.op("QUANTIZE", [xf], [q])
        c.w.op("DEQUANTIZE", [q], [y])
        return c.finish([q, y])
    return c.finish([y])


def transpose_conv(rng, padding=SAME, stride=2, bias=True):
    """TRANSPOSE_CONV int8 with per-channel weights (inputs: output_shape, weights, input, bias)."""
    c = Case(rng)
    h, w_, ci, co, k = int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 6)), 3
    x = c.act("x", [1, h, w_, ci], is_input=True)
    kw, ws = c.weights("w", [co, k, k, ci], 0)
    oh, ow = (h * stride, w_ * stride) if padding == SAME else ((h - 1) * stride + k, (w_ - 1) * stride + k)
    shape = c.w.tensor("output_shape", [4], "int32", data=np.array([1, oh, ow, co], np.int32))
    y = c.act("y", [1, oh, ow, co], scale=rng.uniform(0.05, 0.5))
    ins = [shape, kw, x] + ([c.bias("b", co, scale_of(c, x), ws)] if bias else [])
    c.w.op("TRANSPOSE_CONV", ins, [y], "TransposeConvOptions", padding=padding, stride_w=stride, stride_h=stride)
    return c.finish([y])


def block_moves(rng):
    """GATHER, GATHER_ND, MIRROR_PAD, SPACE_TO_BATCH_ND (padded: TFLite pads with the zero point),
    BATCH_TO_SPACE_ND, SPACE_TO_DEPTH and DEPTH_TO_SPACE on int8."""
    c = Case(rng)
    x = c.act("x", [1, 4, 6, 2], is_input=True)
    q = same_params(c, x)
    i32 = lambda name, v: c.w.tensor(name, list(np.shape(v)), "int32", data=np.array(v, np.int32))  # noqa: E731
    g = c.act("gathered", [1, 4, 3, 2], **q)
    c.w.op("GATHER", [x, i32("idx", [5, 0, 5])], [g], "GatherOptions", axis=2)
    n = c.act("gathered_nd", [2, 6, 2], **q)
    c.w.op("GATHER_ND", [x, i32("nd", [[0, 3], [0, 1]])], [n])
    mp = c.act("mirrored", [1, 6, 7, 2], **q)
    c.w.op("MIRROR_PAD", [x, i32("mpad", [[0, 0], [1, 1], [0, 1], [0, 0]])], [mp], "MirrorPadOptions", mode=0)
    sb = c.act("space_to_batch", [4, 3, 4, 2], **q)
    c.w.op("SPACE_TO_BATCH_ND", [x, i32("block", [2, 2]), i32("pads", [[1, 1], [1, 1]])], [sb])
    bs = c.act("batch_to_space", [1, 5, 7, 2], **q)
    c.w.op("BATCH_TO_SPACE_ND", [sb, i32("block2", [2, 2]), i32("crops", [[1, 0], [0, 1]])], [bs])
    sd = c.act("space_to_depth", [1, 2, 3, 8], **q)
    c.w.op("SPACE_TO_DEPTH", [x], [sd], "SpaceToDepthOptions", block_size=2)
    ds = c.act("depth_to_space", [1, 4, 6, 2], **q)
    c.w.op("DEPTH_TO_SPACE", [sd], [ds], "DepthToSpaceOptions", block_size=2)
    return c.finish([g, n, mp, sb, bs, ds])


def log_softmax(rng, classes):
    """LOG_SOFTMAX int8; TFLite fixes the output's parameters to 16/256 and 127."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), classes]
    x = c.act("x", shape, scale=rng.uniform(0.02, 0.2), is_input=True)
    y = c.act("y", shape, scale=16 / 256, zp=127)
    c.w.op("LOG_SOFTMAX", [x], [y])
    return c.finish([y])



def softmax_int16_out(rng, classes):
    """SOFTMAX int8 -> int16; TFLite fixes the output's parameters to 1/32768 and -32768."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 4)), classes]
    x = c.act("x", shape, scale=rng.uniform(0.02, 0.2), is_input=True)
    y = c.act("y", shape, scale=1 / 32768, dtype="int16")
    c.w.tensors[y]["zero_point"] = -32768
    c.w.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=float(rng.uniform(0.5, 2)))
    return c.finish([y])


def reduce_prod(rng, axes, keep, dtype="int8"):
    """REDUCE_PROD: TFLite requantizes after every multiplication, in element order. The output scale follows
    the typical product of the reduced count, so that most results are in range."""
    c = Case(rng)
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 6))]
    n = int(np.prod([shape[a] for a in axes]))
    in_scale = rng.uniform(0.01, 0.1) if dtype == "int8" else rng.uniform(1e-4, 1e-3)
    typical = 64 if dtype == "int8" else 16000
    x = c.act("x", shape, scale=in_scale, is_input=True, dtype=dtype)
    out = [1 if i in axes else d for i, d in enumerate(shape)] if keep else [d for i, d in enumerate(shape) if i not in axes]
    limit = 60 if dtype == "int8" else 16000
    out_scale = float((typical * in_scale) ** n / limit * rng.uniform(0.5, 2))
    y = c.act("y", out, scale=out_scale, dtype=dtype)
    axes_data = np.array([a - len(shape) if a == max(axes) else a for a in axes], np.int32)
    c.w.op("REDUCE_PROD", [x, c.w.tensor("axes", [len(axes)], "int32", data=axes_data)], [y], "ReducerOptions",
           keep_dims=keep)
    return c.finish([y])


def uint8_resize_bilinear(rng, align=False, half=False, out_hw=(7, 4)):
    """uint8 RESIZE_BILINEAR (TFLite 2.9 takes its optimized float-weight kernel for uint8)."""
    c = Case(rng)
    shape = [int(rng.integers(1, 3)), int(rng.integers(2, 6)), int(rng.integers(2, 7)), int(rng.integers(1, 5))]
    x = c.act("x", shape, is_input=True, dtype="uint8")
    y = c.act("y", [shape[0], out_hw[0], out_hw[1], shape[3]], **same_params(c, x), dtype="uint8")
    size = c.w.tensor("size", [2], "int32", data=np.array(out_hw, np.int32))
    c.w.op("RESIZE_BILINEAR", [x, size], [y], "ResizeBilinearOptions", align_corners=align, half_pixel_centers=half)
    return c.finish([y])



def unary_same_scale(rng, op):
    """An elementwise int8 operator whose output has the input's scale (another zero point)."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    x = c.act("x", shape, scale=rng.uniform(0.01, 0.08), is_input=True)
    y = c.act("y", shape, scale=scale_of(c, x))
    c.w.op(op, [x], [y])
    return c.finish([y])


def unary16(rng, op, options=None, **fields):
    """An elementwise int16 operator (zero points 0), the input covering the whole int16 range."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    x = c.act("x", shape, scale=rng.uniform(1e-4, 1e-3), is_input=True, dtype="int16")
    y = c.act("y", shape, scale=rng.uniform(1e-4, 1e-3), dtype="int16")
    c.w.op(op, [x], [y], options, **fields)
    return c.finish([y])


def compare_all(rng, broadcast=False):
    """LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL of two int8 operands with their own scales; the
    second operand a rescaled copy of the first on some elements, so that near-equal values occur."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(1, 4))]
    bshape = [1, 1, 1, shape[3]] if broadcast else shape
    a = c.act("a", shape, is_input=True)
    b = c.act("b", bshape, is_input=True)
    if not broadcast:  # b = a (in real terms) where possible
        sa, sb = scale_of(c, a), scale_of(c, b)
        za, zb = c.w.tensors[a]["zero_point"], c.w.tensors[b]["zero_point"]
        copy = np.clip(np.round((c.feeds["a"].astype(np.float64) - za) * sa / sb) + zb, -128, 127).astype(np.int8)
        c.feeds["b"] = np.where(rng.random(shape) < 0.5, copy, c.feeds["b"]).astype(np.int8)
    outs = []
    for op in ["LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL"]:
        y = c.w.tensor(op.lower(), shape, "bool")
        c.w.op(op, [a, b], [y])
        outs.append(y)
    return c.finish(outs)


def requantize_op(rng, src, dst):
    """QUANTIZE of a quantized tensor: TFLite requantizes (int8 -> int8, int16 -> int16, int16 -> int8)."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 40))]
    x = c.act("x", shape, scale=rng.uniform(0.01, 0.1) if src == "int8" else rng.uniform(1e-4, 1e-3), is_input=True,
              dtype=src)
    y = c.act("y", shape, scale=rng.uniform(0.01, 0.1) if dst == "int8" else rng.uniform(1e-4, 1e-3), dtype=dst)
    c.w.op("QUANTIZE", [x], [y])
    return c.finish([y])


def binary16_more(rng, op, broadcast=False, act=0):
    """MUL (requantized product) or MAXIMUM / MINIMUM (raw values, one quantization) on int16."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 6)), int(rng.integers(2, 6)), int(rng.integers(1, 5))]
    a = c.act("a", shape, scale=rng.uniform(1e-4, 1e-3), is_input=True, dtype="int16")
    q = {} if op == "MUL" else same_params(c, a)
    b = c.act("b", [1, 1, 1, shape[3]] if broadcast else shape, is_input=True, dtype="int16",
              **(q or dict(scale=rng.uniform(1e-4, 1e-3))))
    y = c.act("y", shape, dtype="int16", **(q or dict(scale=rng.uniform(2e-3, 2e-2))))
    if op == "MUL":
        c.w.op(op, [a, b], [y], "MulOptions", fused_activation_function=act)
    else:
        c.w.op(op, [a, b], [y])
    return c.finish([y])


def select_v2(rng):
    """SELECT_V2 on int8 values (TFLite moves the raw values; one quantization), the condition broadcast."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 5)), int(rng.integers(2, 6))]
    cond = c.w.tensor("cond", [1, 1, shape[2]], "bool")
    c.inputs.append(cond)
    c.feeds["cond"] = rng.integers(0, 2, [1, 1, shape[2]]).astype(bool)
    a = c.act("a", shape, is_input=True)
    b = c.act("b", shape, is_input=True, **same_params(c, a))
    y = c.act("y", shape, **same_params(c, a))
    c.w.op("SELECT_V2", [cond, a, b], [y])
    return c.finish([y])



def batch_matmul(rng, adj_x=False, adj_y=False):
    """BATCH_MATMUL int8 of two run-time operands with their own zero points."""
    c = Case(rng)
    batch, m, k, n = [int(rng.integers(1, 3)), int(rng.integers(1, 3))], int(rng.integers(1, 6)), int(rng.integers(2, 20)), int(rng.integers(1, 7))
    a = c.act("a", batch + ([k, m] if adj_x else [m, k]), is_input=True)
    b = c.act("b", batch + ([n, k] if adj_y else [k, n]), is_input=True)
    y = c.act("y", batch + [m, n], scale=rng.uniform(0.1, 1.0))
    c.w.op("BATCH_MATMUL", [a, b], [y], "BatchMatMulOptions", adj_x=adj_x, adj_y=adj_y)
    return c.finish([y])



def rsqrt(rng):
    """RSQRT int8: TFLite fails on inputs below the zero point, so the inputs are at or above it."""
    c = Case(rng)
    shape = [1, int(rng.integers(2, 9)), int(rng.integers(1, 9))]
    x = c.act("x", shape, scale=rng.uniform(0.01, 0.08), is_input=True)
    zp = c.w.tensors[x]["zero_point"]
    c.feeds["x"] = rng.integers(zp, 128, shape).astype(np.int8)
    y = c.act("y", shape, scale=rng.uniform(0.02, 0.2))
    c.w.op("RSQRT", [x], [y])
    return c.finish([y])


CASES = {
    "conv_same_relu6": lambda r: conv(r),
    "conv_valid_stride2": lambda r: conv(r, VALID, 2, act=0),
    "conv_dilated_relu": lambda r: conv(r, SAME, 1, 2, RELU),
    "conv_per_tensor": lambda r: conv(r, SAME, 1, 1, RELU_N1_TO_1, per_channel=False),
    "depthwise_relu": lambda r: depthwise(r),
    "depthwise_mult2_valid": lambda r: depthwise(r, 2, VALID, 2, 0),
    "fully_connected": lambda r: fully_connected(r),
    "fully_connected_relu": lambda r: fully_connected(r, RELU),
    "add": lambda r: binary(r, "ADD"),
    "add_broadcast_relu": lambda r: binary(r, "ADD", True, RELU),
    "sub": lambda r: binary(r, "SUB"),
    "mul": lambda r: binary(r, "MUL"),
    "mul_broadcast_relu6": lambda r: binary(r, "MUL", True, RELU6),
    "max_pool_same": lambda r: pool(r, "MAX_POOL_2D"),
    "max_pool_valid_relu": lambda r: pool(r, "MAX_POOL_2D", VALID, RELU),
    "avg_pool_same": lambda r: pool(r, "AVERAGE_POOL_2D"),
    "avg_pool_valid": lambda r: pool(r, "AVERAGE_POOL_2D", VALID),
    "logistic": lambda r: table_op(r, "LOGISTIC"),
    "tanh": lambda r: table_op(r, "TANH"),
    "reshape_concat": reshape_concat,
    "quantize_dequantize": quantize_dequantize,
    "quantize_ties_pow2": lambda r: quantize_ties(r, 0.25),
    "quantize_ties_odd": lambda r: quantize_ties(r, float(np.float32(1 / 255 * 3))),
    "data_movement": data_movement,
    "block_moves": block_moves,
    "pad": lambda r: pad(r),
    "padv2": lambda r: pad(r, True),
    "maximum": lambda r: max_min(r, "MAXIMUM"),
    "minimum": lambda r: max_min(r, "MINIMUM"),
    "resize_nearest": lambda r: resize_nearest(r),
    "resize_nearest_align": lambda r: resize_nearest(r, align=True),
    "resize_nearest_half": lambda r: resize_nearest(r, half=True),
    "elu": lambda r: unary_op(r, "ELU"),
    "leaky_relu": lambda r: unary_op(r, "LEAKY_RELU", "LeakyReluOptions", alpha=float(r.uniform(0.05, 0.4))),
    "leaky_relu_steep": lambda r: unary_op(r, "LEAKY_RELU", "LeakyReluOptions", alpha=float(r.uniform(1.5, 4))),
    "hard_swish": lambda r: unary_op(r, "HARD_SWISH"),
    "hard_swish_wide": lambda r: unary_op(r, "HARD_SWISH", out_scale=r.uniform(0.001, 0.006)),
    "softmax_small": lambda r: softmax(r, int(r.integers(2, 12))),
    "softmax_classes": lambda r: softmax(r, int(r.integers(20, 120))),
    "softmax_beta": lambda r: softmax(r, int(r.integers(5, 40)), float(r.uniform(0.3, 3))),
    "prelu": prelu,
    "log_softmax": lambda r: log_softmax(r, int(r.integers(2, 40))),
    "transpose_conv_same": lambda r: transpose_conv(r),
    "transpose_conv_valid_no_bias": lambda r: transpose_conv(r, VALID, 2, False),
    "transpose_conv_stride1": lambda r: transpose_conv(r, SAME, 1),
    "int16_conv": lambda r: conv16x8(r),
    "int16_conv_valid_stride2_relu": lambda r: conv16x8(r, VALID, 2, RELU),
    "int16_conv_per_tensor_relu6": lambda r: conv16x8(r, SAME, 1, RELU6, per_channel=False),
    "int16_fully_connected": lambda r: fully_connected16x8(r),
    "int16_add": lambda r: binary16(r, "ADD"),
    "int16_add_broadcast_relu": lambda r: binary16(r, "ADD", True, RELU),
    "int16_sub": lambda r: binary16(r, "SUB"),
    "int16_fully_connected_relu": lambda r: fully_connected16x8(r, RELU),
    "int16_logistic": lambda r: table16(r, "LOGISTIC"),
    "int16_tanh": lambda r: table16(r, "TANH"),
    "int16_softmax": lambda r: softmax16(r, int(r.integers(2, 40))),
    "int16_softmax_narrow": lambda r: softmax16(r, int(r.integers(20, 300)), narrow=True),
    "int16_softmax_beta": lambda r: softmax16(r, int(r.integers(2, 60)), float(r.uniform(0.3, 3)), True),
    "int16_logistic_every_value": lambda r: table16(r, "LOGISTIC", True),
    "int16_tanh_every_value": lambda r: table16(r, "TANH", True),
    "uint8_conv": lambda r: uint8_model(r, "CONV_2D"),
    "uint8_depthwise": lambda r: uint8_model(r, "DEPTHWISE_CONV_2D"),
    "uint8_fully_connected": lambda r: uint8_model(r, "FULLY_CONNECTED"),
    "uint8_add": lambda r: uint8_model(r, "ADD"),
    "uint8_max_pool": lambda r: uint8_model(r, "MAX_POOL_2D"),
    "uint8_avg_pool": lambda r: uint8_model(r, "AVERAGE_POOL_2D"),
    "uint8_softmax": lambda r: uint8_model(r, "SOFTMAX"),
    "uint8_quantize_dequantize": lambda r: uint8_model(r, "QUANTIZE"),
    "uint8_logistic": lambda r: uint8_model(r, "LOGISTIC"),
    "uint8_tanh": lambda r: uint8_model(r, "TANH"),
    "uint8_mul": lambda r: uint8_model(r, "MUL"),
    "uint8_sub": lambda r: uint8_model(r, "SUB"),
    "uint8_concat_reshape": lambda r: uint8_model(r, "CONCATENATION"),
    "uint8_pad": lambda r: uint8_model(r, "PAD"),
    "resize_bilinear": lambda r: resize_bilinear(r),
    "resize_bilinear_align": lambda r: resize_bilinear(r, align=True),
    "resize_bilinear_half": lambda r: resize_bilinear(r, half=True),
    "resize_bilinear_half_x2": lambda r: resize_bilinear(r, half=True, out_hw=(6, 10)),
    "resize_bilinear_down": lambda r: resize_bilinear(r, out_hw=(2, 3)),
    "mean_hw": lambda r: mean_hw(r),
    "mean_hw_same_params": lambda r: mean_hw(r, True),
    "reduce_extremes": reduce_extremes,
    "mean_channels": lambda r: mean_sum_axes(r, "MEAN", [3], False),
    "mean_axes_0_2_keep": lambda r: mean_sum_axes(r, "MEAN", [0, 2], True),
    "mean_hw_no_keep": lambda r: mean_sum_axes(r, "MEAN", [1, 2], False),
    "mean_same_params": lambda r: mean_sum_axes(r, "MEAN", [1, 3], True, same=True),
    "sum_channels": lambda r: mean_sum_axes(r, "SUM", [3], False),
    "sum_axes_1_2_keep": lambda r: mean_sum_axes(r, "SUM", [1, 2], True),
    "sum_same_params_wraps": lambda r: mean_sum_axes(r, "SUM", [2, 3], False, same=True),
    "squared_difference": lambda r: binary(r, "SQUARED_DIFFERENCE"),
    "squared_difference_broadcast": lambda r: binary(r, "SQUARED_DIFFERENCE", True),
    "softmax_int16_out": lambda r: softmax_int16_out(r, int(r.integers(2, 60))),
    "reduce_prod_channels": lambda r: reduce_prod(r, [3], False),
    "reduce_prod_hw_keep": lambda r: reduce_prod(r, [1, 2], True),
    "reduce_prod_axes_0_3": lambda r: reduce_prod(r, [0, 3], False),
    "int16_reduce_prod": lambda r: reduce_prod(r, [2], True, "int16"),
    "uint8_resize_bilinear": lambda r: uint8_resize_bilinear(r),
    "uint8_resize_bilinear_align": lambda r: uint8_resize_bilinear(r, align=True),
    "uint8_resize_bilinear_half": lambda r: uint8_resize_bilinear(r, half=True),
    "uint8_resize_bilinear_half_x2": lambda r: uint8_resize_bilinear(r, half=True, out_hw=(6, 10)),
    "uint8_resize_bilinear_down": lambda r: uint8_resize_bilinear(r, out_hw=(2, 3)),
    "abs": lambda r: unary_op(r, "ABS"),
    "abs_same_scale": lambda r: unary_same_scale(r, "ABS"),
    "int16_abs": lambda r: unary16(r, "ABS"),
    "relu": lambda r: unary_op(r, "RELU"),
    "relu6": lambda r: unary_op(r, "RELU6"),
    "relu_n1_to_1": lambda r: unary_op(r, "RELU_N1_TO_1"),
    "int16_relu": lambda r: unary16(r, "RELU"),
    "int16_relu6": lambda r: unary16(r, "RELU6"),
    "gelu": lambda r: unary_op(r, "GELU", "GeluOptions", approximate=False),
    "gelu_approximate": lambda r: unary_op(r, "GELU", "GeluOptions", approximate=True),
    "compare": lambda r: compare_all(r),
    "compare_broadcast": lambda r: compare_all(r, True),
    "requantize": lambda r: requantize_op(r, "int8", "int8"),
    "int16_requantize": lambda r: requantize_op(r, "int16", "int16"),
    "int16_requantize_to_int8": lambda r: requantize_op(r, "int16", "int8"),
    "int16_mul": lambda r: binary16_more(r, "MUL"),
    "int16_mul_broadcast_relu": lambda r: binary16_more(r, "MUL", True, RELU),
    "int16_maximum": lambda r: binary16_more(r, "MAXIMUM"),
    "int16_minimum_broadcast": lambda r: binary16_more(r, "MINIMUM", True),
    "select_v2": select_v2,
    "batch_matmul": lambda r: batch_matmul(r),
    "batch_matmul_adj": lambda r: batch_matmul(r, True, True),
    "rsqrt": rsqrt,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tosakit")
    ap.add_argument("--backends", default="fast,ref")
    ap.add_argument("--cases", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="random variants per case")
    a = ap.parse_args()
    try:
        import run_tflite
    except ImportError as e:
        print(f"SKIP: {e}")
        sys.exit(77)
    if not os.path.exists(run_tflite.LIB):
        print("SKIP: TFLite is not installed (scripts/install-deps.sh)")
        sys.exit(77)
    os.makedirs(a.out, exist_ok=True)
    selected = [c for c in CASES if not a.cases or any(c.startswith(p) for p in a.cases.split(","))]
    failures = 0
    for name in selected:
        for rep in range(a.repeats):
            rng = np.random.default_rng([a.seed, rep, sum(map(ord, name))])
            model, feeds = CASES[name](rng)
            stem = os.path.join(a.out, f"{name}_{rep}")
            with open(stem + ".tflite", "wb") as f:
                f.write(model)
            np.savez(stem + ".in.npz", **feeds)
            r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tflite", "run_tflite.py"),
                                stem + ".tflite", "--inputs", stem + ".in.npz", "-o", stem + ".tflite_out.npz"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}_{rep}: TFLite refuses the model: {r.stderr.strip()[:300]}")
                failures += 1
                continue
            expected = dict(np.load(stem + ".tflite_out.npz"))
            if not a.tosakit:
                print(f"wrote {name}_{rep}")
                continue
            imp = subprocess.run([a.tosakit, "import", stem + ".tflite", "-o", stem + ".mlir"], capture_output=True,
                                 text=True)
            if imp.returncode != 0:
                print(f"FAIL {name}_{rep}: import: {imp.stderr.strip()[:300]}")
                failures += 1
                continue
            bound = max([v for k, v in BOUNDS.items() if name.startswith(k)], default=0)
            for backend in a.backends.split(","):
                out = f"{stem}.{backend}.npz"
                run = subprocess.run([a.tosakit, "run", stem + ".mlir", "--inputs", stem + ".in.npz", "-o", out,
                                      "--backend", backend], capture_output=True, text=True)
                if run.returncode != 0:
                    print(f"FAIL {name}_{rep} {backend}: run: {run.stderr.strip()[:300]}")
                    failures += 1
                    continue
                got = dict(np.load(out))
                for k, ref in expected.items():
                    g = got.get(k)
                    if g is None or g.shape != ref.shape:
                        print(f"FAIL {name}_{rep} {backend}: output {k} missing or of another shape")
                        failures += 1
                        continue
                    diff = np.abs(g.astype(np.float64) - ref.astype(np.float64))
                    worst = float(diff.max()) if diff.size else 0.0
                    if ref.dtype.kind == "f":  # float outputs (DEQUANTIZE): exact int8 means scale-exact floats
                        worst_lsb = worst / float(np.min(np.abs(ref[ref != 0]))) if np.any(ref != 0) else worst
                        ok = worst == 0
                        worst_lsb = worst
                    else:
                        ok = worst <= bound
                        worst_lsb = worst
                    count = int(np.count_nonzero(diff))
                    failures += not ok
                    print(f"{'ok  ' if ok else 'FAIL'} {name}_{rep} {backend}: {k} {list(ref.shape)} "
                          f"max diff {worst_lsb:g} ({count} of {ref.size} differ; bound {bound})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
