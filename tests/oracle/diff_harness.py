#!/usr/bin/python3
"""Differential harness: tosakit vs upstream MLIR 22 (and vs independent expected values).

    diff_harness.py --tosakit BIN MODEL.mlir --inputs IN.npz [--function F] [--expected EXP.npz] [--policy P]
    diff_harness.py --tosakit BIN --fixture NAME            (tests/data/models/NAME.{mlir,inputs.npz,expected.npz})
    diff_harness.py --tosakit BIN --known-deviations        (the KNOWN_DEVIATIONS table below)

Judging (docs/ORACLE.md):
  - integer / bool outputs: bit-exact.
  - floating-point outputs, by policy:
      exact     bit-exact (NaN matches any NaN; subnormals may be flushed: TOSA 1.0 section 1.10.3 allows it);
                for data movement, comparisons, add/sub/mul/min/max/clamp/abs/negate, ceil/floor, cast.
      ulp:N     |a - b| <= N ulp of the output type at the reference value (spec 1.10.3 ULP bounds for
                exp/log/reciprocal/rsqrt; resize).
      abs:E     |a - b| <= E + 1 ulp (tanh, sigmoid, sin, cos, erf: the spec gives absolute error bounds).
      dot:K     |a - b| <= max|ref| * (4 * K * eps(fp32 accumulator) + eps(out type)): the spirit of the
                DOT_PRODUCT mode (1.10.3 / 4.5.3): error grows with the K products summed; for conv, matmul,
                depthwise/transpose conv, avg_pool, reduce_sum/product.
Each case prints one line; the last line is `N passed, N failed`; exit status 1 on any failure.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mlir_oracle as mo  # noqa: E402

MODELS = os.path.normpath(os.path.join(HERE, "..", "data", "models"))

# Upstream MLIR 22 deviates from the TOSA 1.0 spec on these. For each, tosakit must equal the spec value
# (computed by tests/oracle/independent_ref.py in make_fixtures.py, stored in *.expected.npz) and upstream must
# still DIFFER from it, so this test notices when upstream gets fixed (then move the case to the normal suites).
#   kind 'run':      tosakit == expected; upstream runs and != expected.
#   kind 'validate': `tosakit validate` accepts; upstream tosa-validate rejects.
#   kind 'error':    tosakit run reports the ERROR_IF (exit 1); upstream accepts the graph and runs it.
KNOWN_DEVIATIONS = [
    # (name, spec section, kind, model stem, what upstream does)
    ("resize_bilinear_int_negative_offset", "2.12.1 RESIZE (idiv_floor)", "run", "dev_resize_negative_offset",
     "truncates y / scale_y_n toward zero where the spec floors (iy = idiv_floor(y, scale_y_n))"),
    ("max_pool2d_nan_ignore_all_nan_window", "2.3.8 MAX_POOL2D (nan_mode = IGNORE)", "run", "dev_max_pool_nan_ignore",
     "a window whose only real element is NaN gives -FLT_MAX instead of NaN"),
    ("pad_rank4_level_8k", "2.10.2 PAD (LEVEL_CHECK(rank(shape) <= MAX_RANK))", "validate", "dev_pad_rank4",
     "tosa-validate applies MAX_RANK to the length of the padding operand (2*rank = 8 > 6) and rejects it"),
    ("rescale_both_unsigned", "2.13.2 RESCALE (ERROR_IF(input_unsigned && output_unsigned))", "error",
     "dev_rescale_both_unsigned", "the verifier accepts input_unsigned = output_unsigned = true and lowers it"),
]


class Tally:
    def __init__(self):
        self.counts = {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0}

    def record(self, case, verdict, detail=""):
        self.counts[verdict] = self.counts.get(verdict, 0) + 1
        print(f"{verdict:<11} {case}" + (f": {detail}" if detail else ""), flush=True)

    def finish(self):
        if self.counts.get("UNSUPPORTED"):
            print(f"({self.counts['UNSUPPORTED']} cases unsupported by upstream MLIR 22: not counted)")
        print(f"{self.counts['PASS']} passed, {self.counts['FAIL']} failed")
        return 1 if self.counts["FAIL"] else 0


# Backend `tosakit run` uses (--backend): the default (fast) unless a runner asks for the reference backend.
BACKEND = None


def run_tosakit(tosakit, model, inputs_npz, out_npz, function="main"):
    """Returns (exit code, first stderr line, list of (name, array) outputs or None)."""
    cmd = [tosakit, "run", model, "--function", function, "--inputs", inputs_npz, "-o", out_npz]
    if BACKEND:
        cmd += ["--backend", BACKEND]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return -1, "tosakit run timed out", None
    if r.returncode != 0:
        lines = [l for l in (r.stderr + r.stdout).splitlines() if l.strip()]
        return r.returncode, (lines[0] if lines else f"exit {r.returncode}"), None
    z = np.load(out_npz)
    return 0, "", [(k, z[k]) for k in z.files]


# ---------------------------------------------------------------------------------------------------------
# Comparison

def float_values(a, elem):
    """float64 values of an output given in npy encoding for MLIR element type elem."""
    if elem == "bf16":
        return mo.bf16_bits_to_f32(np.asarray(a).astype(np.uint16)).astype(np.float64)
    return np.asarray(a).astype(np.float64)


FINFO = {"f32": (2.0 ** -23, 2.0 ** -126), "f16": (2.0 ** -10, 2.0 ** -14), "bf16": (2.0 ** -7, 2.0 ** -126)}


def ulp(x, elem):
    eps, tiny = FINFO[elem]
    m = np.maximum(np.abs(x), tiny)
    return eps * 2.0 ** np.floor(np.log2(m))


def compare(got, ref, tt, policy="exact"):
    """got: tosakit's array, ref: the reference (oracle or expected). Returns '' or a reason."""
    got, ref = np.asarray(got), np.asarray(ref)
    if tuple(got.shape) != tt.shape:
        return f"shape {tuple(got.shape)}, expected {tt.shape}"
    if tt.kind in ("int", "bool"):
        g, r = got.astype(np.int64), ref.astype(np.int64)
        if tt.kind == "bool":
            g, r = g != 0, r != 0
        bad = np.argwhere(g != r)
        if len(bad):
            i = tuple(bad[0])
            return f"{len(bad)}/{g.size} elements differ, first at {list(i)}: got {g[i]}, expected {r[i]}"
        return ""
    if tt.elem not in FINFO:
        if np.array_equal(got.view(np.uint8), ref.view(np.uint8)):
            return ""
        return "fp8 bit patterns differ"
    g, r = float_values(got, tt.elem), float_values(ref, tt.elem)
    _, tiny = FINFO[tt.elem]
    nan_g, nan_r = np.isnan(g), np.isnan(r)
    same = (nan_g & nan_r) | (g == r) | ((np.abs(g) < tiny) & (np.abs(r) < tiny))
    if policy == "exact":
        # also require equal signs of zero results (e.g. negate(0.0) = -0.0)
        same &= ~((g == 0) & (r == 0) & (np.signbit(g) != np.signbit(r))) | nan_r
        ok = same
    else:
        kind, _, arg = policy.partition(":")
        diff = np.abs(g - r)
        finite = np.isfinite(r) & np.isfinite(g)
        if kind == "ulp":
            tol = float(arg) * ulp(r, tt.elem)
        elif kind == "abs":
            tol = float(arg) + ulp(r, tt.elem)
        elif kind == "dot":
            k = float(arg)
            scale = np.max(np.abs(r[np.isfinite(r)])) if np.isfinite(r).any() else 0.0
            eps_out = FINFO[tt.elem][0]
            tol = scale * (4 * k * 2.0 ** -23 + eps_out) + tiny
        else:
            return f"unknown policy '{policy}'"
        ok = same | (finite & (diff <= tol))
    bad = np.argwhere(~ok)
    if len(bad):
        i = tuple(bad[0])
        return (f"{len(bad)}/{g.size} elements outside '{policy}', first at {list(i)}: got {g[i]!r}, "
                f"expected {r[i]!r}")
    return ""


