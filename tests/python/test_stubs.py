"""The type stubs (python/tosakit/*.pyi) parse and name every public function and class of the built package
with the keyword names the bindings take, so editors complete what exists."""
import ast
import re

import tosakit
from conftest import SOURCE_DIR

STUBS = SOURCE_DIR / "python/tosakit"


def bound_names(obj):
    """Argument names from pybind11's signature line "name(arg: type, ...) -> ..."."""
    return [n for n in re.findall(r"(\w+): ", obj.__doc__.splitlines()[0].split("(", 1)[1]) if n != "self"]


def stub_defs(tree):
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_package_stub_covers_the_package():
    stubs = stub_defs(ast.parse((STUBS / "__init__.pyi").read_text()))
    for name in tosakit.__all__:
        if name in ("errors", "lang") or name in vars(tosakit.errors):
            continue
        assert name in stubs, name
        if isinstance(stubs[name], ast.FunctionDef):
            assert [a.arg for a in stubs[name].args.args] == bound_names(getattr(tosakit, name)), name


def test_lang_stub_covers_graph():
    stubs = stub_defs(ast.parse((STUBS / "lang.pyi").read_text()))
    graph = {n.name: n for n in stubs["Graph"].body if isinstance(n, ast.FunctionDef)}
    for name in dir(tosakit.lang.Graph):
        if name.startswith("_") or name == "error":
            continue
        assert name in graph, name
        stub_args = [a.arg for a in graph[name].args.args][1:]
        assert stub_args == bound_names(getattr(tosakit.lang.Graph, name))[:len(stub_args)], name
    for name in dir(tosakit.lang):
        if not name.startswith("_"):
            assert name in stubs or re.search(rf"^{name}[:= ]", (STUBS / "lang.pyi").read_text(), re.M), name
