"""Exact expected values, best responses, NashConv and exploitability on a compiled tree.

Every function takes a ``GameTree`` and a policy: a ``TabularPolicy``, an ``[n_infosets,
n_actions]`` array aligned with the tree, an agent (its ``policy()`` is scored), or anything
answering ``action_probabilities(state)`` (which is tabularised first). Policies are checked
before anything is computed (``policy_array``): an array of zeros, NaN, negative entries, rows
not summing to one or mass on illegal actions raise ``InvalidPolicyError``.

Values sweep the tree's flat arrays (one forward pass for reach probabilities, one reverse
pass per depth); best responses and NashConv use the tree's sequence form (one pass over the
merged terminal payoffs, one bottom-up pass over infosets), compiled with numba. The history
sweep for best responses stays as an independent check in the tests.

Conventions: ``exploitability = nash_conv / num_players`` (OpenSpiel's). The VCFR and PSRLCFR
papers report the *sum* of the best-response gains, i.e. ``nash_conv``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numba
import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.arguments import is_int, player_arg
from pokerzoo.games.base import CHANCE, TERMINAL
from pokerzoo.policy import StatePolicy, as_state_policy, policy_of
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.sequence_form import fill_realization
from pokerzoo.tree.tabular_policy import TabularPolicy, checked_rows, normalise_rows


def policy_array(tree: GameTree, policy: object) -> np.ndarray:
    """The policy as a checked ``[n_infosets, n_actions]`` float64 array in ``tree``'s order.

    ``policy`` is an array aligned with the tree, a ``TabularPolicy``, an agent (its
    ``policy()`` is scored), a state policy or a callable (tabularised). Every evaluator runs
    through here, so none scores something that is not a policy.

    Raises:
        InvalidPolicyError: if it is not a policy of ``tree``'s game: a non-finite or negative
            entry, probability on an illegal action, or a row not summing to 1 (the error names
            the first such information set); or a ``TabularPolicy`` of another game.
        ConfigError: if ``policy`` is none of the kinds above, or ``tree`` is not a tree.
    """
    if not isinstance(tree, GameTree):
        raise ConfigError(
            f"evaluators take a GameTree (pokerzoo.tree.build(game)) first, got {tree!r}"
        )
    policy = policy_of(policy)
    if isinstance(policy, np.ndarray):
        probs = policy
    elif isinstance(policy, TabularPolicy):
        probs = policy.aligned_to(tree)
    else:
        return tabularize(tree, policy).probs
    return checked_rows(probs, tree.infoset_mask, tree.infoset_keys)


def tabularize(tree: GameTree, policy: object) -> TabularPolicy:
    """The policy on every information set of ``tree`` as a checked ``TabularPolicy``.

    A state policy is asked for its action probabilities at one state of each information set
    (a policy with a batched ``tabular(tree)`` method, such as NFSP's network policy, answers
    all at once). Nothing is filled in: a row with no probability, NaN, negative entries or
    mass on illegal actions raise ``InvalidPolicyError`` naming the information set.
    """
    policy = policy_of(policy)
    if isinstance(policy, np.ndarray | TabularPolicy):
        probs = policy_array(tree, policy)
    else:
        batched = getattr(policy, "tabular", None)
        if callable(batched):
            table = batched(tree)
            if not isinstance(table, TabularPolicy):
                raise InvalidPolicyError(
                    f"{type(policy).__name__}.tabular(tree) returned a {type(table).__name__}, "
                    "not a TabularPolicy"
                )
            probs = policy_array(tree, table)
        else:
            probs = checked_rows(
                _ask_every_infoset(tree, as_state_policy(policy)), tree.infoset_mask,
                tree.infoset_keys,
            )
    return TabularPolicy(
        tree.infoset_keys, probs, tree.infoset_mask, tree.game.name, tree.game.params()
    )


def _ask_every_infoset(tree: GameTree, state_policy: StatePolicy) -> np.ndarray:
    """``[n_infosets, n_actions]``: the policy's answer at one state of each information set
    (unchecked but for the action ids, which must index the table)."""
    probs = np.zeros(tree.infoset_mask.shape, dtype=np.float64)
    num_actions = tree.infoset_mask.shape[1]
    for i in range(tree.num_infosets):
        answer = state_policy.action_probabilities(tree.infoset_state(i))
        if not isinstance(answer, Mapping):
            raise InvalidPolicyError(
                f"action_probabilities at information set {tree.infoset_keys[i]!r} returned a "
                f"{type(answer).__name__}; it must return {{action: probability}}"
            )
        for a, p in answer.items():
            if not (is_int(a) and 0 <= a < num_actions):
                raise InvalidPolicyError(
                    f"action_probabilities at information set {tree.infoset_keys[i]!r} names "
                    f"action {a!r}; actions are integers in [0, {num_actions})"
                )
            try:
                probs[i, a] = p
            except (TypeError, ValueError):
                raise InvalidPolicyError(
                    f"action_probabilities at information set {tree.infoset_keys[i]!r} gives "
                    f"action {a} the probability {p!r}; probabilities are real numbers"
                ) from None
    return probs


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _reach(parent, player, infoset, action, chance_prob, probs, num_players):
    """``reach[n, q]``: product of player ``q``'s probabilities to ``n`` (q = P is chance)."""
    n = parent.shape[0]
    reach = np.ones((n, num_players + 1))
    for node in range(1, n):
        par = parent[node]
        for q in range(num_players + 1):
            reach[node, q] = reach[par, q]
        owner = player[par]
        if owner == CHANCE:
            reach[node, num_players] *= chance_prob[node]
        else:
            reach[node, owner] *= probs[infoset[par], action[node]]
    return reach


