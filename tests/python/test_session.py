"""tosakit.Session: results equal `tosakit run` bit for bit; every bad input raises with a clear message."""
import threading

import numpy as np
import pytest

import tosakit
from conftest import SOURCE_DIR, assert_same_arrays, cli_error_line, load_npz, run_backend, run_cli

DEFAULT = SOURCE_DIR / "models/default"


@pytest.fixture(scope="module")
def inputs():
    return load_npz(DEFAULT / "inputs.npz")


def test_run_equals_cli(tmp_path, tool, inputs):
    code, _, err = run_cli(tool, "run", DEFAULT / "model.mlir", "--inputs", DEFAULT / "inputs.npz",
                           "-o", tmp_path / "out.npz", "--dump-intermediates", tmp_path / "layers.npz",
                           *run_backend(tool, "ref"))
    assert code == 0, err
    s = tosakit.Session(DEFAULT / "model.mlir", backend="ref")
    assert s.input_names == ["x", "xf", "y"]
    assert s.output_names == ["out0", "out1"]
    assert s.backend == "ref"
    assert_same_arrays(s.run(inputs), load_npz(tmp_path / "out.npz"))
    outputs, layers = s.run(inputs, intermediates=True)
    assert_same_arrays(outputs, load_npz(tmp_path / "out.npz"))
    assert_same_arrays(layers, load_npz(tmp_path / "layers.npz"))


def test_run_matches_independent_expectation(inputs):
    # models/default/expected.npz is computed independently of tosakit (tests/oracle/make_fixtures.py).
    expected = load_npz(DEFAULT / "expected.npz")
    got = tosakit.Session(tosakit.load(DEFAULT / "model.mlir")).run(inputs)
    np.testing.assert_array_equal(got["out0"], expected["out0"])
    np.testing.assert_allclose(got["out1"], expected["out1"], rtol=1e-6)


def test_session_from_module_keeps_module_usable(inputs):
    m = tosakit.load(DEFAULT / "model.mlir")
    a = tosakit.Session(m).run(inputs)
    b = tosakit.Session(m).run(inputs)
    assert_same_arrays(a, b)
    assert m.input_names() == ["x", "xf", "y"]


def test_outputs_are_writable_arrays_owned_by_python(inputs):
    out = tosakit.Session(DEFAULT / "model.mlir").run(inputs)
    del inputs
    out["out0"][...] = 0  # the array owns its data; writing is fine
    assert out["out0"].flags.c_contiguous and out["out0"].dtype == np.int8


def test_non_contiguous_and_big_endian_inputs(inputs):
    s = tosakit.Session(DEFAULT / "model.mlir")
    want = s.run(inputs)
    xf = np.asfortranarray(inputs["xf"])
    y = inputs["y"].astype(">f4")
    assert_same_arrays(s.run({"x": inputs["x"], "xf": xf, "y": y}), want)


BF16_MODEL = """func.func @main(%a: tensor<3xbf16> loc("a")) -> (tensor<3xf32>, tensor<3xbf16>) {
  %0 = tosa.cast %a : (tensor<3xbf16>) -> tensor<3xf32>
  %1 = tosa.add %a, %a : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  return %0, %1 : tensor<3xf32>, tensor<3xbf16>
}
"""


def test_bf16_as_uint16_bits(write):
    # bf16 bit patterns: 0x3f80 = 1.0, 0xc000 = -2.0, 0x3fc0 = 1.5; doubled: 2.0 = 0x4000, -4.0 = 0xc080,
    # 3.0 = 0x4040.
    s = tosakit.Session(write("bf16.mlir", BF16_MODEL))
    out = s.run({"a": np.array([0x3F80, 0xC000, 0x3FC0], dtype=np.uint16)})
    np.testing.assert_array_equal(out["out0"], np.array([1.0, -2.0, 1.5], dtype=np.float32))
    assert out["out1"].dtype == np.uint16
    np.testing.assert_array_equal(out["out1"], np.array([0x4000, 0xC080, 0x4040], dtype=np.uint16))
    with pytest.raises(tosakit.BadInput, match="input 'a': dtype fp32 does not match expected bf16"):
        s.run({"a": np.ones(3, dtype=np.float32)})


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(x=d["x"].astype(np.int16)), "input 'x': dtype i16 does not match expected i8"),
    (lambda d: d.update(x=d["x"].reshape(1, 2, 8, 2)), "input 'x': shape [1x2x8x2], expected [1x4x4x2]"),
    (lambda d: d.pop("y"), "missing input 'y' of type tensor<1x1x1x2xfp32>"),
    (lambda d: d.update(z=d["y"]), "unknown input 'z' (function @main takes: x, xf, y)"),
    (lambda d: d.update(y=d["y"].astype(np.complex64)), "input 'y': unsupported dtype '<c8'"),
    (lambda d: d.update(y=[1.0, 2.0]), "input 'y': expected a numpy array, got list"),
])
def test_bad_inputs_raise_bad_input(inputs, change, message):
    s = tosakit.Session(DEFAULT / "model.mlir")
    d = dict(inputs)
    change(d)
    with pytest.raises(tosakit.BadInput) as info:
        s.run(d)
    assert message in str(info.value)
    assert info.value.exit_code == 4 and info.value.kind == "invalid argument"
    assert s.run(inputs)["out0"].shape == (1, 4, 4, 3)  # the session is still usable


