"""The import layers of CONTRIBUTING.md, checked by reading the source (an AST
scan, so no module is imported): no module imports a layer above its own, and no two packages
import each other, at module level or inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pokerzoo"

LAYERS: dict[str, int] = {
    # the ground floor: imports nothing of ours above it
    "errors": 0, "config": 0, "checkpoint": 0, "parallel": 0, "entry_points": 0, "sampling": 0,
    "atomic": 0, "schedule": 0,
    "games": 1,
    "tree": 2, "public": 2, "policy": 2,
    "envs": 3,
    "wrappers": 4, "components": 4,
    "evaluation": 5,
    "agents": 6,
    "training": 7,
    "distributed": 8, "integrations": 8,
    "runs": 9,
}
"""Each top-level part of ``pokerzoo`` and its layer: a module may import its own layer or a
lower one. ``pokerzoo/__init__.py`` is the front door and may import any layer (lazily)."""

ALLOWED_SIDEWAYS: set[tuple[str, str]] = set()
"""Imports between two parts of one layer above the ground floor that are allowed (none: each
would need a reason). On the ground floor its modules may import each other (errors first),
without circles."""


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


def _imports_in(source: str, module_name: str, is_package: bool) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    package = module_name.split(".")
    if not is_package:
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "pokerzoo":  # from pokerzoo import errors, ...
                found += [(node.lineno, f"pokerzoo.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
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
            if target is not None and target != source and target != "__version__":
                edges.append((str(path.relative_to(PACKAGE.parent)), line, source, target))
    return edges


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


def test_no_circle_between_packages() -> None:
    pairs = {(source, target) for _, _, source, target in _edges()}
    circles = sorted({tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs})
    assert not circles, f"packages that import each other: {circles}"


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
