"""One decision of a game as an outside player is asked it: the legal actions by name and amount,
the observation, and a text rendering of what the player knows.

Actions are named as Kaggle Game Arena's poker harness names them: ``fold``, ``check``,
``call``, ``bet N`` and ``raise N``, where ``N`` is the chips the player will have put in on this
street after the action (a total for the street, not the increment). Antes posted before the
deal are not counted in a street's total; blinds are (a hold'em raise "to 6" is ``raise 6``).

>>> from pokerzoo import load_game
>>> state = load_game("kuhn_poker").new_initial_state()
>>> state.apply_action(0); state.apply_action(1)  # the deal: J to player 0, Q to player 1
>>> decision = describe(state)
>>> decision.legal_line()
'Legal actions: check, bet 1'
>>> [(a.action, a.label) for a in decision.legal]
[(0, 'check'), (1, 'bet 1')]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import State

ACTION_KINDS = ("fold", "check", "call", "bet", "raise")
"""The names an action can have (``bet`` and ``raise`` carry an amount)."""


@dataclass(frozen=True)
class LegalAction:
    """One legal action: the game's action id, its kind, its amount (street total) and label."""

    action: int
    kind: str
    amount: int | None
    label: str

    def to_json(self) -> dict[str, Any]:
        """The action as JSON-able data (the program protocol's ``legal_actions`` entries)."""
        return {"action": self.action, "kind": self.kind, "amount": self.amount,
                "label": self.label}


@dataclass(frozen=True)
class Decision:
    """What an outside player is asked at one decision.

    ``key`` names the information state (equal exactly when the player cannot tell two
    decisions apart), so it keys caches and tables. ``text`` is the rendering an LLM reads:
    the rules in a sentence, the player's cards, the board, the pot and the betting so far.
    ``state`` is one game state of the information state, for adapters that replay it in
    another library (OpenSpiel, RLCard); a fair adapter reads only what the player may see.
    """

    game: str
    player: int
    key: str
    legal: tuple[LegalAction, ...]
    text: str
    observation: tuple[float, ...]
    state: State | None = field(default=None, compare=False, repr=False)

    def legal_line(self) -> str:
        """``"Legal actions: fold, call, raise 4"``: the line the prompt lists them on."""
        return "Legal actions: " + ", ".join(a.label for a in self.legal)

    def action_of(self, label: str) -> LegalAction | None:
        """The legal action whose label is ``label`` (case and spacing ignored), or ``None``."""
        wanted = " ".join(label.lower().split())
        for legal in self.legal:
            if legal.label == wanted:
                return legal
        return None

    @property
    def actions(self) -> tuple[int, ...]:
        """The legal action ids, in the game's order."""
        return tuple(a.action for a in self.legal)

    def to_json(self) -> dict[str, Any]:
        """The decision as one JSON object (the program protocol's request line)."""
        return {
            "game": self.game,
            "player": self.player,
            "info_state": self.key,
            "legal_actions": [a.to_json() for a in self.legal],
            "text": self.text,
            "observation": list(self.observation),
        }


def _street_start(state: State) -> list[float]:
    """Each seat's contribution when the current betting round began (see ``_street_base``)."""
    replay = state.game.new_initial_state()
    start: list[float] | None = None
    seen = -1
    for action in [*state.history(), None]:
        if not replay.is_chance_node() and replay.public_state()["round"] > seen:
            seen = replay.public_state()["round"]
            start = _street_base(replay, first=start is None)
        if action is not None:
            replay.apply_action(action)
    return start if start is not None else [0.0] * state.game.num_players


def _street_base(state: State, first: bool) -> list[float]:
    """The contributions a street's totals are counted from, at its first decision: antes are
    left out of round one's totals, blinds are counted in them."""
    contributions = [float(c) for c in state.public_state()["contributions"]]
    if first and len(set(contributions)) > 1:
        # Unequal forced bets before any action are blinds: a street total counts them, so
        # only the ante (the same for every seat, and 0 where the game has none) is left out.
        ante = float(state.game.params().get("ante", 0) or 0)
        return [ante] * len(contributions)
    return contributions


def action_label(state: State, action: int, street_start: Sequence[float]) -> LegalAction:
    """The kind, street-total amount and label of one legal ``action`` at ``state``, given
    each seat's contribution when the street began.

    The kind comes from what the action does: a fold leaves the player's chips as they are
    while someone has put in more (or sets its folded flag); a check leaves them equal to the
    most anyone has put in; a call matches it; a bet puts in more when nobody had bet on the
    street, a raise when someone had.
    """
    player = state.current_player()
    contributions = [float(c) for c in state.public_state()["contributions"]]
    highest = max(contributions)
    facing = highest > contributions[player]
    opened = highest > max(street_start)
    child = state.child(action)
    kind = _kind_after(child, player, contributions, highest, facing, opened)
    amount = None
    if kind in ("bet", "raise"):
        put = float(child.public_state()["contributions"][player]) - street_start[player]
        amount = int(round(put))  # chips, never big blinds: the label is the table's
    return LegalAction(int(action), kind, amount, kind if amount is None else f"{kind} {amount}")


