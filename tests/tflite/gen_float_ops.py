#!/usr/bin/python3
"""Float TFLite operators one by one against TensorFlow Lite itself: each case writes a small float32 model
(tests/tflite/tflite_writer.py), runs it on TFLite 2.9 (tools/tflite/run_tflite.py) on random inputs, then imports
it with `tosakit import` and runs it with `tosakit run` on the fast and the reference backends. Outputs must agree
within --rtol of the output's largest magnitude (exact for data movement, bool and integer outputs).

    gen_float_ops.py --tosakit TK --out DIR [--cases div,pack] [--backends fast,ref]

Exit 77 (ctest skip) without TFLite; 1 when a case differs beyond the tolerance.
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


class Case:
    def __init__(self, rng):
        self.rng = rng
        self.w = ModelWriter()
        self.inputs = []
        self.feeds = {}

    def input(self, name, shape, dtype="float32", low=-2.0, high=2.0):
        t = self.w.tensor(name, shape, dtype)
        self.inputs.append(t)
        if dtype == "bool":
            self.feeds[name] = self.rng.integers(0, 2, shape).astype(bool)
        elif dtype == "int32":
            self.feeds[name] = self.rng.integers(-5, 5, shape).astype(np.int32)
        else:
            self.feeds[name] = self.rng.uniform(low, high, shape).astype(np.float32)
        return t

    def const(self, name, values, dtype="int32"):
        values = np.asarray(values)
        return self.w.tensor(name, list(values.shape), dtype, data=values)

    def out(self, name, shape, dtype="float32"):
        return self.w.tensor(name, shape, dtype)

    def finish(self, outputs):
        return self.w.finish(self.inputs, outputs), self.feeds


def unary(op, low=-2.0, high=2.0, options=None, **fields):
    def make(rng):
        c = Case(rng)
        x = c.input("x", [2, 3, 5], low=low, high=high)
        y = c.out("y", [2, 3, 5])
        c.w.op(op, [x], [y], options, **fields)
        return c.finish([y])
    return make


def binary(op, options=None, b_shape=(1, 5), out_dtype="float32", in_dtype="float32", low=-2.0, **fields):
    def make(rng):
        c = Case(rng)
        a = c.input("a", [2, 3, 5], in_dtype, low=low)
        b = c.input("b", list(b_shape), in_dtype, low=low)
        y = c.out("y", [2, 3, 5], out_dtype)
        c.w.op(op, [a, b], [y], options, **fields)
        return c.finish([y])
    return make


def transpose_conv(rng):
    c = Case(rng)
    x = c.input("x", [1, 5, 6, 3])
    w = c.w.tensor("w", [4, 3, 3, 3], "float32", data=rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    b = c.w.tensor("b", [4], "float32", data=rng.standard_normal(4).astype(np.float32))
    shape = c.const("output_shape", [1, 10, 12, 4])
    y = c.out("y", [1, 10, 12, 4])
    c.w.op("TRANSPOSE_CONV", [shape, w, x, b], [y], "TransposeConvOptions", padding=0, stride_w=2, stride_h=2)
    return c.finish([y])


def transpose(rng):
    c = Case(rng)
    x = c.input("x", [2, 3, 4, 5])
    y = c.out("y", [4, 2, 5, 3])
    c.w.op("TRANSPOSE", [x, c.const("perm", [2, 0, 3, 1])], [y])
    return c.finish([y])


def slices(rng):
    c = Case(rng)
    x = c.input("x", [3, 6, 5])
    s = c.out("s", [2, 3, 5])
    c.w.op("SLICE", [x, c.const("begin", [1, 2, 0]), c.const("size", [2, 3, -1])], [s])
    ss = c.out("ss", [6, 3])
    c.w.op("STRIDED_SLICE", [x, c.const("b2", [1, 0, -4]), c.const("e2", [2, 0, -1]), c.const("st", [1, 1, 1])], [ss],
           "StridedSliceOptions", begin_mask=0, end_mask=2, shrink_axis_mask=1)
    return c.finish([s, ss])


def splits(rng):
    c = Case(rng)
    x = c.input("x", [2, 6, 4])
    a, b, d = c.out("a", [2, 2, 4]), c.out("b", [2, 2, 4]), c.out("d", [2, 2, 4])
    c.w.op("SPLIT", [c.const("axis", [1]), x], [a, b, d], "SplitOptions", num_splits=3)
    p, q = c.out("p", [2, 6, 1]), c.out("q", [2, 6, 3])
    c.w.op("SPLIT_V", [x, c.const("sizes", [1, -1]), c.const("axis2", [2])], [p, q], "SplitVOptions", num_splits=2)
    return c.finish([a, b, d, p, q])


def pack_unpack(rng):
    c = Case(rng)
    x = c.input("x", [3, 4])
    z = c.input("z", [3, 4])
    p = c.out("p", [3, 2, 4])
    c.w.op("PACK", [x, z], [p], "PackOptions", values_count=2, axis=1)
    u = [c.out(f"u{i}", [3, 2]) for i in range(4)]
    c.w.op("UNPACK", [p], u, "UnpackOptions", num=4, axis=2)
    return c.finish([p] + u)


def tile_broadcast(rng):
    c = Case(rng)
    x = c.input("x", [2, 1, 3])
    t = c.out("t", [4, 3, 3])
    c.w.op("TILE", [x, c.const("m", [2, 3, 1])], [t])
    b = c.out("b", [2, 2, 4, 3])
    c.w.op("BROADCAST_TO", [x, c.const("shape", [2, 2, 4, 3])], [b], version=2)  # TFLite 2.9 registers v2
    return c.finish([t, b])


def space_depth(rng):
    c = Case(rng)
    x = c.input("x", [1, 4, 6, 3])
    s = c.out("s", [1, 2, 3, 12])
    c.w.op("SPACE_TO_DEPTH", [x], [s], "SpaceToDepthOptions", block_size=2)
    d = c.out("d", [1, 4, 6, 3])
    c.w.op("DEPTH_TO_SPACE", [s], [d], "DepthToSpaceOptions", block_size=2)
    return c.finish([s, d])


def reductions(rng):
    c = Case(rng)
    x = c.input("x", [2, 3, 4])
    outs = []
    for op, keep in (("SUM", True), ("REDUCE_MAX", False), ("REDUCE_MIN", True), ("REDUCE_PROD", False), ("MEAN", False)):
        y = c.out(op.lower(), [2, 1, 1] if keep else [2])
        c.w.op(op, [x, c.const(op.lower() + "_axes", [1, -1])], [y], "ReducerOptions", keep_dims=keep)
        outs.append(y)
    return c.finish(outs)


def arg_ops(rng):
    c = Case(rng)
    x = c.input("x", [3, 7])
    a = c.out("amax", [3], "int32")
    c.w.op("ARG_MAX", [x, c.const("ax", [1])], [a], "ArgMaxOptions", output_type=2)
    b = c.out("amin", [7], "int32")
    c.w.op("ARG_MIN", [x, c.const("ax0", [0])], [b], "ArgMinOptions", output_type=2)
    return c.finish([a, b])


def select_logic(rng):
    c = Case(rng)
    a = c.input("a", [2, 5])
    b = c.input("b", [2, 5])
    m = c.input("m", [2, 5], "bool")
    g = c.out("g", [2, 5], "bool")
    c.w.op("LESS", [a, b], [g])
    l = c.out("l", [2, 5], "bool")
    c.w.op("LOGICAL_AND", [g, m], [l])
    s = c.out("s", [2, 5])
    c.w.op("SELECT_V2", [l, a, b], [s])
    n = c.out("n", [2, 5], "bool")
    c.w.op("LOGICAL_NOT", [l], [n])
    return c.finish([s, n])


def batch_matmul(rng):
    c = Case(rng)
    a = c.input("a", [2, 3, 4, 5])
    b = c.input("b", [2, 3, 6, 5])
    y = c.out("y", [2, 3, 4, 6])
    c.w.op("BATCH_MATMUL", [a, b], [y], "BatchMatMulOptions", adj_x=False, adj_y=True)
    return c.finish([y])


def cast_ops(rng):
    c = Case(rng)
    x = c.input("x", [3, 4], "int32")
    y = c.out("y", [3, 4])
    c.w.op("CAST", [x], [y], "CastOptions", in_data_type=2, out_data_type=0)
    return c.finish([y])


def prelu(rng):
    c = Case(rng)
    x = c.input("x", [1, 3, 3, 4])
    alpha = c.w.tensor("alpha", [1, 1, 4], "float32", data=rng.uniform(0, 0.5, (1, 1, 4)).astype(np.float32))
    y = c.out("y", [1, 3, 3, 4])
    c.w.op("PRELU", [x, alpha], [y])
    return c.finish([y])


def resize(op, options, **fields):
    def make(rng):
        c = Case(rng)
        x = c.input("x", [1, 5, 7, 2])
        y = c.out("y", [1, 9, 13, 2])
        c.w.op(op, [x, c.const("size", [9, 13])], [y], options, **fields)
        return c.finish([y])
    return make


def gathers(rng):
    """GATHER with constant and run-time indices (axis 1), GATHER_ND with run-time indices."""
    c = Case(rng)
    x = c.input("x", [2, 5, 3])
    g = c.out("g", [2, 2, 2, 3])
    c.w.op("GATHER", [x, c.const("idx", [[4, 0], [2, 2]])], [g], "GatherOptions", axis=1)
    i = c.w.tensor("i", [4], "int32")
    c.inputs.append(i)
    c.feeds["i"] = rng.integers(0, 3, 4).astype(np.int32)
    h = c.out("h", [2, 5, 4])
    c.w.op("GATHER", [x, i], [h], "GatherOptions", axis=-1)
    j = c.w.tensor("j", [3, 2], "int32")
    c.inputs.append(j)
    c.feeds["j"] = np.stack([rng.integers(0, 2, 3), rng.integers(0, 5, 3)], 1).astype(np.int32)
    n = c.out("n", [3, 3])
    c.w.op("GATHER_ND", [x, j], [n])
    return c.finish([g, h, n])


def mirror_pad(mode):
    def make(rng):
        c = Case(rng)
        x = c.input("x", [1, 4, 5, 2])
        y = c.out("y", [1, 7, 8, 2])
        c.w.op("MIRROR_PAD", [x, c.const("p", [[0, 0], [1, 2], [3, 0], [0, 0]])], [y], "MirrorPadOptions", mode=mode)
        return c.finish([y])
    return make


def space_batch(rng):
    """SPACE_TO_BATCH_ND with paddings, then BATCH_TO_SPACE_ND with crops back."""
    c = Case(rng)
    x = c.input("x", [2, 5, 6, 3])
    s = c.out("s", [12, 3, 2, 3])
    c.w.op("SPACE_TO_BATCH_ND", [x, c.const("block", [2, 3]), c.const("pads", [[1, 0], [0, 0]])], [s])
    b = c.out("b", [2, 5, 5, 3])
    c.w.op("BATCH_TO_SPACE_ND", [s, c.const("block2", [2, 3]), c.const("crops", [[1, 0], [0, 1]])], [b])
    return c.finish([s, b])


# Cases whose model has a signature: TFLite tensor name -> the signature's name, which tosakit's arguments and
# results must take (docs/TFLITE.md, "Names").
SIGNATURE_NAMES = {"signature_names": {"x": "image", "y": "scores", "z": "logits"}}


def signature_names(rng):
    c = Case(rng)
    x = c.input("x", [2, 3])
    y, z = c.out("y", [2, 3]), c.out("z", [2, 3])
    c.w.op("LOGISTIC", [x], [y])
    c.w.op("ABS", [x], [z])
    names = SIGNATURE_NAMES["signature_names"]
    c.w.signature = dict(inputs={names["x"]: x}, outputs={names["y"]: y, names["z"]: z})
    return c.finish([y, z])


def lstm(time_major=False, cifg=False, clip=0.0):
    """UNIDIRECTIONAL_SEQUENCE_LSTM (float, tanh, optional CIFG and cell clip) on a short sequence."""
    def make(rng):
        c = Case(rng)
        B, T, I, N = 2, 4, 3, 5
        x = c.input("x", [T, B, I] if time_major else [B, T, I])
        wt = lambda name, shape: c.w.tensor(name, shape, "float32",  # noqa: E731
                                            data=rng.uniform(-0.6, 0.6, shape).astype(np.float32))
        ins = [x]
        ins += [-1 if cifg and k == 0 else wt(f"w{k}", [N, I]) for k in range(4)]
        ins += [-1 if cifg and k == 0 else wt(f"r{k}", [N, N]) for k in range(4)]
        ins += [-1, -1, -1]  # no peepholes
        ins += [-1 if cifg and k == 0 else wt(f"b{k}", [N]) for k in range(4)]
        ins += [-1, -1]  # no projection
        h = c.w.tensor("h_state", [B, N], "float32")
        cs = c.w.tensor("c_state", [B, N], "float32")
        c.w.tensors[h]["variable"] = c.w.tensors[cs]["variable"] = True
        ins += [h, cs]
        y = c.out("y", [T, B, N] if time_major else [B, T, N])
        c.w.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [y], "UnidirectionalSequenceLSTMOptions",
               fused_activation_function=4, cell_clip=clip, time_major=time_major)
        return c.finish([y])
    return make


def bilstm(merge=True, time_major=True, cifg=False):
    """BIDIRECTIONAL_SEQUENCE_LSTM (float, tanh): forward and backward directions, outputs merged along the last
    axis or separate."""
    def make(rng):
        c = Case(rng)
        B, T, I, NF, NB = 2, 4, 3, 5, 5  # TFLite 2.9 requires equal cell counts
        x = c.input("x", [T, B, I] if time_major else [B, T, I])
        wt = lambda name, shape: c.w.tensor(name, shape, "float32",  # noqa: E731
                                            data=rng.uniform(-0.6, 0.6, shape).astype(np.float32))

        def direction(p, n):
            ins = [-1 if cifg and k == 0 else wt(f"{p}w{k}", [n, I]) for k in range(4)]
            ins += [-1 if cifg and k == 0 else wt(f"{p}r{k}", [n, n]) for k in range(4)]
            ins += [-1, -1, -1]  # no peepholes
            ins += [-1 if cifg and k == 0 else wt(f"{p}b{k}", [n]) for k in range(4)]
            return ins + [-1, -1]  # no projection

        def state(name, n):
            t = c.w.tensor(name, [B, n], "float32")
            c.w.tensors[t]["variable"] = True
            return t

        ins = [x] + direction("fw_", NF) + direction("bw_", NB)
        ins += [state("fw_h", NF), state("fw_c", NF), state("bw_h", NB), state("bw_c", NB)]
        ins += [-1] * 9  # no auxiliary input
        seq = [T, B] if time_major else [B, T]
        outs = [c.out("y", seq + [NF + NB])] if merge else [c.out("y_fw", seq + [NF]), c.out("y_bw", seq + [NB])]
        c.w.op("BIDIRECTIONAL_SEQUENCE_LSTM", ins, outs, "BidirectionalSequenceLSTMOptions",
               fused_activation_function=4, merge_outputs=merge, time_major=time_major)
        return c.finish(outs)
    return make


CASES = {
    "bilstm_merged": bilstm(),
    "bilstm_separate_batch_major": bilstm(merge=False, time_major=False),
    "bilstm_cifg": bilstm(cifg=True),
    "div": binary("DIV", "DivOptions"),
    "squared_difference": binary("SQUARED_DIFFERENCE"),
    "pow": binary("POW", low=0.1),
    "maximum": binary("MAXIMUM"),
    "sub_relu": binary("SUB", "SubOptions", fused_activation_function=1),
    "greater_equal": binary("GREATER_EQUAL", out_dtype="bool"),
    "not_equal_int": binary("NOT_EQUAL", out_dtype="bool", in_dtype="int32"),
    "exp": unary("EXP"),
    "log": unary("LOG", 0.1, 4),
    "sqrt": unary("SQRT", 0.1, 4),
    "rsqrt": unary("RSQRT", 0.1, 4),
    "sin": unary("SIN"),
    "cos": unary("COS"),
    "neg": unary("NEG"),
    "abs": unary("ABS"),
    "floor": unary("FLOOR"),
    "ceil": unary("CEIL"),
    "tanh": unary("TANH"),
    "logistic": unary("LOGISTIC"),
    "relu6": unary("RELU6", -8, 8),
    "relu_n1_to_1": unary("RELU_N1_TO_1"),
    "hard_swish": unary("HARD_SWISH", -5, 5),
    "leaky_relu": unary("LEAKY_RELU", options="LeakyReluOptions", alpha=0.1),
    "elu": unary("ELU"),
    "gelu": unary("GELU", options="GeluOptions", approximate=False),
    "gelu_tanh": unary("GELU", options="GeluOptions", approximate=True),
    "softmax": unary("SOFTMAX", options="SoftmaxOptions", beta=1.5),
    "log_softmax": unary("LOG_SOFTMAX"),
    "prelu": prelu,
    "transpose_conv": transpose_conv,
    "transpose": transpose,
    "slice": slices,
    "split": splits,
    "pack_unpack": pack_unpack,
    "tile_broadcast": tile_broadcast,
    "space_depth": space_depth,
    "reductions": reductions,
    "arg_max_min": arg_ops,
    "select_logic": select_logic,
    "batch_matmul": batch_matmul,
    "cast": cast_ops,
    "gather": gathers,
    "mirror_pad_reflect": mirror_pad(0),
    "mirror_pad_symmetric": mirror_pad(1),
    "space_batch": space_batch,
    "signature_names": signature_names,
    "lstm": lstm(),
    "lstm_time_major_cifg": lstm(time_major=True, cifg=True),
    "lstm_cell_clip": lstm(clip=0.3),
    "resize_bilinear_half_pixel": resize("RESIZE_BILINEAR", "ResizeBilinearOptions", half_pixel_centers=True),
    "resize_bilinear_align": resize("RESIZE_BILINEAR", "ResizeBilinearOptions", align_corners=True),
    "resize_bilinear_legacy": resize("RESIZE_BILINEAR", "ResizeBilinearOptions"),
    "resize_nearest_legacy": resize("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions"),
    "resize_nearest_half_pixel": resize("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions", half_pixel_centers=True),
    "resize_nearest_align": resize("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions", align_corners=True),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tosakit", required=True)
    ap.add_argument("--backends", default="fast,ref")
    ap.add_argument("--cases", default="")
    ap.add_argument("--rtol", type=float, default=1e-5)
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
    failures = 0
    for name, make in CASES.items():
        if a.cases and not any(name.startswith(p) for p in a.cases.split(",")):
            continue
        model, feeds = make(np.random.default_rng(sum(map(ord, name))))
        stem = os.path.join(a.out, name)
        with open(stem + ".tflite", "wb") as f:
            f.write(model)
        np.savez(stem + ".in.npz", **feeds)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tflite", "run_tflite.py"), stem + ".tflite",
                            "--inputs", stem + ".in.npz", "-o", stem + ".tflite_out.npz"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {name}: TFLite refuses the model: {r.stderr.strip()[-300:]}")
            failures += 1
            continue
        expected = dict(np.load(stem + ".tflite_out.npz"))
        renames = SIGNATURE_NAMES.get(name, {})
        if renames:  # tosakit's arguments take the signature's names
            np.savez(stem + ".in.npz", **{renames.get(k, k): v for k, v in feeds.items()})
        imp = subprocess.run([a.tosakit, "import", stem + ".tflite", "-o", stem + ".mlir"], capture_output=True, text=True)
        if imp.returncode != 0:
            print(f"FAIL {name}: import: {imp.stderr.strip()[:300]}")
            failures += 1
            continue
        for backend in a.backends.split(","):
            out = f"{stem}.{backend}.npz"
            run = subprocess.run([a.tosakit, "run", stem + ".mlir", "--inputs", stem + ".in.npz", "-o", out, "--backend",
                                  backend], capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name} {backend}: run: {run.stderr.strip()[:300]}")
                failures += 1
                continue
            got = dict(np.load(out))
            for k, ref in expected.items():
                g = got.get(renames.get(k, k))
                if g is None or g.shape != ref.shape:
                    print(f"FAIL {name} {backend}: output {k} missing or shaped {None if g is None else g.shape}, TFLite {ref.shape}")
                    failures += 1
                    continue
                diff = float(np.max(np.abs(g.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
                scale = float(np.max(np.abs(ref.astype(np.float64)))) if ref.size else 0.0
                exact = ref.dtype.kind != "f"
                ok = diff == 0 if exact else diff <= a.rtol * max(scale, 1e-30)
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {name} {backend}: {k} {list(ref.shape)} max|diff| {diff:.3g}"
                      f"{' (exact required)' if exact else f' (max|ref| {scale:.3g})'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
