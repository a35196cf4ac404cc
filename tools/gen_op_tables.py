#!/usr/bin/env python3
"""Generate src/ir/op_tables_gen.cpp from the facts of the TOSA 1.0 specification.

Two steps (from the repository root):
    python3 tools/gen_op_tables.py extract SPEC.txt > data/spec/tosa_1_0_ops.json   # maintainer step
    python3 tools/gen_op_tables.py emit data/spec/tosa_1_0_ops.json > src/ir/op_tables_gen.cpp
    python3 tools/gen_op_tables.py check data/spec/tosa_1_0_ops.json src/ir/op_tables_gen.cpp   # ctest op_tables_gen

`extract` reads the text of the TOSA 1.0 specification (the PDF as plain text; not part of the repository) and
writes, for every operator of spec chapter 2 (2.3.1 ARGMAX .. 2.18.1 CONST_SHAPE), the cells of three tables:
  - the "Arguments:" table (category, type, name, shape, rank),
  - the "Compile Time Constant Status:" table,
  - the "Supported Data Types:" table (profile/extension requirement, mode, one type per type variable).
The facts file is checked in; only a new specification text needs `extract` again.

`emit` interprets the facts and pairs the spec arguments with the MLIR 22 operand/result order (MLIR_OPERANDS
below, transcribed from MLIR 22's TosaOps.td). It fails loudly when an MLIR operand has no spec argument of the
same name (or alias), so a spec/MLIR drift cannot go unnoticed. `check` emits and compares with the given file.

The text tables are paragraph lists: every cell is a paragraph separated by blank lines.
"""
import json
import os
import re
import sys

# MLIR 22 operand and result names, in order (TosaOps.td). "*name" marks a variadic list.
MLIR_OPERANDS = {
    "ARGMAX": (["input"], ["output"]),
    "AVG_POOL2D": (["input", "input_zp", "output_zp"], ["output"]),
    "CONV2D": (["input", "weight", "bias", "input_zp", "weight_zp"], ["output"]),
    "CONV3D": (["input", "weight", "bias", "input_zp", "weight_zp"], ["output"]),
    "DEPTHWISE_CONV2D": (["input", "weight", "bias", "input_zp", "weight_zp"], ["output"]),
    "FFT2D": (["input_real", "input_imag"], ["output_real", "output_imag"]),
    "MATMUL": (["A", "B", "A_zp", "B_zp"], ["output"]),
    "MAX_POOL2D": (["input"], ["output"]),
    "RFFT2D": (["input_real"], ["output_real", "output_imag"]),
    "TRANSPOSE_CONV2D": (["input", "weight", "bias", "input_zp", "weight_zp"], ["output"]),
    "CLAMP": (["input"], ["output"]),
    "ERF": (["input"], ["output"]),
    "SIGMOID": (["input"], ["output"]),
    "TANH": (["input"], ["output"]),
    "MUL": (["input1", "input2", "shift"], ["output"]),
    "TABLE": (["input1", "table"], ["output"]),
    "NEGATE": (["input1", "input1_zp", "output_zp"], ["output"]),
    "SELECT": (["input1", "input2", "input3"], ["output"]),
    "CONCAT": (["*input1"], ["output"]),
    "PAD": (["input1", "padding", "pad_const"], ["output"]),
    "RESHAPE": (["input1", "shape"], ["output"]),
    "REVERSE": (["input1"], ["output"]),
    "SLICE": (["input1", "start", "size"], ["output"]),
    "TILE": (["input1", "multiples"], ["output"]),
    "TRANSPOSE": (["input1"], ["output"]),
    "GATHER": (["values", "indices"], ["output"]),
    "SCATTER": (["values_in", "indices", "input"], ["values_out"]),
    "RESIZE": (["input", "scale", "offset", "border"], ["output"]),
    "CAST": (["input"], ["output"]),
    "RESCALE": (["input", "multiplier", "shift", "input_zp", "output_zp"], ["output"]),
    "CONST": ([], ["output"]),
    "IDENTITY": (["input1"], ["output"]),
    "CUSTOM": (["*input_list"], ["*output_list"]),
    "COND_IF": (["condition", "*input_list"], ["*output_list"]),
    "WHILE_LOOP": (["*input_list"], ["*output_list"]),
    "VARIABLE": ([], []),
    "VARIABLE_WRITE": (["input1"], []),
    "VARIABLE_READ": ([], ["output1"]),
    "CONST_SHAPE": ([], ["output"]),
}
UNARY = ["ABS", "BITWISE_NOT", "CEIL", "CLZ", "COS", "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "RECIPROCAL",
         "RSQRT", "SIN"]
