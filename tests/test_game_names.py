"""Game names live in the registry and the games' own modules only.

Every other module of ``panda_core`` takes a game from the registry (``panda_core._registry``:
``spec(name)``, ``spec_of(game)``, the ``GameSpec`` fields) and plays it through the verbs every
game shares, so adding a game adds its own modules and a registry entry without editing the rest.
This test parses every ``.py`` of the package with :mod:`ast` and fails on a game's name or a
game's class or type in code outside the allowed modules: a string constant equal to a game's
name (``"head"``) or to a game name below, or an identifier, attribute or import of one
(``HeadGame``, ``ClimbSettings``, ``NUM_HEAD_ACTIONS``, ``from panda_core import climb``).
Docstrings and comments are prose, not code: they may name games.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import panda_core
from panda_core import _core, _registry, _types
from panda_core._registry import GAMES, SPECS

PACKAGE = Path(panda_core.__file__).parent


def _module_file(dotted: str) -> str:
    """``panda_core.table.head_text`` (or ``…:Class``) → ``table/head_text.py``."""
    return dotted.partition(":")[0].removeprefix("panda_core.").replace(".", "/") + ".py"


GAME_MODULES = frozenset(
    {"_registry.py", "head.py", "climb.py"}
    | {_module_file(s.presenter_module) for s in SPECS.values()}
    | {_module_file(s.remote_seat) for s in SPECS.values()}
)
"""The registry and the games' own modules: their facade modules, and the presenters and the
seats rebuilt from the protocol that the registry names (the oracle, a folder, is one too:
``oracle/``)."""
GAME_FOLDERS = ("oracle/",)
REEXPORT_MODULES = frozenset({"__init__.py"})
"""Modules that re-export the games' public classes under the package's names: they may name a
game in their imports and ``__all__`` only."""


def _words(name: str) -> set[str]:
    """The lower-case words of an identifier: ``NUM_HEAD_ACTIONS`` → num, head, actions;
    ``ClimbMoveDict`` → climb, move, dict."""
    return {
        w.lower() for part in name.split("_") for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+", part)
    }


def game_families() -> set[str]:
    """The word each game family's classes start with (``HeadGame`` → head, ``ClimbGame`` →
    climb), from the registry."""
    return {s.game_class.__name__.removesuffix("Game").lower() for s in SPECS.values()}


def game_identifiers() -> frozenset[str]:
    """Every name that belongs to one game or game family: the registry's classes, and the names
    of the engine (``_core``), its shared typed shapes (``_types``), the registry and the games'
    own modules with a family's or a game's word in them (``HeadView``, ``simulate_climb_batch``,
    ``YEAR_OPTIONS``)."""
    families = game_families() | set(GAMES)
    named = {
        cls.__name__
        for s in SPECS.values()
        for cls in (s.game_class, s.rules_class, s.move_class, s.vector_env)
    }
    own = [
        importlib.import_module("panda_core." + m.removesuffix(".py").replace("/", "."))
        for m in sorted(GAME_MODULES)
    ]
    for module in (_core, _types, _registry, *own):
        named |= {
            n
            for n in dir(module)
            if not n.startswith("__")
            and _words(n) & families
            and not isinstance(getattr(module, n), ModuleType)  # modules: game_module_names()
        }
    return frozenset(named)


def game_module_names() -> frozenset[str]:
    """The games' own module names (``head``, ``climb``, ``head_text``, ...)."""
    return frozenset(Path(m).stem for m in GAME_MODULES if m != "_registry.py")


def _prose(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are prose: docstrings and other bare strings (an
    attribute's docstring)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _reexports(tree: ast.Module) -> set[int]:
    """The ids of the nodes of a re-export module where naming a game is allowed: its imports
    and its ``__all__``."""
    allowed: set[int] = set()
    for stmt in tree.body:
        is_all = isinstance(stmt, ast.Assign | ast.AnnAssign) and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        )
        if isinstance(stmt, ast.Import | ast.ImportFrom) or is_all:
            allowed |= {id(node) for node in ast.walk(stmt)}
    return allowed


def violations_in(source: str, where: str, reexport: bool = False) -> Iterator[str]:
    """``"where:line: what"`` for every game name in the code of ``source``."""
    tree = ast.parse(source)
    games = set(GAMES)
    names = game_identifiers()
    modules = game_module_names()
    skip = _prose(tree) | (_reexports(tree) if reexport else set())
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        found: str | None = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in games or node.value in names:
                found = f"the string {node.value!r}"
        elif isinstance(node, ast.Name) and node.id in names:
            found = f"the name {node.id}"
        elif isinstance(node, ast.Attribute) and node.attr in names | modules:
            found = f"the attribute .{node.attr}"
        elif isinstance(node, ast.alias) and node.name.split(".")[-1] in names | modules:
            found = f"the import of {node.name}"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in modules:
            found = f"an import from {node.module}"
        elif isinstance(node, ast.arg) and node.arg in names:
            found = f"the argument {node.arg}"
        if found is not None:
            yield f"{where}:{line}: {found}"


def package_violations(root: Path) -> list[str]:
    """Every game name in code outside the allowed modules of the package at ``root``."""
    out: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in GAME_MODULES or rel.startswith(GAME_FOLDERS):
            continue
        source = path.read_text(encoding="utf-8")
        out.extend(violations_in(source, rel, reexport=rel in REEXPORT_MODULES))
    return out


def test_no_game_is_named_outside_the_registry_and_its_own_modules() -> None:
    found = package_violations(PACKAGE)
    assert not found, "game names outside the registry and the games' modules:\n" + "\n".join(found)


def test_the_names_come_from_the_registry() -> None:
    names = game_identifiers()
    for s in SPECS.values():
        assert s.game_class.__name__ in names and s.rules_class.__name__ in names
    assert {"HeadGame", "ClimbSettings", "HeadVectorEnv", "NUM_CLIMB_ACTIONS"} <= names
    assert {"HeadView", "ClimbMoveDict", "simulate_head_batch", "climb_classify"} <= names
    assert {"HEAD_OPTIONS", "YEAR_OPTIONS"} <= names
    assert not {"GameOutcome", "PandaCoreError", "BOT_NAMES", "Event"} & names
    assert set(GAMES) == {s.name for s in SPECS.values()}


def test_the_checker_finds_each_kind_of_game_name() -> None:
    """The checker itself: each kind of reference is found, prose and re-exports are not."""
    bad = """
from panda_core._core import HeadGame
from panda_core import climb
from panda_core.table.head_text import PRESENTER
import panda_core.head
x = "spin"
y = game.rules.__class__ is panda_core.ClimbSettings
def f(NUM_HEAD_ACTIONS: int = 0) -> None: ...
"""
    found = list(violations_in(bad, "bad.py"))
    lines = sorted({int(v.split(":")[1]) for v in found})
    assert lines == [2, 3, 4, 5, 6, 7, 8], found
    prose = '''
"""Panda Head ("head") and HeadGame, in prose."""
def f() -> None:
    """``"year"``: ClimbSettings."""
    # "spin" in a comment
attr = 1
"""The ``"head"`` game's HeadRules."""
'''
    assert list(violations_in(prose, "prose.py")) == []
    reexport = """
from panda_core._core import HeadGame
__all__ = ["HeadGame", "head"]
x = "head"
"""
    assert [v.split(":")[1] for v in violations_in(reexport, "init.py", reexport=True)] == ["4"]
