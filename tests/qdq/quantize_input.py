#!/usr/bin/python3
"""quantize_input.py MODEL.onnx IN.npz OUT.npz: each float input of a QDQ model quantized by the
QuantizeLinear that reads it (ONNX's formula: saturate(round_half_even(x / scale) + zero_point) in float32),
for a model imported with `tosakit import --qdq-integer-io`."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

model = onnx.load(sys.argv[1])
consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
for n in model.graph.node:
    if n.op_type == "Constant":
        consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
inputs = dict(np.load(sys.argv[2]))
out = {}
for name, x in inputs.items():
    q = next(n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == name)
    scale, zp = np.float32(consts[q.input[1]]), consts[q.input[2]]
    info = np.iinfo(zp.dtype)
    y = np.rint(x.astype(np.float32) / scale) + int(zp)
    out[name] = np.clip(y, info.min, info.max).astype(zp.dtype)
np.savez(sys.argv[3], **out)
