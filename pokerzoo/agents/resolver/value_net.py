"""DeepStack's counterfactual value network over public belief states, and leaves that use it.

``ValueNet`` maps a public state's features (board one-hot, pot and contributions over the
game's largest pot, round, who acts: ``pbs.FeatureSpec``) and both players' ranges (normalised
to sum 1 over the game's hand lists) to each hand's counterfactual value for both players, in
chips per pot against the opponent's normalised range (the targets of ``pbs``). A multilayer
perceptron with PReLU units; with ``zero_sum`` DeepStack's correction layer subtracts half of
``range0 . v0 + range1 . v1`` from every value of both players, so the two players' expected
values cancel exactly, as a zero-sum subgame's do. With the game's suit symmetries in its spec
(the Leduc family's suits never decide a hand) it answers, in evaluation mode, the mean of its
answers over the relabelled inputs, so swapping suits swaps its values exactly. Batched, on
CUDA when present.

``NetworkLeaves(net)`` is a ``LeafValues`` source for ``pokerzoo.public.subgames.depth_limit``: it
normalises the leaves' reaches, asks the network, and scales back to chips (values times the
leaf's pot times the opponent's reach mass: the values are homogeneous of degree one in the
opponent's reach and zero in one's own).

Checkpoints go through ``pokerzoo.checkpoint`` (tensors loaded with ``weights_only``, no
pickle) and record the game and its parameters: ``load_value_net(path, game)`` and
``NetworkLeaves`` refuse a net trained for another game with a one-line ``ConfigError``.
torch is the optional ``torch`` extra: importing this module without it says what to install.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import CheckpointError, ConfigError

try:
    import torch
    from torch import nn
except ImportError:  # a machine without the extra: one line saying what to install
    raise ConfigError('the value network needs torch, which is not installed: pip install '
                      '"pokerzoo[torch]"') from None

from pokerzoo.agents.resolver.pbs import FeatureSpec, game_record, suit_permutations
from pokerzoo.checkpoint import checked_weights, read_checkpoint, write_checkpoint
from pokerzoo.games.base import Game
from pokerzoo.public.engine.tree import PublicTree

CHECKPOINT_NAME = "value-net"
"""The agent name a standalone value-net checkpoint is written under."""


@dataclass(frozen=True)
class ValueNetSpec:
    """What a value network is for and its shape (saved with its weights)."""

    game: dict[str, Any]
    """``pbs.game_record`` of the game it was trained for."""
    features: FeatureSpec
    hands0: tuple[tuple[int, ...], ...]
    """Player 0's hand list (cards per hand), as the game's public tree orders it."""
    hands1: tuple[tuple[int, ...], ...]
    width: int = 256
    """Units per hidden layer."""
    layers: int = 4
    """Hidden layers."""
    zero_sum: bool = True
    """DeepStack's zero-sum correction on the outputs."""
    card_perms: tuple[tuple[int, ...], ...] = ()
    """Symmetries of the game (``pbs.suit_permutations``), identity first: in evaluation
    mode the net answers the mean of its answers over them (exact symmetries of the values);
    empty: none."""
    hand_perms0: tuple[tuple[int, ...], ...] = ()
    hand_perms1: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        for name in ("width", "layers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, not {value!r}")

    @classmethod
    def for_tree(cls, game: Game, features: FeatureSpec, tree: PublicTree,
                 symmetric: bool = False, **shape: Any) -> ValueNetSpec:
        hands = [tuple(tuple(int(c) for c in h) for h in tree.hands[p]) for p in (0, 1)]
        perms: tuple[Any, ...] = ((), (), ())
        if symmetric:
            perms = tuple(tuple(tuple(int(x) for x in row) for row in a)
                          for a in suit_permutations(game, tree))
        return cls(game_record(game), features, hands[0], hands[1], **shape,
                   card_perms=perms[0], hand_perms0=perms[1], hand_perms1=perms[2])

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "features": self.features.to_json(),
                "hands0": [list(h) for h in self.hands0], "hands1": [list(h) for h in self.hands1],
                "width": self.width, "layers": self.layers, "zero_sum": self.zero_sum,
                "card_perms": [list(x) for x in self.card_perms],
                "hand_perms0": [list(x) for x in self.hand_perms0],
                "hand_perms1": [list(x) for x in self.hand_perms1]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ValueNetSpec:
        return cls(dict(data["game"]), FeatureSpec.from_json(data["features"]),
                   tuple(tuple(int(c) for c in h) for h in data["hands0"]),
                   tuple(tuple(int(c) for c in h) for h in data["hands1"]),
                   int(data["width"]), int(data["layers"]), bool(data["zero_sum"]),
                   *(tuple(tuple(int(c) for c in row) for row in data.get(name, ()))
                     for name in ("card_perms", "hand_perms0", "hand_perms1")))

    def check_game(self, game: Game) -> None:
        """``ConfigError`` unless the net was trained for ``game`` (name and parameters)."""
        record = game_record(game)
        if record != self.game:
            mine, theirs = self.game["game_params"], record["game_params"]
            diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            said = ", ".join(f"{k}={mine.get(k)!r}" for k in diff)
            asked = ", ".join(f"{k}={theirs.get(k)!r}" for k in diff)
            raise ConfigError(
                f"this value net was trained for {self.game['game']}"
                f"{' with ' + said if said else ''}, not {record['game']}"
                f"{' with ' + asked if asked else ''}; train one for this game")


