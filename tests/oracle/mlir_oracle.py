#!/usr/bin/python3
"""Runs a TOSA MLIR function through upstream MLIR 22 (mlir-opt-22 + mlir-runner-22) as an independent oracle.

    mlir_oracle.py MODEL.mlir [--function main] (--inputs IN.npz | --seed N [--save-inputs IN.npz]) -o OUT.npz

A driver module is written next to the model's functions: `@oracle_main` materializes every input as a
`tosa.const` (exact bits: dense hex for byte-sized types, decimal literals for i1/i4/i48), calls the function,
turns every result into an i32/i64 tensor (floats bitcast to same-width integers, narrow integers widened), and
prints it with printMemrefI32/printMemrefI64. The module is lowered with PIPELINE below (docs/ORACLE.md),
run with mlir-runner-22, and the printed memrefs are parsed back.

Inputs are keyed by argument name: `argN` or the argument's `loc("name")`. NumPy encodings follow the
conformance vectors: bf16 as uint16 bits, fp8 as uint8 bits, i4 as int8, i48 as int64. Outputs are saved keyed
out0, out1, ... in result order, with the same encodings.

Exit codes: 0 ok; 2 bad command line, model or inputs; 3 upstream cannot lower or run it
("UNSUPPORTED-BY-UPSTREAM: <reason>"); 4 the oracle itself failed (driver did not parse, runner crashed).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

MLIR_OPT = os.environ.get("MLIR_OPT", "mlir-opt-22")
MLIR_RUNNER = os.environ.get("MLIR_RUNNER", "mlir-runner-22")
LLVM_LIB = "/usr/lib/llvm-22/lib"
RUNNER_LIBS = f"{LLVM_LIB}/libmlir_runner_utils.so,{LLVM_LIB}/libmlir_c_runner_utils.so"

PIPELINE = (
    "builtin.module(func.func(tosa-to-scf,tosa-to-linalg-named,tosa-optional-decompositions,"
    "tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale},tosa-to-tensor,"
    "convert-elementwise-to-linalg),one-shot-bufferize{bufferize-function-boundaries},"
    "func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "finalize-memref-to-llvm,func.func(math-extend-to-supported-types{target-type=f32}),"
    "convert-math-to-llvm,convert-math-to-libm,arith-expand{include-bf16},convert-arith-to-llvm,"
    "convert-cf-to-llvm,convert-index-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)")

VALIDATE_PIPELINE = (
    "builtin.module(tosa-attach-target{profiles=pro_int,pro_fp extensions=int16,int4,bf16,fp8e4m3,fp8e5m2,"
    "fft,doubleround,inexactround level=8k specification_version=1.0},"
    "tosa-validate{strict-op-spec-alignment})")

TIMEOUT = int(os.environ.get("ORACLE_TIMEOUT", "600"))

# MLIR element type -> (numpy storage dtype, bit width, kind). kind: 'int' (signless, stored signed),
# 'bool', 'float' (numpy has the type), 'bits' (numpy lacks it: raw bits as unsigned ints).
ELEM = {
    "i1": (np.bool_, 1, "bool"),
    "i4": (np.int8, 4, "int"),
    "i8": (np.int8, 8, "int"),
    "i16": (np.int16, 16, "int"),
    "i32": (np.int32, 32, "int"),
    "i48": (np.int64, 48, "int"),
    "i64": (np.int64, 64, "int"),
    "f16": (np.float16, 16, "float"),
    "f32": (np.float32, 32, "float"),
    "bf16": (np.uint16, 16, "bits"),
    "f8E4M3FN": (np.uint8, 8, "bits"),
    "f8E5M2": (np.uint8, 8, "bits"),
}


class OracleError(Exception):
    """The oracle failed for a reason of its own (exit 4)."""


class BadInput(Exception):
    """The model, function or inputs are unusable (exit 2)."""


class Unsupported(Exception):
    """Upstream MLIR 22 cannot lower or run this model (exit 3)."""


class TensorType:
    def __init__(self, text):
        m = re.fullmatch(r"tensor<(.*)>", text.strip())
        if not m:
            raise BadInput(f"unsupported argument/result type '{text}' (only ranked tensors)")
        parts = m.group(1).split("x")
        self.elem = parts[-1]
        if self.elem not in ELEM:
            raise BadInput(f"unsupported element type '{self.elem}' in '{text}'")
        try:
            self.shape = tuple(int(d) for d in parts[:-1])
        except ValueError:
            raise BadInput(f"dynamic or malformed shape in '{text}'")
        self.text = text.strip()

    @property
    def np_dtype(self):
        return np.dtype(ELEM[self.elem][0])

    @property
    def bits(self):
        return ELEM[self.elem][1]

    @property
    def kind(self):
        return ELEM[self.elem][2]

    def with_elem(self, elem):
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + elem + ">"


def run(cmd, stdin=None):
    try:
        return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise OracleError(f"{os.path.basename(cmd[0])} timed out after {TIMEOUT}s")


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return re.sub(r"^.*?error: ", "", line).strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def split_top(text, sep=","):
    """Splits on sep outside of brackets and quotes."""
    out, depth, cur, quote = [], 0, [], False
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def matching(text, start):
    """Index just past the bracket group opening at text[start]."""
    pairs = {"(": ")", "<": ">", "[": "]", "{": "}"}
    stack, quote, i = [], False, start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    raise BadInput("unbalanced brackets in function signature")


def tensor_types(text):
    out, i = [], 0
    while True:
        j = text.find("tensor<", i)
        if j < 0:
            return out
        k = matching(text, j + len("tensor"))
        out.append(text[j:k])
        i = k


class Signature:
    def __init__(self, arg_names, arg_types, result_types):
        self.arg_names = arg_names
        self.arg_types = arg_types
        self.result_types = result_types


def parse_signature(text, function):
    m = re.search(r"func\.func\s+(?:public\s+|private\s+)?@" + re.escape(function) + r"\s*\(", text)
    if not m:
        names = re.findall(r"func\.func\s+(?:public\s+|private\s+)?@([\w$.]+)", text)
        raise BadInput(f"no function @{function} (module has: {', '.join(names) or 'none'})")
    open_idx = m.end() - 1
    close_idx = matching(text, open_idx)
    args_text = text[open_idx + 1:close_idx - 1]
    names, types = [], []
    for i, a in enumerate(split_top(args_text)):
        a = a.strip()
        tm = re.match(r"%[\w$.]+\s*:\s*", a)
        if not tm:
            raise BadInput(f"@{function}: cannot read argument {i}: '{a}'")
        ts = tensor_types(a)
        if not ts:
            raise BadInput(f"@{function}: argument {i} is not a tensor: '{a}'")
        types.append(TensorType(ts[0]))
        am = re.search(r'tosakit\.name\s*=\s*"((?:[^"\\]|\\.)*)"', a)
        lm = re.search(r'loc\("((?:[^"\\]|\\.)*)"\s*[)(]', a)
        names.append(am.group(1) if am else (lm.group(1) if lm else f"arg{i}"))
    rest = text[close_idx:]
    results = []
    rm = re.match(r"\s*->\s*", rest)
    if rm:
        r = rest[rm.end():]
        if r.startswith("("):
            results = tensor_types(r[:matching(r, 0)])
        else:
            results = tensor_types(r[:matching(r, r.find("tensor<") + len("tensor"))])
    return Signature(names, types, [TensorType(t) for t in results])


# ---------------------------------------------------------------------------------------------------------
# Input encoding

def to_storage(arr, tt, name):
    """Converts a numpy array to the raw integer pattern / value array for type tt (exact bits)."""
    arr = np.asarray(arr)
    if tuple(arr.shape) != tt.shape:
        if arr.size == int(np.prod(tt.shape, dtype=np.int64)) and arr.size == 1:
            arr = arr.reshape(tt.shape)
        else:
            raise BadInput(f"input '{name}': shape {tuple(arr.shape)} does not match {tt.text}")
    if tt.kind == "bool":
        if arr.dtype != np.bool_ and not np.issubdtype(arr.dtype, np.integer):
            raise BadInput(f"input '{name}': dtype {arr.dtype} for {tt.text}")
        return arr.astype(np.bool_)
    if tt.kind == "int":
        if not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
            raise BadInput(f"input '{name}': dtype {arr.dtype} for {tt.text} (expected integers)")
        v = arr.astype(np.int64)
        b = tt.bits
        if b < 64:
            # Keep the low b bits, read them as signed (uint8 data for an i8 argument keeps its bits).
            v = v & ((1 << b) - 1)
            v = np.where(v >= (1 << (b - 1)), v - (1 << b), v)
        return v.astype(tt.np_dtype)
    if tt.kind == "float":
        if arr.dtype == tt.np_dtype:
            return arr
        if np.issubdtype(arr.dtype, np.floating):
            return arr.astype(tt.np_dtype)
        raise BadInput(f"input '{name}': dtype {arr.dtype} for {tt.text}")
    # bits: bf16 as uint16, fp8 as uint8 (any integer dtype of the same width is taken as bits)
    if tt.elem == "bf16" and arr.dtype == np.float32:
        return f32_to_bf16_bits(arr)
    if not np.issubdtype(arr.dtype, np.integer) or arr.dtype.itemsize * 8 != tt.bits:
        raise BadInput(f"input '{name}': dtype {arr.dtype} for {tt.text} (expected uint{tt.bits} bit patterns)")
    return arr.view(tt.np_dtype)


def f32_to_bf16_bits(a):
    """Round-to-nearest-even fp32 -> bf16 bit pattern (NaN kept quiet)."""
    f = np.atleast_1d(np.asarray(a, dtype=np.float32))
    u = f.view(np.uint32)
    s16 = np.uint32(16)
    with np.errstate(over="ignore"):  # only NaN patterns can wrap; they are replaced below
        rounded = (u + np.uint32(0x7FFF) + ((u >> s16) & np.uint32(1))) >> s16
    rounded = np.where(np.isnan(f), (u >> s16) | np.uint32(0x40), rounded)
    return rounded.astype(np.uint16).reshape(np.shape(a))


def bf16_bits_to_f32(b):
    b = np.asarray(b, dtype=np.uint16)
    return (np.atleast_1d(b).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)


def decimal_literal(v, shape):
    if len(shape) == 0:
        return str(v)
    flat = [("true" if x else "false") if isinstance(x, (bool, np.bool_)) else str(int(x)) for x in v.reshape(-1)]

    def nest(dims, off):
        if len(dims) == 1:
            return "[" + ", ".join(flat[off:off + dims[0]]) + "]"
        step = int(np.prod(dims[1:], dtype=np.int64))
        return "[" + ", ".join(nest(dims[1:], off + i * step) for i in range(dims[0])) + "]"
    return nest(list(shape), 0)


def const_literal(v, tt):
    """A dense attribute body reproducing the exact bits of v (already in storage form)."""
    n = int(np.prod(tt.shape, dtype=np.int64))
    if n == 0:
        raise BadInput(f"zero-element tensors are not supported by the oracle ({tt.text})")
    if tt.kind == "bool":
        flat = v.reshape(-1)
        if len(tt.shape) == 0:
            return "true" if bool(flat[0]) else "false"
        return decimal_literal(np.array([bool(x) for x in flat], dtype=object).reshape(tt.shape), tt.shape) \
            .replace("True", "true").replace("False", "false")
    if tt.elem in ("i4", "i48"):
        if len(tt.shape) == 0:
            return str(int(v.reshape(-1)[0]))
        return decimal_literal(v, tt.shape)
    # Byte-sized storage: raw little-endian bytes.
    return '"0x' + np.ascontiguousarray(v).astype(v.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'


# ---------------------------------------------------------------------------------------------------------
# Driver generation

def print_plan(tt):
    """(ops, printed element type, print function) to make result tt printable as exact integers."""
    e = tt.elem
    if e in ("i32", "i64"):
        return [], e
    if e == "i48":
        return [("arith.extsi", "i64")], "i64"
    if e in ("i4", "i8", "i16"):
        return [("arith.extsi", "i32")], "i32"
    if e == "i1":
        return [("arith.extui", "i32")], "i32"
    if e == "f32":
        return [("arith.bitcast", "i32")], "i32"
    if e in ("f16", "bf16"):
        return [("arith.bitcast", "i16"), ("arith.extui", "i32")], "i32"
    if e in ("f8E4M3FN", "f8E5M2"):
        return [("arith.bitcast", "i8"), ("arith.extui", "i32")], "i32"
    raise BadInput(f"cannot print {tt.text}")


def build_driver(module_text, function, sig, values):
    lines = []
    used_print = set()
    lines.append("  func.func @oracle_main() {")
    arg_ssa = []
    for i, (tt, v) in enumerate(zip(sig.arg_types, values)):
        lines.append(f'    %a{i} = "tosa.const"() <{{values = dense<{const_literal(v, tt)}> : {tt.text}}}> '
                     f": () -> {tt.text}")
        arg_ssa.append(f"%a{i}")
    nres = len(sig.result_types)
    call_types = f"({', '.join(t.text for t in sig.arg_types)}) -> ({', '.join(t.text for t in sig.result_types)})"
    call = f"call @{function}({', '.join(arg_ssa)}) : {call_types}"
    if nres == 0:
        lines.append("    " + call)
    elif nres == 1:
        lines.append(f"    %r = {call}")
    else:
        lines.append(f"    %r:{nres} = {call}")
    for k, tt in enumerate(sig.result_types):
        cur = "%r" if nres == 1 else f"%r#{k}"
        cur_t = tt.text
        ops, pe = print_plan(tt)
        for j, (op, elem) in enumerate(ops):
            nt = tt.with_elem(elem)
            lines.append(f"    %p{k}_{j} = {op} {cur} : {cur_t} to {nt}")
            cur, cur_t = f"%p{k}_{j}", nt
        mt = cur_t.replace("tensor<", "memref<", 1)
        ut = f"memref<*x{pe}>"
        fn = "printMemrefI64" if pe == "i64" else "printMemrefI32"
        used_print.add((fn, ut))
        lines.append(f"    %m{k} = bufferization.to_buffer {cur} : {cur_t} to {mt}")
        lines.append(f"    %u{k} = memref.cast %m{k} : {mt} to {ut}")
        lines.append(f"    call @{fn}(%u{k}) : ({ut}) -> ()")
    lines.append("    return")
    lines.append("  }")
    for fn, ut in sorted(used_print):
        lines.append(f"  func.func private @{fn}({ut})")
    end = module_text.rstrip().rfind("}")
    if end < 0:
        raise OracleError("printed model has no module body")
    return module_text[:end] + "\n".join(lines) + "\n}\n"


# ---------------------------------------------------------------------------------------------------------
# Output parsing

HEADER = re.compile(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ sizes = \[([^\]]*)\] "
                    r"strides = \[[^\]]*\] data =")


def parse_printed(stdout, sig):
    heads = list(HEADER.finditer(stdout))
    if len(heads) != len(sig.result_types):
        raise OracleError(f"runner printed {len(heads)} memrefs, expected {len(sig.result_types)}")
    outs = []
    for k, (h, tt) in enumerate(zip(heads, sig.result_types)):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(stdout)
        body = stdout[h.end():end]
        sizes = tuple(int(s) for s in h.group(2).split(",") if s.strip())
        if sizes != tt.shape:
            raise OracleError(f"result {k}: printed shape {sizes} != {tt.shape}")
        vals = [int(x) for x in re.findall(r"-?\d+", body)]
        n = int(np.prod(sizes, dtype=np.int64))
        if len(vals) != n:
            raise OracleError(f"result {k}: printed {len(vals)} values, expected {n}")
        v = np.array(vals, dtype=np.int64).reshape(sizes)
        outs.append(decode_result(v, tt))
    return outs


def decode_result(v, tt):
    e = tt.elem
    if e == "i1":
        return v.astype(np.bool_)
    if tt.kind == "int":
        return v.astype(tt.np_dtype)
    if e == "f32":
        return v.astype(np.int32).view(np.float32)
    if e == "f16":
        return (v & 0xFFFF).astype(np.uint16).view(np.float16)
    if e == "bf16":
        return (v & 0xFFFF).astype(np.uint16)
    return (v & 0xFF).astype(np.uint8)


# ---------------------------------------------------------------------------------------------------------

def random_inputs(sig, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for name, tt in zip(sig.arg_names, sig.arg_types):
        out[name] = random_tensor(rng, tt)
    return out


def random_tensor(rng, tt, fmin=-2.0, fmax=2.0):
    s = tt.shape
    e = tt.elem
    if e == "i1":
        return rng.integers(0, 2, size=s).astype(np.bool_)
    if tt.kind == "int":
        b = min(tt.bits, 63)
        return rng.integers(-(1 << (b - 1)), (1 << (b - 1)) - 1, size=s, endpoint=True).astype(tt.np_dtype)
    f = rng.uniform(fmin, fmax, size=s).astype(np.float32)
    if e == "f32":
        return f
    if e == "f16":
        return f.astype(np.float16)
    if e == "bf16":
        return f32_to_bf16_bits(f)
    bits = rng.integers(0, 256, size=s).astype(np.uint8)
    if e == "f8E4M3FN":
        bits[(bits & 0x7F) == 0x7F] = 0x38  # NaN -> 1.0
    else:
        bits[(bits & 0x7C) == 0x7C] = 0x3C  # Inf/NaN -> 1.0
    return bits


def load_inputs(path, sig):
    try:
        npz = np.load(path, allow_pickle=False)
    except Exception as ex:
        raise BadInput(f"{path}: cannot read: {ex}")
    keys = set(npz.files)
    vals = []
    for i, (name, tt) in enumerate(zip(sig.arg_names, sig.arg_types)):
        key = name if name in keys else (f"arg{i}" if f"arg{i}" in keys else None)
        if key is None:
            raise BadInput(f"{path}: no input for argument {i} ('{name}'); has: {', '.join(sorted(keys))}")
        keys.discard(key)
        vals.append(to_storage(npz[key], tt, key))
    if keys:
        raise BadInput(f"{path}: unknown inputs: {', '.join(sorted(keys))} (arguments: {', '.join(sig.arg_names)})")
    return vals


def read_model(model_path):
    """Canonical text of the model (parsed and verified by mlir-opt-22) and its text with local locations."""
    r = run([MLIR_OPT, model_path])
    if r.returncode != 0:
        raise BadInput(f"{model_path}: mlir-opt-22 cannot parse it: {first_error(r.stderr)}")
    rl = run([MLIR_OPT, "--mlir-print-debuginfo", "--mlir-print-local-scope", model_path])
    if rl.returncode != 0:
        raise BadInput(f"{model_path}: {first_error(rl.stderr)}")
    return r.stdout, rl.stdout


def lower_and_run(driver_text, workdir, keep=False):
    drv = os.path.join(workdir, "driver.mlir")
    with open(drv, "w") as f:
        f.write(driver_text)
    r = run([MLIR_OPT, drv])
    if r.returncode != 0:
        raise OracleError(f"generated driver does not parse ({drv}): {first_error(r.stderr)}")
    r = run([MLIR_OPT, f"--pass-pipeline={PIPELINE}", drv])
    if r.returncode != 0:
        raise Unsupported(f"lowering failed: {first_error(r.stderr)}")
    lowered = r.stdout
    # math-extend-to-supported-types can leave fastmath attributes the runner cannot parse.
    lowered = re.sub(r"\s*\{fastmath = #arith\.fastmath<[^>]*>\}", "", lowered)
    lowered = re.sub(r"\s*fastmath<[^>]*>", "", lowered)
    leftover = sorted(set(re.findall(r"\b(tosa|linalg|tensor|bufferization|scf|affine|arith|math|memref|cf)\.[a-z_0-9]+\b", lowered)))
    if leftover:
        raise Unsupported("not lowered to LLVM: " + ", ".join(leftover[:5]))
    low = os.path.join(workdir, "lowered.mlir")
    with open(low, "w") as f:
        f.write(lowered)
    r = run([MLIR_RUNNER, low, "-e", "oracle_main", "-entry-point-result=void", f"-shared-libs={RUNNER_LIBS}"])
    if r.returncode != 0:
        msg = first_error(r.stderr)
        if any(k in r.stderr for k in ("cannot be converted to LLVM IR", "failed to legalize", "not found for custom op")):
            raise Unsupported(f"runner: {msg}")
        raise OracleError(f"mlir-runner-22 failed (exit {r.returncode}): {msg}")
    return r.stdout


def run_oracle(model_path, function="main", inputs=None, seed=None, keep_dir=None):
    """Returns (signature, input values in storage form keyed by name, list of outputs)."""
    text, text_loc = read_model(model_path)
    sig = parse_signature(text_loc, function)
    if inputs is None:
        if seed is None:
            raise BadInput("give --inputs or --seed")
        named = random_inputs(sig, seed)
        values = [named[n] for n in sig.arg_names]
    elif isinstance(inputs, str):
        values = load_inputs(inputs, sig)
    else:
        values = [to_storage(inputs[n] if n in inputs else inputs[f"arg{i}"], tt, n)
                  for i, (n, tt) in enumerate(zip(sig.arg_names, sig.arg_types))]
    driver = build_driver(text, function, sig, values)
    if keep_dir:
        os.makedirs(keep_dir, exist_ok=True)
        out = lower_and_run(driver, keep_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="oracle-") as d:
            out = lower_and_run(driver, d)
    outs = parse_printed(out, sig)
    return sig, dict(zip(sig.arg_names, values)), outs


def validate(model_path):
    """Runs tosa-validate (TOSA 1.0, every profile/extension, level 8K). Returns (ok, message)."""
    r = run([MLIR_OPT, f"--pass-pipeline={VALIDATE_PIPELINE}", model_path])
    return r.returncode == 0, ("" if r.returncode == 0 else first_error(r.stderr))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--function", default="main")
    ap.add_argument("--inputs", help=".npz keyed by argN or the argument's loc name")
    ap.add_argument("--seed", type=int, help="generate random inputs from this seed")
    ap.add_argument("--save-inputs", help="write the inputs used (e.g. the random ones) to this .npz")
    ap.add_argument("--keep", help="keep the driver and lowered module in this directory")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    if (a.inputs is None) == (a.seed is None):
        print("mlir_oracle: give exactly one of --inputs or --seed", file=sys.stderr)
        return 2
    try:
        sig, ins, outs = run_oracle(a.model, a.function, inputs=a.inputs, seed=a.seed, keep_dir=a.keep)
    except Unsupported as ex:
        print(f"UNSUPPORTED-BY-UPSTREAM: {ex}")
        return 3
    except BadInput as ex:
        print(f"mlir_oracle: {ex}", file=sys.stderr)
        return 2
    except OracleError as ex:
        print(f"mlir_oracle: {a.model}: {ex}", file=sys.stderr)
        return 4
    if a.save_inputs:
        np.savez(a.save_inputs, **ins)
    np.savez(a.output, **{f"out{k}": v for k, v in enumerate(outs)})
    for k, (tt, v) in enumerate(zip(sig.result_types, outs)):
        print(f"out{k}: {tt.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
