"""Play poker against an agent in a terminal (the logic behind ``play.py``).

A ``PlaySession`` deals hands of any game through a ``PokerEnv``: the human takes one seat
(rotating every hand), and an ``Opponent`` (a trained agent, a ``TabularPolicy``, or a built-in
player) answers every other seat from exactly what the env gives it. The session reads lines
from an input stream and writes to an output stream, so it runs the same in a terminal and in a
test with ``io.StringIO``.

Input at a turn: an action's name (case-insensitive; a unique prefix is enough, and the usual
poker words work where the game names an action differently, e.g. Kuhn's ``pass`` is ``check``
or ``fold``), its number, ``help``, or ``quit``. Anything else prints a one-line hint with the
legal actions and asks again; end of input or Ctrl-C ends the session with the final score.

Finished hands are kept in ``PlaySession.finished`` (``FinishedHand``) and passed to an optional
recorder (anything with ``record(state, names)``, e.g. a
``pokerzoo.evaluation.hand_history.HandRecorder``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np

from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.envs.rendering import render_text
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.arguments import count_arg, is_int
from pokerzoo.games.base import Game, State
from pokerzoo.games.registry import load_game

QUIT_WORDS = ("quit", "exit")
HELP_WORDS = ("help", "?")
Z_95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


# Opponents ---------------------------------------------------------------------------------


class Opponent(Protocol):
    """Who plays the seats the human does not: ``choose`` answers one env turn."""

    label: str

    def choose(
        self, env: PokerEnv, observation: Any, info: Mapping[str, Any], rng: np.random.Generator
    ) -> int: ...


class AgentOpponent:
    """A trained agent, answering through ``agent.act(observation, info, rng)``."""

    def __init__(self, agent: Any, label: str) -> None:
        self.agent = agent
        self.label = label

    def choose(
        self, env: PokerEnv, observation: Any, info: Mapping[str, Any], rng: np.random.Generator
    ) -> int:
        return int(self.agent.act(observation, info, rng))


class PolicyOpponent:
    """A state policy (e.g. a ``TabularPolicy``): samples ``action_probabilities(state)``."""

    def __init__(self, policy: Any, label: str) -> None:
        self.policy = policy
        self.label = label

    def choose(
        self, env: PokerEnv, observation: Any, info: Mapping[str, Any], rng: np.random.Generator
    ) -> int:
        state = env.game_state
        try:
            probs = self.policy.action_probabilities(state)
        except KeyError as exc:
            raise InvalidPolicyError(
                f"{self.label} has no row for this situation ({exc}); "
                f"was it computed for another game than {env.game!r}?"
            ) from None
        actions = list(probs)
        weights = np.array([max(float(probs[a]), 0.0) for a in actions])
        if not actions or not weights.sum() > 0:
            raise InvalidPolicyError(
                f"{self.label} gives no probability to the legal actions {state.legal_actions()}"
            )
        return int(actions[rng.choice(len(actions), p=weights / weights.sum())])


def built_in_opponent(name: str, game: Game) -> Opponent:
    """A built-in opponent of ``pokerzoo.evaluation.opponents`` (``random``, ``always-call``,
    and any registered later) for ``game``; ``ConfigError`` naming them for an unknown name."""
    from pokerzoo.evaluation.opponents import make_opponent

    return PolicyOpponent(make_opponent(name, game), name)


# Reading actions ---------------------------------------------------------------------------


def _facing_bet(state: State) -> bool:
    """Whether the seat to act has put in less than someone else (a bet to call)."""
    contributions = state.public_state()["contributions"]
    return max(contributions) > contributions[state.current_player()]


def poker_word(name: str, facing: bool) -> str | None:
    """The usual poker word for an action the game calls ``name``, where it differs: Kuhn's
    ``pass`` is a check or a fold and its ``bet`` a call when facing a bet; a call with nothing
    to call is a check, a raise with nothing to raise is a bet."""
    synonyms = {
        "pass": "fold" if facing else "check",
        "bet": "call" if facing else None,
        "call": None if facing else "check",
        "raise": None if facing else "bet",
    }
    return synonyms.get(name.lower())


def action_words(name: str, facing: bool) -> list[str]:
    """Every word that may name an action called ``name``: the name, each alternative of a
    ``"a/b ..."`` name (``"bet/raise 1 pot"``: ``"bet 1 pot"``, ``"raise 1 pot"``), its usual
    poker word (``poker_word``), and ``allin`` for ``all-in``."""
    name = name.lower()
    words = [name]
    head, _, tail = name.partition(" ")
    if "/" in head:
        words += [f"{part} {tail}".strip() for part in head.split("/")]
    extra = poker_word(name, facing)
    if extra:
        words.append(extra)
    if name == "all-in":
        words.append("allin")
    return list(dict.fromkeys(words))


@dataclass
class ActionMenu:
    """The legal actions at a turn, by number and by name, and how to read a typed choice."""

    legal: list[int]
    names: dict[int, str]
    words: dict[int, list[str]]
    facing: bool = False

    @classmethod
    def of(cls, state: State) -> ActionMenu:
        """The menu of the seat to act in ``state``."""
        facing = _facing_bet(state)
        legal = state.legal_actions()
        names = {a: state.action_to_string(a) for a in legal}
        words = {a: action_words(names[a], facing) for a in legal}
        return cls(legal, names, words, facing)

    def listing(self) -> str:
        """``"[0] pass/check  [1] bet"``: each legal action's number and words."""
        items = []
        for a in self.legal:
            extra = poker_word(self.names[a], self.facing)
            items.append(f"[{a}] {self.names[a]}" + (f"/{extra}" if extra else ""))
        return "  ".join(items)

    def parse(self, text: str) -> tuple[int | None, str]:
        """``(action, "")`` for a typed choice, or ``(None, hint)`` saying why it is not one.

        A number is an action's number; a name matches a word exactly, or else word by word
        (each typed word a prefix of the action's, the more exact words the better), so
        ``c``, ``call`` and ``r 1`` work where they point to one action.
        """
        typed = " ".join(text.lower().split())
        if typed.isdigit():
            number = int(typed)
            if number in self.legal:
                return number, ""
            return None, f"{number} is not a legal action here; legal actions: {self.listing()}"
        exact = {a for a, ws in self.words.items() if typed in ws}
        if len(exact) == 1:
            return exact.pop(), ""
        tokens = typed.split(" ")
        best: dict[int, int] = {}
        for a, ws in self.words.items():
            for w in ws:
                parts = w.split(" ")
                if len(tokens) <= len(parts) and all(
                    p.startswith(t) for t, p in zip(tokens, parts, strict=False)
                ):
                    score = sum(t == p for t, p in zip(tokens, parts, strict=False))
                    best[a] = max(best.get(a, -1), score)
        if best:
            top = max(best.values())
            winners = [a for a, s in best.items() if s == top]
            if len(winners) == 1:
                return winners[0], ""
            options = ", ".join(self.names[a] for a in winners)
            return None, f"{text.strip()!r} could be {options}; legal actions: {self.listing()}"
        if typed in POKER_WORDS:
            # A real poker action that this turn does not offer: say so, not "unknown".
            why = (" (nothing to call: checking is free)" if typed == "fold" and not self.facing
                   else "")
            return None, f"{typed} is not legal here{why}; legal actions: {self.listing()}"
        return None, (
            f"unknown action {text.strip()!r}; legal actions: {self.listing()} "
            "(a name, a unique prefix or a number; 'quit' to stop)"
        )


