#!/usr/bin/python3
"""Reads TFLite 2.9's 256-entry uint16 sigmoid table (the one its int16 LOGISTIC and TANH kernels interpolate)
out of TFLite itself, and prints it as the C++ initializer src/frontends/tflite/tflite_fixedpoint.h holds.

The table is not plain rounding of 65536 sigmoid(i / 24) (about one entry in ten differs by one), so the import
cannot compute it; this script is where its values come from. An int16 TANH model whose input scale is
float32(2 / 12288) makes TFLite's rescaled input exactly 2q (multiplier 16384, shift 13): at q = 128 i the
interpolation weight is 0 and the output is table[i] - 32768 (i < 255); table[255] is the one value consistent
with the output at q = 128 * 254 + 127 (weight 254).

    probe_sigmoid_table.py [--check]

--check also compares the emulation (the table, interpolated as TFLite does) with TFLite on all 65536 inputs
for a few input scales of LOGISTIC and TANH. Needs TFLite (scripts/install-deps.sh).
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "tflite"))
import run_tflite  # noqa: E402
from tflite_writer import ModelWriter  # noqa: E402

ALL = np.arange(-32768, 32768, dtype=np.int64)


def run_int16(op, scale, q):
    w = ModelWriter()
    x = w.tensor("x", [q.size], "int16", scale=float(scale), zero_point=0)
    y = w.tensor("y", [q.size], "int16", scale=1 / 32768, zero_point=0)
    w.op(op, [x], [y])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.tflite")
        with open(path, "wb") as f:
            f.write(w.finish([x], [y]))
        return run_tflite.run(path, {"x": q.astype(np.int16)})["y"].astype(np.int64)


def probe():
    out = run_int16("TANH", np.float32(2 / 12288), ALL)
    at = lambda q: int(out[q + 32768])  # noqa: E731
    table = [at(128 * i) + 32768 for i in range(255)]
    ua, target = table[254], at(128 * 254 + 127)
    last = [ub for ub in range(ua, 65536) if ((256 * ua + 254 * (ub - ua) + 128) >> 8) - 32768 == target]
    if len(last) != 1:
        sys.exit(f"probe_sigmoid_table: table[255] is not determined ({last[:4]})")
    return np.array(table + last, dtype=np.int64)


def emulate(op, scale, q, table):
    """TFLite 2.9's reference_integer_ops::Logistic / Tanh (general-scale path) on int16 values q."""
    m, shift = float(np.float32(scale)) * 4096.0 * 3.0, 0
    while m <= 32767.0 / 2.0 and shift <= 30:
        shift, m = shift + 1, m * 2.0
    d = (q * int(m) + ((1 << (shift - 1)) if shift else 0)) >> shift
    a = np.abs(d)
    frac_bits = 9 if op == "LOGISTIC" else 8
    uh = np.minimum(a >> frac_bits, 254)
    ua, ub = table[uh], table[uh + 1]
    r = (ua << frac_bits) + (a & ((1 << frac_bits) - 1)) * (ub - ua)
    saturated = (a >> frac_bits) >= 255
    if op == "LOGISTIC":
        r = np.where(saturated, 0x7FFF << 10, r)
        return np.where(d >= 0, r + (1 << 9), (1 << 25) - r + (1 << 9) - 1) >> 10
    r = np.where(saturated, 0xFFFF << 8, r)
    return np.where(d >= 0, r - (1 << 23) + (1 << 7), -r + (1 << 23) + (1 << 7) - 1) >> 8


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    table = probe()
    rows = [", ".join(str(v) for v in table[i:i + 16]) for i in range(0, 256, 16)]
    print(",\n".join("    " + r for r in rows))
    if not a.check:
        return
    bad = 0
    for op in ("LOGISTIC", "TANH"):
        for scale in (1e-4, 3e-4, 2.0 ** -13, 2.0 ** -10, 1e-3, 1e-5, 0.01):
            diff = int(np.count_nonzero(run_int16(op, scale, ALL) != emulate(op, scale, ALL, table)))
            bad += diff
            print(f"{op} scale {scale:g}: {diff} of 65536 differ", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
