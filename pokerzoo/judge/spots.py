"""Hold'em spots the judge scores an outside player on: a shipped suite, solved and cached, and
the player's EV loss at each spot against the spot's equilibrium.

A *suite spot* is a spot file (the ``HoldemSpot`` fields in a ``[spot]`` table, as ``solve.py``
reads them) with two tables more: ``[game]``, the ``no_limit_holdem`` parameters of the game the
spot is played in (its blinds, stacks and pot-fraction sizes, which must offer every size of the
spot), and ``[judge]``: the seat judged (``seat``, ``"oop"`` or ``"ip"``), the game's betting
``line`` from the deal to the spot (so the hand history tells the spot's story), the ``chart``
line of the decision its charts show, ``about`` (what the spot tests) and ``rules`` (the
spot's betting rules in a sentence, told to the player with every question). The suite ships
in ``pokerzoo/judge/spot_suite/``.

Each spot is solved once by the public-tree solver (without suit isomorphism: a player's
answers need not be suit-symmetric) to ``SOLVE_TARGET_PCT`` % of the pot and written to a cache
folder (``cache_dir``; default ``$POKERZOO_CACHE/judge``, else ``~/.cache/pokerzoo/judge``) in
the no-pickle checkpoint format of ``pokerzoo.public.engine.results.save_solver``; a missing,
damaged or under-solved file is solved again, with a progress bar.

``judge_spot`` asks the player at every decision node of the judged seat for the hands of its
range (all, or a uniform sample of ``hands`` of them; a hand is asked only where its own answers
so far let it reach the node, and not at a node with one action), each through
``pokerzoo.judge.protocol.ask_many`` on a ``Decision`` of the spot's game (the hold'em rendering,
the legal actions those of the spot), and builds the judged seat's strategy: the player's
answers (the mean of ``samples`` answers) where asked, the equilibrium's elsewhere. Then:

* EV loss (the headline, ``ev_loss_pct``): the equilibrium's value minus the value of that
  strategy against the opponent's best response, in % of the starting pot, what
  ``pokerzoo.evaluation.spot_eval`` reports for a state policy at every node;
* EV loss against the equilibrium opponent (``ev_loss_fixed_pct``): nobody adapts, the loss a
  strategy-trainer's "EV loss" reports; it is a sum over hands.

With sampled hands both numbers above are those of the filled strategy (unasked hands play the
equilibrium); ``ev_loss_estimate_pct`` / ``ev_loss_fixed_estimate_pct`` estimate the all-hands
values: the filled strategy's loss (beyond the solve's own, ``equilibrium_floor_pct``) scaled
up by the share of the deals the asked hands make (a ratio estimator), with a 95% interval by
the normal approximation and a delete-a-group jackknife over the asked hands (each group's
hands put back at the equilibrium in turn). The loss against the equilibrium opponent is a sum
over hands, so its estimate is the usual one; the best-response loss is not (the opponent
exploits all deviations together), so its estimate assumes the loss grows in proportion to the
hands that deviate. Measured on three shipped river spots (bluff-catch, polar bet, raise),
two players (always-call, a fixed mixed one) and 20 samples of 12 hands each: the interval held
the all-hands value in 113 of 120 samples (against the equilibrium opponent: 107 of 120).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.evaluation.spot_eval import (
    deal_holes,
    dummy_holes,
    find_line,
    reach_spot_root,
    spot_action_map,
)
from pokerzoo.games.base import Game, State
from pokerzoo.judge.decision import Decision, legal_actions_of
from pokerzoo.judge.holdem import AnswerCounts, render_holdem
from pokerzoo.judge.protocol import ask_many, check_fallback
from pokerzoo.judge.response_cache import user_cache_folder
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import CHANCE, DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree, spot_seats
from pokerzoo.public.spots.spot_file import check_spot_types, read_spot_document

SOLVE_TARGET_PCT = 0.1
"""Exploitability (% of the starting pot) the suite's spots are solved to."""
SOLVE_MAX_ITERATIONS = 20_000
"""Most solver iterations a spot gets before the target is declared out of reach."""
DEFAULT_MAX_QUERIES = 200_000
"""Most questions (decision x hand x sample) one spot asks before it refuses."""
SEATS = ("oop", "ip")
_GAME_KEYS = ("small_blind", "big_blind", "stacks", "bet_fractions")
_JUDGE_KEYS = ("name", "seat", "chart", "line", "about", "rules")
_CACHE_FORMAT = 1
"""Bumped when what a cached solution holds changes, so old files are solved again."""


def suite_folder() -> Path:
    """The folder of the shipped spot files."""
    return Path(str(resources.files("pokerzoo.judge") / "spot_suite"))


