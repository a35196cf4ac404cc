"""Shared fixtures of the tosakit Python tests (run by ctest: /usr/bin/python3 -m pytest tests/python).

The tests exercise the installed package (scripts/install-python.sh) when it is the build's own module;
otherwise (not installed yet, or installed from an older build) they import the build tree's
<build>/python/tosakit and say so in the header. test_installed.py fails in the second case.
"""
import hashlib
import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("TOSAKIT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUILD_PYTHON = os.environ.get("TOSAKIT_PYTHON_BUILD", "")
TOOL = os.environ.get("TOSAKIT_TOOL", "")


def file_digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def built_module():
    """The extension module the build produced, or None outside ctest."""
    if not BUILD_PYTHON:
        return None
    found = sorted(pathlib.Path(BUILD_PYTHON, "tosakit").glob("_tosakit*.so"))
    return found[0] if found else None


def installed_module():
    """The extension module `import tosakit` finds without the build tree, or None."""
    spec = importlib.util.find_spec("tosakit")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(pathlib.Path(location).glob("_tosakit*.so"))
        if found:
            return found[0]
    return None


def _choose_package():
    built, installed = built_module(), installed_module()
    if built is None:
        return "installed" if installed else "none"
    if installed is not None and file_digest(installed) == file_digest(built):
        return "installed"
    sys.path.insert(0, BUILD_PYTHON)
    return "build tree"


PACKAGE_SOURCE = _choose_package()


def pytest_report_header(config):
    import tosakit
    return f"tosakit {tosakit.__version__} from {pathlib.Path(tosakit.__file__).parent} ({PACKAGE_SOURCE})"


@pytest.fixture(scope="session")
def tool():
    """Path of the `tosakit` CLI (the tests compare the Python API with it)."""
    if not TOOL or not os.path.exists(TOOL):
        pytest.skip("TOSAKIT_TOOL not set (run through ctest)")
    return TOOL


def run_cli(tool, *args):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    p = subprocess.run([tool, *map(str, args)], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def run_backend(tool, backend, threads=None):
    """`tosakit run` flags choosing a backend (and a thread count)."""
    return ["--backend", backend] + (["--threads", str(threads)] if threads is not None else [])


def cli_error_line(stderr):
    """The CLI's one-line failure report (notes excluded)."""
    lines = [l for l in stderr.splitlines() if l.startswith("tosakit: ") and not l.startswith("tosakit: note:")]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a file in the test's temporary directory."""
    def _write(name, text):
        p = tmp_path / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return p
    return _write


def load_npz(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def assert_same_arrays(a, b):
    """Same names, dtypes, shapes and bytes (bit for bit)."""
    assert list(a) == list(b)
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        assert a[name].shape == b[name].shape, name
        assert a[name].tobytes() == b[name].tobytes(), name
