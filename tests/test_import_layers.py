"""The import layers of CONTRIBUTING.md, checked by reading the source (an AST
scan, so no module is imported): no module imports a layer above its own, no circle of any
length joins the parts of the package, no circle of module-level imports joins the modules of
one part, the front door imports the upper floors only when asked, and the scripts at the
repository root stand on the scripts' floor."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pokerzoo"

LAYERS: dict[str, int] = {
    # the ground floor: imports nothing of ours above it
    "errors": 0, "config": 0, "checkpoint": 0, "parallel": 0, "entry_points": 0, "sampling": 0,
    "atomic": 0, "schedule": 0, "version": 0, "torch_arithmetic": 0,
    # Ray plumbing: executors behind pokerzoo.parallel.Executor. It imports errors and
    # parallel only (Ray itself inside functions), and evaluation, agents and training take
    # its executors, so it stands on the ground floor, below all of them.
    "distributed": 0,
    "games": 1,
    "tree": 2, "public": 2, "policy": 2,
    "envs": 3,
    "wrappers": 4, "components": 4,
    "evaluation": 5,
    "agents": 6,
    "training": 7,
    "integrations": 8,
    # The judge scores outside players: it plays them against pokerzoo's agents (CFR+ at
    # equilibrium), reaches OpenSpiel and RLCard through integrations, and measures with
    # evaluation, so it stands above all three; only the scripts' floor is above it.
    "judge": 9,
    "runs": 10,
    # python -m pokerzoo: the commands of runs, so it stands above the scripts' floor.
    "__main__": 11,
}
"""Each top-level part of ``pokerzoo`` and its layer: a module may import its own layer or a
lower one. ``pokerzoo/__init__.py`` is the front door and may import any layer (lazily)."""

ALLOWED_SIDEWAYS: set[tuple[str, str]] = set()
"""Imports between two parts of one layer above the ground floor that are allowed (none: each
would need a reason). On the ground floor its modules may import each other (errors first),
without circles."""

REGISTRATION = {"games", "envs"}
"""What ``import pokerzoo`` truly needs above the ground floor: the envs join PettingZoo's and
Gymnasium's registries at import (``envs.registration``), and ``envs`` stands on ``games``, so
the front door's ``make``, ``registered_envs`` and ``load_game`` cost nothing more. Every
other floor (agents and torch, evaluation, runs, ...) the front door imports inside a function
or its ``__getattr__``, when that name is asked for."""

SCRIPTS = ("train.py", "evaluate.py", "play.py", "solve.py")
"""The command lines at the repository root. A script imports the front door (``pokerzoo``),
the scripts' floor (``pokerzoo.runs`` and its modules), the ground floor, and any other floor
only through its face, the package itself (``from pokerzoo.evaluation import ...``, never
``pokerzoo.evaluation.tournament``): what a script computes is the runs floor's work or a
floor's public name, so a floor's inner modules can move without touching the scripts, and
no runs module re-exports a lower floor's names just to hand them on."""


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "pokerzoo" and len(parts) > 1 else None


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``path``, relative ones resolved."""
    return _imports_in(path.read_text(encoding="utf-8"), _module_name(path),
                       path.name == "__init__.py")


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _walk(tree: ast.AST, module_level: bool) -> Iterator[ast.AST]:
    """Every node of ``tree``; with ``module_level``, only those that run on import: not the
    bodies of functions, nor ``if TYPE_CHECKING:`` blocks (class bodies do run)."""
    for node in ast.iter_child_nodes(tree):
        if module_level and (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                             or _is_type_checking(node)):
            continue
        yield node
        yield from _walk(node, module_level)


def _import_statements(source: str, module_name: str, is_package: bool,
                       module_level: bool) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of each import statement in ``source``, relative modules
    resolved; ``names`` are a ``from`` import's (empty for ``import module``)."""
    package = module_name.split(".")
    if not is_package:
        package = package[:-1]
    found = []
    for node in _walk(ast.parse(source), module_level):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module, [alias.name for alias in node.names]))
    return found


def _imports_in(source: str, module_name: str, is_package: bool,
                module_level: bool = False) -> list[tuple[int, str]]:
    """``(line, module)`` of the imports in ``source`` (those that run on import only, with
    ``module_level``); ``from pokerzoo import errors`` reads as ``pokerzoo.errors``."""
    found = []
    for line, module, names in _import_statements(source, module_name, is_package,
                                                  module_level):
        if module == "pokerzoo" and names:  # from pokerzoo import errors, ...
            found += [(line, f"pokerzoo.{name}") for name in names]
        else:
            found.append((line, module))
    return found


def _edges() -> list[tuple[str, int, str, str]]:
    """``(file, line, from part, to part)`` for every import between parts of pokerzoo."""
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _part(_module_name(path))
        if source is None:  # pokerzoo/__init__.py
            continue
        for line, module in _imports(path):
            target = _part(module)
            # A front-door name (not a part) is test_no_module_imports_the_front_door's.
            if target in LAYERS and target != source:
                edges.append((str(path.relative_to(PACKAGE.parent)), line, source, target))
    return edges


def _circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph`` (node -> nodes it imports), each as the sorted nodes of one
    strongly connected component of two or more (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_every_part_has_a_layer() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").exists()}
    parts |= {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    missing = sorted(parts - set(LAYERS))
    assert not missing, f"give these parts of pokerzoo a layer in LAYERS: {missing}"


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{file}:{line}: {source} (layer {LAYERS[source]}) imports {target} "
        f"(layer {LAYERS[target]})"
        for file, line, source, target in _edges()
        if LAYERS[target] > LAYERS[source]
        or (LAYERS[target] == LAYERS[source] > 0 and (source, target) not in ALLOWED_SIDEWAYS)
    ]
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_no_module_imports_the_front_door() -> None:
    # The front door stands above every floor: ``from pokerzoo import __version__`` inside
    # agents/ hid an import of all of them. The package reads its own names from their floors.
    names = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
        for path in sorted(PACKAGE.rglob("*.py")) if _part(_module_name(path)) is not None
        for line, module in _imports(path)
        if module == "pokerzoo" or (module.startswith("pokerzoo.") and _part(module) not in LAYERS)
    ]
    assert not names, f"modules that import the front door's names: {names}"


