#!/usr/bin/python3
"""Writes the seed corpus of tflite_fuzz (tests/fuzz/corpus/tflite): small valid TFLite models covering the
reader's paths (constants, quantization parameters, sparse constants + DENSIFY, fp16 weights, options tables
of several operators, int8/int16/uint8 lowerings, gathers and block moves, a SignatureDef, an LSTM and a bidirectional
LSTM with variable state tensors), written with tests/tflite/tflite_writer.py from tosakit's own schema subset.

    tests/fuzz/make_tflite_seeds.py [OUT_DIR]
"""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "tflite"))
from check_hostile import small_model, sparse_model  # noqa: E402
from gen_float_ops import bilstm, lstm  # noqa: E402
from tflite_writer import ModelWriter  # noqa: E402


def fp16_pool_resize():
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 2], "float32")
    h = w.tensor("k16", [2, 1, 1, 2], "float16", data=np.array([1, 0.5, -1, 2]).reshape(2, 1, 1, 2))
    k = w.tensor("k", [2, 1, 1, 2], "float32")
    b = w.tensor("b", [2], "float32", data=[0.5, -0.5])
    c = w.tensor("c", [1, 4, 4, 2], "float32")
    p = w.tensor("p", [1, 2, 2, 2], "float32")
    s = w.tensor("size", [2], "int32", data=[4, 4])
    r = w.tensor("r", [1, 4, 4, 2], "float32")
    y = w.tensor("y", [1, 4, 4, 4], "float32")
    w.op("DEQUANTIZE", [h], [k])
    w.op("CONV_2D", [x, k, b], [c], "Conv2DOptions", padding=1, stride_w=1, stride_h=1, fused_activation_function=3)
    w.op("MAX_POOL_2D", [c], [p], "Pool2DOptions", padding=0, stride_w=2, stride_h=2, filter_width=2, filter_height=2)
    w.op("RESIZE_BILINEAR", [p, s], [r], "ResizeBilinearOptions", half_pixel_centers=True)
    w.op("CONCATENATION", [c, r], [y], "ConcatenationOptions", axis=3)
    return w.finish([x], [y])


def int8_fully_connected():
    w = ModelWriter()
    x = w.tensor("x", [1, 8], "int8", scale=0.05, zero_point=3)
    k = w.tensor("w", [4, 8], "int8", data=np.arange(-16, 16).reshape(4, 8), scale=[0.01, 0.02, 0.03, 0.04],
                 zero_point=[0, 0, 0, 0])
    b = w.tensor("b", [4], "int32", data=[1, -2, 3, -4], scale=[0.0005, 0.001, 0.0015, 0.002], zero_point=[0] * 4)
    y = w.tensor("y", [1, 4], "int8", scale=0.1, zero_point=-2)
    w.op("FULLY_CONNECTED", [x, k, b], [y], "FullyConnectedOptions", fused_activation_function=1)
    return w.finish([x], [y])


def int8_activations():
    """int8 SOFTMAX, HARD_SWISH, MEAN (H, W), PRELU and RESIZE_BILINEAR: the table, gather and rescale paths."""
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 3], "int8", scale=0.05, zero_point=3)
    h = w.tensor("h", [1, 4, 4, 3], "int8", scale=0.04, zero_point=-5)
    a = w.tensor("alpha", [1, 1, 3], "int8", data=np.array([5, -7, 100]).reshape(1, 1, 3), scale=0.01, zero_point=2)
    p = w.tensor("p", [1, 4, 4, 3], "int8", scale=0.04, zero_point=1)
    m = w.tensor("m", [1, 1, 1, 3], "int8", scale=0.02, zero_point=0)
    s = w.tensor("s", [1, 1, 1, 3], "int8", scale=1 / 256, zero_point=-128)
    size = w.tensor("size", [2], "int32", data=[7, 5])
    r = w.tensor("r", [1, 7, 5, 3], "int8", scale=0.04, zero_point=1)
    w.op("HARD_SWISH", [x], [h])
    w.op("PRELU", [h, a], [p])
    w.op("MEAN", [p, w.tensor("axes", [2], "int32", data=[1, 2])], [m], "ReducerOptions", keep_dims=True)
    w.op("SOFTMAX", [m], [s], "SoftmaxOptions", beta=1.0)
    w.op("RESIZE_BILINEAR", [p, size], [r], "ResizeBilinearOptions", half_pixel_centers=True)
    return w.finish([x], [s, r])


def int16_conv_add():
    """16x8 CONV_2D (int64 bias) and int16 ADD."""
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 2], "int16", scale=1e-3, zero_point=0)
    k = w.tensor("k", [2, 3, 3, 2], "int8", data=np.arange(-18, 18).reshape(2, 3, 3, 2), scale=[0.01, 0.02],
                 zero_point=[0, 0])
    b = w.tensor("b", [2], "int64", data=[1000, -2000], scale=[1e-5, 2e-5], zero_point=[0, 0])
    c = w.tensor("c", [1, 4, 4, 2], "int16", scale=2e-3, zero_point=0)
    y = w.tensor("y", [1, 4, 4, 2], "int16", scale=3e-3, zero_point=0)
    w.op("CONV_2D", [x, k, b], [c], "Conv2DOptions", padding=0, stride_w=1, stride_h=1)
    w.op("ADD", [c, x], [y], "AddOptions", pot_scale_int16=False)
    return w.finish([x], [y])


