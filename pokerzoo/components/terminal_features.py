"""Input encodings of an unknown game's terminals, for reward models such as VCFR's BNN.

Rows follow the terminal index of ``ModelStructure`` (``structure.terminal_histories``), so a
reward model reads ``features[terminal]``. Two encodings (``kind``):

* ``"pca6"``, the VCFR paper's: "one-hot encoding of nodes ... reduced by PCA to 6 dimensions".
  A one-hot of the terminal *index* would be useless under PCA (the centred identity matrix
  has equal variance in every direction, so the 6 kept directions are arbitrary and most
  terminals land near the origin); we read it as the one-hot of the terminal's *history*, one
  block of ``num_actions`` per step (chance outcomes included, zero blocks after the end),
  projected on its ``dims`` leading principal directions (numpy SVD) and standardised.
* ``"info_state"``: both players' information-state tensors at the terminal (their cards, the
  board and the betting, in the base game's declared layout) and the history one-hot,
  concatenated; constant columns dropped, the rest standardised. Richer: distinct terminals
  get distinct inputs, which a 6-dimensional projection of thousands of terminals cannot
  promise (``pokerzoo.components.bnn`` reports which fits better).

Encodings are computed once per (structure, kind, dims) and cached; arrays are read-only.

>>> from pokerzoo import load_game
>>> structure = load_game("unknown_kuhn_poker").structure
>>> terminal_features(structure).shape
(30, 6)
>>> terminal_features(structure, "info_state").shape[0]
30
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import TERMINAL, State
from pokerzoo.games.unknown.model import ModelStructure

FEATURE_KINDS = ("pca6", "info_state")
"""The encodings ``terminal_features`` builds."""


def terminal_features(structure: ModelStructure, kind: str = "pca6", dims: int = 6) -> np.ndarray:
    """``[num_terminals, d]`` float32 encoding of every terminal (read-only, cached).

    Args:
        structure: the unknown game's ``ModelStructure`` (``game.structure``).
        kind: ``"pca6"`` (``d = dims``) or ``"info_state"`` (``d`` set by the game).
        dims: principal components kept by ``"pca6"`` (ignored by ``"info_state"``).

    Raises:
        ConfigError: for an unknown ``kind`` or ``dims`` outside ``1..`` the one-hot's width.
    """
    if kind not in FEATURE_KINDS:
        raise ConfigError(f"unknown terminal encoding {kind!r}; allowed: {list(FEATURE_KINDS)}")
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise ConfigError(f"dims must be a positive int, got {dims!r}")
    if kind == "info_state":
        dims = 0  # unused: one cache entry whatever dims says
    return _cached(structure, kind, dims)


@lru_cache(maxsize=16)
def _cached(structure: ModelStructure, kind: str, dims: int) -> np.ndarray:
    onehot = history_onehot(structure)
    if kind == "pca6":
        if dims > onehot.shape[1]:
            raise ConfigError(
                f"dims={dims} exceeds the history one-hot's width {onehot.shape[1]}; "
                f"allowed: 1..{onehot.shape[1]}"
            )
        features = _pca(onehot, dims)
    else:
        features = np.concatenate([_info_state_tensors(structure), onehot], axis=1)
        features = features[:, features.std(axis=0) > 1e-12]  # constant columns carry nothing
    features = (features - features.mean(axis=0)) / np.maximum(features.std(axis=0), 1e-12)
    out = np.ascontiguousarray(features, dtype=np.float32)
    out.flags.writeable = False
    return out


def history_onehot(structure: ModelStructure) -> np.ndarray:
    """``[num_terminals, max_length * num_actions]`` one-hot of each terminal's history.

    ``num_actions`` covers player actions and chance outcomes (a dealt card is an action id too).
    """
    histories = structure.terminal_histories
    length = max(len(h) for h in histories)
    width = 1 + max(max(h) for h in histories if h)
    # One flat scatter: row t, column step * width + action.
    rows = np.repeat(np.arange(len(histories)), [len(h) for h in histories])
    steps = np.concatenate([np.arange(len(h)) for h in histories])
    actions = np.fromiter((a for h in histories for a in h), dtype=np.int64, count=len(rows))
    onehot = np.zeros((len(histories), length * width))
    onehot[rows, steps * width + actions] = 1.0
    return onehot


def _pca(x: np.ndarray, dims: int) -> np.ndarray:
    centred = x - x.mean(axis=0)
    # Thin SVD: the right singular vectors are the principal directions, largest first.
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    # Fix each direction's sign (largest loading positive) so results do not hinge on LAPACK.
    signs = np.sign(vt[np.arange(dims), np.abs(vt[:dims]).argmax(axis=1)])
    return centred @ (vt[:dims].T * signs)


def _info_state_tensors(structure: ModelStructure) -> np.ndarray:
    """Both players' information-state tensors at every terminal, by terminal index."""
    game = structure.base_game
    index = structure.terminal_index
    rows: list[np.ndarray | None] = [None] * structure.num_terminals
    # One depth-first walk (children built once each), as ModelStructure builds itself.
    stack: list[tuple[tuple[int, ...], State]] = [((), game.new_initial_state())]
    while stack:
        history, state = stack.pop()
        if state.current_player() == TERMINAL:
            rows[index[history]] = np.concatenate(
                [np.asarray(state.information_state_tensor(p), dtype=np.float64)
                 for p in range(structure.num_players)]
            )
            continue
        children = (
            [a for a, _ in state.chance_outcomes()] if state.is_chance_node()
            else state.legal_actions()
        )
        stack.extend(((*history, a), state.child(a)) for a in children)
    return np.stack(rows)  # type: ignore[arg-type]
