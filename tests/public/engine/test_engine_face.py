"""The public engine's face: outside the engine, nobody reaches into ``PublicSolver``'s private
passes or the compiled kernel, and the no-update discounts are written once."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from pokerzoo.schedule import NO_UPDATE

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "pokerzoo"
SOLVER = "pokerzoo/public/engine/solver.py"
ENGINE_MODULES = (
    SOLVER,
    "pokerzoo/public/engine/sweep_kernel.py",
    "pokerzoo/public/engine/warm_start.py",
    # A backend: it reads the kernel's mode codes.
    "pokerzoo/public/engine/torch_backend.py",
    # The small games' dense terminal tables are evaluated by the kernel's own terminal call.
    "pokerzoo/public/engine/small_games.py",
)
"""The engine's modules (repository paths): the only ones that may import the kernel."""
PRIVATE_PASSES = ("_call", "_sweep", "_call_tasks", "_head", "_parallel")
"""``PublicSolver``'s private pass machinery: used in ``SOLVER`` only."""
KERNEL = "sweep_kernel"
SCHEDULE = "pokerzoo/schedule.py"


def _modules() -> dict[str, ast.Module]:
    return {path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(PACKAGE.rglob("*.py"))}


def _own_methods(tree: ast.Module) -> dict[ast.AST, set[str]]:
    """Per node inside a class, the names of the methods that class defines itself."""
    out: dict[ast.AST, set[str]] = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            names = {f.name for f in cls.body
                     if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
            for node in ast.walk(cls):
                out.setdefault(node, set()).update(names)
    return out


def test_no_module_but_the_solver_calls_its_private_passes():
    found = []
    for path, tree in _modules().items():
        if path == SOLVER:
            continue
        own = _own_methods(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or node.attr not in PRIVATE_PASSES:
                continue
            # A class calling a private method it defines itself (an env guard's ``_call``)
            # is its own business; anything else reaches into the solver.
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            if not (on_self and node.attr in own.get(node, set())):
                found.append(f"{path}:{node.lineno} .{node.attr}")
    assert found == []


def test_no_solver_outside_the_engine_overrides_its_private_passes():
    from pokerzoo.public.engine.solver import PublicSolver

    for path in _modules():
        if "PublicSolver" in (ROOT / path).read_text(encoding="utf-8"):
            importlib.import_module(path[:-3].replace("/", "."))
    classes, seen = [PublicSolver], []
    while classes:
        cls = classes.pop()
        seen.append(cls)
        classes.extend(cls.__subclasses__())
    overrides = [f"{cls.__module__}.{cls.__qualname__}.{name}" for cls in seen
                 if cls is not PublicSolver for name in PRIVATE_PASSES if name in vars(cls)]
    assert len(seen) > 2  # the depth-limited and re-solving solvers were found
    assert overrides == []


def test_only_the_engine_imports_the_kernel():
    found = []
    for path, tree in _modules().items():
        if path in ENGINE_MODULES:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [alias.name for alias in node.names]
            else:
                continue
            if any(name.split(".")[-1] == KERNEL for name in names):
                found.append(f"{path}:{node.lineno}")
    assert found == []


def test_the_no_update_discounts_are_written_once():
    expected = tuple(NO_UPDATE)
    found = []
    for path, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Tuple):
                items = node.elts
            elif isinstance(node, ast.Call) and path != SCHEDULE:
                items = node.args
            else:
                items = []
            constants = tuple(item.value for item in items if isinstance(item, ast.Constant))
            if len(items) == len(constants) == len(expected) and constants == expected:
                found.append(f"{path}:{node.lineno}")
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and (
                node.id.lstrip("_") == "NO_UPDATE" and path != SCHEDULE
            ):
                found.append(f"{path}:{node.lineno} {node.id} =")
    assert found == []