def int16_activations():
    """int16 LOGISTIC, TANH and SOFTMAX (output scale 2^-15: gathered 65536-entry tables, shifts per row)."""
    w = ModelWriter()
    x = w.tensor("x", [1, 3, 4], "int16", scale=3e-4, zero_point=0)
    s = w.tensor("s", [1, 3, 4], "int16", scale=1 / 32768, zero_point=0)
    t = w.tensor("t", [1, 3, 4], "int16", scale=1 / 32768, zero_point=0)
    w.op("LOGISTIC", [x], [s])
    m = w.tensor("m", [1, 3, 4], "int16", scale=1 / 32768, zero_point=0)
    w.op("TANH", [x], [t])
    w.op("SOFTMAX", [x], [m], "SoftmaxOptions", beta=1.0)
    return w.finish([x], [s, t, m])


def int8_mean_sum():
    """int8 MEAN over the channels (float requantization) and SUM with the input's quantization (int8 wrap)."""
    w = ModelWriter()
    x = w.tensor("x", [1, 2, 3, 4], "int8", scale=0.05, zero_point=3)
    m = w.tensor("m", [1, 2, 3], "int8", scale=0.02, zero_point=-5)
    s = w.tensor("s", [1, 1, 1, 4], "int8", scale=0.05, zero_point=3)
    w.op("MEAN", [x, w.tensor("axes", [1], "int32", data=[-1])], [m], "ReducerOptions", keep_dims=False)
    w.op("SUM", [x, w.tensor("axes2", [2], "int32", data=[1, 2])], [s], "ReducerOptions", keep_dims=True)
    return w.finish([x], [m, s])


def uint8_conv_pool():
    """TFLite's legacy uint8 quantization: uint8 input, asymmetric uint8 weights, CONV_2D, AVERAGE_POOL_2D."""
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 2], "uint8", scale=0.05, zero_point=128)
    k = w.tensor("k", [2, 3, 3, 2], "uint8", data=np.arange(100, 136).reshape(2, 3, 3, 2), scale=0.01,
                 zero_point=117)
    b = w.tensor("b", [2], "int32", data=[100, -200], scale=[0.0005, 0.0005], zero_point=[0, 0])
    c = w.tensor("c", [1, 4, 4, 2], "uint8", scale=0.1, zero_point=120)
    y = w.tensor("y", [1, 2, 2, 2], "uint8", scale=0.1, zero_point=120)
    w.op("CONV_2D", [x, k, b], [c], "Conv2DOptions", padding=0, stride_w=1, stride_h=1, fused_activation_function=1)
    w.op("AVERAGE_POOL_2D", [c], [y], "Pool2DOptions", padding=0, stride_w=2, stride_h=2, filter_width=2,
         filter_height=2)
    return w.finish([x], [y])


def gather_pad_space():
    """GATHER, GATHER_ND, MIRROR_PAD, SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND, with a signature."""
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 2], "float32")
    i = w.tensor("i", [3], "int32")
    g = w.tensor("g", [1, 4, 3, 2], "float32")
    n = w.tensor("n", [2, 4, 2], "float32")
    mp = w.tensor("mp", [1, 6, 6, 2], "float32")
    sb = w.tensor("sb", [4, 3, 3, 2], "float32")
    bs = w.tensor("bs", [1, 6, 6, 2], "float32")
    w.op("GATHER", [x, i], [g], "GatherOptions", axis=2)
    w.op("GATHER_ND", [x, w.tensor("nd", [2, 2], "int32", data=[[0, 1], [0, 3]])], [n])
    w.op("MIRROR_PAD", [x, w.tensor("mpad", [4, 2], "int32", data=[[0, 0], [1, 1], [2, 0], [0, 0]])], [mp],
         "MirrorPadOptions", mode=1)
    w.op("SPACE_TO_BATCH_ND", [mp, w.tensor("block", [2], "int32", data=[2, 2]),
                               w.tensor("pads", [2, 2], "int32", data=[[0, 0], [0, 0]])], [sb])
    w.op("BATCH_TO_SPACE_ND", [sb, w.tensor("block2", [2], "int32", data=[2, 2]),
                               w.tensor("crops", [2, 2], "int32", data=[[0, 0], [0, 0]])], [bs])
    w.signature = dict(inputs={"image": x, "index": i}, outputs={"gathered": g, "rows": n, "padded": bs})
    return w.finish([x, i], [g, n, bs])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fuzz", "corpus", "tflite")
    os.makedirs(out, exist_ok=True)
    seeds = {"conv_relu.tflite": small_model(), "densify.tflite": sparse_model([0, 3, 1, 2, 0, 1, 2, 3]),
             "fp16_pool_resize_concat.tflite": fp16_pool_resize(), "int8_fully_connected.tflite": int8_fully_connected(),
             "int8_activations.tflite": int8_activations(), "int16_conv_add.tflite": int16_conv_add(),
             "int16_activations.tflite": int16_activations(), "int8_mean_sum.tflite": int8_mean_sum(),
             "uint8_conv_pool.tflite": uint8_conv_pool(),
             "gather_pad_space_signature.tflite": gather_pad_space(),
             "lstm_cifg_time_major.tflite": lstm(time_major=True, cifg=True)(np.random.default_rng(0))[0],
             "bilstm_separate.tflite": bilstm(merge=False, time_major=False)(np.random.default_rng(0))[0]}
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