def test_bad_run_arguments(inputs):
    s = tosakit.Session(DEFAULT / "model.mlir")
    with pytest.raises(tosakit.BadInput, match="no function 'nope'"):
        s.run(inputs, function="nope")
    with pytest.raises(tosakit.BadInput, match="expected a dict"):
        s.run([inputs["x"]])
    with pytest.raises(tosakit.BadInput, match="names must be strings"):
        s.run({1: inputs["x"]})


def test_bad_session_arguments(tmp_path):
    with pytest.raises(tosakit.BadInput, match="unknown backend 'gpu'"):
        tosakit.Session(DEFAULT / "model.mlir", backend="gpu")
    with pytest.raises(tosakit.BadInput, match="threads must be >= 0"):
        tosakit.Session(DEFAULT / "model.mlir", threads=-1)
    with pytest.raises(tosakit.BadInput, match="no such file"):
        tosakit.Session(tmp_path / "none.mlir")


def test_spec_error_matches_cli(tmp_path, tool, write):
    from test_model import CONV_BAD
    model = write("conv_bad.mlir", CONV_BAD)
    x = np.zeros((1, 4, 4, 1), dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    code, _, err = run_cli(tool, "run", model, "--input", f"arg0={tmp_path / 'x.npy'}", "-o", tmp_path / "o.npz",
                           *run_backend(tool, "ref"))
    with pytest.raises(tosakit.SpecError) as info:
        tosakit.Session(model, backend="ref").run({"arg0": x})
    e = info.value
    assert (e.exit_code, code) == (1, 1)
    assert e.line == cli_error_line(err)
    assert e.op == "tosa.conv2d" and e.location == "'conv1'" and e.condition.startswith("OH != ")


INTDIV = """func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = tosa.intdiv %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""


def test_unpredictable_matches_cli(tmp_path, tool, write):
    # The spec's intdiv: REQUIRE(input2 != 0).
    model = write("intdiv.mlir", INTDIV)
    a, b = np.array([7, 8], dtype=np.int32), np.array([2, 0], dtype=np.int32)
    np.savez(tmp_path / "in.npz", arg0=a, arg1=b)
    code, _, err = run_cli(tool, "run", model, "--inputs", tmp_path / "in.npz", "-o", tmp_path / "o.npz",
                           *run_backend(tool, "ref"))
    with pytest.raises(tosakit.Unpredictable) as info:
        tosakit.Session(model, backend="ref").run({"arg0": a, "arg1": b})
    assert (info.value.exit_code, code) == (3, 3)
    assert info.value.line == cli_error_line(err)
    # 7 / 2 = 3 (truncating division) when the divisor is not zero.
    np.testing.assert_array_equal(tosakit.Session(model).run({"arg0": a, "arg1": a})["out0"], [1, 1])


def test_unsupported_matches_cli(tmp_path, tool):
    model = SOURCE_DIR / "tests/data/mlir/unknown_op.mlir"
    code, _, err = run_cli(tool, "run", model, "--function", "f", "-o", tmp_path / "o.npz", *run_backend(tool, "ref"))
    with pytest.raises(tosakit.Error) as info:
        tosakit.Session(model, backend="ref")
    assert info.value.exit_code == code
    assert info.value.line == cli_error_line(err)


def test_concurrent_runs_from_threads(inputs):
    s = tosakit.Session(DEFAULT / "model.mlir")
    want = s.run(inputs)
    results = []

    def work():
        results.append(s.run(inputs))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results:
        assert_same_arrays(r, want)


def test_fast_backend_equals_cli(tmp_path, tool, inputs):
    code, _, err = run_cli(tool, "run", DEFAULT / "model.mlir", "--inputs", DEFAULT / "inputs.npz",
                           "-o", tmp_path / "out.npz", *run_backend(tool, "fast", threads=1))
    assert code == 0, err
    s = tosakit.Session(DEFAULT / "model.mlir", threads=1)  # fast by default, as `tosakit run`
    assert s.backend == "fast"
    assert_same_arrays(s.run(inputs), load_npz(tmp_path / "out.npz"))
    # Its integer output is the reference backend's, bit for bit.
    ref = tosakit.Session(DEFAULT / "model.mlir", backend="ref").run(inputs)
    np.testing.assert_array_equal(s.run(inputs)["out0"], ref["out0"])


def test_precise_mode_equals_cli(tmp_path, tool, inputs):
    code, _, err = run_cli(tool, "run", DEFAULT / "model.mlir", "--inputs", DEFAULT / "inputs.npz",
                           "-o", tmp_path / "out.npz", "--precise")
    assert code == 0, err
    s = tosakit.Session(DEFAULT / "model.mlir", precise=True)
    assert s.backend == "ref"  # the only backend with a precise mode
    out = s.run(inputs)
    assert out["out1"].dtype == np.float64  # fp32 computed unrounded in fp64 (the spec's reference_fp64)
    assert_same_arrays(out, load_npz(tmp_path / "out.npz"))
    assert s.notes == []
    with pytest.raises(tosakit.BadInput, match="iterations must be >= 1"):
        s._cpp_seconds_per_run(inputs, 0)
    assert s._cpp_seconds_per_run(inputs, 1) > 0
