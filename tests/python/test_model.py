"""tosakit.load / save / convert / validate / version and tosakit.Module, against the CLI and hand checks."""
import os
import pathlib

import numpy as np
import pytest

import tosakit
from conftest import SOURCE_DIR, cli_error_line, load_npz, run_cli

DEFAULT_MODEL = SOURCE_DIR / "models/default/model.mlir"
DATA = SOURCE_DIR / "tests/data"


def test_version_matches_cli(tool):
    code, out, _ = run_cli(tool, "version")
    assert code == 0
    assert out.startswith(f"tosakit {tosakit.version()} ")
    assert tosakit.__version__ == tosakit.version()


def test_load_names_and_types():
    m = tosakit.load(DEFAULT_MODEL)
    assert m.functions == ["main"]
    assert m.input_names() == ["x", "xf", "y"]
    assert m.output_names() == ["out0", "out1"]
    # Declared types of models/default/model.mlir's signature.
    assert m.input_types() == [("x", "i8", (1, 4, 4, 2)), ("xf", "fp32", (1, 5, 5, 3)), ("y", "fp32", (1, 1, 1, 2))]
    assert m.output_types() == [("out0", "i8", (1, 4, 4, 3)), ("out1", "fp32", (1, 2, 2, 2))]
    assert m.origin == str(DEFAULT_MODEL)
    assert "tosa.conv2d" in m.to_mlir()
    assert "main" in repr(m)


def test_load_accepts_pathlike():
    assert tosakit.load(pathlib.Path(DEFAULT_MODEL)).functions == ["main"]


def test_unknown_function_is_bad_input():
    m = tosakit.load(DEFAULT_MODEL)
    with pytest.raises(tosakit.BadInput, match="no function 'nope' \\(available: main\\)"):
        m.input_names("nope")


def test_save_and_convert_round_trip(tmp_path, tool):
    m = tosakit.load(DEFAULT_MODEL)
    tosakit.save(m, tmp_path / "a.spv")
    tosakit.convert(tmp_path / "a.spv", tmp_path / "b.mlir")
    # The CLI converts the same file; both texts are the same.
    code, _, err = run_cli(tool, "convert", tmp_path / "a.spv", tmp_path / "c.mlir")
    assert code == 0, err
    assert (tmp_path / "b.mlir").read_text() == (tmp_path / "c.mlir").read_text()
    assert tosakit.load(tmp_path / "b.mlir").input_types() == m.input_types()


def test_tosa_flatbuffer_save_load_dis(tmp_path, tool):
    m = tosakit.load(DEFAULT_MODEL)
    tosakit.save(m, tmp_path / "a.tosa")
    back = tosakit.load(tmp_path / "a.tosa")
    assert back.input_types() == m.input_types()
    assert back.output_types() == m.output_types()
    tosakit.convert(tmp_path / "a.tosa", tmp_path / "b.mlir")
    assert tosakit.load(tmp_path / "b.mlir").to_mlir() == m.to_mlir()
    text = tosakit.dis(tmp_path / "a.tosa")
    code, out, err = run_cli(tool, "dis", tmp_path / "a.tosa")
    assert code == 0, err
    assert text == out and "CONV2D(x, " in text
    (tmp_path / "bad.tosa").write_bytes(b"\x10\x00\x00\x00TOSA" + b"\x00" * 8)
    with pytest.raises(tosakit.BadInput, match="bad.tosa"):
        tosakit.load(tmp_path / "bad.tosa")


@pytest.mark.parametrize("name, text, kind, exit_code", [
    ("missing.mlir", None, "I/O error", 4),
    ("bad.mlir", "func.func @main( {", "parse error", 4),
    ("model.onnx", "not a model", "invalid argument", 4),
    ("empty.spv", b"", "parse error", 4),
    ("unknown_op.mlir", (DATA / "mlir/unknown_op.mlir").read_text(), None, None),
])
def test_load_failures_match_cli(tmp_path, tool, name, text, kind, exit_code):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    code, _, err = run_cli(tool, "convert", path, tmp_path / "out.mlir")
    with pytest.raises(tosakit.Error) as info:
        tosakit.load(path)
    e = info.value
    # Same kind, message and exit code as the CLI's report.
    assert e.line == cli_error_line(err)
    assert e.exit_code == code
    if kind:
        assert (e.kind, e.exit_code) == (kind, exit_code)
    assert str(path) in e.message
    assert not (tmp_path / "out.mlir").exists()


def test_save_failure_leaves_no_file(tmp_path):
    m = tosakit.load(DEFAULT_MODEL)
    with pytest.raises(tosakit.BadInput, match="unknown model format '.txt'"):
        tosakit.save(m, tmp_path / "m.txt")
    with pytest.raises(tosakit.BadInput):
        tosakit.save(m, tmp_path / "no_such_dir" / "m.mlir")
    assert list(tmp_path.iterdir()) == []


def test_wrong_argument_types():
    with pytest.raises(tosakit.BadInput, match="expected a path"):
        tosakit.load(42)
    with pytest.raises(TypeError):
        tosakit.save("not a module", "x.mlir")


def test_validate_matches_cli(tool, write):
    assert tosakit.validate(DEFAULT_MODEL) == []
    assert tosakit.validate(tosakit.load(DEFAULT_MODEL)) == []
    # conv2d with a declared output height that violates ERROR_IF(OH != ...): IH=4, KH=1, no pad, stride 1
    # -> OH must be 4, declared 3.
    bad = write("conv_bad.mlir", CONV_BAD)
    code, out, _ = run_cli(tool, "validate", bad)
    assert code == 1
    violations = tosakit.validate(bad)
    assert len(violations) == 1 and "ERROR_IF(OH != " in violations[0]
    assert out.splitlines()[0] == f"{bad}: {violations[0]}"


CONV_BAD = """func.func @main(%x: tensor<1x4x4x1xi8>) -> tensor<1x3x4x1xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<1x1x1x1xi8>}> : () -> tensor<1x1x1x1xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xi8>, tensor<1x1x1x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x4x1xi32> loc("conv1")
  return %c : tensor<1x3x4x1xi32>
}
"""