POKER_WORDS = frozenset({"fold", "check", "call", "bet", "raise", "all-in", "all in", "allin",
                         "pass", "shove", "jam"})
"""Words for poker actions: typed where the turn does not offer them, they are called illegal
(with the legal ones), not unknown."""


# Score -------------------------------------------------------------------------------------


@dataclass
class Score:
    """The human's results hand by hand (chips), with bb/100 in the game's chip unit."""

    chip_unit: float
    results: list[float] = field(default_factory=list)

    @property
    def hands(self) -> int:
        return len(self.results)

    @property
    def total(self) -> float:
        return float(sum(self.results))

    @property
    def mean(self) -> float:
        """Chips won per hand (0 before the first hand)."""
        return self.total / self.hands if self.results else 0.0

    @property
    def ci95(self) -> float:
        """Half-width of the 95% normal confidence interval of the mean (chips per hand);
        infinite before two hands, where the spread is unknown."""
        if self.hands < 2:
            return math.inf
        return Z_95 * float(np.std(self.results, ddof=1)) / math.sqrt(self.hands)

    @property
    def bb_per_100(self) -> float:
        return 100.0 * self.mean / self.chip_unit

    @property
    def bb_per_100_ci95(self) -> float:
        return 100.0 * self.ci95 / self.chip_unit

    def summary(self) -> str:
        """``"+3 chips over 4 hands = +75.0 bb/100 (95% CI +-120.3)"``."""
        plural = "" if self.hands == 1 else "s"
        chips = "chip" if abs(self.total) == 1 else "chips"
        ci = (f"95% CI +-{self.bb_per_100_ci95:.1f}" if math.isfinite(self.ci95)
              else "95% CI needs 2 hands")
        return (f"{self.total:+g} {chips} over {self.hands} hand{plural} = "
                f"{self.bb_per_100:+.1f} bb/100 ({ci})")


