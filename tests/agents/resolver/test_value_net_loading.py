"""Loading a tampered value-net file: refused naming the field, before torch builds layers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pokerzoo
from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError

torch = pytest.importorskip("torch")

from pokerzoo.agents.resolver import value_net  # noqa: E402
from pokerzoo.agents.resolver.pbs import LeafStates  # noqa: E402
from pokerzoo.agents.resolver.value_net import (  # noqa: E402
    CHECKPOINT_NAME,
    ValueNet,
    ValueNetSpec,
    load_value_net,
    save_value_net,
)


@pytest.fixture(scope="module")
def saved_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = pokerzoo.load_game("leduc_holdem")
    states = LeafStates(game)
    spec = ValueNetSpec.for_tree(game, states.spec, states.tree, symmetric=True, width=8,
                                 layers=2)
    path = tmp_path_factory.mktemp("net") / "net.pzc"
    save_value_net(path, ValueNet(spec))
    return path


def _tampered(saved: Path, folder: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    _, state = read_checkpoint(saved, agent_name=CHECKPOINT_NAME)
    change(state)
    path = folder / "tampered.pzc"
    write_checkpoint(path, agent_name=CHECKPOINT_NAME, state=state)
    return path


def _never_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("ValueNet was built before the file was checked")
    monkeypatch.setattr(value_net.ValueNet, "__init__", refuse)


def _swap_first_two(rows: list[list[int]]) -> list[list[int]]:
    out = [list(r) for r in rows]
    out[-1][0] = out[-1][1]  # a repeated entry: no longer a permutation
    return out


def _nan_weights(state: dict[str, Any]) -> None:
    for tensor in state["weights"].values():
        tensor.fill_(float("nan"))


TAMPERINGS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "width 10**9": (lambda s: s["spec"].update(width=10**9), "width 1000000000"),
    "layers 10**6": (lambda s: s["spec"].update(layers=10**6), "layers 1000000"),
    "garbage card permutation": (
        lambda s: s["spec"].update(card_perms=_swap_first_two(s["spec"]["card_perms"])),
        "card_perms"),
    "garbage hand permutation": (
        lambda s: s["spec"].update(hand_perms0=_swap_first_two(s["spec"]["hand_perms0"])),
        "hand_perms0"),
    "permutation of the wrong length": (
        lambda s: s["spec"].update(hand_perms1=[r[:-1] for r in s["spec"]["hand_perms1"]]),
        "hand_perms1"),
    "symmetries missing for one player": (lambda s: s["spec"].update(hand_perms1=[]),
                                          "card_perms, hand_perms0 and hand_perms1"),
    "NaN weights": (_nan_weights, "holds NaN"),
    "a card outside the deck": (
        lambda s: s["spec"].update(hands0=[[-1]] + s["spec"]["hands0"][1:]), "hands0"),
    "a deck of 10**6 cards": (
        lambda s: s["spec"]["features"].update(num_cards=10**6), "features.num_cards"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_tampered_value_net_is_refused_before_it_is_built(
    saved_net: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    change, fragment = TAMPERINGS[name]
    path = _tampered(saved_net, tmp_path, change)
    _never_built(monkeypatch)
    with pytest.raises(CheckpointError) as caught:
        load_value_net(path)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_the_untampered_net_loads(saved_net: Path) -> None:
    net = load_value_net(saved_net)
    assert net.symmetries > 1
    assert value_net.parameter_count(net.spec) == sum(p.numel() for p in net.parameters())
