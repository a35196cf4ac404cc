#!/usr/bin/python3
"""Hostile and malformed .tflite files through `tosakit import`: each must exit 4 with one line on stderr
("tosakit: <kind>: ..." naming the file) and write no output file. The files are written here with
tests/tflite/tflite_writer.py (a valid small model, then one field broken per case) and raw bytes.

  check_hostile.py --tosakit TK --out DIR [--write-only]     (--write-only: just write the files, e.g. as fuzz seeds)
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tflite_writer import ModelWriter  # noqa: E402


def small_model(**breakage):
    """x[1,4,4,2] -> CONV_2D (3x3, 4 filters, SAME) -> RELU -> y; `breakage` edits one field before writing."""
    w = ModelWriter()
    x = w.tensor("x", [1, 4, 4, 2], "float32")
    k = w.tensor("k", [4, 3, 3, 2], "float32", data=np.linspace(-1, 1, 72).reshape(4, 3, 3, 2))
    b = w.tensor("b", [4], "float32", data=np.arange(4))
    c = w.tensor("c", [1, 4, 4, 4], "float32")
    y = w.tensor("y", [1, 4, 4, 4], "float32")
    w.op("CONV_2D", [x, k, b], [c], "Conv2DOptions", padding=0, stride_w=1, stride_h=1)
    w.op("RELU", [c], [y])
    if "tensor" in breakage:
        index, field, value = breakage["tensor"]
        w.tensors[index][field] = value
    if "op" in breakage:
        index, field, value = breakage["op"]
        w.ops[index][field] = value
    if "buffer" in breakage:
        index, value = breakage["buffer"]
        w.buffers[index] = value
    return w.finish(breakage.get("inputs", [x]), breakage.get("outputs", [y]))


def sparse_model(indices):
    """DENSIFY of a 4x4 CSR constant whose column indices are `indices` (one row of 2 values per row)."""
    w = ModelWriter()
    s = w.tensor("s", [4, 4], "float32", data=np.arange(8, dtype=np.float32))
    d = w.tensor("d", [4, 4], "float32")
    x = w.tensor("x", [4, 4], "float32")
    y = w.tensor("y", [4, 4], "float32")
    w.op("DENSIFY", [s], [d])
    w.op("ADD", [x, d], [y], "AddOptions")
    w.sparse[s] = dict(order=[0, 1], dims=[("dense", 4), ("csr", [0, 2, 4, 6, 8], indices)])
    return w.finish([x], [y])


def one_op_model(op, x_shape, y_shape, consts, options=None, dtype="float32", quant=None, **fields):
    """x -> op(x, *consts) -> y; consts are (name, shape, dtype, data[, scale, zero_point]) tuples."""
    w = ModelWriter()
    q = dict(scale=quant[0], zero_point=quant[1]) if quant else {}
    x = w.tensor("x", x_shape, dtype, **q)
    ins = [x] + [w.tensor(n, sh, dt, data=np.array(d).reshape(sh), **(dict(scale=c[0], zero_point=c[1]) if c else {}))
                 for n, sh, dt, d, *c in consts]
    y = w.tensor("y", y_shape, dtype, **q)
    w.op(op, ins, [y], options, **fields)
    return w.finish([x], [y])


def lstm_bad_weights():
    """UNIDIRECTIONAL_SEQUENCE_LSTM whose forget-gate input weights are [N, I + 1]."""
    w = ModelWriter()
    B, T, I, N = 1, 2, 3, 4
    x = w.tensor("x", [B, T, I], "float32")
    ins = [x]
    for k in range(4):
        ins.append(w.tensor(f"w{k}", [N, I + (k == 1)], "float32", data=np.zeros((N, I + (k == 1)))))
    for k in range(4):
        ins.append(w.tensor(f"r{k}", [N, N], "float32", data=np.zeros((N, N))))
    ins += [-1, -1, -1] + [w.tensor(f"b{k}", [N], "float32", data=np.zeros(N)) for k in range(4)] + [-1, -1]
    h, c = w.tensor("h", [B, N], "float32"), w.tensor("c", [B, N], "float32")
    w.tensors[h]["variable"] = w.tensors[c]["variable"] = True
    y = w.tensor("y", [B, T, N], "float32")
    w.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins + [h, c], [y], "UnidirectionalSequenceLSTMOptions",
         fused_activation_function=4)
    return w.finish([x], [y])


def unsupported_model():
    """Two operators without a lowering (a builtin and a custom one) feeding each other's graph."""
    w = ModelWriter()
    x = w.tensor("x", [2, 4], "float32")
    a = w.tensor("normalized", [2, 4], "float32")
    y = w.tensor("custom_out", [2, 4], "float32")
    w.op("L2_NORMALIZATION", [x], [a])
    w.op("CUSTOM", [x], [y], custom_code="NoSuchOp")
    return w.finish([x], [a, y])