def legal_actions_of(state: State) -> tuple[LegalAction, ...]:
    """The acting player's legal actions by kind and street-total amount (``action_label``)."""
    start = _street_start(state)
    return tuple(action_label(state, action, start) for action in state.legal_actions())


def _kind_after(child: State, player: int, contributions: Sequence[float], highest: float,
                facing: bool, opened: bool) -> str:
    public = child.public_state()
    folded = public.get("folded")
    if folded is not None and folded[player]:
        return "fold"
    after = float(public["contributions"][player])
    if after == contributions[player]:
        # Chips unchanged: a fold where a bet is faced (games without a folded flag), else a check.
        return "fold" if facing else "check"
    if after <= highest:
        return "call"
    return "raise" if opened or facing else "bet"


Renderer = Callable[[State, tuple[LegalAction, ...]], str]
RENDERERS: dict[str, Renderer] = {}
"""Text renderings by game family (``game.name``'s part before any ``(``); others use
``render_small_game``."""
RENDERER_MODULES = {"limit_holdem": "pokerzoo.judge.holdem",
                    "no_limit_holdem": "pokerzoo.judge.holdem"}
"""Modules that register a family's rendering, imported the first time it is described."""


def _cards(state: State, cards: Sequence[int]) -> str:
    return " ".join(state.game.card_to_string(int(c)) for c in cards) or "none"


def _rules(state: State) -> str:
    game = state.game
    name = game.name
    params = game.params()
    if name.startswith("kuhn"):
        n = game.num_players
        deck = " ".join(game.card_to_string(c) for c in range(n + 1))
        return (f"Kuhn poker, {n} players. Deck: {deck} (lowest to highest). Each player antes "
                "1 chip and gets one private card; one betting round; a bet is 1 chip and "
                "only one bet is allowed; at a showdown the highest card wins the pot.")
    if name.startswith("leduc"):
        ranks = params.get("num_ranks", 3)
        suits = params.get("num_suits", 2)
        sizes = params.get("raise_sizes", (2, 4))
        cap = params.get("max_raises_per_round", 2)
        cap_text = f"at most {cap} raises per round" if cap is not None else "no raise cap"
        return (f"Leduc hold'em, {game.num_players} players, a deck of {ranks} ranks x {suits} "
                f"suits. Each player antes {params.get('ante', 1)} and gets one private card; "
                f"round one is bet, then one public card is dealt and round two is bet. Bets "
                f"and raises are {sizes[0]} chips in round one and {sizes[1]} in round two, "
                f"{cap_text}. At a showdown a pair with the public card wins, else the higher "
                "card; equal hands split the pot.")
    return f"{name}."


def betting_so_far(state: State) -> list[list[str]]:
    """Each betting round's actions so far as ``"player i: label"`` (``action_label``'s
    labels), in one replay of the hand."""
    replay = state.game.new_initial_state()
    rounds: list[list[str]] = []
    start: list[float] = []
    for action in state.history():
        if not replay.is_chance_node():
            round_index = replay.public_state()["round"]
            if round_index >= len(rounds):  # the street's first decision: its totals' base
                start = _street_base(replay, first=not rounds)
                rounds.extend([] for _ in range(round_index + 1 - len(rounds)))
            label = action_label(replay, int(action), start).label
            rounds[round_index].append(f"player {replay.current_player()}: {label}")
        replay.apply_action(action)
    rounds.extend([] for _ in range(state.public_state()["round"] + 1 - len(rounds)))
    return rounds


def render_small_game(state: State, legal: tuple[LegalAction, ...]) -> str:
    """The rendering of Kuhn, Leduc and any game without a renderer of its own."""
    player = state.current_player()
    public = state.public_state()
    lines = [f"Game: {_rules(state)}",
             f"You are player {player} (players are numbered from 0 in the order they act).",
             f"Your card: {_cards(state, state.private_cards()[player])}"]
    if public.get("public_cards"):
        lines.append(f"Public card: {_cards(state, public['public_cards'])}")
    lines.append(f"Pot: {public['pot']} chips. Chips put in by each player: "
                 + ", ".join(f"player {i}: {c}" for i, c in enumerate(public["contributions"])))
    for round_index, actions in enumerate(betting_so_far(state)):
        lines.append(f"Round {round_index + 1} betting: " + (", ".join(actions) or "none yet"))
    return "\n".join(lines)


def describe(state: State) -> Decision:
    """The decision the acting player faces at ``state`` (not a chance node or a terminal)."""
    if state.is_terminal() or state.is_chance_node():
        raise ConfigError("a decision is asked at a state where a player acts, not at a chance "
                          "node or a terminal")
    player = state.current_player()
    legal = legal_actions_of(state)
    game = state.game
    family = game.name.split("(")[0]
    if family not in RENDERERS and family in RENDERER_MODULES:
        import importlib

        importlib.import_module(RENDERER_MODULES[family])  # registers itself in RENDERERS
    render = RENDERERS.get(family, render_small_game)
    tensor = state.information_state_tensor(player)
    return Decision(game=game.name, player=player, key=str(state.information_state_key(player)),
                    legal=legal, text=render(state, legal),
                    observation=tuple(float(x) for x in tensor), state=state)


def labels_of(decision: Decision) -> Mapping[int, str]:
    """``{action id: label}`` of the decision's legal actions."""
    return {a.action: a.label for a in decision.legal}
