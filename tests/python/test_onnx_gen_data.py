"""tosakit.import_onnx and tosakit.gen_data equal the CLI's `import` / `gen-data` bit for bit."""
import json

import numpy as np
import pytest

import tosakit
from conftest import SOURCE_DIR, assert_same_arrays, cli_error_line, load_npz, run_backend, run_cli

PPOCR = SOURCE_DIR / "models/ppocr_cls"


@pytest.fixture(scope="module")
def ppocr_cli(tool, tmp_path_factory):
    """The CLI's import and run of the bundled PaddleOCR classifier."""
    d = tmp_path_factory.mktemp("ppocr")
    code, _, err = run_cli(tool, "import", PPOCR / "model.onnx", "-o", d / "cls.mlir", "--input-shape", "x=1x3x48x192")
    assert code == 0, err
    code, _, err = run_cli(tool, "run", d / "cls.mlir", "--inputs", PPOCR / "input.npz", "-o", d / "out.npz",
                           *run_backend(tool, "ref"))
    assert code == 0, err
    return d


def test_import_run_equals_cli(ppocr_cli, tmp_path):
    m = tosakit.import_onnx(PPOCR / "model.onnx", input_shapes={"x": (1, 3, 48, 192)})
    assert m.input_types() == [("x", "fp32", (1, 3, 48, 192))]
    tosakit.save(m, tmp_path / "cls.mlir")
    assert (tmp_path / "cls.mlir").read_text() == (ppocr_cli / "cls.mlir").read_text()
    out = tosakit.Session(m, backend="ref").run(load_npz(PPOCR / "input.npz"))
    assert_same_arrays(out, load_npz(ppocr_cli / "out.npz"))
    # And agrees with ONNX Runtime (models/ppocr_cls/ort_output.npz, the independent reference).
    ort = load_npz(PPOCR / "ort_output.npz")
    for name, ref in ort.items():
        np.testing.assert_allclose(out[name], ref, atol=1e-4)


def test_import_options(tmp_path):
    m = tosakit.import_onnx(str(PPOCR / "model.onnx"), input_shapes={"x": [1, 3, 48, 96]}, nhwc_io=True,
                            check=False, opset_convert=True)
    assert m.input_types() == [("x", "fp32", (1, 48, 96, 3))]


def test_import_failures_match_cli(tmp_path, tool, write):
    bad = write("bad.onnx", b"\x08\x07garbage that is not a protobuf \xff\xff")
    code, _, err = run_cli(tool, "import", bad, "-o", tmp_path / "o.mlir")
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.import_onnx(bad)
    assert info.value.line == cli_error_line(err) and info.value.exit_code == code == 4
    with pytest.raises(tosakit.BadInput, match="no such file|cannot open|not found"):
        tosakit.import_onnx(tmp_path / "missing.onnx")
    with pytest.raises(tosakit.BadInput, match="expected a sequence of integers"):
        tosakit.import_onnx(PPOCR / "model.onnx", input_shapes={"x": "1x3"})
    with pytest.raises(tosakit.BadInput, match="negative dimension"):
        tosakit.import_onnx(PPOCR / "model.onnx", input_shapes={"x": (1, -3, 48, 192)})
    with pytest.raises(tosakit.BadInput, match="bind_inputs: 'x': expected a numpy array"):
        tosakit.import_onnx(PPOCR / "model.onnx", bind_inputs={"x": 3})
    assert not (tmp_path / "o.mlir").exists()


def test_import_verification_equals_cli(tmp_path, tool):
    # model_transform's verification by the library's importModel, behind import_onnx and `tosakit import`:
    # ONNX Runtime's outputs (models/ppocr_cls/ort_output.npz, the independent reference) pass; a reference
    # shifted by 1 fails and nothing is returned or written.
    shape = {"x": (1, 3, 48, 192)}
    m = tosakit.import_onnx(PPOCR / "model.onnx", input_shapes=shape, test_input=PPOCR / "input.npz",
                            test_reference=PPOCR / "ort_output.npz", backend="ref")
    assert m.input_types() == [("x", "fp32", (1, 3, 48, 192))]
    shifted = {name: ref + 1 for name, ref in load_npz(PPOCR / "ort_output.npz").items()}
    np.savez(tmp_path / "shifted.npz", **shifted)
    with pytest.raises(tosakit.SpecError, match="beyond tolerance 0.99,0.99") as info:
        tosakit.import_onnx(PPOCR / "model.onnx", input_shapes=shape, test_input=PPOCR / "input.npz",
                            test_reference=tmp_path / "shifted.npz", backend="ref")
    code, stdout, err = run_cli(tool, "import", PPOCR / "model.onnx", "--input-shape", "x=1x3x48x192", "--test-input",
                                PPOCR / "input.npz", "--test-reference", tmp_path / "shifted.npz", "--backend", "ref",
                                "-o", tmp_path / "o.mlir")
    assert code == info.value.exit_code == 1 and "BELOW TOLERANCE" in stdout
    assert cli_error_line(err) == info.value.line and not (tmp_path / "o.mlir").exists()
    # A lone test file: the error names the parameter, Python as its keyword, the CLI as its flag.
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.import_onnx(PPOCR / "model.onnx", input_shapes=shape, test_input=PPOCR / "input.npz")
    assert info.value.parameter == "test_reference" and info.value.message.startswith("test_reference: ")
    code, _, err = run_cli(tool, "import", PPOCR / "model.onnx", "--test-input", PPOCR / "input.npz",
                           "-o", tmp_path / "o.mlir")
    assert code == 4 and cli_error_line(err).startswith("tosakit: invalid argument: --test-reference: ")
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.import_onnx(PPOCR / "model.onnx", level="9k")
    assert info.value.parameter == "level"


