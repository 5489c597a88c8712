"""Measures of play off the equilibrium path: total exploitability and forced deviations.

Exploitability (``pokerzoo.evaluation.exact``) only looks at what a profile does where it is
played; a Nash equilibrium may play anything at information sets it never reaches. These
measures look everywhere:

* ``total_exploitability``: at every information set of every player, on or off the path, what
  a best response in the subgame below it gains over the policy's own play there, under the
  player's belief over the set's histories. Zero (to rounding) exactly when the profile is
  sequentially rational at every information set given those beliefs (a Bayesian perfect
  equilibrium in two-player zero-sum games); the BUFP paper's "total exploitability".
* ``forced_deviation_values``: every pairing of policies in the seats, played with chosen
  information sets forced to given actions (the BUFP paper's Table 2: player 1 forced to Call
  at the first decision), as a matrix in milli-big-blinds per hand.

>>> from pokerzoo import load_game
>>> from pokerzoo.tree import build, TabularPolicy
>>> tree = build(load_game("kuhn_poker"))
>>> total_exploitability(tree, TabularPolicy.uniform(tree)).total > 0
True
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.exact import expected_values, exploitability, policy_array
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.kernels import beliefs as K
from pokerzoo.tree.kernels.arrays import tree_arrays

BELIEF_MODES = ("bayes", "uniform")
"""How beliefs are formed at information sets the others and chance never reach:
``"bayes"``: uniform there, then carried down by Bayes' rule (sets below condition on it);
``"uniform"``: uniform at every such set independently (the literal reading)."""


@dataclass(frozen=True)
class TotalExploitability:
    """Total exploitability of a profile, in chips per hand (multiply by 1000 for mbb)."""

    total: float
    """Sum of the per-infoset gains over all information sets of all players."""
    per_player: np.ndarray
    """``[num_players]``: the sum over each player's information sets."""
    mean_per_infoset: float
    """``total`` divided by the number of information sets."""
    gains: np.ndarray
    """``[num_infosets]``: each information set's gain (>= 0 up to rounding)."""


def _belief_arrays(tree: GameTree, probs: np.ndarray, beliefs: str) -> np.ndarray:
    if beliefs not in BELIEF_MODES:
        raise ConfigError(f"beliefs must be one of {BELIEF_MODES}, got {beliefs!r}")
    n = tree.num_nodes
    belief = np.zeros(n)
    K.beliefs(
        tree_arrays(tree), probs, beliefs == "bayes", np.zeros((n, tree.num_players)), belief,
        np.zeros(tree.num_infosets),
    )
    return belief


def infoset_sizes(tree: GameTree) -> np.ndarray:
    """Number of histories in each information set (``tree.infoset_sizes``, cached there)."""
    return tree.infoset_sizes


def node_beliefs(tree: GameTree, policy: object, beliefs: str = "bayes") -> np.ndarray:
    """``[num_nodes]``: the acting player's belief at each decision node (0 elsewhere)."""
    return _belief_arrays(tree, policy_array(tree, policy), beliefs)


def total_exploitability(
    tree: GameTree, policy: object, beliefs: str = "bayes"
) -> TotalExploitability:
    """Sum over all information sets of the belief-weighted best-response gain below each.

    For information set I of player i with belief b over its histories, the gain is
    ``max_a sum_h b(h) v*(h a) - sum_h b(h) v(h)``: ``v`` is i's payoff under ``policy``,
    ``v*`` under i's best response below (others keep ``policy``), chosen at each of i's later
    information sets under its own belief. Beliefs are the others' and chance's reach,
    normalised; where that is zero see ``BELIEF_MODES``.

    Args:
        tree: the compiled game.
        policy: the profile (any policy ``policy_array`` accepts).
        beliefs: ``"bayes"`` (default) or ``"uniform"``; see ``BELIEF_MODES``.
    """
    probs = policy_array(tree, policy)
    belief = _belief_arrays(tree, probs, beliefs)
    num_players = tree.num_players
    values = tree.utilities.copy()  # terminal rows stay; the kernels fill the others
    arrays = tree_arrays(tree)
    K.policy_values(arrays, probs, values)
    vstar = tree.utilities.copy()
    q_values = np.zeros(tree.infoset_mask.shape)
    K.belief_best_response(
        arrays, probs, belief, vstar, q_values, np.zeros(tree.num_infosets, dtype=np.int64)
    )
    gains = np.zeros(tree.num_infosets)
    K.infoset_gains(tree.player, tree.infoset, belief, values, q_values, tree.infoset_mask, gains)
    per_player = np.bincount(tree.infoset_player, weights=gains, minlength=num_players)
    total = float(gains.sum())
    return TotalExploitability(total, per_player, total / max(tree.num_infosets, 1), gains)


# ---------------------------------------------------------------------------------------------
# Forced deviations
# ---------------------------------------------------------------------------------------------


def first_decisions(tree: GameTree, player: int = 0) -> np.ndarray:
    """Ids of ``player``'s information sets at which it has not acted before."""
    parents, _ = K.infoset_parents(
        tree.parent, tree.player, tree.infoset, tree.action, tree.infoset_node,
        tree.infoset_player, tree.num_players,
    )
    return np.flatnonzero((tree.infoset_player == player) & (parents < 0))