@numba.njit(cache=True)
def _expected_values(parent, player, infoset, action, chance_prob, probs, utilities):
    n, num_players = utilities.shape
    values = utilities.copy()
    for node in range(n - 1, 0, -1):
        par = parent[node]
        owner = player[par]
        if owner == CHANCE:
            w = chance_prob[node]
        else:
            w = probs[infoset[par], action[node]]
        for q in range(num_players):
            values[par, q] += w * values[node, q]
    return values[0]


# Not cached: it calls ``fill_realization`` of ``pokerzoo.tree.sequence_form``, and numba's cache
# of a kernel is invalidated only when the kernel's own file changes.
@numba.njit
def _sequence_best_responses(
    player_infosets, player_offsets, parent_sequence, infoset_mask, payoff_sequences,
    payoff_coef, sigma_flat,
):
    """Each player's best-response value, pure best action per infoset, and on-policy value.

    Sequence form (see ``pokerzoo.tree.sequence_form``): the others' realization plans weight
    the merged terminal payoffs into ``q`` of the responder's sequences, then a bottom-up pass
    over the responder's infosets keeps the best action's ``q`` and adds it to the parent
    sequence; the empty sequence ends with the best-response value. Ties go to the lowest action.
    """
    num_players = player_offsets.shape[0] - 1
    num_infosets, num_actions = infoset_mask.shape
    empty = num_infosets * num_actions
    x = np.zeros(empty + 1)
    x[empty] = 1.0
    for r in range(num_players):
        fill_realization(
            player_infosets[player_offsets[r] : player_offsets[r + 1]], parent_sequence,
            sigma_flat, num_actions, x,
        )
    q = np.zeros(empty + 1)
    br_values = np.zeros(num_players)
    on_policy = np.zeros(num_players)
    best_action = np.zeros(num_infosets, dtype=np.int64)
    for p in range(num_players):
        q[:] = 0.0
        for k in range(payoff_sequences.shape[0]):
            value = payoff_coef[p, k]
            for r in range(num_players):
                if r != p:
                    value *= x[payoff_sequences[k, r]]
            own = payoff_sequences[k, p]
            q[own] += value
            on_policy[p] += value * x[own]
        for k in range(player_offsets[p + 1] - 1, player_offsets[p] - 1, -1):
            iset = player_infosets[k]
            row = iset * num_actions
            best = -1
            for a in range(num_actions):
                if infoset_mask[iset, a] and (best < 0 or q[row + a] > q[row + best]):
                    best = a
            best_action[iset] = best
            q[parent_sequence[iset]] += q[row + best]
        br_values[p] = q[empty]
    return br_values, best_action, on_policy


@numba.njit(cache=True)
def _best_responses(
    player, infoset, action, first_child, num_children, depth_offsets, utilities, reach,
    infoset_mask, num_infosets,
):
    """Each player's best-response value and pure best-response action per infoset.

    ``cfv[n, i]`` is player ``i``'s counterfactual value of ``n`` under the best response:
    the others' (and chance's) reach times ``i``'s payoff, summed below ``n``.
    """
    n, num_players = utilities.shape
    num_actions = infoset_mask.shape[1]
    cfv = np.zeros((n, num_players))
    q_values = np.zeros((num_infosets, num_actions))
    best_action = np.zeros(num_infosets, dtype=np.int64)
    for d in range(depth_offsets.shape[0] - 2, -1, -1):
        lo = depth_offsets[d]
        hi = depth_offsets[d + 1]
        for node in range(lo, hi):
            p = player[node]
            if p == TERMINAL:
                for i in range(num_players):
                    others = 1.0
                    for q in range(num_players + 1):
                        if q != i:
                            others *= reach[node, q]
                    cfv[node, i] = others * utilities[node, i]
                continue
            c0 = first_child[node]
            c1 = c0 + num_children[node]
            for i in range(num_players):
                if i == p:
                    iset = infoset[node]
                    for c in range(c0, c1):
                        q_values[iset, action[c]] += cfv[c, i]
                else:
                    total = 0.0
                    for c in range(c0, c1):
                        total += cfv[c, i]
                    cfv[node, i] = total
        # Choose each infoset's best action once all its histories have contributed.
        for node in range(lo, hi):
            p = player[node]
            if p < 0:
                continue
            iset = infoset[node]
            best = -1
            for a in range(num_actions):
                if infoset_mask[iset, a] and (best < 0 or q_values[iset, a] > q_values[iset, best]):
                    best = a
            best_action[iset] = best
            for c in range(first_child[node], first_child[node] + num_children[node]):
                if action[c] == best:
                    cfv[node, p] = cfv[c, p]
    return cfv[0], best_action


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def reach_probabilities(tree: GameTree, policy: object) -> np.ndarray:
    """``[num_nodes, num_players + 1]`` reach of each player (last column: chance)."""
    probs = policy_array(tree, policy)
    return _reach(
        tree.parent, tree.player, tree.infoset, tree.action, tree.chance_prob, probs,
        tree.num_players,
    )


