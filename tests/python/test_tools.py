"""calibrate, quantize, compare, check from Python equal the CLI verbs; the round trip ONNX model -> import ->
calibrate -> quantize -> run gives the CLI's results bit for bit."""
import json
import math
import re
import shutil

import numpy as np
import pytest

import tosakit
from conftest import SOURCE_DIR, assert_same_arrays, cli_error_line, load_npz, run_backend, run_cli

PPOCR = SOURCE_DIR / "models/ppocr_cls"
DEFAULT = SOURCE_DIR / "models/default"


@pytest.fixture(scope="module")
def ppocr(tool, tmp_path_factory):
    """The CLI's pipeline: import, calibrate (minmax, one sample), quantize INT8, run."""
    d = tmp_path_factory.mktemp("ppocr_q")
    (d / "dataset").mkdir()
    shutil.copy(PPOCR / "input.npz", d / "dataset/sample0.npz")
    steps = [
        ("import", PPOCR / "model.onnx", "-o", d / "cls.mlir", "--input-shape", "x=1x3x48x192"),
        ("calibrate", d / "cls.mlir", "--dataset", d / "dataset", "--method", "minmax", "--tune-num", "0",
         "-o", d / "cali.txt"),
        ("quantize", d / "cls.mlir", "--quantize", "INT8", "--calibration-table", d / "cali.txt", "-o", d / "q.mlir"),
        ("run", d / "q.mlir", "--inputs", PPOCR / "input.npz", "-o", d / "out.npz", *run_backend(tool, "ref")),
    ]
    for step in steps:
        code, _, err = run_cli(tool, *step)
        assert code == 0, (step, err)
    return d


def test_onnx_import_quantize_run_equals_cli(ppocr, tmp_path):
    float_model = tosakit.import_onnx(PPOCR / "model.onnx", input_shapes={"x": (1, 3, 48, 192)})
    inputs = load_npz(PPOCR / "input.npz")
    table = tosakit.calibrate(float_model, [inputs], method="minmax", tune_num=0)
    assert table.to_text().splitlines()[-len(table):] == (ppocr / "cali.txt").read_text().splitlines()[-len(table):]
    # As the CLI does: the table goes through its file (7 decimals) before quantize reads it.
    table.save(tmp_path / "cali.txt")
    quantized = tosakit.quantize(float_model, tmp_path / "cali.txt", mode="INT8")
    tosakit.save(quantized, tmp_path / "q.mlir")
    assert (tmp_path / "q.mlir").read_text() == (ppocr / "q.mlir").read_text()
    out = tosakit.Session(quantized, backend="ref").run(inputs)
    assert_same_arrays(out, load_npz(ppocr / "out.npz"))
    # The quantized classifier still agrees with ONNX Runtime's float result on the direction.
    ort = load_npz(PPOCR / "ort_output.npz")
    for name, ref in ort.items():
        assert np.argmax(out[name]) == np.argmax(ref)


def test_calibrate_from_dataset_dir_and_table_file(ppocr, tmp_path):
    table = tosakit.calibrate(ppocr / "cls.mlir", ppocr / "dataset", method="minmax", tune_num=0)
    table.save(tmp_path / "cali.txt")
    # The file holds 7 decimals (TPU-MLIR's layout); reading it back gives the same text.
    again = tosakit.read_calibration_table(tmp_path / "cali.txt")
    assert again.to_text() == table.to_text() and len(again) == len(table)
    assert [e.name for e in again.entries] == [e.name for e in table.entries]
    assert table.find("x") is not None and table.find("no such tensor") is None
    assert table.header_value("method")
    q = tosakit.quantize(ppocr / "cls.mlir", tmp_path / "cali.txt")
    params = tosakit.quant_params(q)
    scale, zp = params[next(iter(params))]
    assert scale > 0 and isinstance(zp, int)
    # Saved as .spv the way the CLI saves it: the scales go to the sidecar and load back.
    tosakit.save(q, tmp_path / "q.spv")
    assert (tmp_path / "q.spv.qparams.json").exists()
    assert tosakit.quant_params(tosakit.load(tmp_path / "q.spv")) == params