@dataclass(frozen=True)
class SuiteSpot:
    """One judged spot: the spot, the game it is played in, the seat judged, the chart line."""

    name: str
    spot: HoldemSpot
    game_params: Mapping[str, Any]
    seat: int
    chart: tuple[str, ...] = ()
    about: str = ""
    line: tuple[str, ...] = ()
    """The game's actions (labels as ``Decision`` names them) that lead to the spot, so the hand
    history reads as the spot's story; empty: the game's shortest line to its pot and stacks."""
    rules: str = ""
    """The spot's betting rules in a sentence (which sizes exist on later streets, who may
    raise), appended to every question's text: the player plays the spot's game, not the
    whole game's, and has to be told."""

    def game(self) -> Game:
        """The ``no_limit_holdem`` game the spot's decisions are asked in."""
        from pokerzoo.games import load_game

        return load_game("no_limit_holdem", **dict(self.game_params))

    def key(self) -> str:
        """A hash of everything a solution depends on (the spot's fields and the target)."""
        data = {"spot": self.spot.to_dict(), "target": SOLVE_TARGET_PCT,
                "format": _CACHE_FORMAT}
        text = json.dumps(data, sort_keys=True, default=list)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _checked_table(name: str, title: str, table: Any, keys: Sequence[str]) -> dict[str, Any]:
    """``table`` (the spot file's ``[title]``) if it is a table of only ``keys``."""
    if not isinstance(table, dict):
        raise ConfigError(f"spot {name}: [{title}] must be a table of {', '.join(keys)}")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise ConfigError(f"spot {name}: unknown [{title}] key(s) {unknown}; allowed: "
                          f"{list(keys)}")
    return dict(table)


def _game_params(name: str, table: Any) -> dict[str, Any]:
    params = _checked_table(name, "game", table, _GAME_KEYS)
    if "bet_fractions" in params:
        fractions = params["bet_fractions"]
        if not isinstance(fractions, list) or not all(
                isinstance(f, (int, float)) and not isinstance(f, bool) for f in fractions):
            raise ConfigError(f"spot {name}: [game] bet_fractions must be a list of numbers")
        params["bet_fractions"] = tuple(float(f) for f in fractions)
    return params


