#!/usr/bin/python3
"""Differential cases for `tosakit check` without --mode: one inexact operator followed by data movement.

    check_movement_diff.py --tosakit BIN [--seed S] [--cases N] [--no-upstream] [--keep DIR]

Each case: one inexact operator (rsqrt, erf, exp, sigmoid, reduce_sum, conv2d, matmul, transpose_conv2d, ...;
f32/f16/bf16) followed by 1-3 data-movement operators (pad, concat, reshape, slice, transpose, tile, reverse,
gather, scatter, identity); a concat may join a second inexact operator (a copy of the first with other data,
or an elementwise op on another input: disjoint parts judged by different rules) or a graph input. For each
implementation (tosakit's run, upstream MLIR 22's run through tests/oracle):
  1. the result as computed must be compliant (exit 0, nothing "not judged");
  2. one element copied from an inexact op moved to 8x that op's bound for its source element: NOT compliant
     (exit 1);
  3. the same element moved by half its bound (when the move is representable within the bound): compliant;
  4. an element copied from a constant or a graph input moved by one ulp: NOT compliant (exact).
Independence: which source element each output element copies is computed here by numpy applying the same
movement to arrays of element ids; each source element's bound comes from the operator's precision
requirements as written in check_random_ops.py (the fp64 op results from `tosakit run --precise` on the
single ops). The last line is `N passed, N failed, N skipped`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_random_ops as cr  # noqa: E402
from check_random_ops import mo, rg, ty  # noqa: E402

INEXACT = ["rsqrt", "erf", "exp", "reciprocal", "log", "sigmoid", "tanh", "sin", "add", "mul", "pow",
           "reduce_sum", "conv2d", "depthwise_conv2d", "transpose_conv2d", "matmul", "avg_pool2d",
           "resize_bilinear", "reduce_product"]
ELEMENTWISE_SECOND = {"rsqrt": (0.01, 10.0), "erf": (-3.0, 3.0), "exp": (-6.0, 6.0)}
# pad and concat twice as often: the cases (a padded convolution, two ops concatenated).
MOVES = ["pad", "pad", "concat", "concat", "reshape", "slice", "transpose", "tile", "reverse", "gather", "scatter",
         "identity"]
ELEMS = ["f32", "f32", "f16", "bf16"]


class Instance:
    """One inexact op of the graph: its result and what its bound needs."""

    def __init__(self, value, vtype, info, args, body=(0, 0)):
        self.value, self.type, self.info, self.args, self.body = value, vtype, info, args, body
        self.shape = mo.TensorType(vtype).shape
        self.elem = mo.TensorType(vtype).elem


def new_instance(g, rng, name, e):
    start, body = len(g.args), len(g.body)
    made = cr.OPS[name](g, rng, e)
    if made is None:
        return None
    results, info = made
    v, t = results[0]
    return Instance(v, t, info, list(range(start, len(g.args))), (body, len(g.body)))


def twin_instance(g, inst):
    """The same op lines again on new inputs of the same types with other data: a second op of identical
    shape (the SSA values it defines and the arguments it reads renamed)."""
    names = {}
    args = []
    for i in inst.args:
        t, arr = g.args[i]
        tt = mo.TensorType(t)
        new = g.arg(list(arr.shape), tt.elem) if tt.elem in cr.FLOATS else g.arg(list(arr.shape), tt.elem, arr=arr)
        names[f"%arg{i}"] = new
        args.append(len(g.args) - 1)
    for line in g.body[inst.body[0]:inst.body[1]]:
        defined = re.match(r"(%v\d+)", line).group(1)
        names[defined] = g.val()
    pattern = re.compile(r"%(?:arg|v)\d+")
    for line in g.body[inst.body[0]:inst.body[1]]:
        g.body.append(pattern.sub(lambda m: names.get(m.group(0), m.group(0)), line))
    value = names[re.match(r"(%v\d+)", inst.value).group(1)] + inst.value[len(re.match(r"(%v\d+)", inst.value).group(1)):]
    return Instance(value, inst.type, inst.info, args)


def elementwise_instance(g, rng, shape, e):
    name = list(ELEMENTWISE_SECOND)[int(rng.integers(len(ELEMENTWISE_SECOND)))]
    lo, hi = ELEMENTWISE_SECOND[name]
    start = len(g.args)
    a = g.arg(shape, e, lo=lo, hi=hi)
    v = g.op(f"tosa.{name} {a}", [ty(shape, e)], [ty(shape, e)])
    return Instance(v, ty(shape, e), {"rule": name}, list(range(start, len(g.args))))


class Cur:
    """The value being moved: its SSA name, shape, element type and the numpy array of source ids."""

    def __init__(self, v, shape, e, ids):
        self.v, self.shape, self.e, self.ids = v, list(shape), e, ids


def const_ids(shape):
    return np.full(shape, -1, dtype=np.int64)


def move_reshape(g, rng, c, **_):
    n = int(np.prod(c.shape))
    new, rest = [], n
    while rest > 1 and len(new) < 3:
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = divs[int(rng.integers(len(divs)))]
        new.append(d)
        rest //= d
    new.append(rest)
    return reshape_to(g, c, new)


def reshape_to(g, c, new):
    v = g.op(f"tosa.reshape {c.v}, {g.shape_const(new)}", [ty(c.shape, c.e), f"!tosa.shape<{len(new)}>"],
             [ty(new, c.e)])
    return Cur(v, new, c.e, c.ids.reshape(new)), f"reshape->{new}"


def move_transpose(g, rng, c, **_):
    perm = [int(x) for x in rng.permutation(len(c.shape))]
    out = [c.shape[p] for p in perm]
    v = g.op(f"tosa.transpose {c.v} {{perms = array<i32: {', '.join(map(str, perm))}>}}", [ty(c.shape, c.e)],
             [ty(out, c.e)])
    return Cur(v, out, c.e, np.transpose(c.ids, perm)), f"transpose{perm}"


def move_slice(g, rng, c, **_):
    start = [int(rng.integers(0, d)) for d in c.shape]
    size = [int(rng.integers(1, d - s + 1)) for d, s in zip(c.shape, start)]
    v = g.op(f"tosa.slice {c.v}, {g.shape_const(start)}, {g.shape_const(size)}",
             [ty(c.shape, c.e), f"!tosa.shape<{len(c.shape)}>", f"!tosa.shape<{len(c.shape)}>"], [ty(size, c.e)])
    ids = c.ids[tuple(slice(s, s + n) for s, n in zip(start, size))]
    return Cur(v, size, c.e, ids), f"slice{start}+{size}"


def move_reverse(g, rng, c, **_):
    ax = int(rng.integers(len(c.shape)))
    v = g.op(f"tosa.reverse {c.v} {{axis = {ax} : i32}}", [ty(c.shape, c.e)], [ty(c.shape, c.e)])
    return Cur(v, c.shape, c.e, np.flip(c.ids, ax)), f"reverse{ax}"


def move_tile(g, rng, c, **_):
    m = [int(x) for x in rng.integers(1, 3, size=len(c.shape))]
    out = [a * b for a, b in zip(c.shape, m)]
    v = g.op(f"tosa.tile {c.v}, {g.shape_const(m)}", [ty(c.shape, c.e), f"!tosa.shape<{len(m)}>"], [ty(out, c.e)])
    return Cur(v, out, c.e, np.tile(c.ids, m)), f"tile{m}"


def move_identity(g, rng, c, **_):
    v = g.op(f"tosa.identity {c.v}", [ty(c.shape, c.e)], [ty(c.shape, c.e)])
    return Cur(v, c.shape, c.e, c.ids), "identity"


def move_pad(g, rng, c, **_):
    p = [int(x) for x in rng.integers(0, 3, size=2 * len(c.shape))]
    out = [d + p[2 * i] + p[2 * i + 1] for i, d in enumerate(c.shape)]
    pc = g.const(g.data([1], c.e), [1], c.e)
    v = g.op(f"tosa.pad {c.v}, {g.shape_const(p)}, {pc}", [ty(c.shape, c.e), f"!tosa.shape<{len(p)}>", ty([1], c.e)],
             [ty(out, c.e)])
    ids = np.pad(c.ids, [(p[2 * i], p[2 * i + 1]) for i in range(len(c.shape))], constant_values=-1)
    return Cur(v, out, c.e, ids), f"pad{p}"


def move_concat(g, rng, c, instances, **_):
    """Concat with: a twin of the first op (same shape), an elementwise inexact op, or a graph input."""
    kind = [0, 0, 1, 1, 2][int(rng.integers(5))]  # twin, elementwise op, graph input
    ax = int(rng.integers(len(c.shape)))
    if kind == 0 and len(instances) == 1 and list(c.shape) == list(instances[0].shape):
        other = twin_instance(g, instances[0])
        instances.append(other)
        ids = offset_ids(instances, len(instances) - 1)
        ov, oshape, what = other.value, other.shape, f"concat(twin {other.info['rule']})"
    else:
        oshape = list(c.shape)
        oshape[ax] = int(rng.integers(1, 4))
        if kind == 1:
            other = elementwise_instance(g, rng, oshape, c.e)
            instances.append(other)
            ids = offset_ids(instances, len(instances) - 1)
            ov, what = other.value, f"concat({other.info['rule']})"
        else:
            ov = g.arg(oshape, c.e)
            ids, what = const_ids(oshape), "concat(input)"
    out = list(c.shape)
    out[ax] += oshape[ax]
    first = int(rng.integers(2)) == 0
    a, b = (c.v, ov) if first else (ov, c.v)
    ta, tb = (c.shape, oshape) if first else (oshape, c.shape)
    v = g.op(f"tosa.concat {a}, {b} {{axis = {ax} : i32}}", [ty(ta, c.e), ty(tb, c.e)], [ty(out, c.e)])
    joined = np.concatenate([c.ids, ids] if first else [ids, c.ids], axis=ax)
    return Cur(v, out, c.e, joined), what + f" axis {ax}"


def as_rank3(g, c):
    if len(c.shape) == 3:
        return c, ""
    n = int(np.prod(c.shape))
    c, d = reshape_to(g, c, [1, n, 1])
    return c, d + " "


def move_gather(g, rng, c, **_):
    c, pre = as_rank3(g, c)
    N, K, C = c.shape
    W = int(rng.integers(1, 6))
    idx = rng.integers(0, K, size=(N, W)).astype(np.int32)
    iv = g.const(idx, [N, W], "i32")
    v = g.op(f"tosa.gather {c.v}, {iv}", [ty([N, K, C], c.e), ty([N, W], "i32")], [ty([N, W, C], c.e)])
    ids = np.stack([c.ids[n, idx[n], :] for n in range(N)])
    return Cur(v, [N, W, C], c.e, ids), pre + f"gather{idx.tolist()}"


def move_scatter(g, rng, c, **_):
    """Scatter rows of a graph input into the moved value (indices unique per batch, as REQUIRE asks)."""
    c, pre = as_rank3(g, c)
    N, K, C = c.shape
    W = int(rng.integers(1, K + 1))
    idx = np.stack([rng.permutation(K)[:W] for _ in range(N)]).astype(np.int32)
    iv = g.const(idx, [N, W], "i32")
    src = g.arg([N, W, C], c.e)
    v = g.op(f"tosa.scatter {c.v}, {iv}, {src}", [ty([N, K, C], c.e), ty([N, W], "i32"), ty([N, W, C], c.e)],
             [ty([N, K, C], c.e)])
    ids = c.ids.copy()
    for n in range(N):
        ids[n, idx[n], :] = -1
    return Cur(v, [N, K, C], c.e, ids), pre + f"scatter{idx.tolist()}"


MOVE_FN = {"pad": move_pad, "concat": move_concat, "reshape": move_reshape, "slice": move_slice,
           "transpose": move_transpose, "tile": move_tile, "reverse": move_reverse, "gather": move_gather,
           "scatter": move_scatter, "identity": move_identity}


def offset_ids(instances, j):
    off = sum(int(np.prod(x.shape)) for x in instances[:j])
    return off + np.arange(int(np.prod(instances[j].shape)), dtype=np.int64).reshape(instances[j].shape)


# ---------------------------------------------------------------------------------------------------------

def run(cmd):
    return subprocess.run([str(x) for x in cmd], capture_output=True, text=True, timeout=600)


def instance_bounds(a, d, g, model_op, instances, inputs_path):
    """Per instance: fp64 reference and spec bound of every element (check_random_ops.spec_bound)."""
    precise = os.path.join(d, "op_precise.npz")
    r = run([a.tosakit, "run", model_op, "--inputs", inputs_path, "-o", precise, "--precise"])
    if r.returncode != 0:
        raise RuntimeError("tosakit run --precise: " + (r.stderr or r.stdout).strip()[:200])
    z = np.load(precise)
    refs = [z[f"out{j}"].astype(np.float64) for j in range(len(instances))]
    abs_out = {}

    def precise_abs_all():
        if abs_out:
            return abs_out
        absd = {}
        firsts = {inst.args[0]: inst for inst in instances}
        for i, (t, arr) in enumerate(g.args):
            el = mo.TensorType(t).elem
            if el not in cr.FLOATS:
                absd[f"arg{i}"] = arr
                continue
            v = np.abs(cr.to_f64(arr, el))
            inst = firsts.get(i)
            if inst is not None and not inst.info.get("local_bound", True):
                v = np.full(v.shape, v.max() if v.size else 0.0)
            absd[f"arg{i}"] = cr.from_f64(v, el)
        p_in, p_out = os.path.join(d, "abs_inputs.npz"), os.path.join(d, "abs_precise.npz")
        np.savez(p_in, **absd)
        rr = run([a.tosakit, "run", model_op, "--inputs", p_in, "-o", p_out, "--precise"])
        if rr.returncode != 0:
            raise RuntimeError("tosakit run --precise on |inputs|: " + rr.stderr.strip()[:200])
        zz = np.load(p_out)
        abs_out.update({j: zz[f"out{j}"].astype(np.float64) for j in range(len(instances))})
        return abs_out

    bounds = []
    for j, inst in enumerate(instances):
        inputs_f64 = [cr.to_f64(g.args[i][1], mo.TensorType(g.args[i][0]).elem) for i in inst.args]
        b = cr.spec_bound(inst.info, inst.elem, inputs_f64, refs[j], lambda j=j: precise_abs_all()[j])
        bounds.append(np.broadcast_to(np.asarray(b, dtype=np.float64), refs[j].shape))
    return refs, bounds


def judge(a, model, inputs, result):
    r = run([a.tosakit, "check", "--model", model, "--inputs", inputs, "--result", result, "--json"])
    try:
        import json
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        return r.returncode, {"entries": [], "counts": {}, "error": (r.stderr or r.stdout).strip()[:300]}


def summary(rep):
    if "error" in rep:
        return rep["error"]
    return "; ".join(f"{x['name']}: {x['verdict']} {x['rule']} {x['reason'][:160]}" for x in rep["entries"])


def with_element(path, d, tag, e, flat_index, value):
    z = np.load(path)
    outs = {k: z[k] for k in z.files}
    vals = cr.to_f64(outs["out0"], e).reshape(-1)
    vals[flat_index] = value
    outs["out0"] = cr.from_f64(vals.reshape(np.asarray(outs["out0"]).shape), e)
    p = os.path.join(d, f"{tag}.npz")
    np.savez(p, **outs)
    return p


def rounded(v, e):
    return float(cr.to_f64(cr.from_f64(np.array([v]), e), e)[0])


def run_case(a, index, tally, root):
    rng = np.random.default_rng([a.seed, index])
    e = ELEMS[int(rng.integers(len(ELEMS)))]
    name = INEXACT[int(rng.integers(len(INEXACT)))]
    g = rg.G(rng)
    first = new_instance(g, rng, name, e)
    if first is None:
        return
    instances = [first]
    cur = Cur(first.value, first.shape, first.elem, offset_ids(instances, 0))
    steps = []
    for _ in range(int(rng.integers(1, 4))):
        mv = MOVES[int(rng.integers(len(MOVES)))]
        cur, what = MOVE_FN[mv](g, rng, cur, instances=instances)
        steps.append(what)
    case = f"case{index}_{name}_{first.elem}: " + " | ".join(steps)
    d = os.path.join(root, f"case{index}")
    os.makedirs(d, exist_ok=True)
    model = os.path.join(d, "model.mlir")
    with open(model, "w") as f:
        f.write(g.module([(cur.v, ty(cur.shape, cur.e))]))
    model_op = os.path.join(d, "ops.mlir")
    with open(model_op, "w") as f:
        f.write(g.module([(x.value, x.type) for x in instances]))
    inputs = os.path.join(d, "inputs.npz")
    np.savez(inputs, **g.inputs())
    refs, bounds = instance_bounds(a, d, g, model_op, instances, inputs)
    e_out = cur.e
    # Reference and bound of every output element, through the numpy element map.
    flat_ids = cur.ids.reshape(-1)
    all_ref = np.concatenate([r.reshape(-1) for r in refs])
    all_bnd = np.concatenate([b.reshape(-1) for b in bounds])
    impls = []
    own = os.path.join(d, "tosakit.npz")
    r = run([a.tosakit, "run", model, "--inputs", inputs, "-o", own])
    if r.returncode != 0:
        tally.record(case, "FAIL", f"tosakit run: {(r.stderr or r.stdout).strip()[:200]}")
        return
    impls.append(("tosakit", own))
    if not a.no_upstream:
        try:
            _, _, outs = mo.run_oracle(model, "main", inputs=g.inputs())
            up = os.path.join(d, "upstream.npz")
            np.savez(up, out0=outs[0])
            impls.append(("mlir22", up))
        except mo.Unsupported as ex:
            tally.record(case + " /mlir22", "SKIP", f"upstream: {str(ex)[:120]}")
        except (mo.BadInput, mo.OracleError) as ex:
            tally.record(case + " /mlir22", "SKIP", f"oracle: {str(ex)[:160]}")
    # Elements to move: the first one copied from an op with a finite reference and a usable bound, and the
    # first one copied from a constant or an input.
    from_op = from_const = None
    for k, sid in enumerate(flat_ids):
        if sid >= 0 and from_op is None:
            ref, b = all_ref[sid], all_bnd[sid]
            step = 8 * b if b > 0 else 8 * cr.ulp(ref, e_out)
            if np.isfinite(ref) and step > 0 and abs(ref) + 2 * step < cr.NMAX[e_out] / 2:
                moved = rounded(ref + step, e_out)
                if abs(moved - ref) > b:
                    from_op = (k, sid, moved)
        if sid < 0 and from_const is None:
            from_const = k
    for who, path in impls:
        tag = f"{case} /{who}"
        rc, rep = judge(a, model, inputs, path)
        if rc != 0 or rep.get("counts", {}).get("not_compliant") or rep.get("counts", {}).get("not_judged"):
            tally.record(tag, "FAIL", f"expected compliant (exit {rc}): {summary(rep)}")
            continue
        problems = []
        if from_op is not None:
            k, sid, moved = from_op
            rc, rep = judge(a, model, inputs, with_element(path, d, f"{who}_out", e_out, k, moved))
            if rc != 1:
                problems.append(f"element {k} (source {sid}) moved to {moved} (ref {all_ref[sid]}, bound "
                                f"{all_bnd[sid]}): expected NOT compliant, exit {rc}: {summary(rep)}")
            ref, b = all_ref[sid], all_bnd[sid]
            inside = rounded(ref + 0.5 * b, e_out)
            if b > 0 and inside != ref and abs(inside - ref) <= b:
                rc, rep = judge(a, model, inputs, with_element(path, d, f"{who}_in", e_out, k, inside))
                if rc != 0:
                    problems.append(f"element {k} moved to {inside} (ref {ref}, bound {b}): expected compliant, "
                                    f"exit {rc}: {summary(rep)}")
        if from_const is not None:
            z = np.load(path)
            v = float(cr.to_f64(z["out0"], e_out).reshape(-1)[from_const])
            if np.isfinite(v):
                off = rounded(v + max(cr.ulp(v, e_out), cr.NMIN[e_out]) * (1 if v >= 0 else -1), e_out)
                if off != v:
                    rc, rep = judge(a, model, inputs, with_element(path, d, f"{who}_const", e_out, from_const, off))
                    if rc != 1:
                        problems.append(f"element {from_const} (a constant or input) moved by one ulp to {off}: "
                                        f"expected NOT compliant, exit {rc}: {summary(rep)}")
        if problems:
            tally.record(tag, "FAIL", "; ".join(problems))
        elif from_op is None:
            tally.record(tag, "SKIP", "no element of an inexact op to move")
        else:
            tally.record(tag, "PASS")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tosakit", required=True)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--no-upstream", action="store_true")
    ap.add_argument("--keep")
    a = ap.parse_args()
    tally = cr.Tally()
    root = a.keep or tempfile.mkdtemp(prefix="check-movement-")
    for i in range(a.first, a.first + a.cases):
        try:
            run_case(a, i, tally, root)
        except Exception as ex:  # a bug of this script or of a tool: one failing case
            tally.record(f"case{i}", "FAIL", f"{type(ex).__name__}: {ex}")
    if not a.keep:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
