"""Builds the Python package `tosakit` for `pip install --no-build-isolation ./python` (docs/API.md, "Python").

The extension module _tosakit is the CMake target of python/CMakeLists.txt: built for the Python running pip,
in a CMake build of the repository of its own (tests and benchmarks off) under the setuptools build directory,
or taken from an existing build when TOSAKIT_BUILD_DIR names one (scripts/install-python.sh passes its build).
Pure-Python files come from python/tosakit. numpy is needed to pass arrays, not to import (not a requirement:
pip would try to download it into a venv without it).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(tosakit VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    """Runs CMake for the _tosakit target and copies the module where setuptools packages it."""

    def build_extension(self, ext):
        build_dir = os.environ.get("TOSAKIT_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            self.configure(build_dir)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_tosakit"])
        built = glob.glob(os.path.join(build_dir, "python", "tosakit", "_tosakit*.so"))
        if len(built) != 1:
            raise RuntimeError(f"tosakit: expected one _tosakit module in {build_dir}/python/tosakit, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)

    def configure(self, build_dir):
        args = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                "-DTOSAKIT_BUILD_TESTS=OFF", "-DTOSAKIT_BUILD_BENCH=OFF", "-DTOSAKIT_PYTHON=ON",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args.append("-GNinja")
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.check_call(args)


# With an existing build, setuptools' own build directory goes there too (the source tree stays clean).
OPTIONS = {}
if os.environ.get("TOSAKIT_BUILD_DIR"):
    OPTIONS["build"] = {"build_base": os.path.join(os.environ["TOSAKIT_BUILD_DIR"], "python-setuptools")}

setup(
    name="tosakit",
    version=project_version(),
    description="TOSA 1.0 toolchain: reference and fast executors, ONNX import, quantization, compliance checks",
    python_requires=">=3.9",
    packages=["tosakit"],
    package_dir={"tosakit": "tosakit"},
    package_data={"tosakit": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("tosakit._tosakit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options=OPTIONS,
)