def suite_spot(document: Mapping[str, Any], name: str) -> SuiteSpot:
    """A ``SuiteSpot`` from a parsed spot file with ``[spot]``, ``[game]`` and ``[judge]``."""
    judge = _checked_table(name, "judge", document.get("judge"), _JUDGE_KEYS)
    title = judge.get("name", name)
    if not isinstance(title, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", title):
        # The name goes into the cache file's name: no separators, no leading dot.
        raise ConfigError(f"spot {name}: [judge] name must be 1-64 letters, digits, '_', '.' "
                          f"or '-' starting with a letter or digit, got {title!r}")
    seat = judge.get("seat")
    if seat not in SEATS:
        raise ConfigError(f"spot {name}: [judge] seat must be 'oop' or 'ip', got {seat!r}")
    labels = {}
    for key in ("chart", "line"):
        labels[key] = judge.get(key, [])
        if not isinstance(labels[key], list) or not all(isinstance(c, str) for c in labels[key]):
            raise ConfigError(f"spot {name}: [judge] {key} must be a list of action labels")
    table = document.get("spot")
    if not isinstance(table, dict):
        raise ConfigError(f"spot {name}: the spot's fields go in a [spot] table")
    check_spot_types(table)
    spot = HoldemSpot.from_dict({**table, "suit_isomorphism": False})
    out = SuiteSpot(title, spot,
                    _game_params(name, document.get("game", {})), SEATS.index(seat),
                    tuple(labels["chart"]), str(judge.get("about", "")), tuple(labels["line"]),
                    str(judge.get("rules", "")))
    game = out.game()
    spot_seats(game)
    spot_line(out, game)  # the game reaches the spot, refused here rather than mid-judging
    return out


def spot_line(spot: SuiteSpot, game: Game) -> list[int]:
    """The game's action ids from the deal to the spot: the declared ``line`` (checked to end
    at the spot's street with its pot and stacks), else ``spot_eval.find_line``'s."""
    if not spot.line:
        return find_line(game, spot.spot)
    board = spot.spot.board_cards
    first = dummy_holes(board, set())
    state = deal_holes(game, {0: first, 1: dummy_holes(board, set(first))})
    actions: list[int] = []
    for label in spot.line:
        while state.is_chance_node():
            dealt = len(state.public_state()["public_cards"])
            if dealt >= len(board):
                raise ConfigError(f"spot {spot.name}: the line {list(spot.line)} goes past "
                                  "the spot's board")
            state.apply_action(board[dealt])
        if state.is_terminal():
            raise ConfigError(f"spot {spot.name}: the line {list(spot.line)} ends the hand")
        named = {a.label: a.action for a in legal_actions_of(state)}
        if label not in named:
            raise ConfigError(f"spot {spot.name}: {label!r} is not legal in the line after "
                              f"{len(actions)} actions; legal there: {', '.join(named)}")
        actions.append(named[label])
        state.apply_action(named[label])
    while state.is_chance_node() and len(state.public_state()["public_cards"]) < len(board):
        state.apply_action(board[len(state.public_state()["public_cards"])])
    public = state.public_state()
    half = spot.spot.starting_pot / 2
    if (state.is_chance_node() or state.is_terminal() or len(public["public_cards"]) != len(board)
            or any(c != half for c in public["contributions"])
            or min(public["stacks"]) != spot.spot.effective_stack):
        raise ConfigError(f"spot {spot.name}: the line {list(spot.line)} does not reach the "
                          f"spot's street with a pot of {spot.spot.starting_pot} and "
                          f"{spot.spot.effective_stack} behind")
    return actions


def load_spot(path: str | os.PathLike[str]) -> SuiteSpot:
    """A judged spot from a spot file (checked read: ``read_spot_document``)."""
    return suite_spot(read_spot_document(path), Path(path).stem)


def load_suite(folder: str | os.PathLike[str] | None = None) -> list[SuiteSpot]:
    """Every ``*.toml`` judged spot in ``folder`` (default: the shipped suite), by file name."""
    where = suite_folder() if folder is None else Path(folder)
    if not where.is_dir():
        raise ConfigError(f"spot suite {str(where)!r} is not a folder of spot files")
    paths = sorted(where.glob("*.toml"))
    if not paths:
        raise ConfigError(f"spot suite {str(where)!r} holds no *.toml spot file")
    return [load_spot(p) for p in paths]


def suite_spot_named(name: str) -> SuiteSpot:
    """The shipped spot ``name``; ConfigError listing the names otherwise."""
    spots = {s.name: s for s in load_suite()}
    if name not in spots:
        raise ConfigError(f"no shipped spot {name!r}; shipped: {', '.join(sorted(spots))}")
    return spots[name]


def cache_folder(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``cache_dir``, else ``$POKERZOO_CACHE/judge``, else ``~/.cache/pokerzoo/judge``."""
    return Path(cache_dir) if cache_dir is not None else user_cache_folder("judge")


def _load_cached(path: Path, tree_spot: HoldemSpot) -> PublicSolver | None:
    from pokerzoo.public.engine.results import load_solver

    if not path.is_file():
        return None
    try:
        solver = load_solver(path)
    except (CheckpointError, ConfigError):
        return None  # damaged or foreign: solved again and written over
    saved = getattr(solver.tree.terminals, "spot", None)
    if saved != tree_spot.to_dict() or solver.exploitability_pct() > SOLVE_TARGET_PCT:
        return None
    return solver


def solved_spot(spot: SuiteSpot, cache_dir: str | os.PathLike[str] | None = None,
                progress: bool = True) -> PublicSolver:
    """The spot's equilibrium: read from the cache, else solved to ``SOLVE_TARGET_PCT`` % of
    the pot (a tqdm bar when ``progress``) and written to the cache.

    Raises:
        ConfigError: the solve stopped above the target after ``SOLVE_MAX_ITERATIONS``.
    """
    from tqdm import tqdm

    from pokerzoo.public.engine.results import save_solver

    folder = cache_folder(cache_dir)
    path = folder / f"{spot.name}-{spot.key()}.ckpt"
    cached = _load_cached(path, spot.spot)
    if cached is not None:
        return cached
    solver = PublicSolver(build_spot_tree(spot.spot))
    with tqdm(total=None, desc=f"solving {spot.name}", unit="it", disable=not progress,
              leave=False) as bar:
        def report(iterations: int, pct: float) -> None:
            bar.update(iterations - bar.n)
            bar.set_postfix_str(f"{pct:.3f}% pot")

        pct = solver.solve(SOLVE_MAX_ITERATIONS, target_pct=SOLVE_TARGET_PCT, check_every=25,
                           progress=report)
    if pct > SOLVE_TARGET_PCT:
        raise ConfigError(f"spot {spot.name} reached {pct:.3f}% of the pot after "
                          f"{solver.iterations} iterations, not {SOLVE_TARGET_PCT}%: give it "
                          "narrower ranges or fewer sizes")
    folder.mkdir(parents=True, exist_ok=True)
    save_solver(solver, path)  # written atomically by the checkpoint writer
    return solver


# ----------------------------------------------------------------------------- the questions


@dataclass
class _Asker:
    """Builds the ``Decision`` of a hand at a spot node: a state of the spot's game reached
    through the betting line to the spot, the hand dealt to the judged seat, the spot's actions
    replayed, and the legal actions cut to the spot's."""

    spot: SuiteSpot
    tree: PublicTree
    seat: int
    game: Game
    line: list[int]
    roots: dict[tuple[int, ...], State] = field(default_factory=dict)

    def path(self, node: int) -> list[int]:
        out = [node]
        while out[-1] > 0:
            out.append(int(self.tree.parent[out[-1]]))
        return out[::-1]

    def state(self, node: int, hand: np.ndarray) -> State:
        tree = self.tree
        path = self.path(node)
        mine = (int(hand[0]), int(hand[1]))
        board = [c for c in tree.board_cards(node) if c >= 0]
        taken = set(mine) | set(board)
        free = [c for c in range(52) if c not in taken][:2]
        seats = spot_seats(self.game)
        holes = {seats[self.seat]: mine, seats[1 - self.seat]: (free[0], free[1])}
        key = (*holes[0], *holes[1])
        root = self.roots.get(key)
        if root is None:
            root = self.roots[key] = reach_spot_root(self.game, self.spot.spot, self.line, holes,
                                                 self.spot.spot.board_cards)
        state = root.clone()
        for parent, child in zip(path, path[1:]):
            if tree.kind[parent] == CHANCE:
                state.apply_action(int(tree.chance_card[child]))
                continue
            mapping = spot_action_map(tree, parent, state)
            state.apply_action(mapping[child - int(tree.first_child[parent])])
        return state

    def decision(self, node: int, hand: np.ndarray) -> tuple[Decision, list[int]]:
        """The decision and, per child of ``node``, the game action it is."""
        state = self.state(node, hand)
        mapping = spot_action_map(self.tree, node, state)
        legal = tuple(a for a in legal_actions_of(state) if a.action in mapping)
        player = state.current_player()
        tensor = state.information_state_tensor(player)
        text = render_holdem(state, legal)
        if self.spot.rules:
            text += f"\nRules of this spot: {self.spot.rules}"
        return Decision(self.game.name, player, str(state.information_state_key(player)), legal,
                        text, tuple(float(x) for x in tensor), state), mapping


def _decision_levels(tree: PublicTree, seat: int) -> list[list[int]]:
    """The judged seat's decisions with more than one action, grouped by how many of its
    decisions lie above them (a level is asked once those above it are)."""
    above = np.zeros(tree.num_nodes, dtype=np.int64)
    levels: dict[int, list[int]] = {}
    for node in range(1, tree.num_nodes):
        parent = int(tree.parent[node])
        own = tree.kind[parent] == DECISION and int(tree.player[parent]) == seat
        above[node] = above[parent] + int(own)
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == seat)).tolist():
        if int(tree.num_children[node]) > 1:
            levels.setdefault(int(above[node]), []).append(node)
    return [levels[k] for k in sorted(levels)]


