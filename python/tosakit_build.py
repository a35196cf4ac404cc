"""PEP 517 build backend of the Python package `tosakit` (python/pyproject.toml; docs/API.md, "Python").

The extension module _tosakit is the CMake target of python/CMakeLists.txt. It is built for the Python running
pip, in a CMake build of the repository of its own (build-pip-<tag>/ at the top of the clone, tests and
benchmarks off, ccache when present), or taken from an existing build when TOSAKIT_BUILD_DIR names one
(scripts/install-python.sh passes build/). The wheel is written here: it holds python/tosakit/* and that module,
so no setuptools or wheel package is needed. numpy is needed to pass arrays, not to import tosakit: it is not
a requirement (pip would try to download it into a venv without it).
"""
import base64
import glob
import hashlib
import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NAME = "tosakit"
SUMMARY = "TOSA 1.0 toolchain: reference and fast executors, ONNX import, quantization, compliance checks"


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(tosakit VERSION ([0-9.]+)", f.read()).group(1)


def _tag():
    """The wheel tag of the running interpreter: cpXY-cpXY<abiflags>-<platform>."""
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{python}-{python}{sys.abiflags}-{platform}"


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _metadata_files():
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
                "Requires-Python: >=3.9\n")
    wheel = f"Wheel-Version: 1.0\nGenerator: tosakit_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n"
    return {"METADATA": metadata.encode(), "WHEEL": wheel.encode()}


def _cmake_build_dir():
    existing = os.environ.get("TOSAKIT_BUILD_DIR")
    if existing:
        return os.path.abspath(existing), False
    return os.path.join(ROOT, "build-pip-" + _tag()), True


def _build_module():
    """Builds the _tosakit target and returns the path of the module."""
    build_dir, own = _cmake_build_dir()
    if own:
        args = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DTOSAKIT_BUILD_TESTS=OFF",
                "-DTOSAKIT_BUILD_BENCH=OFF", "-DTOSAKIT_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args.append("-GNinja")
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.check_call(args, stdout=sys.stderr)
    subprocess.check_call(["cmake", "--build", build_dir, "--target", "_tosakit"], stdout=sys.stderr)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    module = os.path.join(build_dir, "python", "tosakit", "_tosakit" + suffix)
    if not os.path.exists(module):
        found = glob.glob(os.path.join(build_dir, "python", "tosakit", "_tosakit*"))
        raise RuntimeError(f"tosakit: no _tosakit{suffix} for this Python in {build_dir}/python/tosakit "
                           f"(found {found}); build for {sys.executable}")
    return module


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


# PEP 517 hooks.
def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = os.path.join(metadata_directory, _dist_info())
    os.makedirs(target, exist_ok=True)
    for name, data in _metadata_files().items():
        with open(os.path.join(target, name), "wb") as f:
            f.write(data)
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {}
    package = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(package)):
        if name.endswith((".py", ".pyi")) or name == "py.typed":
            with open(os.path.join(package, name), "rb") as f:
                files[f"{NAME}/{name}"] = f.read()
    module = _build_module()
    with open(module, "rb") as f:
        files[f"{NAME}/{os.path.basename(module)}"] = f.read()
    for name, data in _metadata_files().items():
        files[f"{_dist_info()}/{name}"] = data
    record = [_record_line(path, data) for path, data in files.items()] + [f"{_dist_info()}/RECORD,,"]
    files[f"{_dist_info()}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{NAME}-{_version()}-{_tag()}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name
