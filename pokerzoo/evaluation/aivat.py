"""AIVAT: unbiased, low-variance scores of played hands, from a value function and the known
strategies of some of the players.

Burch, Schmid, Moravčík, Morrill and Bowling, "AIVAT: A New Variance Reduction Technique for
Agent Evaluation in Imperfect Information Games", AAAI 2018 (arXiv:1612.06915).

For a hand played to its end with every card known afterwards (a full-information history
``z``), the AIVAT score of each player is its payoff minus one *correction term* per node
``h`` on the way to ``z`` where the actor's distribution ``sigma(.|h)`` is known:

    corrected(z) = payoff(z) - sum over corrected h < z of [ u(h a) - sum_b sigma(b|h) u(h b) ]

with ``a`` the action taken at ``h`` and ``u`` any *value function* (each player's estimated
chips from a history). Corrected nodes are:

* **chance nodes**: every card dealt (``sigma`` from ``chance_outcomes()``), hole cards and
  public cards alike;
* **the decisions of a player whose strategy is known**: ``sigma`` is the distribution that
  player sampled its action from at ``h`` (a pokerzoo agent's own probabilities, recorded while
  it played, or asked again from its policy when a logged hand is scored later).

An outside player's decisions are never corrected; a known player may be corrected at some of
its decisions only (``None`` where its probabilities are not known).

**Why it is unbiased, and what may be estimated.** Given ``h``, the term has expectation
``sum_a sigma(a|h) u(h a) - sum_b sigma(b|h) u(h b) = 0`` when ``a`` is drawn from
``sigma(.|h)``; so the expected score is the expected payoff, whatever ``u`` is, provided
(1) ``sigma`` is exactly the distribution the action was drawn from (a known player's true
probabilities, chance's true probabilities), (2) whether ``h`` is corrected depends on ``h``
only, not on the action taken there, and (3) ``u`` is fixed before the hands it scores are
seen (a function of the history alone, deterministic, not fitted to the evaluation data:
tuning ``u`` on the data it scores can make the variance look as small as one likes).
``u`` itself may be anything: exact values, a solver's estimates, a heuristic. The better it
predicts the payoff, the more variance the terms cancel: with the exact values of the profile
being played and every player known, the score is the exact expected value on every hand.

This implementation scores full-information histories: the paper also shows how to average
the known players' private cards out when only the unknown player's view is kept
("imaginary observations"); pokerzoo's dealers and matches log every card, so the simpler
full-information estimator applies. Values are per player and chips per hand.

>>> from pokerzoo.games import load_game
>>> from pokerzoo.policy import UniformRandomPolicy
>>> from pokerzoo.tree import build
>>> game = load_game("kuhn_poker")
>>> tree = build(game)
>>> uniform = UniformRandomPolicy()
>>> values = tree_values(tree, [uniform, uniform])
>>> score = score_hand(game, [0, 1, 1, 1], values, known_probabilities(
...     game, [0, 1, 1, 1], [uniform, uniform]))
>>> score.raw.tolist(), [round(float(v), 12) for v in score.corrected]
([-2.0, 2.0], [0.125, -0.125])

Here both strategies are known and ``u`` is the profile's exact value, so the hand scores the
game's exact value (``expected_values``: +0.125 to the first player) instead of its -2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numba
import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.arguments import count_arg, seed_arg
from pokerzoo.evaluation.exact import policy_array
from pokerzoo.evaluation.head_to_head import Z95, deal_rng, match_entropy, sample_action
from pokerzoo.games.base import CHANCE, Game, State
from pokerzoo.parallel import Executor, deal_ranges, run_map
from pokerzoo.policy import StatePolicy, as_state_policy
from pokerzoo.tree.game_tree import GameTree

Probabilities = Mapping[int, float]


@runtime_checkable
class ValueFunction(Protocol):
    """Each player's estimated chips from full-information states (AIVAT's ``u``).

    ``values(states)`` returns ``[len(states), num_players]`` floats. It must be a fixed
    function of the state (deterministic; any sampling seeded from the state itself), chosen
    before the hands it scores are seen. It is called with every child of a corrected node at
    once, so batch it.
    """

    def values(self, states: Sequence[State]) -> np.ndarray: ...


ValueSource = ValueFunction | Callable[[Sequence[StatePolicy]], ValueFunction]
"""A value function, or a function of the seats' policies that makes one (so that exact values
can follow the profile of each seat rotation of a match)."""


# ---------------------------------------------------------------------------------------------
# Scoring one hand
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandScore:
    """One hand scored by AIVAT (each array ``[num_players]``, chips)."""

    raw: np.ndarray
    """The payoffs."""
    corrected: np.ndarray
    """``raw - chance_terms - decision_terms``: the AIVAT score."""
    chance_terms: np.ndarray
    """The sum of the correction terms at chance nodes."""
    decision_terms: np.ndarray
    """The sum of the correction terms at the known players' decisions."""
    corrected_nodes: int
    """How many nodes of the hand were corrected."""