def _own_reach(tree: PublicTree, node: int, seat: int,
               strategy: Mapping[int, np.ndarray]) -> np.ndarray:
    """The judged seat's reach of each hand at ``node`` under ``strategy`` (cards dealt on
    the way that a hand holds take it out)."""
    reach = np.ones(tree.num_hands(seat))
    child = node
    while child > 0:
        parent = int(tree.parent[child])
        if tree.kind[parent] == DECISION and int(tree.player[parent]) == seat:
            reach *= strategy[parent][child - int(tree.first_child[parent])]
        elif tree.kind[parent] == CHANCE:
            reach[tree.hands_holding(seat, int(tree.chance_card[child]))] = 0.0
        child = parent
    return reach


class EquilibriumPlayer:
    """An outside player that answers a spot's decisions with the spot's equilibrium: the
    reference a judged player is measured from (its EV loss is the solve's own, at most the
    equilibrium's exploitability)."""

    def __init__(self, spot: SuiteSpot, equilibrium: PublicSolver) -> None:
        self.spot = spot
        self.equilibrium = equilibrium
        self.game = spot.game()
        self.line = spot_line(spot, self.game)

    def locate(self, state: State) -> tuple[int, int, list[int]]:
        """The spot node of ``state``, the acting seat's hand index there, and the game
        action of each child of the node."""
        tree = self.equilibrium.tree
        history = list(state.history())
        before = 2 * self.game.num_players + len(self.line) + len(self.spot.spot.board_cards)
        replay = self.game.new_initial_state()
        for action in history[:before]:
            replay.apply_action(action)
        node = 0
        for action in history[before:]:
            if tree.kind[node] == CHANCE:
                node = next(c for c in tree.children(node) if tree.chance_card[c] == action)
            else:
                mapping = spot_action_map(tree, node, replay)
                node = int(tree.first_child[node]) + mapping.index(action)
            replay.apply_action(action)
        seat = int(tree.player[node])
        cards = {int(c) for c in state.private_cards()[state.current_player()]}
        hands = tree.hands[seat]
        hand = next(i for i, h in enumerate(hands) if {int(h[0]), int(h[1])} == cards)
        return node, hand, spot_action_map(tree, node, replay)

    def decide(self, decision: Decision, sample: int) -> dict[int, float]:
        if decision.state is None:
            raise ConfigError("the equilibrium player reads the decision's state")
        node, hand, mapping = self.locate(decision.state)
        column = self.equilibrium.strategy(node)[:, hand]
        return {action: float(p) for action, p in zip(mapping, column, strict=True)}


