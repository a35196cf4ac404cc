#!/usr/bin/python3
"""Runs a .tflite model on TensorFlow Lite 2.9 (the C library libtensorflowlite_c.so that npm's
tfjs-tflite-node@0.0.2 ships, installed in tools/tflite/node_modules by scripts/install-deps.sh) through its C
API with ctypes: tosakit's TFLite oracle.

  run_tflite.py MODEL.tflite [--inputs in.npz] -o out.npz [--threads N] [--info]
  run_tflite.py MODEL.tflite --inputs in.npz --bench N [--warmup W] [--threads N] [--xnnpack]

Inputs and outputs are keyed by the TFLite tensor names; an input missing from --inputs is an error. --info
prints each input/output tensor: name, type, shape and quantization (scale, zero point). --bench times N
invocations after W warm-up ones and prints one JSON line {"latency_ms": {"min", "median", "max"}}; --xnnpack
adds TFLite's XNNPACK delegate (its fast float kernels; the library does not apply it by default). Exit 3 when TFLite
cannot load the model (e.g. a custom operator it lacks), 4 on a bad input file.
"""
import argparse
import ctypes
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "node_modules", "tfjs-tflite-node", "cc_deps", "linux_amd64", "libtensorflowlite_c.so")

# TfLiteType (tensorflow/lite/c/c_api_types.h) -> numpy.
TYPES = {1: np.float32, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_, 7: np.int16, 9: np.int8,
         10: np.float16, 11: np.float64}


class XnnpackOptions(ctypes.Structure):
    # TfLiteXNNPackDelegateOptions of TFLite 2.9; a library whose struct ends earlier ignores the rest.
    _fields_ = [("num_threads", ctypes.c_int32), ("flags", ctypes.c_uint32), ("weights_cache", ctypes.c_void_p)]


class QuantParams(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_float), ("zero_point", ctypes.c_int32)]


