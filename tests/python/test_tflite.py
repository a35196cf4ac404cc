"""tosakit.import_tflite (and import_onnx given a .tflite file) on a MediaPipe model, run against TensorFlow
Lite's own output (tools/tflite/run_tflite.py); skipped when tools/tflite is not installed."""
import sys

import numpy as np
import pytest

import tosakit
from conftest import SOURCE_DIR

TFLITE_DIR = SOURCE_DIR / "tools" / "tflite"
MODEL = TFLITE_DIR / "node_modules" / "@mediapipe" / "face_detection" / "face_detection_short_range.tflite"


@pytest.fixture
def run_tflite():
    sys.path.insert(0, str(TFLITE_DIR))
    try:
        import run_tflite as module
    finally:
        sys.path.pop(0)
    import os
    if not os.path.exists(module.LIB) or not MODEL.exists():
        pytest.skip("TFLite and the MediaPipe models are not installed (scripts/install-deps.sh)")
    return module


def test_import_tflite_matches_tflite(run_tflite):
    x = np.random.default_rng(0).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)
    expected = run_tflite.run(str(MODEL), {"input": x})
    for module in (tosakit.import_tflite(MODEL), tosakit.import_onnx(MODEL)):
        got = tosakit.Session(module, backend="fast").run({"input": x})
        assert sorted(got) == sorted(expected)
        for name, ref in expected.items():
            cos = float(np.dot(got[name].ravel(), ref.ravel()) / np.linalg.norm(got[name]) / np.linalg.norm(ref))
            assert cos >= 0.99999, name


def test_import_tflite_refuses_garbage(tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\x18\x00\x00\x00TFL3" + b"\xff" * 40)
    with pytest.raises(tosakit.Error) as e:
        tosakit.import_tflite(bad)
    assert e.value.exit_code == 4