# ----------------------------------------------------------------------------- the scores


@dataclass(frozen=True)
class SpotJudgeReport:
    """A player's score at one spot (chips per deal of the spot; % of its starting pot)."""

    name: str
    seat: int
    hands_asked: int
    hands_total: int
    decisions: int
    """(node, hand) decisions asked (each ``samples`` times)."""
    queries: int
    requests: int
    cached: int
    illegal_answers: int
    fallbacks: int
    prompt_tokens: int
    completion_tokens: int
    equilibrium_value: float
    ev_loss_chips: float
    ev_loss_pct: float
    ev_loss_fixed_pct: float
    ev_loss_estimate_pct: float
    ev_loss_ci_pct: tuple[float, float]
    ev_loss_fixed_estimate_pct: float
    ev_loss_fixed_ci_pct: tuple[float, float]
    equilibrium_exploitability_pct: float
    equilibrium_floor_pct: float
    """The equilibrium's own ``ev_loss_pct`` at this seat (the solve's error: a player who
    plays the equilibrium scores this; at most twice ``equilibrium_exploitability_pct``)."""
    note: str
    strategy: Mapping[int, np.ndarray] = field(repr=False, compare=False)
    """The judged seat's ``[actions, hands]`` strategy at each of its nodes."""
    equilibrium: PublicSolver = field(repr=False, compare=False)
    spot: SuiteSpot = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (no strategies)."""
        return {
            "spot": self.name, "seat": SEATS[self.seat], "hands_asked": self.hands_asked,
            "hands_total": self.hands_total, "decisions": self.decisions,
            "queries": self.queries, "requests": self.requests, "cache_hits": self.cached,
            "illegal_answers": self.illegal_answers, "fallbacks": self.fallbacks,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "equilibrium_value": self.equilibrium_value, "ev_loss_chips": self.ev_loss_chips,
            "ev_loss_pct": self.ev_loss_pct, "ev_loss_fixed_pct": self.ev_loss_fixed_pct,
            "ev_loss_estimate_pct": self.ev_loss_estimate_pct,
            "ev_loss_ci_pct": list(self.ev_loss_ci_pct),
            "ev_loss_fixed_estimate_pct": self.ev_loss_fixed_estimate_pct,
            "ev_loss_fixed_ci_pct": list(self.ev_loss_fixed_ci_pct),
            "equilibrium_exploitability_pct": self.equilibrium_exploitability_pct,
            "equilibrium_floor_pct": self.equilibrium_floor_pct, "note": self.note,
        }

    def chart_node(self) -> int:
        """The node the charts show: the ``[judge] chart`` line, else the root."""
        from pokerzoo.public.spots.spot_locks import node_of_line

        return node_of_line(self.equilibrium.tree, list(self.spot.chart))

    def chart(self, path: str | os.PathLike[str]) -> Path:
        """A PNG of 13 x 13 charts at ``chart_node``: per action, the player's frequency in
        each hand class beside the equilibrium's (hands weighted as the equilibrium reaches
        them, so both panels average the same hands)."""
        from pokerzoo.judge.charts import draw_strategy_charts

        return draw_strategy_charts(self, path)


def _hands_to_ask(hands: Any, total: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(hands, str):
        if hands != "all":
            raise ConfigError(f"hands must be 'all' or a number of hands, got {hands!r}")
        return np.arange(total)
    if isinstance(hands, bool) or not isinstance(hands, (int, np.integer)) or not (
            2 <= hands):
        raise ConfigError(f"hands must be 'all' or an integer >= 2 (a sample of the range's "
                          f"{total} hands), got {hands!r}")
    if hands >= total:
        return np.arange(total)
    return np.sort(rng.choice(total, size=int(hands), replace=False))


Z95 = 1.959963984540054
"""Two-sided 95% quantile of the normal distribution."""
JACKKNIFE_GROUPS = 40
"""Most groups the sampled hands are split into for the delete-a-group jackknife."""


def _filled(strategy: Mapping[int, np.ndarray], equilibrium: PublicSolver,
            asked: np.ndarray) -> dict[int, np.ndarray]:
    """``strategy`` with every hand outside ``asked`` (a mask) back at the equilibrium's."""
    out = {}
    for node, column in strategy.items():
        filled = equilibrium.strategy(node)
        filled[:, asked] = column[:, asked]
        out[node] = filled
    return out


