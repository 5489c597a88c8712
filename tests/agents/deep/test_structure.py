"""The deep wing's structure: no import circle inside ``agents/deep`` (module level or inside
functions), the registry's factories pick the tree or state version, the traversal is an
object chosen once, and every deep agent's ``policy()`` is a ``DeepPolicy``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import pokerzoo.agents.deep as deep  # noqa: E402
from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep.base import DeepPolicy  # noqa: E402
from pokerzoo.agents.deep.state_traversal import external_sampling_states  # noqa: E402
from pokerzoo.agents.deep.traversal import TreeTraversal  # noqa: E402
from pokerzoo.agents.registry import make_agent  # noqa: E402
from pokerzoo.evaluation import tabularize  # noqa: E402
from pokerzoo.tree import build  # noqa: E402
from pokerzoo.tree.tabular_policy import TabularPolicy  # noqa: E402

PACKAGE = Path(deep.__file__).parent
TINY = {"device": "cpu", "traversals": 4, "batch_size": 8, "width": 16}
STEPS = {"deep-cfr": {"advantage_steps": 2, "policy_steps": 2},
         "deep-gxfp": {"utility_steps": 2, "strategy_steps": 2}}


def _imports() -> dict[str, set[str]]:
    """Module -> the modules of ``agents/deep`` it imports, anywhere in its code."""
    prefix = "pokerzoo.agents.deep"
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        found = edges.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name == prefix:  # ``from pokerzoo.agents.deep import x``: the package
                    found.add("__init__")
                elif name.startswith(prefix + "."):
                    found.add(name.split(".")[3])
    return edges


def test_no_import_circle_inside_the_deep_package() -> None:
    edges = _imports()

    def reached(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(edges.get(start, ()))
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo.extend(edges.get(module, ()))
        return seen

    assert edges["deep_cfr"] >= {"state_deep_cfr"}  # the factory knows both versions
    assert [m for m in edges if m in reached(m)] == []
    for path in PACKAGE.glob("*.py"):
        assert "type: ignore[override]" not in path.read_text(), path.name


def test_package_names_import_on_first_use() -> None:
    from pokerzoo.agents.deep.deep_cfr import DeepCFR
    from pokerzoo.agents.deep.state_gxfp import StateDeepGXFP

    assert deep.DeepCFR is DeepCFR and deep.StateDeepGXFP is StateDeepGXFP
    with pytest.raises(AttributeError, match="no attribute"):
        _ = deep.Nothing


@pytest.mark.parametrize("name", ["deep-cfr", "deep-gxfp"])
def test_registry_picks_the_version_and_every_policy_is_a_deep_policy(name: str) -> None:
    kuhn = load_game("kuhn_poker")
    tree_agent = make_agent(name, kuhn, seed=0, **TINY, **STEPS[name])
    assert tree_agent.tree is not None and isinstance(tree_agent.traversal, TreeTraversal)
    holdem = load_game("no_limit_holdem", stacks=(300, 300))
    state_agent = make_agent(name, holdem, seed=0, **TINY, **STEPS[name])
    assert state_agent.tree is None and type(state_agent).__name__.startswith("State")
    on_kuhn = type(state_agent)(kuhn, seed=0, **TINY, **STEPS[name])
    assert on_kuhn.traversal.walk is external_sampling_states  # chosen when built
    for agent in (tree_agent, state_agent, on_kuhn):
        agent.iterate(1)
        assert isinstance(agent.policy(), DeepPolicy)
    assert isinstance(tree_agent.policy(), TabularPolicy)
    # A state version's policy is scored exactly where the tree fits.
    tree = build(kuhn)
    assert tabularize(tree, on_kuhn.policy()).probs.shape == tree.infoset_mask.shape