def test_calibrate_quantize_bad_input(ppocr, tmp_path, tool):
    with pytest.raises(tosakit.BadInput, match="method"):
        tosakit.calibrate(ppocr / "cls.mlir", ppocr / "dataset", method="best")
    with pytest.raises(tosakit.BadInput, match="no sample"):
        tosakit.calibrate(ppocr / "cls.mlir", [])
    (tmp_path / "empty").mkdir()
    with pytest.raises(tosakit.BadInput, match="holds no sample"):
        tosakit.calibrate(ppocr / "cls.mlir", tmp_path / "empty")
    with pytest.raises(tosakit.BadInput, match="we/bc"):
        tosakit.calibrate(ppocr / "cls.mlir", ppocr / "dataset", we=True)
    with pytest.raises(tosakit.BadInput, match="'x'"):
        tosakit.calibrate(ppocr / "cls.mlir", [{"x": np.zeros((1, 3, 48, 192), np.float64)}])
    with pytest.raises(tosakit.BadInput):
        tosakit.quantize(ppocr / "cls.mlir", ppocr / "cali.txt", mode="INT3")
    bad = tmp_path / "bad_cali.txt"
    bad.write_text("conv1 not-a-number 0 1\n")
    code, _, err = run_cli(tool, "quantize", ppocr / "cls.mlir", "--quantize", "INT8", "--calibration-table", bad,
                           "-o", tmp_path / "q.mlir")
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.quantize(ppocr / "cls.mlir", bad)
    assert info.value.line == cli_error_line(err) and info.value.exit_code == code
    assert not (tmp_path / "q.mlir").exists()


def test_compare_equals_cli(tmp_path, tool):
    a = {"t": np.array([1.0, 2.0, 3.0], np.float32), "u": np.array([1, -2], np.int8),
         "only_a": np.zeros(2, np.float32)}
    b = {"t": np.array([1.0, 2.0, 3.5], np.float32), "u": np.array([1, -2], np.int8)}
    np.savez(tmp_path / "a.npz", **a)
    np.savez(tmp_path / "b.npz", **b)
    code, stdout, err = run_cli(tool, "compare", tmp_path / "a.npz", tmp_path / "b.npz")
    report = tosakit.compare(a, tmp_path / "b.npz")
    assert report.only_in_a == ["only_a"] and report.only_in_b == []
    assert [r.name for r in report.rows] == ["t", "u"]
    t, u = report.rows
    assert t.max_abs_diff == pytest.approx(0.5) and u.max_abs_diff == 0 and u.sqnr == math.inf
    assert u.cosine == pytest.approx(1.0)
    assert code == (0 if report.all_pass else 1), stdout + err
    # The CLI prints the same similarities (its table rounds them).
    assert f"{t.cosine:.6f}"[:6] in stdout
    assert tosakit.compare(tmp_path / "a.npz", b, excepts=["t"]).rows[0].name == "u"
    with pytest.raises(tosakit.BadInput, match="expected \\(scale, zero_point\\)"):
        tosakit.compare(a, b, quant_params={"t": "x"})
    with pytest.raises(tosakit.BadInput, match="no such file|cannot open"):
        tosakit.compare(tmp_path / "none.npz", b)