def judge_spot(
    spot: SuiteSpot | str, player: Any, *, hands: str | int = "all", seed: int = 0,
    fallback: str = "check-fold", samples: int = 1, cache_dir: str | os.PathLike[str] | None
    = None, equilibrium: PublicSolver | None = None,
    max_queries: int = DEFAULT_MAX_QUERIES, progress: bool = False,
) -> SpotJudgeReport:
    """Score ``player`` (an outside player, see ``pokerzoo.judge.protocol``) at a spot.

    Args:
        spot: a ``SuiteSpot``, a shipped spot's name or a spot file's path.
        player: answers ``decide(decision, sample)`` (or is such a callable).
        hands: ``"all"`` the hands of the judged seat's range, or how many to sample
            (uniformly, without replacement, with ``seed``); the others play the equilibrium.
        seed: the seed of the hand sample.
        fallback: the declared fallback for an answer bad twice (``protocol.FALLBACKS``).
        samples: answers per decision (sample indices 0..k-1), averaged into the strategy.
        cache_dir: where solutions are cached (``cache_folder``).
        equilibrium: a solved ``PublicSolver`` of the spot's tree, used instead of the cache.
        max_queries: refuse a spot that would ask more questions than this.
        progress: progress bars for the solve and for the questions (by level: the judged
            seat's decisions with as many of its decisions above them).

    Returns:
        The ``SpotJudgeReport`` (see the module docstring for what each loss means).
    """
    check_fallback(fallback)
    if isinstance(spot, str):
        spot = load_spot(spot) if spot.endswith(".toml") else suite_spot_named(spot)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ConfigError(f"samples must be an integer >= 1, got {samples!r}")
    eq = equilibrium if equilibrium is not None else solved_spot(spot, cache_dir, progress)
    tree = eq.tree
    seat = spot.seat
    other = 1 - seat
    rng = np.random.default_rng(seed)
    total = tree.num_hands(seat)
    chosen = _hands_to_ask(hands, total, rng)
    levels = _decision_levels(tree, seat)
    most = sum(len(level) for level in levels) * len(chosen) * samples
    if most > max_queries:
        raise ConfigError(f"spot {spot.name} could ask up to {most:,} questions (decisions x "
                          f"hands x samples), over max_queries={max_queries:,}: sample fewer "
                          "hands or raise max_queries")
    game = spot.game()
    asker = _Asker(spot, tree, seat, game, spot_line(spot, game))
    own_nodes = np.flatnonzero((tree.kind == DECISION) & (tree.player == seat)).tolist()
    strategy = {int(n): eq.strategy(int(n)).copy() for n in own_nodes}
    counts = AnswerCounts()
    asked_decisions = 0
    mask = np.zeros(total, dtype=bool)
    mask[chosen] = True
    from tqdm import tqdm

    bar = tqdm(levels, desc=f"judging {spot.name}", unit="level", disable=not progress,
               leave=False)
    for level in bar:
        keys: list[tuple[int, int, list[int]]] = []
        requests: list[tuple[Decision, int]] = []
        for node in level:
            reach = _own_reach(tree, node, seat, strategy)
            for h in np.flatnonzero(mask & (reach > 0)).tolist():
                decision, mapping = asker.decision(node, tree.hands[seat][h])
                keys.append((node, h, mapping))
                requests.extend((decision, k) for k in range(samples))
        if not requests:
            continue
        replies = ask_many(player, requests, fallback=fallback)
        asked_decisions += len(keys)
        for i, (node, h, mapping) in enumerate(keys):
            column = np.zeros(len(mapping))
            for reply in replies[i * samples:(i + 1) * samples]:
                counts.add(reply)
                for action, p in reply.probs.items():
                    column[mapping.index(action)] += p / samples
            strategy[node][:, h] = column
        bar.set_postfix_str(f"{counts.queries} questions, {counts.cached} cached")
    bar.close()
    return _scores(spot, eq, strategy, chosen, counts, asked_decisions, other)


