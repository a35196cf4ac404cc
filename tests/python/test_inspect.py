"""tosakit.info / cut / graph from Python equal the CLI verbs (the same library functions)."""
import json

import numpy as np

import pytest

import tosakit
from conftest import SOURCE_DIR, run_cli

DEFAULT = SOURCE_DIR / "models/default/model.mlir"

pytestmark = pytest.mark.skipif(not hasattr(tosakit, "info"), reason="built without tosakit_inspect")


def test_info_dict_equals_cli_json(tool):
    code, out, err = run_cli(tool, "info", DEFAULT, "--json")
    assert code == 0, err
    assert tosakit.info(DEFAULT) == json.loads(out)


def test_info_of_a_module_and_hand_figures():
    d = tosakit.info(tosakit.load(DEFAULT), plan=False)
    assert d["macs"]["total"] == 1080  # 48 x 3*3*2 + 8 x 3*3*3 (tests/inspect/info_test.cpp)
    assert d["parameters"]["count"] == 113
    assert d["fast_plan"] is None


def test_info_errors_are_tosakit_errors(tmp_path):
    with pytest.raises(tosakit.BadInput):
        tosakit.info(tmp_path / "missing.mlir")
    with pytest.raises(tosakit.BadInput, match="nope"):
        tosakit.info(DEFAULT, function="nope")


def test_cut_equals_cli_and_reproduces_the_output(tool, tmp_path):
    code, _, err = run_cli(tool, "run", DEFAULT, "--backend", "ref", "--inputs", SOURCE_DIR / "models/default/inputs.npz",
                           "-o", tmp_path / "out.npz", "--dump-intermediates", tmp_path / "layers.npz")
    assert code == 0, err
    layers = dict(np.load(tmp_path / "layers.npz"))
    rescale = next(k for k in layers if k.startswith("rescale_"))
    sub = tosakit.cut(DEFAULT, [rescale], ["out0"])
    code, _, err = run_cli(tool, "cut", DEFAULT, "--inputs", rescale, "--outputs", "out0", "-o", tmp_path / "sub.mlir")
    assert code == 0, err
    tosakit.save(sub, tmp_path / "py_sub.mlir")
    assert (tmp_path / "py_sub.mlir").read_text() == (tmp_path / "sub.mlir").read_text()
    got = tosakit.Session(sub, backend="ref").run({rescale: layers[rescale]})
    np.testing.assert_array_equal(got["out0"], np.load(tmp_path / "out.npz")["out0"])


def test_cut_unknown_name_raises():
    with pytest.raises(tosakit.BadInput, match="nosuch"):
        tosakit.cut(DEFAULT, ["nosuch"], ["out0"])


def test_graph_dot_text_and_files(tool, tmp_path):
    dot = tosakit.graph(DEFAULT)
    assert dot.count(" -> ") == 8 and "weight: tensor<3x3x3x2xi8>" in dot  # as tests/inspect/graph_test.cpp
    tosakit.graph(DEFAULT, tmp_path / "g.dot")
    code, _, err = run_cli(tool, "graph", DEFAULT, "-o", tmp_path / "cli.dot")
    assert code == 0, err
    assert (tmp_path / "g.dot").read_text() == (tmp_path / "cli.dot").read_text() == dot
    tosakit.graph(DEFAULT, tmp_path / "g.svg", collapse_constants=True)
    assert (tmp_path / "g.svg").read_text().count('class="node"') == 10
    with pytest.raises(tosakit.BadInput):
        tosakit.graph(DEFAULT, tmp_path / "g.png")


def test_visual_page_of_the_default_model_against_itself(tmp_path):
    inputs = dict(np.load(SOURCE_DIR / "models/default/inputs.npz"))
    page = tosakit.visual(DEFAULT, DEFAULT, inputs, backend="ref")
    data = json.loads(page.split('<script type="application/json" id="data">', 1)[1].split("</script>", 1)[0])
    # The same model on both sides: every shared tensor identical (cosine 1), the two outputs included.
    assert {t["name"] for t in data["tensors"]} >= {"out0", "out1"}
    assert all(t["cos"] == 1 and t["maxdiff"] == 0 for t in data["tensors"])
    tosakit.visual(DEFAULT, DEFAULT, [inputs, inputs], tmp_path / "r.html", backend="ref")
    assert '"samples":2' in (tmp_path / "r.html").read_text()
