#!/usr/bin/python3
"""Writes small QDQ ONNX models, one per folded op pattern, with python3-onnx, and a seeded random input each.

Every model is  X -> QuantizeLinear -> DequantizeLinear -> OP -> QuantizeLinear -> DequantizeLinear -> Y  (two or
three such inputs for Mul/Concat), with uint8 or int8 activations and scales/zero points chosen so that the
inputs are requantized (different input and output parameters) and the output range saturates in places.
Inputs are uniform over a little more than the input quantization range. OUT_DIR/cases.txt lists
"MODEL.onnx<TAB>MAX_LSB<TAB>ORT_MAX_LSB<TAB>EXTENSION": the largest difference from ONNX Runtime the test
accepts for `import` (--qdq fold) and for `import --qdq fold-ort` ("-": not run), docs/ONNX.md gives why, and
the TOSA extension the integer graph needs besides PRO-INT ("-": none; int16 needs EXT-INT16).

usage: make_qdq_op_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OPSET = 17
OPSET_INT16 = 21  # int16 QuantizeLinear / DequantizeLinear
TYPES = {"u8": (TensorProto.UINT8, 0, 255), "i8": (TensorProto.INT8, -128, 127),
         "i16": (TensorProto.INT16, -32768, 32767)}


class Model:
    def __init__(self, name):
        self.name = name
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.rng = np.random.default_rng(sum(map(ord, name)))

    def qparams(self, tag, scale, zp, qtype):
        t = TYPES[qtype][0]
        self.inits.append(helper.make_tensor(tag + "_scale", TensorProto.FLOAT, [], [scale]))
        self.inits.append(helper.make_tensor(tag + "_zp", t, [], [zp]))
        return [tag + "_scale", tag + "_zp"]

    def qdq(self, x, tag, scale, zp, qtype, out=None):
        p = self.qparams(tag, scale, zp, qtype)
        self.nodes.append(helper.make_node("QuantizeLinear", [x] + p, [tag + "_q"]))
        self.nodes.append(helper.make_node("DequantizeLinear", [tag + "_q"] + p, [out or tag + "_dq"]))
        return out or tag + "_dq"

    def input(self, name, shape, scale, zp, qtype):
        lo, hi = TYPES[qtype][1:]
        f_lo, f_hi = (lo - zp) * scale, (hi - zp) * scale
        margin = 0.1 * (f_hi - f_lo)
        self.feeds[name] = self.rng.uniform(f_lo - margin, f_hi + margin, shape).astype(np.float32)
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        return self.qdq(name, name, scale, zp, qtype)

    def save(self, out_dir, y, scale, zp, qtype):
        self.qdq(y, "Y", scale, zp, qtype, out="Y")
        graph = helper.make_graph(self.nodes, self.name, self.inputs, [], self.inits)
        if qtype == "i16":  # opset 21: newer than Debian's python3-onnx 1.12 knows, no checker or inference
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET_INT16)])
            model.graph.output.append(helper.make_tensor_value_info("Y", TensorProto.FLOAT, self.out_shape))
            model.ir_version = 10
        else:
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
            model.graph.output.extend([v for v in inferred.graph.value_info if v.name == "Y"])
            model.ir_version = 8
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, self.name + ".onnx"))
        np.savez(os.path.join(out_dir, self.name + ".input.npz"), **self.feeds)


def unary(op, qtype, x_params, y_params, shape=(1, 8, 12, 12), **attrs):
    def build(m):
        x = m.input("X", list(shape), *x_params, qtype)
        m.nodes.append(helper.make_node(op, [x], ["op_out"], **attrs))
        return "op_out", y_params
    return build


def clip(qtype, lo, hi, x_params, y_params):
    def build(m):
        x = m.input("X", [1, 8, 12, 12], *x_params, qtype)
        m.inits.append(helper.make_tensor("clip_lo", TensorProto.FLOAT, [], [lo]))
        m.inits.append(helper.make_tensor("clip_hi", TensorProto.FLOAT, [], [hi]))
        m.nodes.append(helper.make_node("Clip", [x, "clip_lo", "clip_hi"], ["op_out"]))
        return "op_out", y_params
    return build


def mul(qtype, b_shape):
    def build(m):
        a = m.input("A", [1, 8, 12, 12], 0.05, 10 if qtype == "u8" else -3, qtype)
        b = m.input("B", b_shape, 0.013, 128 if qtype == "u8" else 0, qtype)
        m.nodes.append(helper.make_node("Mul", [a, b], ["op_out"]))
        return "op_out", (0.021, 120 if qtype == "u8" else 5)
    return build


def concat(qtype, params, axis=1):
    def build(m):
        ins = []
        for i, (s, z) in enumerate(params):
            shape = [1, 4, 10, 10]
            shape[axis] += i
            ins.append(m.input(f"X{i}", shape, s, z, qtype))
        m.nodes.append(helper.make_node("Concat", ins, ["op_out"], axis=axis))
        return "op_out", params[0]
    return build


def avgpool(qtype, y_params, **attrs):
    def build(m):
        x = m.input("X", [1, 8, 13, 13], 0.04, 100 if qtype == "u8" else -10, qtype)
        m.nodes.append(helper.make_node("AveragePool", [x], ["op_out"], **attrs))
        return "op_out", y_params
    return build


def conv_transpose(qtype, per_channel, group=1, **attrs):
    """DQ(x), DQ(int8 weight [8, 6 / group, 3, 3], per tensor or per channel of axis 1), DQ(int32 bias)."""
    def build(m):
        x_scale = 0.05
        x = m.input("X", [1, 8, 7, 7], x_scale, 100 if qtype == "u8" else -5, qtype)
        ocg = 6 // group
        w = m.rng.integers(-127, 128, (8, ocg, 3, 3)).astype(np.int8)
        w_scale = (m.rng.uniform(0.002, 0.006, ocg) if per_channel else np.full(1, 0.004)).astype(np.float32)
        bias = m.rng.integers(-3000, 3000, 6).astype(np.int32)
        if group > 1:
            attrs["group"] = group
        m.inits.append(helper.make_tensor("w", TensorProto.INT8, w.shape, w.flatten().tolist()))
        m.inits.append(helper.make_tensor("w_scale", TensorProto.FLOAT, w_scale.shape if per_channel else [],
                                          w_scale.tolist()))
        m.inits.append(helper.make_tensor("w_zp", TensorProto.INT8, w_scale.shape if per_channel else [],
                                          [0] * len(w_scale)))
        b_scale = (np.float32(x_scale) * (np.tile(w_scale, group) if per_channel else w_scale)).astype(np.float32)
        m.inits.append(helper.make_tensor("b", TensorProto.INT32, [6], bias.tolist()))
        m.inits.append(helper.make_tensor("b_scale", TensorProto.FLOAT, b_scale.shape if per_channel else [],
                                          b_scale.tolist()))
        m.nodes.append(helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zp"], ["w_dq"], axis=1))
        m.nodes.append(helper.make_node("DequantizeLinear", ["b", "b_scale"], ["b_dq"], axis=0))
        m.nodes.append(helper.make_node("ConvTranspose", [x, "w_dq", "b_dq"], ["op_out"], **attrs))
        return "op_out", (0.08, 128 if qtype == "u8" else 0)
    return build


def resize_nearest(qtype):
    """2x nearest upsampling (an FPN-style top-down path), same parameters in and out."""
    def build(m):
        params = (0.05, 100 if qtype == "u8" else -3)
        x = m.input("X", [1, 4, 5, 6], *params, qtype)
        m.inits.append(helper.make_tensor("resize_scales", TensorProto.FLOAT, [4], [1, 1, 2, 2]))
        m.nodes.append(helper.make_node("Resize", [x, "", "resize_scales"], ["op_out"], mode="nearest"))
        return "op_out", params
    return build


def softmax(qtype, shape, x_params, y_params, **attrs):
    """Softmax of 8-bit steps (ONNX Runtime fuses it into QLinearSoftmax)."""
    def build(m):
        x = m.input("X", list(shape), *x_params, qtype)
        m.nodes.append(helper.make_node("Softmax", [x], ["op_out"], **attrs))
        return "op_out", y_params
    return build


def resize_linear(qtype, x_params, y_params, shape=(1, 4, 5, 6), scales=None, sizes=None, **attrs):
    """Bilinear Resize (PyTorch F.interpolate(mode="bilinear") exports: half_pixel / pytorch_half_pixel /
    align_corners). ONNX Runtime drops the Q/DQ pair when the parameters are equal and runs its 8-bit Resize;
    otherwise it runs the float Resize between them."""
    def build(m):
        x = m.input("X", list(shape), *x_params, qtype)
        ins = [x, ""]
        if scales is not None:
            m.inits.append(helper.make_tensor("resize_scales", TensorProto.FLOAT, [4], scales))
            ins.append("resize_scales")
        else:
            m.inits.append(helper.make_tensor("resize_sizes", TensorProto.INT64, [4], sizes))
            ins += ["", "resize_sizes"]
        m.nodes.append(helper.make_node("Resize", ins, ["op_out"], mode="linear", **attrs))
        return "op_out", y_params
    return build


def transpose(qtype, params):
    def build(m):
        x = m.input("X", [1, 4, 5, 6], *params, qtype)
        m.nodes.append(helper.make_node("Transpose", [x], ["op_out"], perm=[0, 2, 3, 1]))
        m.out_shape = [1, 5, 6, 4]
        return "op_out", params
    return build


# name: (builder, output type, MAX_LSB[, ORT_MAX_LSB[, EXTENSION]])
CASES = {
    "sigmoid_u8": (unary("Sigmoid", "u8", (0.06, 128), (1 / 256, 0)), "u8", 1),
    "sigmoid_i8": (unary("Sigmoid", "i8", (0.05, 0), (1 / 256, -128)), "i8", 1),
    "tanh_i8": (unary("Tanh", "i8", (0.03, 5), (1 / 128, 0)), "i8", 1),
    "hardswish_u8": (unary("HardSwish", "u8", (0.05, 120), (0.04, 20)), "u8", 1),
    "hardsigmoid_i8": (unary("HardSigmoid", "i8", (0.05, 0), (1 / 256, -128), alpha=0.25, beta=0.4), "i8", 1),
    "leakyrelu_i8": (unary("LeakyRelu", "i8", (0.04, -7), (0.03, -40), alpha=0.1), "i8", 1),
    "elu_u8": (unary("Elu", "u8", (0.05, 100), (0.04, 60)), "u8", 1),
    "relu_i8": (unary("Relu", "i8", (0.05, 3), (0.03, -128)), "i8", 0),
    "clip_u8": (clip("u8", 0.0, 6.0, (0.05, 110), (6 / 255, 0)), "u8", 0),
    "mul_u8": (mul("u8", [1, 8, 12, 12]), "u8", 1),
    "mul_broadcast_u8": (mul("u8", [1, 8, 1, 1]), "u8", 1),
    "mul_i8": (mul("i8", [1, 8, 12, 12]), "i8", 1),
    "concat_same_u8": (concat("u8", [(0.05, 100), (0.05, 100)]), "u8", 0),
    "concat_requant_u8": (concat("u8", [(0.05, 100), (0.08, 30), (0.02, 200)]), "u8", 0),
    "concat_requant_i8": (concat("i8", [(0.05, 0), (0.03, -20)], axis=2), "i8", 0),
    "conv_transpose_s2_u8": (conv_transpose("u8", True, strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
                             "u8", 1),
    "conv_transpose_i8": (conv_transpose("i8", False), "i8", 1),
    "conv_transpose_group2_u8": (conv_transpose("u8", True, group=2, strides=[2, 2], pads=[1, 1, 1, 1]), "u8", 1),
    "conv_transpose_group2_i8": (conv_transpose("i8", False, group=2), "i8", 1),
    "resize_nearest_u8": (resize_nearest("u8"), "u8", 0),
    "resize_nearest_i8": (resize_nearest("i8"), "i8", 0),
    # Softmax: 1 LSB (fold: integer exp table; ONNX Runtime's QLinearSoftmax multiplies by floor(1 / y_scale),
    # 254 for float32 1/255); fold-ort computes ONNX Runtime's float formula op for op.
    "softmax_u8": (softmax("u8", (2, 3, 10), (0.1, 128), (1 / 256, 0)), "u8", 1, 0),
    "softmax_scale255_u8": (softmax("u8", (4, 16), (0.07, 120), (1 / 255, 0)), "u8", 1, 0),
    "softmax_i8": (softmax("i8", (3, 12), (0.05, -5), (1 / 128, -128)), "i8", 1, 0),
    "softmax_axis1_u8": (softmax("u8", (1, 20, 3, 3), (0.08, 110), (1 / 256, 0), axis=1), "u8", 1, 0),
    # Linear Resize: the integer interpolation is exact; ONNX Runtime's float / 8-bit kernels round their own way.
    "resize_linear_u8": (resize_linear("u8", (0.05, 100), (0.04, 90), scales=[1, 1, 2, 2]), "u8", 1),
    "resize_linear_same_u8": (resize_linear("u8", (0.05, 100), (0.05, 100), scales=[1, 1, 2, 2]), "u8", 1),
    "resize_linear_align_i8": (resize_linear("i8", (0.05, -3), (0.05, -3), sizes=[1, 4, 9, 11],
                                             coordinate_transformation_mode="align_corners"), "i8", 1),
    "resize_linear_pytorch_i8": (resize_linear("i8", (0.04, 5), (0.03, -10), scales=[1, 1, 1.5, 2],
                                               coordinate_transformation_mode="pytorch_half_pixel"), "i8", 1),
    "resize_linear_asym_u8": (resize_linear("u8", (0.05, 120), (0.05, 120), scales=[1, 1, 2, 2],
                                            coordinate_transformation_mode="asymmetric"), "u8", 1),
    # int16 QDQ (opset 21): data movement on the 16-bit values (ONNX Runtime drops the pair too).
    "transpose_i16": (transpose("i16", (0.0007, -300)), "i16", 0, "-", "int16"),
    "avgpool_2x2_u8": (avgpool("u8", (0.04, 100), kernel_shape=[2, 2], strides=[2, 2]), "u8", 1),
    "avgpool_3x3_pad_i8": (avgpool("i8", (0.03, 0), kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                   count_include_pad=1), "i8", 1),
    # count_include_pad 0: each border window divided by the input elements it covers.
    "avgpool_3x3_pad_excl_u8": (avgpool("u8", (0.03, 110), kernel_shape=[3, 3], pads=[1, 1, 1, 1]), "u8", 1),
    "avgpool_3x3_s2_pad_excl_i8": (avgpool("i8", (0.035, -5), kernel_shape=[3, 3], strides=[2, 2],
                                           pads=[1, 2, 0, 1]), "i8", 1),
}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "cases.txt"), "w") as cases:
        for name, (build, qtype, *max_lsb) in CASES.items():
            m = Model(name)
            y, (scale, zp) = build(m)
            m.save(out_dir, y, scale, zp, qtype)
            columns = [str(c) for c in max_lsb] + ["-"] * (3 - len(max_lsb))
            cases.write(f"{name}.onnx\t" + "\t".join(columns) + "\n")


if __name__ == "__main__":
    main()
