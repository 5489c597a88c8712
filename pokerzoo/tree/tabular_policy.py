"""A policy as one row of action probabilities per information set."""

from __future__ import annotations

import ast
import io
import json
import os
import zipfile
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.games.base import State
from pokerzoo.tree.kernels.policy_check import first_invalid_row


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
            raise ConfigError(
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
        """Wrap an ``[num_infosets, num_actions]`` array of weights aligned with ``tree``.

        For solvers' cumulative weights: rows are masked to legal actions and renormalised; an
        all-zero row (an information set never reached) becomes uniform; a non-finite weight
        raises ``InvalidPolicyError``. Evaluators check policies strictly instead
        (``checked_rows``).
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
            InvalidPolicyError: if the tree has an information set the policy does not cover.
        """
        if self.keys == tree.infoset_keys:
            return self.probs
        rows = np.empty(tree.num_infosets, dtype=np.int64)
        for i, key in enumerate(tree.infoset_keys):
            row = self.key_to_row.get(key)
            if row is None:
                raise InvalidPolicyError(
                    f"policy does not cover information set {key!r} of the tree "
                    f"({tree.game!r}); was it computed for another game?"
                )
            rows[i] = row
        return self.probs[rows]

    # Persistence -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write ``.npz`` atomically (``pokerzoo.atomic``: a temporary file renamed over the
        path, which must be new or a regular file; a link or a device there is refused)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = json.dumps({"game_name": self.game_name, "game_params": self.game_params})
        buffer = io.BytesIO()  # a policy is small next to the tree it was made on
        np.savez_compressed(
            buffer,
            probs=self.probs,
            mask=self.mask,
            keys=np.asarray([repr(k) for k in self.keys]),
            meta=np.asarray(meta),
        )
        write_atomically(path, buffer.getvalue(), what="policy")

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
            raise ConfigError(f"{path} is not a readable pokerzoo policy file: {exc}") from exc


ROW_SUM_ATOL = 1e-6
"""How far from 1 a row of a policy may sum over its legal actions (float32 networks)."""


def normalise_rows(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mask rows to legal actions and make them sum to 1 (uniform where a row sums to 0).

    For solvers' cumulative weights (an information set never reached has weight 0 and plays
    uniformly); a non-finite weight is a bug upstream and raises ``InvalidPolicyError``.
    """
    probs = np.asarray(probs, dtype=np.float64)
    bad = ~np.isfinite(probs) & mask
    if bad.any():
        i, a = np.argwhere(bad)[0]
        raise InvalidPolicyError(
            f"weight {float(probs[i, a])} for action {a} in row {i} is not finite; "
            "policy weights must be finite numbers"
        )
    p = np.where(mask, np.maximum(probs, 0.0), 0.0)
    totals = p.sum(axis=1, keepdims=True)
    uniform = mask / mask.sum(axis=1, keepdims=True)
    return np.where(totals > 0, p / np.where(totals > 0, totals, 1.0), uniform)


def checked_rows(
    probs: np.ndarray, mask: np.ndarray, keys: Sequence[Hashable], atol: float = ROW_SUM_ATOL
) -> np.ndarray:
    """``probs`` as a float64 array, after checking that it is a policy.

    The checks run over the whole table at once: every entry finite and non-negative, no
    probability on an action ``mask`` marks illegal, and each row summing to 1 within ``atol``
    over its legal actions. Rows are returned as given (not rescaled), so a valid policy
    scores exactly as it did before the check.

    Raises:
        InvalidPolicyError: naming the first offending information set (row order) and what
            was wrong with it.
    """
    raw = np.asarray(probs)
    if raw.shape != mask.shape:
        raise InvalidPolicyError(
            f"policy array has shape {raw.shape}; the tree needs {mask.shape} "
            "(one row per information set, one column per action)"
        )
    if raw.dtype.kind not in "biuf":
        raise InvalidPolicyError(f"policy entries must be real numbers, got dtype {raw.dtype}")
    p = raw.astype(np.float64)
    # One compiled pass finds whether any row is bad (the common case: none); the vectorised
    # diagnosis below only runs to name what is wrong with it.
    if first_invalid_row(p, np.ascontiguousarray(mask, dtype=np.bool_), atol) < 0:
        return p
    with np.errstate(invalid="ignore"):
        nonfinite = ~np.isfinite(p)
        negative = p < 0
        illegal = (p != 0) & ~mask
        sums = np.where(mask, p, 0.0).sum(axis=1)
        off = ~(np.abs(sums - 1.0) <= atol)
    bad_row = nonfinite.any(axis=1) | negative.any(axis=1) | illegal.any(axis=1) | off
    if not bad_row.any():
        return p
    i = int(np.flatnonzero(bad_row)[0])
    where = f"information set {keys[i]!r} (row {i})"
    legal = np.flatnonzero(mask[i]).tolist()
    if nonfinite[i].any():
        a = int(np.flatnonzero(nonfinite[i])[0])
        what = f"the probability of action {a} is {float(p[i, a])}; probabilities must be finite"
    elif negative[i].any():
        a = int(np.flatnonzero(negative[i])[0])
        what = f"the probability of action {a} is {float(p[i, a])}; probabilities must be >= 0"
    elif illegal[i].any():
        a = int(np.flatnonzero(illegal[i])[0])
        what = (f"illegal action {a} has probability {float(p[i, a])}; only the legal actions "
                f"{legal} may have any")
    else:
        what = (f"the probabilities of the legal actions {legal} sum to {float(sums[i])}; "
                f"they must sum to 1 (within {atol:g})")
    raise InvalidPolicyError(f"invalid policy at {where}: {what}")