def correction_terms(
    state: State, probabilities: Probabilities, value: ValueFunction
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The correction term of each action at ``state``, whose actor plays ``probabilities``.

    Returns:
        ``(actions, terms, probs)``: ``terms[i] = u(state + actions[i]) - sum_b p_b u(state + b)``
        (``[len(actions), num_players]``), the term AIVAT subtracts when ``actions[i]`` is
        taken; ``probs`` the normalised probabilities. ``probs @ terms`` is zero up to rounding
        (the control variate's mean).
    """
    actions = [int(a) for a, p in probabilities.items() if p > 0]
    probs = np.array([float(probabilities[a]) for a in actions])
    total = probs.sum()
    if not actions or not (math.isfinite(total) and total > 0):
        raise InvalidPolicyError(f"AIVAT needs a distribution with positive mass at history "
                                 f"{state.history()}, got {dict(probabilities)}")
    probs = probs / total
    children = [state.child(a) for a in actions]
    u = np.asarray(value.values(children), dtype=np.float64)
    n = state.game.num_players
    if u.shape != (len(children), n) or not np.isfinite(u).all():
        raise ConfigError(f"a value function must return finite [{len(children)}, {n}] values "
                          f"for {len(children)} states, got shape {u.shape}")
    return actions, u - probs @ u, probs


def score_hand(
    game: Game,
    history: Sequence[int],
    value: ValueFunction,
    probabilities: Sequence[Probabilities | None],
    *,
    chance: bool = True,
) -> HandScore:
    """The AIVAT score of a finished hand.

    Args:
        game: the game the hand was played in.
        history: every action id of the hand, chance outcomes included (``state.history()``;
            the ``history:`` line of a plain-text hand log).
        value: the value function ``u``.
        probabilities: one entry per step of ``history``: at a decision, the distribution the
            actor drew its action from when its strategy is known, else ``None`` (not
            corrected); at chance nodes the entry is ignored (the game's own
            ``chance_outcomes()`` are used). ``known_probabilities`` fills it from policies.
        chance: correct at chance nodes (default); ``False`` corrects decisions only.

    Raises:
        ConfigError: if the history is not a finished hand of ``game`` or the lengths differ.
    """
    history = [int(a) for a in history]
    if len(probabilities) != len(history):
        raise ConfigError(f"probabilities must have one entry per step of the history "
                          f"({len(history)}), got {len(probabilities)}")
    n = game.num_players
    chance_terms, decision_terms = np.zeros(n), np.zeros(n)
    corrected_nodes = 0
    state = game.new_initial_state()
    for step, action in enumerate(history):
        if state.is_terminal():
            raise ConfigError(f"the hand ended after {step} of its {len(history)} steps")
        if state.is_chance_node():
            dist: Probabilities | None = dict(state.chance_outcomes()) if chance else None
        else:
            dist = probabilities[step]
        if dist is not None:
            actions, terms, _ = correction_terms(state, dist, value)
            if action not in actions:
                raise ConfigError(f"step {step} of the hand took action {action}, which the "
                                  f"known distribution there gives no probability "
                                  f"({dict(dist)})")
            term = terms[actions.index(action)]
            if state.is_chance_node():
                chance_terms += term
            else:
                decision_terms += term
            corrected_nodes += 1
        state.apply_action(action)
    if not state.is_terminal():
        raise ConfigError(f"the history {history} does not finish a hand of {game.name}")
    raw = np.asarray(state.returns(), dtype=np.float64)
    return HandScore(raw, raw - chance_terms - decision_terms, chance_terms, decision_terms,
                     corrected_nodes)


def known_probabilities(
    game: Game, history: Sequence[int], seat_policies: Sequence[object | None]
) -> list[Probabilities | None]:
    """Each step's known distribution, asked from the seats' policies (``None`` for a seat
    whose strategy is not known, e.g. an outside player, and at chance nodes)."""
    if len(seat_policies) != game.num_players:
        raise ConfigError(f"{game.name} has {game.num_players} seats but "
                          f"{len(seat_policies)} seat policies were given")
    pols = [None if p is None else as_state_policy(p) for p in seat_policies]
    state = game.new_initial_state()
    out: list[Probabilities | None] = []
    for action in history:
        if state.is_terminal():
            raise ConfigError(f"the history {list(history)} goes past the end of the hand")
        seat = state.current_player()
        policy = None if state.is_chance_node() else pols[seat]
        out.append(None if policy is None else dict(policy.action_probabilities(state)))
        state.apply_action(int(action))
    return out


# ---------------------------------------------------------------------------------------------
# Exact values on a compiled tree (small games)
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _node_values(parent, player, infoset, action, chance_prob, probs, utilities):
    """Every node's expected payoffs under ``probs`` (children after parents: breadth-first)."""
    values = utilities.copy()
    for node in range(parent.shape[0] - 1, 0, -1):
        par = parent[node]
        w = chance_prob[node] if player[par] == CHANCE else probs[infoset[par], action[node]]
        values[par] += w * values[node]
    return values


@dataclass
class TreeValues:
    """Exact expected values of a profile at every history of a compiled tree: AIVAT's ``u``
    for small games (Kuhn, Leduc and the like). A ``ValueFunction``."""

    tree: GameTree
    node_values: np.ndarray
    """``[num_nodes, num_players]`` expected payoffs of the profile from each node."""
    _lookup: dict[tuple[int, ...], int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._lookup:
            self._lookup[()] = 0

    def node_of(self, state: State) -> int:
        """The tree node of ``state`` (found by its history)."""
        history = tuple(state.history())
        node = self._lookup.get(history)
        if node is None:
            parent = self.node_of_history(history[:-1])
            first = int(self.tree.first_child[parent])
            kids = self.tree.action[first:first + int(self.tree.num_children[parent])]
            found = np.flatnonzero(kids == history[-1])
            if len(found) != 1:
                raise ConfigError(f"history {list(history)} is not in the tree of "
                                  f"{self.tree.game.name}")
            node = first + int(found[0])
            self._lookup[history] = node
        return node

    def node_of_history(self, history: tuple[int, ...]) -> int:
        node = self._lookup.get(history)
        if node is not None:
            return node
        return self.node_of(_replayed(self.tree.game, history))

    def values(self, states: Sequence[State]) -> np.ndarray:
        return self.node_values[[self.node_of(s) for s in states]]


def _replayed(game: Game, history: Sequence[int]) -> State:
    state = game.new_initial_state()
    for a in history:
        state.apply_action(int(a))
    return state


def profile_array(tree: GameTree, seat_policies: Sequence[object]) -> np.ndarray:
    """``[num_infosets, num_actions]``: seat ``p``'s policy on the information sets of ``p``."""
    if len(seat_policies) != tree.num_players:
        raise ConfigError(f"{tree.game.name} has {tree.num_players} seats but "
                          f"{len(seat_policies)} seat policies were given")
    probs = np.zeros((tree.num_infosets, tree.num_actions))
    for seat, policy in enumerate(seat_policies):
        rows = tree.infoset_player == seat
        probs[rows] = policy_array(tree, policy)[rows]
    return probs


def tree_values(tree: GameTree, seat_policies: Sequence[object]) -> TreeValues:
    """The exact values of the profile (seat ``p`` plays ``seat_policies[p]``) at every node."""
    probs = profile_array(tree, seat_policies)
    values = _node_values(tree.parent, tree.player, tree.infoset, tree.action,
                          tree.chance_prob, probs, tree.utilities)
    values.flags.writeable = False
    return TreeValues(tree, values)


def exact_match_values(tree: GameTree, policies: Sequence[object]) -> np.ndarray:
    """Each policy's exact expected chips per hand in a duplicate match (averaged over the
    ``num_players`` rotations of the policies around the table, as ``head_to_head`` plays)."""
    n = tree.num_players
    out = np.zeros(n)
    for r in range(n):
        seats = [policies[(s - r) % n] for s in range(n)]
        root = tree_values(tree, seats).node_values[0]
        for i in range(n):
            out[i] += root[(i + r) % n]
    return out / n


class ProfileValues:
    """A value source for matches: the exact values of whatever profile each rotation seats
    (``tree_values`` of the seats' policies, computed once per profile). With every player
    known it makes every hand's score the exact expected value."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        self._cache: dict[tuple[int, ...], TreeValues] = {}

    def __call__(self, seat_policies: Sequence[StatePolicy]) -> ValueFunction:
        key = tuple(id(p) for p in seat_policies)
        if key not in self._cache:
            self._cache[key] = tree_values(self.tree, seat_policies)
        return self._cache[key]


def _value_for(source: ValueSource, seats: Sequence[StatePolicy]) -> ValueFunction:
    if isinstance(source, ValueFunction):
        return source
    if callable(source):
        made = source(seats)
        if isinstance(made, ValueFunction):
            return made
    raise ConfigError(f"value must be a ValueFunction (values(states) -> array) or a function "
                      f"of the seats' policies returning one, got {source!r}")


# ---------------------------------------------------------------------------------------------
# Matches scored by AIVAT
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AIVATResult:
    """A match's raw and AIVAT-corrected results, chips per hand, for each policy."""

    num_deals: int
    num_hands: int
    big_blind: float
    raw_mean: np.ndarray
    raw_ci95: np.ndarray
    """95% half-widths of ``raw_mean`` (over deals)."""
    aivat_mean: np.ndarray
    aivat_ci95: np.ndarray
    per_deal_raw: np.ndarray = field(repr=False)
    """``[num_deals, num_policies]``: each policy's raw chips per hand of each deal."""
    per_deal_aivat: np.ndarray = field(repr=False)
    known: tuple[bool, ...] = ()
    """Which policies' decisions were corrected."""
    exact_value: np.ndarray | None = None
    """Each policy's exact expected chips per hand, where the game's tree was at hand."""

    @property
    def variance_ratio(self) -> np.ndarray:
        """Raw variance over AIVAT variance per deal (inf where AIVAT's is zero): how many
        times fewer deals AIVAT needs for the same interval."""
        if self.num_deals < 2:
            return np.full(len(self.raw_mean), np.nan)
        raw = self.per_deal_raw.var(axis=0, ddof=1)
        cor = self.per_deal_aivat.var(axis=0, ddof=1)
        # Rounding leaves ~1e-32 where the scores are all the exact value: that is zero.
        noise = (1e-12 * (1.0 + float(np.abs(self.per_deal_raw).max()))) ** 2
        positive = cor > noise
        return np.where(positive, raw / np.where(positive, cor, 1.0), np.inf)

    def to_json(self, policy: int = 0) -> dict[str, Any]:
        """The numbers ``evaluate.py --json`` prints, for ``policy`` (default the first)."""
        out: dict[str, Any] = {
            "deals": self.num_deals,
            "hands": self.num_hands,
            "raw_mean": float(self.raw_mean[policy]),
            "raw_ci95": float(self.raw_ci95[policy]),
            "aivat_mean": float(self.aivat_mean[policy]),
            "aivat_ci95": float(self.aivat_ci95[policy]),
            "variance_ratio": _finite_or_none(float(self.variance_ratio[policy])),
            "units": "chips per hand",
            "big_blind": self.big_blind,
        }
        if self.exact_value is not None:
            out["exact_value"] = float(self.exact_value[policy])
        return out

    def summary(self, names: Sequence[str] | None = None) -> str:
        """One line per policy: raw and corrected means, intervals and the variance ratio."""
        n = len(self.raw_mean)
        names = list(names) if names is not None else [f"policy {i}" for i in range(n)]
        lines = [f"AIVAT over {self.num_deals:,} deals ({self.num_hands:,} hands), chips per "
                 "hand, 95% intervals:"]
        for i in range(n):
            ratio = float(self.variance_ratio[i])
            line = (f"  {names[i]}: raw {self.raw_mean[i]:+.4f} +- {self.raw_ci95[i]:.4f}, "
                    f"AIVAT {self.aivat_mean[i]:+.4f} +- {self.aivat_ci95[i]:.4f}, "
                    f"variance ratio {ratio:.1f}" if math.isfinite(ratio) else
                    f"  {names[i]}: raw {self.raw_mean[i]:+.4f} +- {self.raw_ci95[i]:.4f}, "
                    f"AIVAT {self.aivat_mean[i]:+.4f} +- {self.aivat_ci95[i]:.4f} "
                    "(zero variance)")
            if self.exact_value is not None:
                line += f"; exact {self.exact_value[i]:+.4f}"
            lines.append(line)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class AIVATSpec:
    """What every piece of an AIVAT match needs (sent once to each worker)."""

    game: Game
    policies: tuple[StatePolicy, ...]
    known: tuple[bool, ...]
    value: Any
    entropy: int
    chance: bool = True


def play_recorded_hand(
    game: Game,
    seat_policies: Sequence[StatePolicy],
    rng: np.random.Generator,
    chance_rng: np.random.Generator,
    known_seats: Sequence[bool],
) -> tuple[list[int], list[Probabilities | None]]:
    """Play one hand exactly as ``head_to_head.play_hand`` does (same draws from the same
    generators, so the same cards and actions), keeping the history and the probabilities
    each known seat drew its actions from."""
    state = game.new_initial_state()
    probs: list[Probabilities | None] = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_action(dict(state.chance_outcomes()), chance_rng))
            probs.append(None)
        else:
            seat = state.current_player()
            dist = seat_policies[seat].action_probabilities(state)
            probs.append(dict(dist) if known_seats[seat] else None)
            state.apply_action(sample_action(dist, rng))
    return state.history(), probs


def aivat_deals(spec: AIVATSpec, deals: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Deals ``[start, stop)`` of an AIVAT match: ``(raw, corrected)``, each
    ``[stop - start, num_policies]`` chips per hand (the piece a worker plays)."""
    start, stop = deals
    game, pols, n = spec.game, spec.policies, spec.game.num_players
    raw, corrected = np.zeros((stop - start, n)), np.zeros((stop - start, n))
    for d in range(start, stop):
        rng = deal_rng(spec.entropy, d)
        deal_seed = int(rng.integers(2**63))
        for r in range(n):
            seats = [pols[(s - r) % n] for s in range(n)]
            known = [spec.known[(s - r) % n] for s in range(n)]
            history, probs = play_recorded_hand(
                game, seats, rng, np.random.default_rng(deal_seed), known)
            score = score_hand(game, history, _value_for(spec.value, seats), probs,
                               chance=spec.chance)
            for i in range(n):
                raw[d - start, i] += score.raw[(i + r) % n]
                corrected[d - start, i] += score.corrected[(i + r) % n]
    return raw / n, corrected / n


def _ci(samples: np.ndarray) -> np.ndarray:
    if len(samples) < 2:
        return np.full(samples.shape[1], np.inf)
    return Z95 * samples.std(axis=0, ddof=1) / np.sqrt(len(samples))


def aivat_head_to_head(
    game: Game,
    policies: Sequence[object],
    num_deals: int,
    value: ValueSource,
    *,
    known: Sequence[bool] | None = None,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    chance: bool = True,
    exact_value: np.ndarray | None = None,
    executor: Executor | None = None,
) -> AIVATResult:
    """A duplicate match (as ``head_to_head``: the same deals, cards and actions for the same
    seed) scored raw and by AIVAT.

    Args:
        game: any game.
        policies: one per seat (state policies, agents, callables).
        num_deals: duplicate deals (``num_players`` hands each).
        value: a ``ValueFunction``, or a function of the seats' policies returning one
            (``ProfileValues(tree)``: exact values of each rotation's profile).
        known: which policies' strategies are known (their decisions corrected); default all.
            An outside player is ``False``: only chance and the known side are corrected.
        seed: seed of the match's streams (ignored when ``rng`` is given).
        rng: a generator the match's root is drawn from (one draw, as ``head_to_head``).
        chance: correct chance nodes too (default).
        exact_value: each policy's exact expected chips per hand, to report beside (e.g.
            ``exact_match_values(tree, policies)``).
        executor: plays ranges of deals on its workers; the result is the same.

    Returns:
        An ``AIVATResult``; its ``raw_mean`` equals ``head_to_head``'s ``mean_chips``.
    """
    n = game.num_players
    if isinstance(policies, str | bytes) or not isinstance(policies, Sequence) \
            or len(policies) != n:
        raise ConfigError(f"{game.name} has {n} seats: give {n} policies, got {policies!r}")
    num_deals = count_arg(num_deals, "num_deals")
    seed = seed_arg(seed)
    known_t = tuple(True for _ in range(n)) if known is None else tuple(bool(k) for k in known)
    if len(known_t) != n:
        raise ConfigError(f"known must say for each of the {n} policies whether its strategy "
                          f"is known, got {known!r}")
    pols = tuple(as_state_policy(p) for p in policies)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator or None, got {rng!r}")
    spec = AIVATSpec(game, pols, known_t, value, match_entropy(seed, rng), chance)
    parts = run_map(executor, aivat_deals, spec, deal_ranges(num_deals, executor))
    raw = np.concatenate([p[0] for p in parts])
    cor = np.concatenate([p[1] for p in parts])
    return AIVATResult(
        num_deals=num_deals, num_hands=num_deals * n, big_blind=game.chip_unit,
        raw_mean=raw.mean(axis=0), raw_ci95=_ci(raw), aivat_mean=cor.mean(axis=0),
        aivat_ci95=_ci(cor), per_deal_raw=raw, per_deal_aivat=cor, known=known_t,
        exact_value=None if exact_value is None else np.asarray(exact_value, dtype=float),
    )


# ---------------------------------------------------------------------------------------------
# Logged hands (hand logs, ACPC matches)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogScore:
    """Logged hands scored by AIVAT, per player *name* (chips per hand)."""

    names: tuple[str, ...]
    num_hands: int
    raw_mean: np.ndarray
    raw_ci95: np.ndarray
    aivat_mean: np.ndarray
    aivat_ci95: np.ndarray
    per_hand_raw: np.ndarray = field(repr=False)
    """``[num_hands, len(names)]``: each name's payoff in each hand (0 where absent)."""
    per_hand_aivat: np.ndarray = field(repr=False)
    known: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Per name: raw and AIVAT means and 95% half-widths, and the variance ratio."""
        out: dict[str, Any] = {"hands": self.num_hands, "known": list(self.known),
                               "units": "chips per hand", "players": {}}
        for i, name in enumerate(self.names):
            raw = self.per_hand_raw[:, i].var(ddof=1) if self.num_hands > 1 else 0.0
            cor = self.per_hand_aivat[:, i].var(ddof=1) if self.num_hands > 1 else 0.0
            out["players"][name] = {
                "raw_mean": float(self.raw_mean[i]), "raw_ci95": float(self.raw_ci95[i]),
                "aivat_mean": float(self.aivat_mean[i]),
                "aivat_ci95": float(self.aivat_ci95[i]),
                "variance_ratio": _finite_or_none(raw / cor if cor > 0 else math.inf),
            }
        return out


def score_logged_hands(
    game: Game,
    hands: Sequence[Any],
    value: ValueFunction,
    known: Mapping[str, object],
    *,
    chance: bool = True,
) -> LogScore:
    """AIVAT over logged hands (``text_log.read_text_log``'s ``LoggedHand``s, e.g. an ACPC
    match's log), each player scored by name whatever seat it held.

    Args:
        game: the game the hands were played in.
        hands: objects with ``names`` (one per seat) and ``history`` (every action id).
        value: the value function.
        known: the policy of each player whose strategy is known, by name; any other name is
            an outside player (its decisions not corrected). Each known player's probabilities
            are asked again from its policy at each of its decisions.
        chance: correct at chance nodes (default).
    """
    if not hands:
        raise ConfigError("no hands to score")
    names: list[str] = []
    for hand in hands:
        for name in hand.names:
            if name not in names:
                names.append(str(name))
    missing = sorted(set(known) - set(names))
    if missing:
        raise ConfigError(f"known players {missing} play no logged hand; the log's players "
                          f"are {names}")
    policies = {name: as_state_policy(p) for name, p in known.items()}
    raw = np.zeros((len(hands), len(names)))
    cor = np.zeros((len(hands), len(names)))
    for k, hand in enumerate(hands):
        if len(hand.names) != game.num_players:
            raise ConfigError(f"hand {k + 1} names {len(hand.names)} players; {game.name} has "
                              f"{game.num_players} seats")
        seats = [policies.get(name) for name in hand.names]
        probs = known_probabilities(game, hand.history, seats)
        score = score_hand(game, hand.history, value, probs, chance=chance)
        for seat, name in enumerate(hand.names):
            raw[k, names.index(name)] += score.raw[seat]
            cor[k, names.index(name)] += score.corrected[seat]
    return LogScore(tuple(names), len(hands), raw.mean(axis=0), _ci(raw), cor.mean(axis=0),
                    _ci(cor), raw, cor, tuple(sorted(known)))