def diff_case(tosakit, model, inputs_npz, policy="exact", function="main", workdir=None, expected=None):
    """Runs both sides and compares. Returns (verdict, detail); verdict PASS / FAIL / UNSUPPORTED."""
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="diff-")
    try:
        try:
            sig, _, oracle_outs = mo.run_oracle(model, function, inputs=inputs_npz)
        except mo.Unsupported as ex:
            oracle_outs = None
            unsupported = str(ex)
            sig = mo.parse_signature(mo.read_model(model)[1], function)
        except (mo.BadInput, mo.OracleError) as ex:
            return "FAIL", f"oracle: {ex}"
        rc, msg, tk = run_tosakit(tosakit, model, inputs_npz, os.path.join(workdir, "tosakit.npz"), function)
        if rc != 0:
            return "FAIL", f"tosakit exit {rc}: {msg}"
        if len(tk) != len(sig.result_types):
            return "FAIL", f"tosakit wrote {len(tk)} outputs, function has {len(sig.result_types)}"
        problems = []
        for k, ((name, got), tt) in enumerate(zip(tk, sig.result_types)):
            pol = policy[k] if isinstance(policy, list) else policy
            if expected is not None:
                why = compare(got, expected[k], tt, pol)
                if why:
                    problems.append(f"{name} vs independent expected: {why}")
            if oracle_outs is not None:
                why = compare(got, oracle_outs[k], tt, pol)
                if why:
                    problems.append(f"{name} vs MLIR 22: {why}")
        if problems:
            return "FAIL", "; ".join(problems)
        if oracle_outs is None:
            if expected is not None:
                return "PASS", f"matches expected; upstream: UNSUPPORTED ({unsupported})"
            return "UNSUPPORTED", unsupported
        return "PASS", ""
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