BINARY = ["ADD", "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV", "LOGICAL_AND",
          "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR", "MAXIMUM", "MINIMUM", "POW",
          "SUB", "EQUAL", "GREATER", "GREATER_EQUAL"]
REDUCE = ["REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_SUM"]
for n in UNARY:
    MLIR_OPERANDS[n] = (["input1"], ["output"])
for n in BINARY:
    MLIR_OPERANDS[n] = (["input1", "input2"], ["output"])
for n in REDUCE:
    MLIR_OPERANDS[n] = (["input"], ["output"])

# MLIR names that differ from the spec argument names: (op, mlir name) -> spec name.
ALIASES = {
    ("MATMUL", "A"): "A", ("MATMUL", "B"): "B",
}

PROFILE_IDS = {
    "PRO-INT": "pro_int", "PRO-FP": "pro_fp",
    "EXT-INT16": "int16", "EXT-INT4": "int4", "EXT-BF16": "bf16", "EXT-FP8E4M3": "fp8e4m3",
    "EXT-FP8E5M2": "fp8e5m2", "EXT-FFT": "fft", "EXT-VARIABLE": "variable", "EXT-CONTROLFLOW": "controlflow",
    "EXT-DYNAMIC": "dynamic", "EXT-DOUBLEROUND": "doubleround", "EXT-INEXACTROUND": "inexactround",
}
DTYPES = {
    "bool_t": "Bool", "i4_t": "I4", "i8_t": "I8", "i16_t": "I16", "i32_t": "I32", "i48_t": "I48", "i64_t": "I64",
    "fp8e4m3_t": "FP8E4M3", "fp8e5m2_t": "FP8E5M2", "fp16_t": "FP16", "bf16_t": "BF16", "fp32_t": "FP32",
    "fp64_t": "FP64",
}
RANK_RE = re.compile(r"^(-|\d+|\d+ to MAX_RANK( - \d+)?)$")
KINDS = {"Input": "Input", "Output": "Output", "Attribute": "Attribute"}


def paragraphs(lines):
    out, cur = [], []
    for ln in lines:
        if ln.strip() == "":
            if cur:
                out.append(" ".join(s.strip() for s in cur))
                cur = []
        else:
            cur.append(ln)
    if cur:
        out.append(" ".join(s.strip() for s in cur))
    return out


def split_ops(text):
    lines = text.split("\n")
    heads = []
    for i, ln in enumerate(lines):
        m = re.match(r"^(2\.(\d+)\.(\d+))\. ([A-Z0-9_]+)$", ln)
        if m and 3 <= int(m.group(2)) <= 18:
            heads.append((i, m.group(1), m.group(4)))
    ops = []
    for k, (i, sec, name) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        if name == "CONST_SHAPE":  # last operator: stop at the next chapter
            for j in range(i + 1, len(lines)):
                if re.match(r"^3\. ", lines[j]):
                    end = j
                    break
        # Chapter headings ("2.4. Activation Functions") inside the range end the section too.
        for j in range(i + 1, end):
            if re.match(r"^2\.\d+\. [A-Z]", lines[j]):
                end = j
                break
        ops.append((sec, name, paragraphs(lines[i + 1:end])))
    return ops


def parse_rank(r):
    """Returns (min, max, max_is_relative): "1 to MAX_RANK" -> (1, 0, True); "4" -> (4, 4, False)."""
    r = r.strip()
    if r == "-":
        return (-1, -1, False)
    m = re.match(r"^(\d+) to MAX_RANK(?: - (\d+))?$", r)
    if m:
        return (int(m.group(1)), -int(m.group(2) or 0), True)
    m = re.match(r"^(\d+)$", r)
    if m:
        return (int(r), int(r), False)
    raise SystemExit("unparsed rank '%s'" % r)


def parse_args(name, ps):
    i = ps.index("Argument Type Name Shape Rank Description") + 1
    stop = {"Compile Time Constant Status:", "Supported Data Types:", "Operation Function:"}
    args = []
    while i < len(ps) and ps[i] not in stop:
        if ps[i] in KINDS and i + 2 < len(ps):
            kind, typ, aname = ps[i], ps[i + 1], ps[i + 2]
            # Lists and graphs have "-" for shape and no rank column.
            # Lists, graphs and scalar attributes have "-" for shape and no rank column.
            if typ in ("tensor_list_t", "tosa_graph_t") or typ.startswith("tensor_list_t<"):
                shape, rank = "-", "-"
                i += 4
            elif ps[i + 3] == "-" and not RANK_RE.match(ps[i + 4]):
                shape, rank = "-", "-"
                i += 5
            else:
                shape, rank = ps[i + 3], ps[i + 4]
                i += 6
            args.append(dict(kind=kind, type=typ, name=aname, shape=shape, rank=rank))
            continue
        i += 1
    return args