def test_bench_equals_cli(tool):
    # `tosakit bench` and tosakit.bench are one library call (benchModel): the same report fields.
    model, inputs = SOURCE_DIR / "models/default/model.mlir", SOURCE_DIR / "models/default/inputs.npz"
    r = tosakit.bench(model, inputs=inputs, warmup=0, iterations=3, backend="ref")
    assert r.backend == "ref" and len(r.run_ms) == 3 and r.min_ms <= r.median_ms <= r.max_ms
    assert r.to_text().startswith(f"model: {model}  backend: ref")
    j = json.loads(r.to_json())
    assert j["iterations"] == 3 and j["latency_ms"]["median"] == pytest.approx(r.median_ms, rel=1e-5)
    code, stdout, err = run_cli(tool, "bench", model, "--inputs", inputs, "--warmup", "0", "--iterations", "3",
                                "--backend", "ref", "--json")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1]).keys() == j.keys()
    assert tosakit.bench(model, inputs=load_npz(inputs), warmup=0, iterations=1, backend="ref").run_ms
    with pytest.raises(tosakit.BadInput) as info:
        tosakit.bench(model, function="nope", backend="ref")
    assert info.value.parameter == "function"


@pytest.mark.parametrize("set_, seed", [(0, 0), (3, 7)])
def test_gen_data_equals_cli(tmp_path, tool, set_, seed):
    model = SOURCE_DIR / "models/default/model.mlir"
    code, _, err = run_cli(tool, "gen-data", "--model", model, "-o", tmp_path / "in.npz", "--set", set_, "--seed", seed)
    assert code == 0, err
    assert_same_arrays(tosakit.gen_data(model, set=set_, seed=seed), load_npz(tmp_path / "in.npz"))
    assert_same_arrays(tosakit.gen_data(tosakit.load(model), set=set_, seed=seed), load_npz(tmp_path / "in.npz"))


def test_gen_data_bad_input(tmp_path):
    model = SOURCE_DIR / "models/default/model.mlir"
    with pytest.raises(tosakit.BadInput, match="no function 'f'"):
        tosakit.gen_data(model, function="f")
    with pytest.raises(tosakit.BadInput, match="set: 9 not in 0..5"):
        tosakit.gen_data(model, set=9)
    with pytest.raises(tosakit.BadInput, match="no such file"):
        tosakit.gen_data(tmp_path / "none.mlir")


@pytest.mark.parametrize("qdq, integer_io, cli_flags", [
    ("fold", False, []), ("fold-ort", False, ["--qdq", "fold-ort"]), ("keep", False, ["--qdq", "keep"]),
    ("fold", True, ["--qdq-integer-io"])])
def test_import_qdq_options_equal_cli(tmp_path, tool, qdq, integer_io, cli_flags):
    code, _, err = run_cli("/usr/bin/python3", SOURCE_DIR / "tests/qdq/make_qdq_op_models.py", tmp_path)
    assert code == 0, err
    model = tmp_path / "concat_requant_u8.onnx"
    code, _, err = run_cli(tool, "import", model, "-o", tmp_path / "cli.mlir", *cli_flags)
    assert code == 0, err
    m = tosakit.import_onnx(model, qdq=qdq, qdq_integer_io=integer_io)
    tosakit.save(m, tmp_path / "py.mlir")
    assert (tmp_path / "py.mlir").read_text() == (tmp_path / "cli.mlir").read_text()


def test_import_qdq_mode_invalid():
    with pytest.raises(tosakit.BadInput, match="qdq mode 'fast': expected fold, fold-ort or keep"):
        tosakit.import_onnx(PPOCR / "model.onnx", qdq="fast")
