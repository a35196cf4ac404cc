"""tosakit.lang from Python: the operator API of include/tosakit/lang.h, one to one. Expected values are
BMLang's formulas evaluated in numpy (or by hand, shown); errors name the operator and raise tosakit.Error."""
import re

import numpy as np
import pytest

import tosakit
import tosakit.lang as lang
from conftest import SOURCE_DIR


def run1(build, x, dtype="i8"):
    """Builds y = build(g, input) on a graph with one input like x, runs it and returns y."""
    g = lang.Graph()
    v = g.input("x", dtype, list(x.shape))
    g.output(build(g, v), "y")
    g.compile()
    return g.run({"x": x})["y"]


def round_shift(x, s):
    return ((x >> (s - 1)) + 1) >> 1 if s else x


def test_every_operator_of_lang_h_is_bound():
    header = (SOURCE_DIR / "include/tosakit/lang.h").read_text()
    graph = header[header.index("class Graph {"):]
    names = set(re.findall(r"^\s+(?:Var|std::vector<Var>|Status|void|DType|std::vector<int64_t>) (\w+)\(",
                           graph, re.M))
    names -= {"status"}  # bound as the `error` property
    missing = sorted(n for n in names if not hasattr(lang.Graph, n))
    assert not missing


def test_mul_shift_saturates_with_bmlang_rounding():
    a = np.array([[100, -100, 7, -7, 127, -128]], np.int8)
    b = np.array([[3, 3, 3, 3, 127, 127]], np.int8)
    got = run1(lambda g, x: g.mul_shift(x, g.coeff(b), 2), a)
    # (a * b) then ((p >> 1) + 1) >> 1, saturated to int8: 300 -> 75, -300 -> -75, 21 -> 5, -21 -> -5,
    # 16129 -> 4032 -> 127, -16256 -> -4064 -> -128.
    want = np.clip(round_shift(a.astype(np.int64) * b, 2), -128, 127)
    assert np.array_equal(got, want) and got.dtype == np.int8
    assert want.tolist() == [[75, -75, 5, -5, 127, -128]]


def test_adds_to_int16_and_dtype_spellings():
    x = np.array([[120, -120]], np.int8)
    assert run1(lambda g, v: g.adds(v, 100, "i16"), x).tolist() == [[220, -20]]
    assert run1(lambda g, v: g.adds(v, 100, np.int16), x).dtype == np.int16
    assert run1(lambda g, v: g.adds(v, 100), x).tolist() == [[127, -20]]  # saturated to i8


def test_requant_int32_mode2_per_tensor():
    x = np.array([[1000, -1000, 123456]], np.int32)
    p = lang.RequantInt32Param(multiplier_val=3, shift_val=4, offset_val=1)
    got = run1(lambda g, v: g.requant_int32(v, p, 2, "i8"), x, "i32")
    # BMLang requant_int32 mode 2: saturate(round_rshift(x * multiplier, shift) + offset): 3000 >> 4 = 187.5
    # -> 188 (+1 = 189 -> 127 saturated), -3000 -> -187 (+1 -> -128 saturated), 370368 -> 127.
    want = np.clip(round_shift(x.astype(np.int64) * 3, 4) + 1, -128, 127)
    assert np.array_equal(got, want)


def test_graph_round_trip_through_module_and_session(tmp_path):
    g = lang.Graph()
    x = g.input("x", "u8", [1, 4])
    g.output(g.cast(x, "i16"), "y")
    g.compile(profiles=["pro_int"])
    m = g.module()
    assert m.input_types() == [("x", "i8", (1, 4))]  # TOSA has no unsigned tensors: u8 as i8 bits
    x_u8 = np.array([[0, 1, 200, 255]], np.uint8)
    assert g.run({"x": x_u8})["y"].tolist() == [[0, 1, 200, 255]]
    g.save(tmp_path / "u8.spv")
    assert tosakit.load(tmp_path / "u8.spv").output_types() == [("y", "i16", (1, 4))]


def test_operator_errors_name_the_operator(tmp_path):
    g = lang.Graph()
    x = g.input("x", "fp32", [1, 4])
    bad = g.reshape(x, [3, -1])  # 4 elements cannot be 3 x ?
    assert not bad.valid
    y = g.adds(bad, 1.0)  # skipped silently: the first error is kept
    g.output(y, "y")
    assert "reshape" in g.error
    with pytest.raises(tosakit.BadInput, match="reshape"):
        g.compile()
    with pytest.raises(tosakit.BadInput, match="reshape"):
        g.save(tmp_path / "bad.mlir")
    assert not (tmp_path / "bad.mlir").exists()
    with pytest.raises(tosakit.BadInput, match="reshape"):
        g.run({"x": np.zeros((1, 4), np.float32)})


def test_unsupported_operator():
    g = lang.Graph()
    x = g.input("x", "fp32", [4])
    values = g.sort(x)
    assert all(not v.valid for v in values)  # no usable result
    with pytest.raises(tosakit.Unsupported, match="sort") as info:
        g.compile()
    assert info.value.exit_code == 5


def test_bad_python_arguments():
    g = lang.Graph()
    with pytest.raises(tosakit.BadInput, match="unknown dtype 'int9'"):
        g.input("x", "int9", [1])
    with pytest.raises(TypeError, match="ConvParam has no field 'scael'"):
        lang.ConvParam(scael=0.5)
    with pytest.raises(tosakit.BadInput, match="coeff: unsupported dtype"):
        g.coeff(np.zeros(2, np.complex64))
    with pytest.raises(tosakit.BadInput, match="coeff 'w': expected a numpy array"):
        g.coeff([1, 2], "w")
    x = g.input("x", "i8", [2])
    g.output(g.adds(x, 1), "y")
    with pytest.raises(tosakit.BadInput, match="'x'"):
        g.run({"x": np.zeros(2, np.float32)})
    with pytest.raises(tosakit.BadInput, match="'x'"):
        g.run({"x": np.zeros(3, np.int8)})
    with pytest.raises(tosakit.BadInput):
        g.run({"z": np.zeros(2, np.int8)})
    with pytest.raises(tosakit.BadInput, match="unknown model format"):
        g.save("net.txt")


def test_param_structs_keep_their_fields():
    p = lang.ConvParam(scale=0.25, mode=lang.HighPrecisionAsymmetric, left_zero_point=-3)
    assert (p.scale, p.mode, p.left_zero_point, p.stride_h) == (0.25, lang.QCalMode.HighPrecisionAsymmetric, -3, 1)
    assert lang.DequantInt32Param is lang.RequantFp32Param
    assert lang.PoolParam(pooling_type=lang.AVE).pooling_type == lang.PoolType.AVE