def card_masks(spec: ValueNetSpec) -> tuple[np.ndarray, np.ndarray]:
    """Per player ``[num_cards, H]`` bool: which hands hold each card."""
    out = []
    for hands in (spec.hands0, spec.hands1):
        mask = np.zeros((spec.features.num_cards, len(hands)), dtype=bool)
        for h, cards in enumerate(hands):
            mask[list(cards), h] = True
        out.append(mask)
    return out[0], out[1]


class ValueNet(nn.Module):
    """Features and two ranges in, both players' values per hand out (see the module doc).

    Args:
        spec: the network's game, features, hand lists and shape.
        generator: torch generator for the initial weights (reproducible runs).
    """

    def __init__(self, spec: ValueNetSpec, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.spec = spec
        self.h0, self.h1 = len(spec.hands0), len(spec.hands1)
        layers: list[nn.Module] = []
        size = spec.features.size + self.h0 + self.h1
        for _ in range(spec.layers):
            layers += [nn.Linear(size, spec.width), nn.PReLU(spec.width)]
            size = spec.width
        layers.append(nn.Linear(size, self.h0 + self.h1))
        self.body = nn.Sequential(*layers)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.kaiming_uniform_(module.weight, a=0.25, generator=generator)
                nn.init.zeros_(module.bias)
        blocked = [torch.as_tensor(m, dtype=torch.float32) for m in card_masks(spec)]
        self.blocked0: torch.Tensor
        self.blocked1: torch.Tensor
        self.register_buffer("blocked0", blocked[0], persistent=False)
        self.register_buffer("blocked1", blocked[1], persistent=False)
        # Inverse maps: entry j of a relabelled vector is entry inverse[j] of the original.
        inverse = [torch.as_tensor(np.argsort(np.asarray(p, dtype=np.int64), axis=1))
                   if len(p) else torch.zeros((0, 0), dtype=torch.int64)
                   for p in (spec.card_perms, spec.hand_perms0, spec.hand_perms1)]
        self.card_inverse: torch.Tensor
        self.hand_inverse0: torch.Tensor
        self.hand_inverse1: torch.Tensor
        self.register_buffer("card_inverse", inverse[0], persistent=False)
        self.register_buffer("hand_inverse0", inverse[1], persistent=False)
        self.register_buffer("hand_inverse1", inverse[2], persistent=False)

    @property
    def symmetries(self) -> int:
        """How many relabellings the net averages over in evaluation mode (1: none)."""
        return max(int(self.card_inverse.shape[0]), 1)

    def relabel(self, k: torch.Tensor, features: torch.Tensor, *hands: torch.Tensor,
                ) -> tuple[torch.Tensor, ...]:
        """Inputs (and per-hand arrays: ranges, values, in player order 0, 1) under
        symmetry ``k[b]`` of each row."""
        c = self.spec.features.num_cards
        board = torch.gather(features[:, :c], 1, self.card_inverse[k])
        out = [torch.cat([board, features[:, c:]], dim=1)]
        for i, x in enumerate(hands):
            inverse = self.hand_inverse0 if i % 2 == 0 else self.hand_inverse1
            out.append(torch.gather(x, 1, inverse[k]))
        return tuple(out)

    def forward(self, features: torch.Tensor, range0: torch.Tensor,
                range1: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``([B, H0], [B, H1])`` values per pot for ``[B, F]`` features and ranges summing
        to 1 (hands the board blocks get 0); in evaluation mode, the mean over the game's
        symmetries (each answer mapped back)."""
        if self.training or self.symmetries == 1:
            return self._values(features, range0, range1)
        batch = features.shape[0]
        k = torch.arange(self.symmetries, device=features.device).repeat_interleave(batch)
        f, r0, r1 = self.relabel(k, features.repeat(self.symmetries, 1),
                                 range0.repeat(self.symmetries, 1),
                                 range1.repeat(self.symmetries, 1))
        u0, u1 = self._values(f, r0, r1)
        # Back to the original labels: hand h was relabelled perm[k][h].
        forward0 = torch.argsort(self.hand_inverse0, dim=1)[k]
        forward1 = torch.argsort(self.hand_inverse1, dim=1)[k]
        v0 = torch.gather(u0, 1, forward0).view(self.symmetries, batch, -1).mean(0)
        v1 = torch.gather(u1, 1, forward1).view(self.symmetries, batch, -1).mean(0)
        return v0, v1

    def _values(self, features: torch.Tensor, range0: torch.Tensor,
                range1: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Ranges times their size: inputs of order one whatever the number of hands.
        x = torch.cat([features, range0 * self.h0, range1 * self.h1], dim=-1)
        out = self.body(x)
        v0, v1 = out[:, :self.h0], out[:, self.h0:]
        if self.spec.zero_sum:
            excess = (range0 * v0).sum(-1, keepdim=True) + (range1 * v1).sum(-1, keepdim=True)
            v0 = v0 - excess / 2
            v1 = v1 - excess / 2
        board = features[:, :self.spec.features.num_cards]
        free0 = (board @ self.blocked0) == 0
        free1 = (board @ self.blocked1) == 0
        return v0 * free0, v1 * free1


def default_device() -> torch.device:
    """CUDA when present, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def save_value_net(path: str | os.PathLike, net: ValueNet,
                   meta: dict[str, Any] | None = None) -> None:
    """Write ``net`` (weights and spec) to ``path`` atomically (no pickle)."""
    from pokerzoo.version import __version__

    weights = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    write_checkpoint(path, agent_name=CHECKPOINT_NAME,
                     state={"spec": net.spec.to_json(), "weights": weights},
                     meta={"pokerzoo_version": __version__, **(meta or {})})


def load_value_net(path: str | os.PathLike, game: Game | None = None,
                   device: str | torch.device | None = None) -> ValueNet:
    """The net ``save_value_net`` wrote; with ``game``, refused unless trained for it."""
    _, state = read_checkpoint(path, agent_name=CHECKPOINT_NAME)
    return net_from_state(state, game, device, str(path))


def net_from_state(state: dict[str, Any], game: Game | None = None,
                   device: str | torch.device | None = None, where: str = "the state") -> ValueNet:
    """A ``ValueNet`` from ``{"spec", "weights"}`` (a checkpoint's state)."""
    try:
        spec = ValueNetSpec.from_json(state["spec"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{where} holds no value-net spec ({type(exc).__name__}: {exc})"
                              ) from exc
    _check_loaded_spec(spec, where)
    if game is not None:
        spec.check_game(game)
    checked_weights(state.get("weights"), "weights")
    net = ValueNet(spec)
    try:
        net.load_state_dict(state["weights"])
    except (KeyError, RuntimeError) as exc:
        raise CheckpointError(f"{where}'s weights do not fit its spec ({type(exc).__name__})"
                              ) from exc
    net.eval()
    return net.to(default_device() if device is None else torch.device(device))


MAX_LOADED_PARAMETERS = 10**8
"""The most weights a loaded value net may declare (400 MB of float32): a file declaring more
is refused before torch allocates its layers."""
MAX_LOADED_LAYERS = 256
"""The most hidden layers a loaded value net may declare."""


def parameter_count(spec: ValueNetSpec) -> int:
    """The number of weights and biases a ``ValueNet`` of ``spec`` holds (no allocation)."""
    inputs, outputs = spec.features.size + len(spec.hands0) + len(spec.hands1), (
        len(spec.hands0) + len(spec.hands1))
    hidden = spec.layers * spec.width * 2  # each hidden layer's biases and PReLU slopes
    between = inputs * spec.width + (spec.layers - 1) * spec.width * spec.width
    return between + hidden + spec.width * outputs + outputs


def _check_loaded_spec(spec: ValueNetSpec, where: str) -> None:
    """Refuse a loaded spec too large to build or whose symmetries are not permutations."""
    count = parameter_count(spec)
    if spec.layers > MAX_LOADED_LAYERS:
        raise CheckpointError(f"{where} declares a value net of layers {spec.layers}; at most "
                              f"{MAX_LOADED_LAYERS} hidden layers are loaded")
    if count > MAX_LOADED_PARAMETERS:
        raise CheckpointError(
            f"{where} declares a value net of {count:,} weights (width {spec.width}, layers "
            f"{spec.layers}); at most {MAX_LOADED_PARAMETERS:,} are loaded")
    num_cards = spec.features.num_cards
    if isinstance(num_cards, bool) or not isinstance(num_cards, int) or not 1 <= num_cards <= 52:
        raise CheckpointError(f"{where}: value-net field features.num_cards is {num_cards!r}; "
                              "it must be an int from 1 to 52")
    for name in ("hands0", "hands1"):
        hands = getattr(spec, name)
        lengths = {len(h) for h in hands}
        if not 1 <= len(hands) <= 1326 or len(lengths) != 1:
            raise CheckpointError(f"{where}: value-net field {name} must list 1 to 1326 hands "
                                  "of one size")
        cards = np.asarray(hands, dtype=np.int64)
        if cards.min() < 0 or cards.max() >= num_cards:
            raise CheckpointError(f"{where}: value-net field {name} holds a card outside "
                                  f"0..{num_cards - 1}")
    sizes = {"card_perms": num_cards, "hand_perms0": len(spec.hands0),
             "hand_perms1": len(spec.hands1)}
    counts = {len(getattr(spec, name)) for name in sizes}
    if len(counts) != 1:
        raise CheckpointError(f"{where}: value-net fields card_perms, hand_perms0 and "
                              "hand_perms1 must list the same number of symmetries")
    for name, size in sizes.items():
        rows = getattr(spec, name)
        if not rows:
            continue
        lengths = {len(row) for row in rows}
        if lengths != {size}:
            raise CheckpointError(f"{where}: value-net field {name} must hold rows of {size}")
        table = np.asarray(rows, dtype=np.int64)
        if (np.sort(table, axis=1) != np.arange(table.shape[1])).any():
            raise CheckpointError(f"{where}: value-net field {name} holds a row that is not a "
                                  f"permutation of 0..{table.shape[1] - 1}")
        if (table[0] != np.arange(table.shape[1])).any():
            raise CheckpointError(f"{where}: value-net field {name} must start with the "
                                  "identity")


class NetworkLeaves:
    """A ``LeafValues`` source (``pokerzoo.public.subgames.depth_limit``) from a ``ValueNet``.

    Args:
        net: the value network.
        game: when given, checked now (else at each call, against the subgame's game).
    """

    def __init__(self, net: ValueNet, game: Game | None = None) -> None:
        if not isinstance(net, ValueNet):
            raise ConfigError(f"NetworkLeaves needs a ValueNet, not {type(net).__name__}")
        self.net = net
        if game is not None:
            net.spec.check_game(game)
        self.calls = 0
        """Calls answered (a count for benchmarks)."""

    def values(self, subgame: Any, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both players' counterfactual values ``[L, H0]``, ``[L, H1]`` in chips at the
        subgame's ``leaves`` (indices into ``subgame.leaves``) for these reaches."""
        spec = self.net.spec
        spec.check_game(subgame.game)
        full = subgame.small.tree
        for p, hands in enumerate((spec.hands0, spec.hands1)):
            if [tuple(int(c) for c in h) for h in subgame.tree.hands[p]] != list(hands):
                raise ConfigError(f"the subgame's hand list of player {p} is not the one the "
                                  "value net was trained on")
        nodes = np.asarray(subgame.leaf_full_nodes)[np.asarray(leaves, dtype=np.int64)]
        return self.values_at(full, nodes, np.asarray(reach0, dtype=np.float64),
                              np.asarray(reach1, dtype=np.float64))

    def values_at(self, tree: PublicTree, nodes: np.ndarray, reach0: np.ndarray,
                  reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The same at nodes of any public tree of the game (its pots, boards, hand lists)."""
        features = self.net.spec.features.features(tree, nodes)
        masks = card_masks(self.net.spec)
        board = features[:, :self.net.spec.features.num_cards].astype(bool)
        ranges, masses = [], []
        for p, reach in enumerate((reach0, reach1)):
            free = ~(board.astype(np.int64) @ masks[p].astype(np.int64)).astype(bool)
            reach = np.where(free, np.maximum(reach, 0.0), 0.0)
            mass = reach.sum(axis=1, keepdims=True)
            # An absent player's range: uniform over the hands the board leaves (its opponent's
            # values are then taken against it and weighted by no reach, as the oracle does).
            uniform = free / np.maximum(free.sum(axis=1, keepdims=True), 1)
            ranges.append(np.where(mass > 0, reach / np.where(mass > 0, mass, 1.0), uniform))
            masses.append(mass)
        device = next(self.net.parameters()).device
        with torch.no_grad():
            v0, v1 = self.net(*(torch.as_tensor(a, dtype=torch.float32, device=device)
                                for a in (features, ranges[0], ranges[1])))
        self.calls += 1
        pot = np.asarray(tree.pot, dtype=np.float64)[np.asarray(nodes)][:, None]
        return (v0.double().cpu().numpy() * pot * masses[1],
                v1.double().cpu().numpy() * pot * masses[0])
