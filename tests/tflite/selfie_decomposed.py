#!/usr/bin/python3
"""MediaPipe's selfie segmentation ends in the custom operator Convolution2DTransposeBias, which TensorFlow Lite
2.9 lacks, so TFLite cannot run the model as shipped. This writes the same model with that operator replaced
by TFLite's builtin TRANSPOSE_CONV with the bias as its fourth input (the same computation: MediaPipe's kernel is
TFLite's reference transpose convolution plus the bias, with the same padding rule), which TFLite runs: the
oracle for tosakit's import of the original model.

    selfie_decomposed.py IN.tflite OUT.tflite
"""
import os
import sys

import flatbuffers
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tflite_writer import builtin_code, fb  # noqa: E402


def decompose(data):
    M = fb("Model")
    model = M.ModelT.InitFromObj(M.Model.GetRootAsModel(data, 0))
    g = model.subgraphs[0]
    custom = [i for i, oc in enumerate(model.operatorCodes) if oc.customCode == b"Convolution2DTransposeBias"]
    if not custom:
        raise SystemExit("selfie_decomposed: no Convolution2DTransposeBias in the model")
    oc = fb("OperatorCode").OperatorCodeT()
    oc.builtinCode = builtin_code("TRANSPOSE_CONV")
    oc.deprecatedBuiltinCode = builtin_code("TRANSPOSE_CONV")
    oc.version = 3
    model.operatorCodes.append(oc)
    new_code = len(model.operatorCodes) - 1
    for op in g.operators:
        if op.opcodeIndex not in custom:
            continue
        padding, stride_w, stride_h = np.frombuffer(bytes(op.customOptions), np.int32)[:3]
        x, w, b = op.inputs[:3]
        out = g.tensors[op.outputs[0]]
        buf = fb("Buffer").BufferT()
        buf.data = list(np.array(out.shape, np.int32).tobytes())
        model.buffers.append(buf)
        t = fb("Tensor").TensorT()
        t.shape = [4]
        t.type = 2  # INT32
        t.buffer = len(model.buffers) - 1
        t.name = b"output_shape"
        g.tensors.append(t)
        opts = fb("TransposeConvOptions").TransposeConvOptionsT()
        opts.padding = 0 if padding == 1 else 1
        opts.strideW = int(stride_w)
        opts.strideH = int(stride_h)
        op.opcodeIndex = new_code
        op.inputs = [len(g.tensors) - 1, w, x, b]
        op.builtinOptionsType = fb("BuiltinOptions").BuiltinOptions.TransposeConvOptions
        op.builtinOptions = opts
        op.customOptions = None
    b = flatbuffers.Builder(1 << 20)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    with open(sys.argv[2], "wb") as f:
        f.write(decompose(data))
