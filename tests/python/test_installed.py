"""After scripts/install-python.sh, `/usr/bin/python3 -c "import tosakit"` works from anywhere without
setting paths, and imports this build's module (not a stale copy)."""
import os
import subprocess

import pytest

from conftest import built_module, file_digest


def test_import_without_paths():
    built = built_module()
    if built is None:
        pytest.skip("TOSAKIT_PYTHON_BUILD not set (run through ctest)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    p = subprocess.run(["/usr/bin/python3", "-c", "import tosakit, tosakit._tosakit as m; print(m.__file__)"],
                       capture_output=True, text=True, cwd="/", env=env)
    assert p.returncode == 0, "tosakit is not installed: run scripts/install-python.sh\n" + p.stderr
    installed = p.stdout.strip()
    assert file_digest(installed) == file_digest(built), (
        f"{installed} is not this build's module {built}: run scripts/install-python.sh")
