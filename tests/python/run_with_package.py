"""Runs a Python script (argv[1], the rest its arguments) with the tosakit package conftest.py picks: the
installed one when it is this build's, else the build tree's. ctest runs examples/python through this."""
import pathlib
import runpy
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import conftest  # noqa: E402,F401  (puts the build tree on sys.path when the installed package is stale)

script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