def force_first_action(tree: GameTree, action: int, player: int = 0) -> dict[int, int]:
    """``{infoset: action}`` forcing ``player`` to play ``action`` at its first decision.

    The BUFP paper's Table 2 uses ``action=CALL`` (1 in Leduc), ``player=0``.
    """
    rows = first_decisions(tree, player)
    illegal = [tree.infoset_keys[i] for i in rows if not tree.infoset_mask[i, action]]
    if illegal:
        raise ConfigError(f"action {action} is illegal at first decisions {illegal[:3]}")
    return {int(i): action for i in rows}


@dataclass(frozen=True)
class PayoffTable:
    """Expected payoffs for every pairing of policies in the seats (two players)."""

    names: list[str]
    values: np.ndarray
    """``[n, n, num_players]``: payoff of each player, in mbb per hand, when the first seat
    plays ``names[i]`` and the second ``names[j]``."""

    def matrix(self, player: int = 0) -> np.ndarray:
        """``[n, n]`` payoffs of ``player`` (rows: first seat's policy, columns: second's)."""
        return self.values[:, :, player]

    def format(self, player: int = 0, title: str = "") -> str:
        """The table as text, with row and column averages (the paper's layout)."""
        m = self.matrix(player)
        width = max(10, *(len(n) + 5 for n in self.names))
        lines = [title] if title else []
        lines.append(" " * width + "".join(f"{n + ' P2':>{width}}" for n in self.names)
                     + f"{'P1 avg':>{width}}")
        for i, name in enumerate(self.names):
            cells = "".join(f"{v:>{width}.2f}" for v in m[i])
            lines.append(f"{name + ' P1':<{width}}{cells}{m[i].mean():>{width}.2f}")
        lines.append(f"{'P2 avg':<{width}}" + "".join(f"{v:>{width}.2f}" for v in m.mean(axis=0)))
        return "\n".join(lines)


def _named(profile: Mapping[str, object] | Sequence[object]) -> tuple[list[str], list[object]]:
    if isinstance(profile, Mapping):
        return [str(k) for k in profile], list(profile.values())
    return [f"policy{i}" for i in range(len(profile))], list(profile)


def forced_deviation_values(
    tree: GameTree,
    profile: Mapping[str, object] | Sequence[object],
    forced: Mapping[int | Hashable, int] | None = None,
    big_blind: float | None = None,
) -> PayoffTable:
    """Payoffs of every seat pairing of ``profile``'s policies with ``forced`` actions imposed.

    Args:
        tree: the compiled two-player game.
        profile: policies by name (or a sequence); each is a whole profile, of which the first
            seat uses player 0's rows and the second player 1's.
        forced: ``{infoset id or key: action}`` played with probability 1 whoever sits there
            (``force_first_action`` builds the paper's); ``None`` or empty: the game as it is.
        big_blind: chips per unit of the table; ``None``: the game's ``chip_unit`` (its big
            blind, else its ante).
    """
    if tree.num_players != 2:
        raise ConfigError("forced_deviation_values pairs two seats; the game has "
                         f"{tree.num_players} players")
    names, policies = _named(profile)
    arrays = [policy_array(tree, p) for p in policies]
    rows, acts = [], []
    for key, a in (forced or {}).items():
        i = key if isinstance(key, (int, np.integer)) else tree.infoset_id(key)
        if not tree.infoset_mask[i, a]:
            raise ConfigError(f"forced action {a} is illegal at {tree.infoset_keys[i]!r}")
        rows.append(int(i))
        acts.append(int(a))
    seat0 = tree.infoset_player == 0
    values = np.zeros((len(arrays), len(arrays), 2))
    for i, first in enumerate(arrays):
        for j, second in enumerate(arrays):
            probs = np.where(seat0[:, None], first, second)
            if rows:
                probs[rows] = 0.0
                probs[rows, acts] = 1.0
            values[i, j] = expected_values(tree, probs)
    unit = tree.game.chip_unit if big_blind is None else big_blind
    return PayoffTable(names, values * 1000.0 / unit)


def report(
    tree: GameTree,
    policies: Mapping[str, object],
    forced: Mapping[int | Hashable, int] | None = None,
    big_blind: float | None = None,
) -> str:
    """Printable summary: exploitability and total exploitability per policy (mbb/hand), the
    initial-node payoff table and, with ``forced``, the forced-deviation table."""
    big_blind = tree.game.chip_unit if big_blind is None else big_blind
    scale = 1000.0 / big_blind
    lines = [f"{'policy':<16}{'exploitability':>16}{'total expl.':>14}"
             f"{'total P1':>12}{'total P2':>12}{'mean/infoset':>14}   (mbb/hand)"]
    for name, policy in policies.items():
        tot = total_exploitability(tree, policy)
        pp = tot.per_player * scale
        lines.append(
            f"{name:<16}{exploitability(tree, policy) * scale:>16.3f}{tot.total * scale:>14.3f}"
            f"{pp[0]:>12.3f}{pp[-1]:>12.3f}{tot.mean_per_infoset * scale:>14.5f}"
        )
    if tree.num_players == 2:
        lines += ["", forced_deviation_values(tree, policies, None, big_blind).format(
            0, "Payoff of P1 (first seat) at the initial node, mbb/hand")]
        if forced:
            lines += ["", forced_deviation_values(tree, policies, forced, big_blind).format(
                0, "Payoff of P1 with the forced deviation, mbb/hand")]
    return "\n".join(lines)