def check_unsupported_listing(tosakit, out_dir):
    """Every operator that cannot be lowered is listed in one error line with its index, name and output
    tensor; exit 5 (unsupported), no output file."""
    path = os.path.join(out_dir, "two_unsupported.tflite")
    with open(path, "wb") as f:
        f.write(unsupported_model())
    out = path + ".mlir"
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([tosakit, "import", path, "-o", out], capture_output=True, text=True, timeout=60)
    line = r.stderr.strip()
    expected = ["2 unsupported operator(s)", "#0 L2_NORMALIZATION -> 'normalized'", "#1 CUSTOM(NoSuchOp) -> 'custom_out'"]
    ok = r.returncode == 5 and "\n" not in line and all(e in line for e in expected) and not os.path.exists(out)
    print(f"{'ok  ' if ok else 'FAIL'} two_unsupported.tflite: exit {r.returncode}: {line[:300]}")
    return ok


def cases():
    good = small_model()
    yield "garbage.tflite", bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8))
    yield "empty.tflite", b""
    yield "identifier_only.tflite", b"\x10\x00\x00\x00TFL3" + b"\x00" * 8
    yield "truncated_half.tflite", good[: len(good) // 2]
    yield "truncated_tail.tflite", good[:-9]
    flipped = bytearray(good)
    flipped[0:4] = (len(good) + 1000).to_bytes(4, "little")  # root offset past the end
    yield "root_past_end.tflite", bytes(flipped)
    yield "absurd_shape.tflite", small_model(tensor=(3, "shape", [1 << 20, 1 << 20, 1 << 10, 4]))
    yield "negative_dim.tflite", small_model(tensor=(0, "shape", [1, -4, 4, 2]))
    yield "rank_100.tflite", small_model(tensor=(3, "shape", [1] * 100))
    yield "buffer_index_out_of_range.tflite", small_model(tensor=(1, "buffer", 99))
    yield "buffer_too_short.tflite", small_model(buffer=(1, b"\x00" * 20))
    yield "tensor_index_out_of_range.tflite", small_model(op=(0, "inputs", [0, 1, 77]))
    yield "tensor_index_negative.tflite", small_model(op=(1, "outputs", [-5]))
    yield "opcode_index_out_of_range.tflite", small_model(op=(1, "opcode", 9))
    yield "graph_output_out_of_range.tflite", small_model(outputs=[1234])
    yield "shape_contradiction.tflite", small_model(tensor=(3, "shape", [1, 4, 4, 5]))
    yield "sparse_index_out_of_range.tflite", sparse_model([0, 1, 2, 3, 0, 9, 1, 2])
    yield "gather_index_out_of_range.tflite", one_op_model("GATHER", [4, 3], [2, 3], [("i", [2], "int32", [1, 9])],
                                                           "GatherOptions", axis=0)
    yield "gather_nd_index_out_of_range.tflite", one_op_model("GATHER_ND", [4, 3], [1, 3],
                                                              [("i", [1, 1], "int32", [-1])])
    yield "mirror_pad_too_wide.tflite", one_op_model("MIRROR_PAD", [1, 4, 4, 1], [1, 12, 4, 1],
                                                     [("p", [4, 2], "int32", [0, 0, 4, 4, 0, 0, 0, 0])],
                                                     "MirrorPadOptions", mode=0)
    yield "space_to_batch_indivisible.tflite", one_op_model(
        "SPACE_TO_BATCH_ND", [1, 4, 4, 1], [9, 1, 1, 1], [("b", [2], "int32", [3, 3]), ("p", [2, 2], "int32", [0] * 4)])
    yield "lstm_weight_shape_mismatch.tflite", lstm_bad_weights()
    yield "int8_prelu_alpha_mismatch.tflite", one_op_model(
        "PRELU", [1, 2, 2, 3], [1, 2, 2, 3], [("alpha", [1, 1, 5], "int8", [1] * 5, 0.01, 0)], dtype="int8",
        quant=(0.05, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit")
    ap.add_argument("--out", required=True)
    ap.add_argument("--write-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failures = 0
    for name, data in cases():
        path = os.path.join(a.out, name)
        with open(path, "wb") as f:
            f.write(data)
        if a.write_only:
            continue
        out = os.path.join(a.out, name + ".mlir")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([a.tosakit, "import", path, "-o", out], capture_output=True, text=True, timeout=60)
        lines = r.stderr.strip().split("\n")
        ok = r.returncode == 4 and len(lines) == 1 and lines[0].startswith("tosakit: ") and name in lines[0] \
            and not os.path.exists(out)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    if not a.write_only:
        failures += not check_unsupported_listing(a.tosakit, a.out)
    if failures:
        print(f"{failures} hostile case(s) not refused as bad input")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