def test_check_equals_cli(tmp_path, tool):
    inputs = load_npz(DEFAULT / "inputs.npz")
    out = tosakit.Session(DEFAULT / "model.mlir", backend="ref").run(inputs)
    np.savez(tmp_path / "impl.npz", **out)
    # out1 (conv2d -> add) goes through two inexact ops: not judged, accepted here (exit 7 otherwise).
    code, stdout, err = run_cli(tool, "check", "--model", DEFAULT / "model.mlir", "--inputs", DEFAULT / "inputs.npz",
                                "--result", tmp_path / "impl.npz", "--allow-not-judged")
    report = tosakit.check(DEFAULT / "model.mlir", result=out, inputs=inputs, allow_not_judged=True)
    assert code == 0 and report.compliant and bool(report)
    # Each door names the parameter its own way in the not-judged summary: the CLI its flag, Python its keyword.
    assert "allow_not_judged" in report.to_text()
    assert report.to_text().replace("allow_not_judged", "--allow-not-judged").strip() in stdout
    assert report.entries[0].verdict == "compliant"
    code, stdout_json, _ = run_cli(tool, "check", "--model", DEFAULT / "model.mlir", "--inputs",
                                   DEFAULT / "inputs.npz", "--result", tmp_path / "impl.npz", "--json",
                                   "--allow-not-judged")
    if code == 0:  # the verb's --json output is the report's to_json(), the summary's flag spelled as the CLI's
        py = json.loads(report.to_json())
        if "not_judged_summary" in py:
            py["not_judged_summary"] = py["not_judged_summary"].replace("allow_not_judged", "--allow-not-judged")
        assert py == json.loads(stdout_json)
    # An int8 result off by one is NOT compliant (integer outputs are exact).
    out["out0"][0, 0, 0, 0] += 1
    report = tosakit.check(DEFAULT / "model.mlir", result=out, inputs=DEFAULT / "inputs.npz")
    assert not report.compliant and report.entries[0].verdict == "NOT compliant"
    with pytest.raises(tosakit.BadInput):
        tosakit.check(DEFAULT / "model.mlir", result={"nope": out["out0"]}, inputs=inputs)
    # backend=: the fast backend's own run judged (integer outputs: exact, so compliant means bit-identical to
    # the reference), as `tosakit check --backend fast` does; per op with per_op=True.
    assert tosakit.check(DEFAULT / "model.mlir", inputs=inputs, backend="fast").compliant
    per_op = tosakit.check(DEFAULT / "model.mlir", inputs=inputs, backend="fast", threads=1, per_op=True)
    assert per_op.compliant and per_op.per_op and len(per_op.entries) > 1
    with pytest.raises(tosakit.BadInput, match="exclude each other") as info:
        tosakit.check(DEFAULT / "model.mlir", result=out, inputs=inputs, backend="fast")
    # The error names the parameter, each door its own way: Python the keyword, the CLI the flag.
    assert info.value.parameter == "backend" and info.value.message.startswith("backend: check: ")
    code, _, err = run_cli(tool, "check", "--model", DEFAULT / "model.mlir", "--inputs", DEFAULT / "inputs.npz",
                           "--result", tmp_path / "impl.npz", "--backend", "fast")
    assert code == 4 and cli_error_line(err).startswith("tosakit: invalid argument: --backend: check: ")


@pytest.mark.skipif(not hasattr(tosakit, "check"), reason="built without tosakit_check")
def test_check_not_judged_is_not_a_pass(tmp_path, tool):
    # exp(rsqrt(x)): two inexact ops, no single rule: "not judged", exit 7 unless allowed, as the CLI says.
    model = tmp_path / "m.mlir"
    model.write_text("""func.func @main(%x: tensor<1xf32> loc("x")) -> tensor<1xf32> {
  %r = tosa.rsqrt %x : (tensor<1xf32>) -> tensor<1xf32>
  %e = tosa.exp %r : (tensor<1xf32>) -> tensor<1xf32>
  return %e : tensor<1xf32>
}
""")
    inputs = {"x": np.array([4.0], dtype=np.float32)}
    result = {"out0": np.array([np.exp(0.5)], dtype=np.float32)}
    np.savez(tmp_path / "in.npz", **inputs)
    np.savez(tmp_path / "out.npz", **result)
    report = tosakit.check(model, result=result, inputs=inputs)
    assert report.entries[0].verdict == "not judged" and report.compliant
    assert report.verdict == "not judged" and report.exit_code == 7 and not bool(report)
    code, _, _ = run_cli(tool, "check", "--model", model, "--inputs", tmp_path / "in.npz", "--result",
                         tmp_path / "out.npz")
    assert code == report.exit_code
    allowed = tosakit.check(model, result=result, inputs=inputs, allow_not_judged=True)
    assert allowed.verdict == "compliant" and allowed.exit_code == 0 and bool(allowed)
    code, _, _ = run_cli(tool, "check", "--model", model, "--inputs", tmp_path / "in.npz", "--result",
                         tmp_path / "out.npz", "--allow-not-judged")
    assert code == 0


def test_load_sample(tmp_path):
    model = DEFAULT / "model.mlir"
    got = tosakit.load_sample(model, DEFAULT / "inputs.npz")
    assert_same_arrays(got, load_npz(DEFAULT / "inputs.npz"))
    with pytest.raises(tosakit.BadInput):
        tosakit.load_sample(model, tmp_path / "none.npz")
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(tosakit.BadInput, match="bad.npz"):
        tosakit.load_sample(model, tmp_path / "bad.npz")