def load_expected(path):
    z = np.load(path)
    keys = [k for k in z.files if k.startswith("out") and k[3:].isdigit()]
    return [z[k] for k in sorted(keys, key=lambda s: int(s[3:]))]


# ---------------------------------------------------------------------------------------------------------

def run_fixture(tosakit, stem, tally):
    """tests/data/models/STEM.mlir @main on STEM.inputs.npz; STEM.expected.npz holds the independent expected
    outputs out0, out1, ... and optionally the float judging policy of each as policy0, policy1, ..."""
    model = os.path.join(MODELS, stem + ".mlir")
    z = np.load(os.path.join(MODELS, stem + ".expected.npz"))
    expected = load_expected(os.path.join(MODELS, stem + ".expected.npz"))
    policies = [str(z[f"policy{k}"]) if f"policy{k}" in z.files else "exact" for k in range(len(expected))]
    verdict, detail = diff_case(tosakit, model, os.path.join(MODELS, stem + ".inputs.npz"), policy=policies,
                                expected=expected)
    tally.record(stem, verdict, detail)


def run_known_deviations(tosakit, tally):
    for name, section, kind, stem, upstream in KNOWN_DEVIATIONS:
        model = os.path.join(MODELS, stem + ".mlir")
        case = f"{name} [{section}]"
        if kind == "validate":
            r = subprocess.run([tosakit, "validate", model], capture_output=True, text=True, timeout=120)
            ok_up, msg_up = mo.validate(model)
            if r.returncode != 0:
                tally.record(case, "FAIL", f"tosakit validate rejects it: {(r.stderr or r.stdout).strip()[:200]}")
            elif ok_up:
                tally.record(case, "FAIL", "upstream tosa-validate now accepts it: deviation fixed upstream, "
                             "move this case to the normal suites")
            else:
                tally.record(case, "PASS", f"upstream rejects: {msg_up[:120]}")
            continue
        inputs = os.path.join(MODELS, stem + ".inputs.npz")
        try:
            sig, _, up = mo.run_oracle(model, "main", inputs=inputs)
            up_err = ""
        except (mo.Unsupported, mo.BadInput, mo.OracleError) as ex:
            sig, up, up_err = None, None, str(ex)
        with tempfile.TemporaryDirectory() as d:
            rc, msg, tk = run_tosakit(tosakit, model, inputs, os.path.join(d, "tk.npz"))
        if kind == "error":
            if up is None:
                tally.record(case, "FAIL", f"upstream no longer runs it ({up_err}): deviation fixed upstream?")
            elif rc != 1:
                tally.record(case, "FAIL", f"tosakit should report the ERROR_IF (exit 1), got exit {rc}: {msg}")
            else:
                tally.record(case, "PASS", f"tosakit: {msg[:120]}")
            continue
        expected = load_expected(os.path.join(MODELS, stem + ".expected.npz"))
        if up is None:
            tally.record(case, "FAIL", f"upstream failed to run it: {up_err}")
            continue
        problems = []
        if rc != 0:
            problems.append(f"tosakit exit {rc}: {msg}")
        else:
            for k, ((n, got), tt) in enumerate(zip(tk, sig.result_types)):
                why = compare(got, expected[k], tt)
                if why:
                    problems.append(f"tosakit {n} != spec value: {why}")
        if all(not compare(u, e, tt) for u, e, tt in zip(up, expected, sig.result_types)):
            problems.append("upstream now matches the spec: deviation fixed upstream, move this case")
        if problems:
            tally.record(case, "FAIL", "; ".join(problems))
        else:
            tally.record(case, "PASS", f"upstream still differs ({upstream})")


def main():
    global BACKEND
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit", required=True)
    ap.add_argument("--backend", choices=["fast", "ref"], help="tosakit run --backend (default: tosakit's)")
    ap.add_argument("model", nargs="?")
    ap.add_argument("--inputs")
    ap.add_argument("--function", default="main")
    ap.add_argument("--expected", help=".npz of independent expected outputs (out0, out1, ...)")
    ap.add_argument("--policy", default="exact")
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--known-deviations", action="store_true")
    a = ap.parse_args()
    BACKEND = a.backend
    if not os.access(a.tosakit, os.X_OK):
        print(f"diff_harness: tosakit binary not found or not executable: {a.tosakit}", file=sys.stderr)
        return 2
    tally = Tally()
    if a.model:
        if not a.inputs:
            print("diff_harness: MODEL needs --inputs", file=sys.stderr)
            return 2
        exp = load_expected(a.expected) if a.expected else None
        verdict, detail = diff_case(a.tosakit, a.model, a.inputs, a.policy, a.function, expected=exp)
        tally.record(os.path.basename(a.model), verdict, detail)
    for stem in a.fixture:
        run_fixture(a.tosakit, stem, tally)
    if a.known_deviations:
        run_known_deviations(a.tosakit, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