def parse_ctc(ps):
    if "Compile Time Constant Status:" not in ps:
        return []
    i = ps.index("Argument CTC enabled profile(s) CTC disabled extension(s)") + 1
    rows = []
    while i + 1 < len(ps) and ps[i] != "Supported Data Types:":
        arg, prof = ps[i], ps[i + 1]
        i += 2
        ext = ""  # CONST's output has no disabling extension: it is always constant
        if ps[i].startswith("EXT-"):
            ext = ps[i]
            i += 1
        rows.append(dict(argument=arg, enabled_profiles=prof, disabled_extensions=ext))
    return rows


def profile_ids(s):
    """'EXT-INT16, EXT-BF16' -> [int16, bf16]; '' -> []."""
    return [PROFILE_IDS[p.strip()] for p in s.split(",")] if s else []


def type_var(typ):
    """'T<in_t>' -> in_t; 'tensor_list_t<T<var_t>>' -> var_t; 'i32_t' -> i32_t."""
    m = re.match(r"^(?:T<|tensor_list_t<T<)?([a-z0-9_]+_t)>*$", typ)
    return m.group(1) if m else ""


def parse_requirement(s):
    """'PRO-INT or PRO-FP' -> [[pro_int, pro_fp]]; 'EXT-VARIABLE and PRO-FP' -> [[variable], [pro_fp]]."""
    groups = []
    for part in s.split(" and "):
        groups.append([PROFILE_IDS[p.strip()] for p in re.split(r" or |,", part)])
    return groups


def is_requirement(p):
    return re.match(r"^(PRO|EXT)-[A-Z0-9]+((,| or | and ) ?(PRO|EXT)-[A-Z0-9]+)*$", p) is not None


def parse_types(ps):
    hdr = [p for p in ps if p.startswith("Profile/Extension Mode")]
    if len(hdr) != 1:
        raise SystemExit("expected one supported-data-types header")
    cols = hdr[0].split()[2:]
    i = ps.index(hdr[0]) + 1
    rows = []
    while i < len(ps) and is_requirement(ps[i]):
        vals = ps[i + 2:i + 2 + len(cols)]
        rows.append(dict(requirement=ps[i], mode=ps[i + 1], types=dict(zip(cols, vals))))
        i += 2 + len(cols)
    if ps[i] != "Operation Function:":
        raise SystemExit("types table ended at '%s'" % ps[i][:60])
    return cols, rows


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def extract(spec_path):
    """The specification text -> the facts (table cells per operator), as a JSON-ready dict."""
    text = open(spec_path, encoding="utf-8").read()
    facts = []
    seen = set()
    for sec, name, ps in split_ops(text):
        if name in seen:
            raise SystemExit("duplicate op " + name)
        seen.add(name)
        cols, rows = parse_types(ps)
        facts.append(dict(section=sec, name=name, arguments=parse_args(name, ps), compile_time_constants=parse_ctc(ps),
                          type_columns=cols, supported_types=rows))
    return dict(source="TOSA 1.0 specification, chapter 2 (Operators): per operator the Arguments, Compile Time "
                       "Constant Status and Supported Data Types tables", operators=facts)


def dump_facts(facts):
    """One line per table row: small diffs when the specification changes."""
    out = ["{", '"source": %s,' % json.dumps(facts["source"]), '"operators": [']
    ops = facts["operators"]
    for k, op in enumerate(ops):
        out.append(' {"section": %s, "name": %s,' % (json.dumps(op["section"]), json.dumps(op["name"])))
        for key in ("arguments", "compile_time_constants", "supported_types"):
            rows = op[key]
            out.append('  "%s": [' % key)
            out += ["   " + json.dumps(r) + ("," if i + 1 < len(rows) else "") for i, r in enumerate(rows)]
            out.append("  ],")
        out.append('  "type_columns": %s}%s' % (json.dumps(op["type_columns"]), "," if k + 1 < len(ops) else ""))
    out += ["]", "}"]
    return "\n".join(out) + "\n"


