"""The ``.pyi`` stubs match the compiled module (the tokenizers-style stub check)."""

from __future__ import annotations

import ast
from pathlib import Path

import panda_core
from panda_core import _core

STUB = Path(panda_core.__file__).with_name("_core.pyi")


def stub_names() -> tuple[set[str], dict[str, set[str]]]:
    tree = ast.parse(STUB.read_text())
    top: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                n.target.id
                for n in node.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
            }
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    return top, members


def test_every_runtime_name_is_in_the_stub_and_back() -> None:
    top, members = stub_names()
    runtime = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    assert runtime - {"__version__"} <= top | {"__version__"}, "names missing from _core.pyi"
    assert top <= runtime, "stub names that the module does not have"
    for cls, names in members.items():
        obj = getattr(_core, cls)
        if issubclass(obj, BaseException):
            continue
        public = {n for n in dir(obj) if not n.startswith("_")}
        assert public == {n for n in names if not n.startswith("_")}, cls


def test_package_ships_py_typed() -> None:
    assert STUB.with_name("py.typed").exists()