def expected_values(tree: GameTree, policy: object) -> np.ndarray:
    """Each player's expected payoff when everyone plays ``policy``."""
    probs = policy_array(tree, policy)
    return _expected_values(
        tree.parent, tree.player, tree.infoset, tree.action, tree.chance_prob, probs,
        tree.utilities,
    )


@dataclass(frozen=True)
class BestResponse:
    """A player's best response to the others' policy."""

    player: int
    value: float
    """The best responder's expected payoff."""
    policy: TabularPolicy
    """``policy`` with the best responder's rows replaced by the pure best response."""


def _all_best_responses(
    tree: GameTree, probs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best-response values, best actions and on-policy values, from the sequence form."""
    form = tree.sequence_form
    return _sequence_best_responses(
        form.player_infosets, form.player_offsets, form.parent_sequence, tree.infoset_mask,
        form.payoff_sequences, form.payoff_coef, probs.reshape(-1),
    )


def best_actions_for_payoffs(
    tree: GameTree, payoff_coef: np.ndarray, probs: np.ndarray | None = None
) -> np.ndarray:
    """Every player's pure best action at each of its information sets, for the payoffs
    ``payoff_coef`` (``[num_players, num_entries]`` over ``tree.sequence_form``'s entries) against
    the others playing ``probs`` (``None``: every action with weight 1, so that payoffs that
    already hold the others' reach, as PSRLCFR's accumulated terms do, are maximised as they are).

    Returns:
        ``[num_infosets]`` the best action of each information set for its owner.
    """
    form = tree.sequence_form
    weights = tree.infoset_mask.astype(np.float64) if probs is None else np.asarray(probs)
    _, best, _ = _sequence_best_responses(
        form.player_infosets, form.player_offsets, form.parent_sequence, tree.infoset_mask,
        form.payoff_sequences, np.asarray(payoff_coef, dtype=np.float64),
        np.ascontiguousarray(weights, dtype=np.float64).reshape(-1),
    )
    result: np.ndarray = best
    return result


def _history_best_responses(tree: GameTree, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same best responses by a sweep over histories (kept as an independent check)."""
    reach = _reach(
        tree.parent, tree.player, tree.infoset, tree.action, tree.chance_prob, probs,
        tree.num_players,
    )
    return _best_responses(
        tree.player, tree.infoset, tree.action, tree.first_child, tree.num_children,
        tree.depth_offsets, tree.utilities, reach, tree.infoset_mask, tree.num_infosets,
    )


def best_response(tree: GameTree, policy: object, player: int) -> BestResponse:
    """The best response of ``player`` against the others playing ``policy``."""
    player = player_arg(player, tree.num_players)
    probs = policy_array(tree, policy)
    values, best, _ = _all_best_responses(tree, probs)
    response = probs.copy()
    rows = tree.infosets_of(player)
    response[rows] = 0.0
    response[rows, best[rows]] = 1.0
    return BestResponse(player, float(values[player]), TabularPolicy.from_tree(tree, response))


def best_response_values(tree: GameTree, policy: object) -> np.ndarray:
    """Each player's best-response value against the others playing ``policy``."""
    return _all_best_responses(tree, policy_array(tree, policy))[0]


def nash_conv(tree: GameTree, policy: object) -> float:
    """Sum over players of what a best response gains over ``policy``'s own value."""
    br_values, _, on_policy = _all_best_responses(tree, policy_array(tree, policy))
    return float(np.sum(br_values - on_policy))


def exploitability(tree: GameTree, policy: object) -> float:
    """``nash_conv / num_players`` (OpenSpiel's convention; papers on VCFR report NashConv)."""
    return nash_conv(tree, policy) / tree.num_players


def uniform_policy_array(tree: GameTree) -> np.ndarray:
    """The uniform policy as an array aligned with ``tree``."""
    return normalise_rows(np.zeros(tree.infoset_mask.shape), tree.infoset_mask)


def to_milli_big_blinds(chips: float, big_blind: float = 1.0) -> float:
    """Chips per game to milli-big-blinds per game (mbb/g); pass the game's ``chip_unit``."""
    return 1000.0 * chips / big_blind