# Hands -------------------------------------------------------------------------------------


@dataclass
class FinishedHand:
    """One hand as it was played, for score keeping and hand histories.

    ``history`` is every action applied to the game state in order (chance outcomes
    included); ``actions`` the seats' decisions as ``(seat, action, name)``; ``payoffs`` what
    each seat received (for unknown-environment games the env's sampled rewards).
    """

    number: int
    game: Game
    human_seat: int
    seat_labels: list[str]
    history: list[int]
    actions: list[tuple[int, int, str]]
    private_cards: list[list[int]]
    public_cards: list[int]
    payoffs: list[float]
    state: State


class HandSink(Protocol):
    """Receives every finished hand: its final state and the seats' names, as
    ``pokerzoo.evaluation.hand_history.HandRecorder.record`` takes them."""

    def record(self, state: State, names: Sequence[str] | None = None) -> None: ...


class _Quit(Exception):
    """The human typed quit (or the input ended): end the session after this line."""


class PlaySession:
    """Hands between a human (reading ``stdin``, writing ``stdout``) and ``opponent``.

    The human sits in seat ``hand % num_players`` of each hand, so seats rotate; the opponent
    plays every other seat. ``seed`` fixes the deals and the opponent's sampling.
    """

    def __init__(
        self,
        game: Game,
        opponent: Opponent,
        stdin: TextIO,
        stdout: TextIO,
        *,
        seed: int = 0,
        hands: int | None = None,
        recorder: HandSink | None = None,
    ) -> None:
        if hands is not None and not (is_int(hands) and hands >= 1):
            raise ConfigError(f"hands must be at least 1, got {hands!r}; leave it out to play "
                              "until you quit")
        seed = count_arg(seed, "seed", 0)
        if not isinstance(game, Game):
            raise ConfigError(f"game must be a pokerzoo Game, got {game!r}")
        for role, value, method in (("opponent", opponent, "choose"),
                                    ("recorder", recorder, "record")):
            if (value is not None or role == "opponent") and not callable(
                getattr(value, method, None)
            ):
                raise ConfigError(f"the {role} must have a {method}() method, got {value!r}")
        self.game = game
        self.opponent = opponent
        self.stdin = stdin
        self.stdout = stdout
        self.hands = hands
        self.recorder = recorder
        self.env = PokerEnv(game, illegal_action="raise")
        deal_seed, agent_seed = np.random.SeedSequence(seed).spawn(2)
        self._deal_seed = int(deal_seed.generate_state(1)[0])
        self.rng = np.random.default_rng(agent_seed)
        self.score = Score(game.chip_unit)
        self.finished: list[FinishedHand] = []

    # Output --------------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def _labels(self, human: int) -> list[str]:
        n = self.game.num_players
        if n == 2:
            return ["you" if p == human else self.opponent.label for p in range(2)]
        return ["you" if p == human else f"{self.opponent.label}#{p}" for p in range(n)]

    # Play ----------------------------------------------------------------------------------

    def run(self) -> Score:
        """Play until ``hands`` are done, the human quits, or the input ends; print the final
        score and return it. Ctrl-C ends the session the same way."""
        self.say(f"{self.game!r} against {self.opponent.label}: type an action's name, a unique "
                 "prefix or its number; 'help' for help, 'quit' to stop.")
        try:
            while self.hands is None or self.score.hands < self.hands:
                self.play_hand()
        except _Quit:
            pass
        except KeyboardInterrupt:
            self.say()
        self.say(f"final score: you {self.score.summary()}")
        self.say(f"hands played: {self.score.hands}")
        return self.score

    def play_hand(self) -> FinishedHand:
        """Deal and play one hand; raises ``_Quit`` if the human stops in the middle."""
        number = self.score.hands + 1
        n = self.game.num_players
        human = (number - 1) % n
        labels = self._labels(human)
        env = self.env
        env.reset(seed=self._deal_seed if number == 1 else None)
        total = f" of {self.hands}" if self.hands is not None else ""
        self.say(f"\n=== hand {number}{total}: you are seat {human} ({env.possible_agents[human]}) "
                 f"===")
        actions: list[tuple[int, int, str]] = []
        while not env.game_state.is_terminal():
            state = env.game_state
            seat = state.current_player()
            observation, _, _, _, info = env.last()
            if seat == human:
                action = self._ask(state, labels)
            else:
                action = self.opponent.choose(env, observation, info, self.rng)
            name = state.action_to_string(action)
            actions.append((seat, action, name))
            if seat != human:
                self.say(f"{labels[seat]}: {name}")
            env.step(action)
        state = env.game_state
        payoffs = [float(env.rewards[a]) for a in env.possible_agents]
        hand = FinishedHand(
            number=number,
            game=env.game,
            human_seat=human,
            seat_labels=labels,
            history=list(state.history()),
            actions=actions,
            private_cards=[list(c) for c in state.private_cards()],
            public_cards=list(state.public_state()["public_cards"]),
            payoffs=payoffs,
            state=state.clone(),
        )
        self._show_showdown(hand)
        self.score.results.append(payoffs[human])
        self.finished.append(hand)
        if self.recorder is not None:
            self.recorder.record(hand.state, hand.seat_labels)
        self.say(f"score: you {self.score.summary()}")
        return hand

    def _ask(self, state: State, labels: list[str]) -> int:
        """Show the table from the human's seat and read actions until one is legal."""
        menu = ActionMenu.of(state)
        self.say(render_text(self.game, state, state.current_player(), labels))
        self.say(f"legal actions: {menu.listing()}")
        while True:
            self.stdout.write("your action> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:  # end of input
                self.say()
                raise _Quit
            text = line.strip()
            if not text:
                continue
            if text.lower() in QUIT_WORDS:
                raise _Quit
            if text.lower() in HELP_WORDS:
                self.say(f"legal actions: {menu.listing()}; type a name, a unique prefix or a "
                         f"number; 'quit' ends the session. Score so far: {self.score.summary()}")
                continue
            action, hint = menu.parse(text)
            if action is not None:
                return action
            self.say(hint)

    def _show_showdown(self, hand: FinishedHand) -> None:
        game = self.game
        folded = hand.state.public_state().get("folded", [False] * game.num_players)
        board = " ".join(game.card_to_string(c) for c in hand.public_cards) or "-"
        width = max(len(label) for label in hand.seat_labels)
        self.say(f"--- showdown (board: {board}) ---")
        for p, label in enumerate(hand.seat_labels):
            cards = " ".join(game.card_to_string(c) for c in hand.private_cards[p]) or "-"
            note = "  (folded)" if folded[p] else ""
            self.say(f"showdown: {label.ljust(width)}  {cards}  {hand.payoffs[p]:+g}{note}")
        won = hand.payoffs[hand.human_seat]
        chips = f"{abs(won):g} chip{'' if abs(won) == 1 else 's'}"
        outcome = f"won {chips}" if won > 0 else (f"lost {chips}" if won < 0 else "broke even")
        self.say(f"hand {hand.number}: you {outcome}")


# Loading who to play -----------------------------------------------------------------------


def load_opponent(
    run: str | Path | None = None,
    policy: str | Path | None = None,
    opponent: str | None = None,
    game: str | None = None,
    game_params: Mapping[str, Any] | None = None,
) -> tuple[Game, Opponent]:
    """The game and the opponent for ``play.py``: exactly one of a run folder (its policy
    table, else its agent restored from the checkpoint, as ``evaluate.py`` reads runs), a
    ``TabularPolicy`` file, or a built-in opponent name.

    ``game`` (with ``game_params``) chooses the game for a policy file (default: the game it
    was saved for) or a built-in opponent (default Leduc hold'em); a run plays its own game.

    Raises:
        ConfigError: for none or several sources, an unknown opponent, or a game other than a
            run's own.
    """
    from pokerzoo.evaluation.opponents import opponent_names

    for what, value, kind in (("run", run, str | PathLike), ("policy", policy, str | PathLike),
                              ("opponent", opponent, str), ("game", game, str),
                              ("game_params", game_params, Mapping)):
        if value is not None and not isinstance(value, kind):
            raise ConfigError(f"{what} must be {_KINDS[what]} or None, got {value!r}")
    given = [s for s in (run, policy, opponent) if s is not None]
    if len(given) != 1:
        raise ConfigError(
            "give exactly one of a run folder, --policy FILE.npz or --opponent NAME "
            f"({'|'.join(opponent_names())})"
        )
    params = dict(game_params or {})
    if run is not None:
        from pokerzoo.runs.folder import SavedRun

        saved = SavedRun.open(run)
        if game is not None or params:
            wanted = load_game(game or saved.config["game"], **params)
            if wanted != saved.game:
                raise ConfigError(
                    f"{saved.label} was trained on {saved.game!r} and plays only that game, "
                    f"not {wanted!r}; drop --game/--game-param"
                )
        return saved.game, _run_opponent(saved)
    if policy is not None:
        from pokerzoo.tree.tabular_policy import TabularPolicy

        table = TabularPolicy.load(policy)
        if game is None and not table.game_name:
            raise ConfigError(f"{policy} does not name its game; pass --game")
        name = game or table.game_name
        chosen = load_game(name, **(params if game or params else table.game_params))
        return chosen, PolicyOpponent(table, Path(policy).stem)
    assert opponent is not None
    chosen = load_game(game or "leduc_holdem", **params)
    return chosen, built_in_opponent(opponent, chosen)


_KINDS = {"run": "a folder path", "policy": "a file path", "opponent": "a name",
          "game": "a game name", "game_params": "a mapping of parameters"}


def _run_opponent(saved: Any) -> Opponent:
    """A saved run's player: its policy table if it wrote one, else its restored agent."""
    table = saved.tabular_policy()
    if table is not None:
        return PolicyOpponent(table, saved.label)
    from pokerzoo.runs.load import load_agent

    agent = load_agent(saved.folder)
    return AgentOpponent(agent, saved.label)