def load_library():
    if not os.path.exists(LIB):
        sys.exit(f"run_tflite: {LIB} is missing: run scripts/install-deps.sh")
    lib = ctypes.CDLL(LIB)
    p = ctypes.c_void_p
    sig = {
        "TfLiteModelCreateFromFile": (p, [ctypes.c_char_p]),
        "TfLiteModelDelete": (None, [p]),
        "TfLiteInterpreterOptionsCreate": (p, []),
        "TfLiteInterpreterOptionsSetNumThreads": (None, [p, ctypes.c_int32]),
        "TfLiteInterpreterOptionsDelete": (None, [p]),
        "TfLiteInterpreterOptionsAddDelegate": (None, [p, p]),
        "TfLiteXNNPackDelegateCreate": (p, [ctypes.POINTER(XnnpackOptions)]),
        "TfLiteXNNPackDelegateDelete": (None, [p]),
        "TfLiteInterpreterCreate": (p, [p, p]),
        "TfLiteInterpreterDelete": (None, [p]),
        "TfLiteInterpreterAllocateTensors": (ctypes.c_int, [p]),
        "TfLiteInterpreterInvoke": (ctypes.c_int, [p]),
        "TfLiteInterpreterGetInputTensorCount": (ctypes.c_int32, [p]),
        "TfLiteInterpreterGetInputTensor": (p, [p, ctypes.c_int32]),
        "TfLiteInterpreterGetOutputTensorCount": (ctypes.c_int32, [p]),
        "TfLiteInterpreterGetOutputTensor": (p, [p, ctypes.c_int32]),
        "TfLiteTensorType": (ctypes.c_int, [p]),
        "TfLiteTensorNumDims": (ctypes.c_int32, [p]),
        "TfLiteTensorDim": (ctypes.c_int32, [p, ctypes.c_int32]),
        "TfLiteTensorByteSize": (ctypes.c_size_t, [p]),
        "TfLiteTensorName": (ctypes.c_char_p, [p]),
        "TfLiteTensorQuantizationParams": (QuantParams, [p]),
        "TfLiteTensorCopyFromBuffer": (ctypes.c_int, [p, p, ctypes.c_size_t]),
        "TfLiteTensorCopyToBuffer": (ctypes.c_int, [p, p, ctypes.c_size_t]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


def describe(lib, t):
    shape = tuple(lib.TfLiteTensorDim(t, d) for d in range(lib.TfLiteTensorNumDims(t)))
    ttype = lib.TfLiteTensorType(t)
    if ttype not in TYPES:
        raise SystemExit(f"run_tflite: tensor type {ttype} is not supported here")
    q = lib.TfLiteTensorQuantizationParams(t)
    return lib.TfLiteTensorName(t).decode(), np.dtype(TYPES[ttype]), shape, (q.scale, q.zero_point)


def run(model_path, inputs, threads=1, info=False, bench=0, warmup=0, xnnpack=False):
    """Returns {output name: array}; `inputs` maps input names to arrays. With bench > 0: the list of the
    bench timed invocations' latencies in ms instead."""
    lib = load_library()
    model = lib.TfLiteModelCreateFromFile(model_path.encode())
    if not model:
        print(f"run_tflite: {model_path}: TFLite cannot read the model", file=sys.stderr)
        sys.exit(3)
    opts = lib.TfLiteInterpreterOptionsCreate()
    lib.TfLiteInterpreterOptionsSetNumThreads(opts, threads)
    delegate = None
    if xnnpack:
        xo = XnnpackOptions(threads, 0, None)
        delegate = lib.TfLiteXNNPackDelegateCreate(ctypes.byref(xo))
        lib.TfLiteInterpreterOptionsAddDelegate(opts, delegate)
    interp = lib.TfLiteInterpreterCreate(model, opts)
    if not interp or lib.TfLiteInterpreterAllocateTensors(interp) != 0:
        print(f"run_tflite: {model_path}: TFLite cannot prepare the model (unknown custom operator?)", file=sys.stderr)
        sys.exit(3)
    for i in range(lib.TfLiteInterpreterGetInputTensorCount(interp)):
        t = lib.TfLiteInterpreterGetInputTensor(interp, i)
        name, dtype, shape, q = describe(lib, t)
        if info:
            print(f"input {name} {dtype} {list(shape)} scale={q[0]} zero_point={q[1]}")
            continue
        if name not in inputs:
            print(f"run_tflite: no input '{name}' given", file=sys.stderr)
            sys.exit(4)
        a = np.ascontiguousarray(inputs[name], dtype=dtype).reshape(shape)
        if lib.TfLiteTensorCopyFromBuffer(t, a.ctypes.data, a.nbytes) != 0:
            sys.exit(f"run_tflite: cannot set input '{name}'")
    outputs = {}
    if bench > 0:
        import time
        times = []
        for i in range(warmup + bench):
            t0 = time.perf_counter()
            if lib.TfLiteInterpreterInvoke(interp) != 0:
                sys.exit(f"run_tflite: {model_path}: Invoke failed")
            if i >= warmup:
                times.append((time.perf_counter() - t0) * 1e3)
        return times
    if not info and lib.TfLiteInterpreterInvoke(interp) != 0:
        sys.exit(f"run_tflite: {model_path}: Invoke failed")
    for i in range(lib.TfLiteInterpreterGetOutputTensorCount(interp)):
        t = lib.TfLiteInterpreterGetOutputTensor(interp, i)
        name, dtype, shape, q = describe(lib, t)
        if info:
            print(f"output {name} {dtype} {list(shape)} scale={q[0]} zero_point={q[1]}")
            continue
        a = np.empty(shape, dtype=dtype)
        if lib.TfLiteTensorCopyToBuffer(t, a.ctypes.data, a.nbytes) != 0:
            sys.exit(f"run_tflite: cannot read output '{name}'")
        outputs[name] = a
    lib.TfLiteInterpreterDelete(interp)
    lib.TfLiteInterpreterOptionsDelete(opts)
    lib.TfLiteModelDelete(model)
    if delegate:
        lib.TfLiteXNNPackDelegateDelete(delegate)
    return outputs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--inputs", help=".npz keyed by input tensor name")
    ap.add_argument("-o", "--output", help="outputs as .npz keyed by output tensor name")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--info", action="store_true", help="print the input and output tensors and exit")
    ap.add_argument("--bench", type=int, default=0, help="time this many invocations (prints JSON)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--xnnpack", action="store_true", help="use TFLite's XNNPACK delegate")
    a = ap.parse_args()
    if a.bench > 0:
        import json
        times = sorted(run(a.model, dict(np.load(a.inputs)) if a.inputs else {}, a.threads, bench=a.bench,
                           warmup=a.warmup, xnnpack=a.xnnpack))
        print(json.dumps({"latency_ms": {"min": times[0], "median": float(np.median(times)), "max": times[-1]}}))
        return
    if a.info:
        run(a.model, {}, a.threads, info=True)
        return
    if not a.output:
        ap.error("-o is required")
    inputs = dict(np.load(a.inputs)) if a.inputs else {}
    np.savez(a.output, **run(a.model, inputs, a.threads))


if __name__ == "__main__":
    main()
