"""A policy as one row of action probabilities per information set."""

from __future__ import annotations

import ast
import json
import os
import tempfile
import zipfile
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from pokerzoo.games.base import State


class TabularPolicy:
    """Action probabilities ``[num_infosets, num_actions]`` over a fixed list of infoset keys.

    Rows are zero outside the legal-action ``mask`` and sum to 1. The policy answers
    ``action_probabilities(state)`` (the state-policy protocol), so it can act in envs and be
    played in matches; its rows line up with a ``GameTree``'s information sets when built from
    one (``TabularPolicy.uniform(tree)``).

    >>> from pokerzoo import load_game
    >>> from pokerzoo.tree import build
    >>> tree = build(load_game("kuhn_poker"))
    >>> policy = TabularPolicy.uniform(tree)
    >>> policy.probs.shape
    (12, 2)
    """

    def __init__(
        self,
        keys: Sequence[Hashable],
        probs: np.ndarray,
        mask: np.ndarray,
        game_name: str = "",
        game_params: dict | None = None,
    ) -> None:
        probs = np.asarray(probs, dtype=np.float64)
        mask = np.asarray(mask, dtype=bool)
        if probs.shape != mask.shape or probs.ndim != 2 or len(keys) != probs.shape[0]:
            raise ValueError(
                f"keys ({len(keys)}), probs {probs.shape} and mask {mask.shape} do not line up"
            )
        self.keys = list(keys)
        self.key_to_row = {k: i for i, k in enumerate(self.keys)}
        self.probs = probs
        self.mask = mask
        self.game_name = game_name
        self.game_params = dict(game_params or {})

    # Construction ------------------------------------------------------------------------------

    @classmethod
    def uniform(cls, tree) -> TabularPolicy:
        """The uniform policy over each information set's legal actions."""
        mask = tree.infoset_mask
        probs = mask / mask.sum(axis=1, keepdims=True)
        return cls(tree.infoset_keys, probs, mask, tree.game.name, tree.game.params())

    @classmethod
    def from_tree(cls, tree, probs: np.ndarray) -> TabularPolicy:
        """Wrap an ``[num_infosets, num_actions]`` array aligned with ``tree``'s infosets.

        Rows are masked to legal actions and renormalised; an all-zero row becomes uniform.
        """
        return cls(
            tree.infoset_keys,
            normalise_rows(probs, tree.infoset_mask),
            tree.infoset_mask,
            tree.game.name,
            tree.game.params(),
        )

    def copy(self) -> TabularPolicy:
        return TabularPolicy(
            self.keys, self.probs.copy(), self.mask.copy(), self.game_name, self.game_params
        )

    # Queries ---------------------------------------------------------------------------------

    def row(self, key: Hashable) -> np.ndarray:
        """The probability row of information state ``key``."""
        try:
            return self.probs[self.key_to_row[key]]
        except KeyError:
            raise KeyError(f"information state {key!r} is not covered by this policy") from None

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        """``{action: probability}`` over the legal actions of ``state``'s acting player."""
        row = self.row(state.information_state_key(player))
        return {a: float(row[a]) for a in state.legal_actions()}

    def aligned_to(self, tree) -> np.ndarray:
        """This policy's rows in ``tree``'s infoset order (an ``[n_infosets, n_actions]`` array).

        Raises:
            KeyError: if the tree has an information set the policy does not cover.
        """
        if self.keys == tree.infoset_keys:
            return self.probs
        rows = np.empty(tree.num_infosets, dtype=np.int64)
        for i, key in enumerate(tree.infoset_keys):
            row = self.key_to_row.get(key)
            if row is None:
                raise KeyError(f"policy does not cover information state {key!r} of the tree")
            rows[i] = row
        return self.probs[rows]

    # Persistence -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write ``.npz`` atomically (temporary file, then rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = json.dumps({"game_name": self.game_name, "game_params": self.game_params})
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez_compressed(
                    fh,
                    probs=self.probs,
                    mask=self.mask,
                    keys=np.asarray([repr(k) for k in self.keys]),
                    meta=np.asarray(meta),
                )
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike) -> TabularPolicy:
        """Read a policy written by ``save``; a corrupt file raises ``ValueError`` saying so."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no policy file at {path}")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                keys = [ast.literal_eval(k) for k in data["keys"]]
                probs, mask = data["probs"], data["mask"]
                return cls(keys, probs, mask, meta["game_name"], meta["game_params"])
        except (OSError, KeyError, ValueError, SyntaxError, zipfile.BadZipFile, EOFError) as exc:
            raise ValueError(f"{path} is not a readable pokerzoo policy file: {exc}") from exc


def normalise_rows(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mask rows to legal actions and make them sum to 1 (uniform where a row sums to 0)."""
    p = np.where(mask, np.maximum(probs, 0.0), 0.0)
    totals = p.sum(axis=1, keepdims=True)
    uniform = mask / mask.sum(axis=1, keepdims=True)
    return np.where(totals > 0, p / np.where(totals > 0, totals, 1.0), uniform)
