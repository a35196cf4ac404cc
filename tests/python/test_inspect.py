"""tosakit.info / cut / graph from Python equal the CLI verbs (the same library functions)."""
import json

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
