#!/usr/bin/python3
"""malformed_qdq.py OUT_DIR: writes a valid QDQ conv model (good.onnx) and damaged copies, one defect each,
listed in OUT_DIR/cases.txt as "FILE<TAB>WORDS THE ERROR MUST NAME<TAB>EXIT CODE" (4 malformed, 5 unsupported). tests/qdq/malformed_qdq.sh checks that
`tosakit import` rejects each with a one-line error and exit 4 (bad input)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(x_scale=0.02, w_scales=(0.01, 0.02, 0.03, 0.04), y_scale=0.05, w_zp_type=np.int8, x_zp=128,
          x_zp_type=np.uint8, w_zp_len=None):
    def init(name, arr):
        return numpy_helper.from_array(np.asarray(arr), name)
    rng = np.random.default_rng(0)
    inits = [
        init("x_scale", np.float32(x_scale)), init("x_zp", x_zp_type(x_zp)),
        init("w", rng.integers(-100, 100, (4, 3, 3, 3)).astype(np.int8)),
        init("w_scale", np.array(w_scales, np.float32)),
        init("w_zp", np.zeros(w_zp_len or len(w_scales), w_zp_type)),
        init("y_scale", np.float32(y_scale)), init("y_zp", np.uint8(10)),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zp"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zp"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "y_scale", "y_zp"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y"]),
    ]
    g = helper.make_graph(nodes, "qdq_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


CASES = {
    "good.onnx": ({}, "-", 0),  # "-": no error (a tab-separated field may not be empty)
    "x_scale_zero.onnx": ({"x_scale": 0.0}, "scale"),
    "x_scale_negative.onnx": ({"x_scale": -0.02}, "scale"),
    "y_scale_nan.onnx": ({"y_scale": float("nan")}, "scale"),
    "w_scale_inf.onnx": ({"w_scales": (0.01, float("inf"), 0.03, 0.04)}, "scale"),
    "w_scale_axis_mismatch.onnx": ({"w_scales": (0.01, 0.02, 0.03)}, "axis"),
    "w_zp_length_mismatch.onnx": ({"w_zp_len": 2}, "zero point"),
    "w_zp_type_mismatch.onnx": ({"w_zp_type": np.uint8}, "zero point type"),
    # uint16 Q/DQ (ONNX opset 21) has no TOSA carrier: refused by name.
    "x_uint16.onnx": ({"x_zp_type": np.uint16, "x_zp": 1000}, "QuantizeLinear to u16", 5),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        for name, (kw, words, *code) in CASES.items():
            onnx.save(build(**kw), os.path.join(out, name))
            f.write(f"{name}\t{words}\t{code[0] if code else 4}\n")


if __name__ == "__main__":
    main()