def _scores(spot: SuiteSpot, eq: PublicSolver, strategy: dict[int, np.ndarray],
            chosen: np.ndarray, counts: AnswerCounts, asked: int, other: int) -> SpotJudgeReport:
    tree = eq.tree
    seat = 1 - other
    pot = float(spot.spot.starting_pot)
    total = tree.num_hands(seat)
    locked = PublicSolver(tree, locks=strategy)
    fixed = PublicSolver(tree, locks={**strategy, **{
        int(n): eq.strategy(int(n)) for n in
        np.flatnonzero((tree.kind == DECISION) & (tree.player == other)).tolist()}})
    v_eq = eq.game_value()[seat]
    loss = v_eq + locked.best_response_values()[other]
    reach = np.asarray(tree.initial_reach[seat], dtype=np.float64)
    # Each hand's share of the deals (its weight times the opponent's weight it can face).
    share = reach * tree.compatible_reach(seat, np.asarray(tree.initial_reach[other]))
    per_hand = reach * (eq.expected_values(seat).values - fixed.expected_values(seat).values)
    per_hand /= tree.pair_mass  # each hand's part of the loss against the equilibrium
    fixed_loss = float(per_hand.sum())
    floor = v_eq + eq.best_response_values()[other]  # the equilibrium's own loss

    def estimates(hands: np.ndarray, best_response_loss: float) -> tuple[float, float]:
        """The all-hands losses (% pot) estimated from ``hands`` asked: the loss beyond the
        solve's floor, and the sum over hands, each scaled up by the share of deals asked."""
        scale = float(share.sum()) / float(share[hands].sum())
        return (100.0 * (floor + (best_response_loss - floor) * scale) / pot,
                100.0 * float(per_hand[hands].sum()) * scale / pot)

    if len(chosen) == total:
        estimate, fixed_estimate = 100.0 * loss / pot, 100.0 * fixed_loss / pot
        interval, fixed_interval = (estimate, estimate), (fixed_estimate, fixed_estimate)
        note = f"all {total} hands of the {SEATS[seat]} range asked"
    else:
        estimate, fixed_estimate = estimates(chosen, loss)
        groups = np.array_split(chosen, min(len(chosen), JACKKNIFE_GROUPS))
        replicates = []
        for group in groups:
            kept = np.setdiff1d(chosen, group)
            mask = np.zeros(total, dtype=bool)
            mask[kept] = True
            refilled = PublicSolver(tree, locks=_filled(strategy, eq, mask))
            replicates.append(estimates(kept, v_eq + refilled.best_response_values()[other]))
        values = np.array(replicates)
        g = len(groups)
        spread = np.sqrt((g - 1) / g * ((values - values.mean(axis=0)) ** 2).sum(axis=0))
        interval = (estimate - Z95 * spread[0], estimate + Z95 * spread[0])
        fixed_interval = (fixed_estimate - Z95 * spread[1], fixed_estimate + Z95 * spread[1])
        note = (f"{len(chosen)} of {total} hands of the {SEATS[seat]} range asked; the others "
                "play the equilibrium in ev_loss_pct and ev_loss_fixed_pct; the estimates "
                "scale the asked hands' loss up to the whole range, with 95% intervals by "
                f"the normal approximation and a delete-a-group jackknife ({g} groups) over "
                "the asked hands")
    return SpotJudgeReport(
        spot.name, seat, len(chosen), total, asked, counts.queries, counts.requests,
        counts.cached, counts.illegal, counts.fallbacks, counts.prompt_tokens,
        counts.completion_tokens, v_eq, loss, 100.0 * loss / pot, 100.0 * fixed_loss / pot,
        estimate, interval, fixed_estimate, fixed_interval, eq.exploitability_pct(),
        100.0 * floor / pot, note, strategy, eq, spot)