def emit(facts_path):
    """The facts -> the text of src/ir/op_tables_gen.cpp."""
    facts = json.load(open(facts_path, encoding="utf-8"))
    out = []
    w = out.append
    w("// GENERATED by tools/gen_op_tables.py from data/spec/tosa_1_0_ops.json -- do not edit by hand.")
    w("// Regenerate: python3 tools/gen_op_tables.py emit data/spec/tosa_1_0_ops.json > src/ir/op_tables_gen.cpp")
    w('#include "ir/op_tables.h"')
    w("")
    w("namespace tosakit::ir::spec {")
    w("")
    w("namespace {")
    w("using K = ArgKind;")
    w("using D = DType;")
    w("}  // namespace")
    w("")
    w("const std::vector<OpSpec>& allOps() {")
    w("  static const std::vector<OpSpec> ops = {")
    for op in facts["operators"]:
        sec, name, cols = op["section"], op["name"], op["type_columns"]
        args = op["arguments"]
        ins, outs = MLIR_OPERANDS[name]
        by_name = {a["name"]: a for a in args}

        def mlir_args(names, kinds):
            res = []
            for n in names:
                variadic = n.startswith("*")
                n = n.lstrip("*")
                sname = ALIASES.get((name, n), n)
                if sname not in by_name or by_name[sname]["kind"] not in kinds:
                    raise SystemExit("%s: MLIR operand '%s' has no spec argument" % (name, n))
                res.append((sname, variadic))
            return res

        mins = mlir_args(ins, ("Input",))
        mouts = mlir_args(outs, ("Output",))
        w("    {%s, %s, %s," % (c_str(sec), c_str(name), c_str("tosa." + name.lower())))
        w("     // arguments: name, kind, type, type variable, fixed element type, shape, rank min, rank max,")
        w("     // max relative to MAX_RANK")
        w("     {")
        for a in args:
            rmin, rmax, rel = parse_rank(a["rank"])
            var = type_var(a["type"])
            fixed = DTYPES.get(var) if a["type"].startswith("T<") else None
            spec_var = var
            if var not in cols:
                var = ""
            if spec_var and not var and not fixed and a["type"].startswith("T<") and len(cols) == 1 \
                    and spec_var in ("in_t", "out_t"):
                # Spec slip in 2.17 (VARIABLE*): arguments say T<in_t>/T<out_t>, the table's only column is var_t.
                sys.stderr.write("%s: argument %s type %s mapped to table column %s\n"
                                 % (name, a["name"], spec_var, cols[0]))
                var = cols[0]
            w("      {%s, K::%s, %s, %s, %s, %s, %d, %d, %s}," % (
                c_str(a["name"]), KINDS[a["kind"]], c_str(a["type"]), c_str(var),
                "{true, D::%s}" % fixed if fixed else "{}", c_str(a["shape"]), rmin, rmax,
                "true" if rel else "false"))
        w("     },")
        w("     // MLIR operands, results (spec argument name, variadic)")
        w("     {%s}," % ", ".join("{%s, %s}" % (c_str(n), "true" if v else "false") for n, v in mins))
        w("     {%s}," % ", ".join("{%s, %s}" % (c_str(n), "true" if v else "false") for n, v in mouts))
        w("     // compile time constants: argument, CTC enabled profiles, CTC disabled extensions")
        w("     {%s}," % ", ".join("{%s, {%s}, {%s}}" % (
            c_str(c["argument"]), ", ".join(map(c_str, profile_ids(c["enabled_profiles"]))),
            ", ".join(map(c_str, profile_ids(c["disabled_extensions"])))) for c in op["compile_time_constants"]))
        w("     // supported data types: requirement (all of, each any of), mode, type variable bindings")
        w("     {")
        for row in op["supported_types"]:
            reqs = ", ".join("{%s}" % ", ".join(map(c_str, g)) for g in parse_requirement(row["requirement"]))
            binds = []
            for var in cols:
                val = row["types"][var]
                dt = DTYPES.get(val)
                binds.append("{%s, %s, %s, %s}" % (c_str(var), c_str(val), "true" if dt else "false",
                                                   "D::" + dt if dt else "D::Bool"))
            w("      {{%s}, %s, {%s}}," % (reqs, c_str(row["mode"]), ", ".join(binds)))
        w("     }},")
    w("  };")
    w("  return ops;")
    w("}")
    w("")
    w("}  // namespace tosakit::ir::spec")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import spec_facts_cli
    spec_facts_cli.main("gen_op_tables.py", lambda spec: dump_facts(extract(spec)), emit, "cpp")
