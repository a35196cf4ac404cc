#!/usr/bin/python3
"""Per-call overhead of the Python Session on the bundled PaddleOCR classifier (models/ppocr_cls).

Compares, on one Session and the same input, the time per call of `session.run({"x": array})` from Python
(numpy in, numpy dict out: input conversion, name lookup, output wrapping) with the C++ Session's own
time per run measured by a timed loop in C++ (`Session._cpp_seconds_per_run`), in alternating pairs. Prints the overhead as a
percentage of the model's run time; the target is < 5% on the fast backend. Not a test (timings vary).

    /usr/bin/python3 bench/python_overhead.py [--backend fast|ref] [--threads N] [--iterations N]

On a loaded machine use --threads 1: with every core busy the fast backend's thread team (OpenMP) makes
run times swing by far more than the per-call cost being measured.
"""
import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import tosakit

ROOT = pathlib.Path(__file__).resolve().parents[1]


def paired_times(session, inputs, pairs):
    """Alternating single runs, Python call then C++ loop of one: on a shared machine a load swing hits both
    members of a pair alike, so the median of the paired differences is the per-call overhead."""
    py, cpp = [], []
    for _ in range(pairs):
        start = time.perf_counter()
        session.run(inputs)
        py.append(time.perf_counter() - start)
        cpp.append(session._cpp_seconds_per_run(inputs, 1))
    return py, cpp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="fast")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=50, help="paired runs (Python, then C++)")
    args = ap.parse_args()

    model = tosakit.import_onnx(ROOT / "models/ppocr_cls/model.onnx", input_shapes={"x": (1, 3, 48, 192)})
    with np.load(ROOT / "models/ppocr_cls/input.npz") as z:
        inputs = {"x": z["x"]}
    try:
        session = tosakit.Session(model, backend=args.backend, threads=args.threads)
    except tosakit.Error as e:
        print(f"backend '{args.backend}' not available ({e}); use --backend ref", file=sys.stderr)
        return 2
    session.run(inputs)  # warm-up (first-run allocations, kernel setup)
    py, cpp = paired_times(session, inputs, args.iterations)
    c, p = statistics.median(cpp), statistics.median(py)
    diff = statistics.median(a - b for a, b in zip(py, cpp))
    overhead = diff / c * 100
    print(f"PaddleOCR classifier 1x3x48x192, backend {session.backend}, {args.iterations} paired runs")
    print(f"C++ Session.run        {c * 1e3:9.3f} ms/run")
    print(f"Python Session.run     {p * 1e3:9.3f} ms/run")
    print(f"per-call overhead      {diff * 1e6:9.1f} us = {overhead:.2f}% of the model's run time "
          f"(target < 5%: {'met' if overhead < 5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