@dataclass(frozen=True)
class SuiteReport:
    """Every spot's report and their means (the suite's EV loss in % of the pot)."""

    spots: list[SpotJudgeReport]

    @property
    def mean_ev_loss_pct(self) -> float:
        """The mean over spots of the (estimated, with sampled hands) all-hands EV loss."""
        return float(np.mean([r.ev_loss_estimate_pct for r in self.spots]))

    @property
    def mean_ev_loss_fixed_pct(self) -> float:
        """The mean over spots of the EV loss against the equilibrium opponent."""
        return float(np.mean([r.ev_loss_fixed_estimate_pct for r in self.spots]))

    def table(self) -> str:
        """The suite as a Markdown table: one row per spot, then the means."""
        rows = ["| spot | seat | hands asked | questions | illegal | fallbacks | EV loss "
                "(% pot, vs best response) | 95% interval | EV loss (% pot, vs equilibrium) "
                "| 95% interval | solve floor (% pot) |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]

        def shown(report: SpotJudgeReport, interval: tuple[float, float]) -> str:
            if report.hands_asked == report.hands_total:
                return "exact (all hands)"
            return f"{interval[0]:.3f} to {interval[1]:.3f}"

        for r in self.spots:
            rows.append(f"| {r.name} | {SEATS[r.seat]} | {r.hands_asked}/{r.hands_total} | "
                        f"{r.queries} | {r.illegal_answers} | {r.fallbacks} | "
                        f"{r.ev_loss_estimate_pct:.3f} | {shown(r, r.ev_loss_ci_pct)} | "
                        f"{r.ev_loss_fixed_estimate_pct:.3f} | "
                        f"{shown(r, r.ev_loss_fixed_ci_pct)} | {r.equilibrium_floor_pct:.3f} |")
        rows.append(f"| mean | | | {self.queries} | {self.illegal_answers} | {self.fallbacks} | "
                    f"{self.mean_ev_loss_pct:.3f} | | {self.mean_ev_loss_fixed_pct:.3f} | | |")
        return "\n".join(rows)

    @property
    def queries(self) -> int:
        return sum(r.queries for r in self.spots)

    @property
    def illegal_answers(self) -> int:
        return sum(r.illegal_answers for r in self.spots)

    @property
    def fallbacks(self) -> int:
        return sum(r.fallbacks for r in self.spots)

    def summary(self) -> str:
        """A few readable lines: the mean losses, the costs, one line per spot."""
        lines = [f"{len(self.spots)} hold'em spots: mean EV loss {self.mean_ev_loss_pct:.3f}% "
                 f"of the pot against a best response, {self.mean_ev_loss_fixed_pct:.3f}% "
                 "against the equilibrium",
                 f"{self.queries} questions, {sum(r.requests for r in self.spots)} requests, "
                 f"{sum(r.cached for r in self.spots)} cache hits, {self.illegal_answers} "
                 f"illegal answers, {self.fallbacks} fallbacks"]
        for r in self.spots:
            low, high = r.ev_loss_ci_pct
            interval = "" if r.hands_asked == r.hands_total else (
                f" (95% {low:.3f} .. {high:.3f}, {r.hands_asked} of {r.hands_total} hands)")
            lines.append(f"  {r.name} ({SEATS[r.seat]}): {r.ev_loss_estimate_pct:.3f}%"
                         f"{interval}; vs equilibrium {r.ev_loss_fixed_estimate_pct:.3f}%")
        return "\n".join(lines)

    def markdown(self, chart_folder: str | os.PathLike[str] | None = None) -> str:
        """The report in Markdown: the summary, the table, what the numbers mean, and with
        ``chart_folder`` each spot's 13 x 13 charts drawn there and linked by the folder's
        name (so the folder is to sit beside the report)."""
        out = ["# Judge report: hold'em spots", "", "```", self.summary(), "```", "",
               self.table(), "",
               "EV loss is the equilibrium's value minus the player's, in % of the spot's "
               "starting pot: against a best response (the opponent exploits the player's "
               "strategy at the spot), and against the equilibrium (nobody adapts). The solve "
               "floor is what a player of the equilibrium itself scores. Where hands were "
               "sampled, the unasked hands play the equilibrium and the estimates stand for "
               "the whole range."]
        if chart_folder is not None:
            folder = Path(chart_folder)
            for r, path in zip(self.spots, self.charts(folder), strict=True):
                line = ", ".join(r.spot.chart) or "the root"
                out += ["", f"## {r.name}", "", f"{r.spot.about}; the {SEATS[r.seat]} player at "
                        f"{line}, its strategy beside the equilibrium's:", "",
                        f"![{r.name}]({folder.name}/{path.name})"]
        return "\n".join(out) + "\n"

    def charts(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Every spot's chart (``SpotJudgeReport.chart``) as ``folder/SPOT.png``."""
        return [r.chart(Path(folder) / f"{r.name}.png") for r in self.spots]

    def to_json(self) -> dict[str, Any]:
        """The suite as JSON-ready data (``evaluate.py --policy ... --spots ... --json``)."""
        return {"mean_ev_loss_pct": self.mean_ev_loss_pct,
                "mean_ev_loss_fixed_pct": self.mean_ev_loss_fixed_pct,
                "queries": self.queries, "illegal_answers": self.illegal_answers,
                "fallbacks": self.fallbacks, "spots": [r.to_json() for r in self.spots]}


def resolve_suite(spec: Sequence[SuiteSpot] | str | os.PathLike[str] | None) -> list[SuiteSpot]:
    """The spots a suite spec names: ``None``, ``"shipped"`` or ``"default"`` the shipped suite,
    a folder its
    spot files, a ``.toml`` file that spot, a shipped spot's name that spot, or the spots
    themselves.

    Raises:
        ConfigError: for a spec that names none of these, listing what is allowed.
    """
    if spec is None or spec in ("shipped", "default"):
        return load_suite()
    if not isinstance(spec, (str, os.PathLike)):
        return list(spec)
    path = Path(spec)
    if path.is_dir():
        return load_suite(path)
    if path.suffix == ".toml":
        return [load_spot(path)]
    names = [s.name for s in load_suite()]
    if str(spec) in names:
        return [suite_spot_named(str(spec))]
    raise ConfigError(f"spot suite {str(spec)!r} is no folder, .toml file or shipped spot; "
                      f"give 'shipped', a folder of spot files, a spot file or one of "
                      f"{', '.join(names)}")


def judge_suite(spots: Sequence[SuiteSpot] | str | os.PathLike[str] | None, player: Any,
                **options: Any) -> SuiteReport:
    """``judge_spot`` of ``player`` at every spot of a suite (``resolve_suite``: ``None`` or
    ``"default"`` the shipped one), ``options`` passed on; the mean EV loss over the spots."""
    return SuiteReport([judge_spot(s, player, **options) for s in resolve_suite(spots)])


__all__ = [
    "DEFAULT_MAX_QUERIES", "JACKKNIFE_GROUPS", "SOLVE_TARGET_PCT", "EquilibriumPlayer",
    "SpotJudgeReport", "SuiteReport", "SuiteSpot", "cache_folder", "judge_spot", "judge_suite",
    "load_spot", "load_suite", "resolve_suite", "solved_spot", "spot_line", "suite_folder",
    "suite_spot", "suite_spot_named",
]
