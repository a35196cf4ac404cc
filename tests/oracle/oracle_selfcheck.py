#!/usr/bin/python3
"""Checks the oracle itself against the conformance vectors' expected outputs (Arm reference model).

    oracle_selfcheck.py [--vectors DIR] [--filter SUBSTR] [--all-types] [--limit N]

DIR defaults to build/conformance/vectors, where the build unpacks tests/data/conformance/vectors.tar.xz.

By default only positive vectors whose inputs and outputs are all integer/bool are run; those must agree bit
for bit (tests/data/conformance/README.md: 88 integer vectors agree with MLIR 22). Vectors upstream cannot
lower are counted as 'unsupported', not as failures. With --all-types, float vectors are run too and reported
(exact-bit agreement or not) but never counted as failures: their judging needs the compliance modes.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlir_oracle as mo  # noqa: E402

INT_TYPES = {"bool", "int4", "int8", "int16", "int32", "int48", "int64"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "..", "build", "conformance", "vectors"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--vectors", default=default)
    ap.add_argument("--filter", default="")
    ap.add_argument("--all-types", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    if not os.path.isdir(a.vectors):
        print(f"oracle_selfcheck: no conformance vectors at {a.vectors}")
        return 2
    counts = {"pass": 0, "fail": 0, "unsupported": 0, "float-exact": 0, "float-differs": 0}
    n = 0
    for tj in sorted(glob.glob(os.path.join(a.vectors, "*", "*", "test.json"))):
        d = os.path.dirname(tj)
        if a.filter not in d:
            continue
        t = json.load(open(tj))
        if t.get("expected_result") != "valid" or not os.path.exists(os.path.join(d, "model.mlir")):
            continue
        dtypes = [x["dtype"] for x in t["inputs"] + t["outputs"]]
        is_int = all(x in INT_TYPES for x in dtypes)
        if not is_int and not a.all_types:
            continue
        n += 1
        if a.limit and n > a.limit:
            break
        inputs = {f"arg{i}": np.load(os.path.join(d, x["file"])) for i, x in enumerate(t["inputs"])}
        name = os.path.relpath(d, a.vectors)
        try:
            _, _, outs = mo.run_oracle(os.path.join(d, "model.mlir"), "main", inputs=inputs)
        except mo.Unsupported as ex:
            counts["unsupported"] += 1
            print(f"UNSUPPORTED {name}: {ex}")
            continue
        except (mo.BadInput, mo.OracleError) as ex:
            counts["fail"] += 1
            print(f"FAIL {name}: oracle error: {ex}")
            continue
        same = True
        for o, got in zip(t["outputs"], outs):
            exp = np.load(os.path.join(d, o["file"]))
            if exp.dtype == np.float16:
                same &= np.array_equal(exp.view(np.uint16), got.view(np.uint16))
            elif exp.dtype == np.float32:
                same &= np.array_equal(exp.view(np.uint32), got.view(np.uint32))
            else:
                same &= exp.shape == got.shape and np.array_equal(exp.astype(np.int64), got.astype(np.int64))
        if is_int:
            counts["pass" if same else "fail"] += 1
            print(f"{'PASS' if same else 'FAIL'} {name}")
        else:
            counts["float-exact" if same else "float-differs"] += 1
            print(f"{'FLOAT-EXACT' if same else 'FLOAT-DIFFERS'} {name}")
    print(", ".join(f"{k}={v}" for k, v in counts.items()))
    print(f"{counts['pass']} passed, {counts['fail']} failed")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