def small_float_onnx(path):
    """A float conv -> relu -> global pool -> flatten -> gemm model (opset 13, seeded weights), by python3-onnx."""
    import onnx
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.normal(0, 0.3, (4, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.normal(0, 0.1, 4).astype(np.float32), "b"),
             numpy_helper.from_array(rng.normal(0, 0.3, (5, 4)).astype(np.float32), "fc_w"),
             numpy_helper.from_array(rng.normal(0, 0.1, 5).astype(np.float32), "fc_b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], "conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], "relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["p"], "pool"),
             helper.make_node("Flatten", ["p"], ["f"], "flatten"),
             helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], "fc", transB=1)]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 5])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_export_qdq_equals_cli(tmp_path, tool):
    """export_qdq writes the bytes `tosakit export-qdq` writes; the QDQ model re-imports with integer convs; a table
    that lacks a tensor is the CLI's error and leaves no file."""
    model = tmp_path / "small.onnx"
    small_float_onnx(model)
    rng = np.random.default_rng(1)
    samples = [{"x": rng.normal(0, 1, (1, 3, 8, 8)).astype(np.float32)} for _ in range(2)]
    table = tosakit.calibrate(tosakit.import_onnx(model), samples, method="minmax", tune_num=0)
    table.save(tmp_path / "cali.txt")
    code, _, err = run_cli(tool, "export-qdq", model, "--calibration-table", tmp_path / "cali.txt",
                           "-o", tmp_path / "cli.onnx")
    assert code == 0, err
    tosakit.export_qdq(model, tmp_path / "cali.txt", tmp_path / "py.onnx")
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    tosakit.export_qdq(model, table, tmp_path / "table.onnx", input_shapes={"x": (1, 3, 8, 8)})
    assert (tmp_path / "table.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    text = tosakit.import_onnx(tmp_path / "py.onnx").to_mlir()
    assert "tosa.conv2d" in text and "tosa.matmul" in text
    assert not re.search(r"tosa\.(conv2d|matmul) .*xf32>", text)
    partial = tmp_path / "partial.txt"
    partial.write_text("x 2.0 -2.0 2.0\n")
    code, _, err = run_cli(tool, "export-qdq", model, "--calibration-table", partial, "-o", tmp_path / "bad.onnx")
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.export_qdq(model, partial, tmp_path / "bad.onnx")
    assert code == 4 and "lacks tensor" in err
    assert info.value.line == cli_error_line(err) and info.value.exit_code == code
    assert not (tmp_path / "bad.onnx").exists()


def test_verify_quantized_equals_cli(ppocr, tmp_path, tool):
    # model_deploy's verification (quantize --test-input): the quantized outputs against ONNX Runtime's float
    # outputs (models/ppocr_cls/ort_output.npz), and the layers against the float model's.
    v = tosakit.verify_quantized(ppocr / "cls.mlir", ppocr / "q.mlir", PPOCR / "input.npz",
                                 PPOCR / "ort_output.npz", min_cosine=0.9, min_euclidean=0.5, backend="ref")
    assert v.passed and bool(v) and len(v.outputs.rows) == 1 and len(v.layers.rows) > 1
    code, stdout, err = run_cli(tool, "quantize", ppocr / "cls.mlir", "--quantize", "INT8", "--calibration-table",
                                ppocr / "cali.txt", "--test-input", PPOCR / "input.npz", "--test-reference",
                                PPOCR / "ort_output.npz", "--tolerance", "0.9,0.5", "--backend", "ref",
                                "-o", tmp_path / "q.mlir")
    assert code == 0, err
    row = v.outputs.rows[0]
    first = stdout.splitlines()[0]
    assert first.startswith(row.name + ": cosine ")
    assert float(first.split("cosine ")[1].split(",")[0]) == pytest.approx(row.cosine, rel=1e-5)
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.verify_quantized(ppocr / "cls.mlir", ppocr / "q.mlir", tmp_path / "none.npz", PPOCR / "ort_output.npz")
    assert info.value.parameter == "test_input"


def test_calibrate_parameter_errors_name_the_keyword(ppocr):
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.calibrate(ppocr / "cls.mlir", ppocr / "dataset", histogram_bins=5)
    assert info.value.parameter == "histogram_bins"
    assert info.value.message == "histogram_bins: 5: expected 128 to 1048576"
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.calibrate(ppocr / "cls.mlir", ppocr / "dataset", input_num=-1)
    assert info.value.parameter == "input_num"