def test_no_circle_between_packages() -> None:
    # Any length: a ground-floor A -> B -> C -> A is a circle as much as A <-> B.
    graph: dict[str, set[str]] = {}
    for _, _, source, target in _edges():
        graph.setdefault(source, set()).add(target)
    assert not _circles(graph), f"parts of pokerzoo that import each other: {_circles(graph)}"


def _module_graph() -> dict[str, set[str]]:
    """Module -> the modules of its own part it imports when it is imported (module level,
    ``TYPE_CHECKING`` blocks left out; an import inside a function is how a circle is broken,
    so it is no edge). A package's ``__init__`` is the package's name."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        part = _part(name)
        if part is None:
            continue
        source = path.read_text(encoding="utf-8")
        for _, module, names in _import_statements(source, name, path.name == "__init__.py",
                                                   True):
            # ``from pokerzoo.games.holdem import state``: the submodule, not the package's
            # ``__init__`` (which the import finds half-run, harmlessly, as its parent).
            submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
            targets = submodules if submodules and len(submodules) == len(names) else [module]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name and _part(target) == part:
                    graph.setdefault(name, set()).add(target)
    return graph


def test_no_circle_of_module_level_imports_inside_a_part() -> None:
    circles = _circles(_module_graph())
    assert not circles, f"modules that import each other on import: {circles}"


def test_the_front_door_imports_upper_floors_lazily() -> None:
    source = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    eager = sorted({
        f"line {line}: {module}"
        for line, module in _imports_in(source, "pokerzoo", True, module_level=True)
        if (part := _part(module)) in LAYERS and LAYERS[part] > 0 and part not in REGISTRATION
    })
    assert not eager, f"the front door imports upper floors at module level: {eager}"


def test_importing_the_front_door_loads_no_upper_floor() -> None:
    # What the AST promises, in a fresh interpreter: registration loads games and envs only.
    code = ("import sys, pokerzoo; print(sorted({m.split('.')[1] for m in sys.modules "
            "if m.startswith('pokerzoo.')}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    loaded = set(ast.literal_eval(out.strip()))
    upper = sorted(p for p in loaded if LAYERS.get(p, 0) > 0 and p not in REGISTRATION)
    assert not upper, f"import pokerzoo loads {upper}"
    assert "torch" not in out


def _script_violations(source: str) -> list[str]:
    wrong = []
    for line, module in _imports_in(source, "script", False):
        names = module.split(".")
        if names[0] != "pokerzoo" or len(names) == 1:
            continue  # not ours, or the front door
        part = names[1]
        if part not in LAYERS:
            continue  # a front-door name: from pokerzoo import load_agent
        if part == "runs" or LAYERS[part] == 0 or len(names) == 2:
            continue  # the scripts' floor, the ground floor, a floor's face
        wrong.append(f"line {line}: {module} (import it from pokerzoo.{part}, or through "
                     "pokerzoo.runs)")
    return wrong


def test_scripts_stand_on_the_scripts_floor() -> None:
    wrong = {script: v for script in SCRIPTS
             if (v := _script_violations((ROOT / script).read_text(encoding="utf-8")))}
    assert not wrong, f"scripts that reach into a floor's modules: {wrong}"


@pytest.mark.parametrize("source, expected", [
    ("from pokerzoo.games.base import Game\n", ["pokerzoo.games.base"]),
    ("from ..tree import build\n", ["pokerzoo.tree"]),
    ("from . import poker_env\n", ["pokerzoo.envs"]),
    ("from pokerzoo import errors\n", ["pokerzoo.errors"]),
    ("def f():\n    import pokerzoo.runs.load\n", ["pokerzoo.runs.load"]),
])
def test_imports_are_read_as_written(source: str, expected: list[str]) -> None:
    # Relative imports resolve against the file's package; imports inside functions count.
    assert [m for _, m in _imports_in(source, "pokerzoo.envs.probe", False)] == expected


def test_module_level_reading_skips_functions_and_type_checking() -> None:
    source = ("from typing import TYPE_CHECKING\nimport pokerzoo.games\n"
              "if TYPE_CHECKING:\n    import pokerzoo.agents\n"
              "class A:\n    import pokerzoo.tree\n"
              "def f():\n    import pokerzoo.runs\n")
    assert [m for _, m in _imports_in(source, "pokerzoo.x", False, module_level=True)] == [
        "typing", "pokerzoo.games", "pokerzoo.tree"]


def test_circles_of_any_length_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert _circles(graph) == [["a", "b", "c"], ["e", "f"]]
    assert _circles({"a": {"b"}, "b": {"c"}, "d": {"c"}}) == []


@pytest.mark.parametrize("source, wrong", [
    ("from pokerzoo.runs.run import train\nimport pokerzoo\n", False),
    ("from pokerzoo.errors import ConfigError\nfrom pokerzoo import load_agent\n", False),
    ("from pokerzoo.evaluation import tabularize\n", False),
    ("from pokerzoo.evaluation.exact import tabularize\n", True),
    ("def main():\n    from pokerzoo.agents.registry import make_agent\n", True),
])
def test_the_script_rule_reads_as_documented(source: str, wrong: bool) -> None:
    assert bool(_script_violations(source)) == wrong
