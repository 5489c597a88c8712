"""Hold'em decisions as an outside player reads them (a hand-history-style rendering), and
duplicate hold'em matches of an outside player against any state policy.

Kaggle Game Arena's poker harness shows an LLM the game and its stakes, the seats and their
positions (button, small blind, big blind), the stacks, the player's hole cards, the board, each
street's actions with amounts as street totals, the pot and the amount to call; this module
writes the same for pokerzoo's ``limit_holdem`` and ``no_limit_holdem`` (2 to 6 seats) and
registers it in ``pokerzoo.judge.decision.RENDERERS``, so ``describe(state)`` of a hold'em state
renders this way. The text names every action the player saw and its cards, so two information
states never share a text.

>>> from pokerzoo import load_game
>>> from pokerzoo.judge.decision import describe
>>> state = load_game("no_limit_holdem").new_initial_state()
>>> for card in (51, 47, 0, 5):  # As Ks to seat 0 (the button), 2c 3d to seat 1
...     state.apply_action(card)
>>> state.apply_action(3)  # the button raises the pot, to 300
>>> print(describe(state).text)  # doctest: +NORMALIZE_WHITESPACE
Game: heads-up no-limit Texas hold'em, blinds 50/100, starting stacks 10000 chips
(100 big blinds) each; bets and raises are given as the chips a player has put in on the
street in all (the blinds count on the preflop street).
Seats: player 0 is the button and small blind; player 1 is the big blind.
You are player 1 (the big blind).
Your hole cards: 2c 3d
Board: none yet (preflop)
Preflop: player 0 posts the small blind 50, player 1 posts the big blind 100; player 0:
raise 300
Stacks behind: player 0: 9700, player 1: 9900
Pot: 400 chips. You have put in 100 on this street; to call: 200 more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.judge.decision import RENDERERS, LegalAction, betting_so_far, describe
from pokerzoo.judge.protocol import Reply, ask, check_fallback

STREETS = ("Preflop", "Flop", "Turn", "River")
HOLDEM_FAMILIES = ("limit_holdem", "no_limit_holdem")
"""``game.name`` of the hold'em games this module renders."""


def position_names(num_players: int) -> list[str]:
    """Each seat's position: heads-up seat 0 is the button and small blind, seat 1 the big
    blind; with more seats 0 and 1 post the blinds and the last seat has the button.

    >>> position_names(2)
    ['the button and small blind', 'the big blind']
    >>> position_names(4)
    ['the small blind', 'the big blind', 'seat 2', 'the button']
    """
    if num_players == 2:
        return ["the button and small blind", "the big blind"]
    names = ["the small blind", "the big blind"]
    names += [f"seat {seat}" for seat in range(2, num_players - 1)]
    return names + ["the button"]


def _stakes(state: State) -> str:
    game = state.game
    params = game.params()
    n = game.num_players
    small, big, ante = params["small_blind"], params["big_blind"], params.get("ante", 0)
    stacks = game.starting_stacks  # type: ignore[attr-defined]
    if len(set(stacks)) == 1:
        depth = f"{stacks[0] / big:g} big blinds"
        stack_text = f"starting stacks {stacks[0]} chips ({depth}) each"
    else:
        stack_text = "starting stacks " + ", ".join(
            f"player {seat}: {chips}" for seat, chips in enumerate(stacks))
    table = "heads-up" if n == 2 else f"{n}-player"
    kind = "limit" if getattr(game, "is_limit", False) else "no-limit"
    ante_text = f", ante {ante}" if ante else ""
    rules = ""
    if getattr(game, "is_limit", False):
        rules = (f"; bets and raises are {big} chips preflop and on the flop and {2 * big} on "
                 f"the turn and river, at most {game.raise_cap} per street")  # type: ignore[attr-defined]
    return (f"Game: {table} {kind} Texas hold'em, blinds {small}/{big}{ante_text}, "
            f"{stack_text}{rules}; bets and raises are given as the chips a player has put in "
            "on the street in all (the blinds count on the preflop street).")


def _board_line(cards: list[str]) -> str:
    if not cards:
        return "Board: none yet (preflop)"
    street = {3: "flop", 4: "turn", 5: "river"}.get(len(cards), f"{len(cards)} cards")
    return f"Board: {' '.join(cards)} ({street})"


def _street_header(index: int, board: list[str]) -> str:
    if index == 0:
        return STREETS[0]
    if index == 1:
        return f"Flop ({' '.join(board[:3])})"
    return f"{STREETS[index]} ({board[index + 1]})"


def render_holdem(state: State, legal: tuple[LegalAction, ...]) -> str:
    """The hand-history text of the acting player's decision at a hold'em ``state``."""
    game = state.game
    n = game.num_players
    player = state.current_player()
    public = state.public_state()
    positions = position_names(n)
    board = [game.card_to_string(int(c)) for c in public["public_cards"]]
    holes = " ".join(game.card_to_string(int(c)) for c in state.private_cards()[player])
    params = game.params()
    lines = [
        _stakes(state),
        "Seats: " + "; ".join(f"player {seat} is {positions[seat]}" for seat in range(n)) + ".",
        f"You are player {player} ({positions[player]}).",
        f"Your hole cards: {holes}",
        _board_line(board),
    ]
    posts = (f"player 0 posts the small blind {params['small_blind']}, player 1 posts the big "
             f"blind {params['big_blind']}")
    for index, actions in enumerate(betting_so_far(state)):
        header = _street_header(index, board)
        if index == 0:
            text = posts + ("; " + ", ".join(actions) if actions else "")
        else:
            text = ", ".join(actions) or "no action yet"
        lines.append(f"{header}: {text}")
    folded = public.get("folded") or [False] * n
    gone = [f"player {seat}" for seat in range(n) if folded[seat]]
    if gone:
        lines.append("Folded: " + ", ".join(gone))
    lines.append("Stacks behind: " + ", ".join(
        f"player {seat}: {chips}" for seat, chips in enumerate(public["stacks"])))
    street_bets = public["round_bets"]
    to_call = max(street_bets) - street_bets[player]
    call_text = f"to call: {to_call} more" if to_call > 0 else "nothing to call"
    lines.append(f"Pot: {public['pot']} chips. You have put in {street_bets[player]} on this "
                 f"street; {call_text}.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- matches


@dataclass
class AnswerCounts:
    """What answering cost and how it went, summed over ``Reply``s (``add`` each)."""

    queries: int = 0
    requests: int = 0
    cached: int = 0
    illegal: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, reply: Reply) -> None:
        self.queries += 1
        self.requests += reply.requests
        self.cached += int(reply.cached)
        self.illegal += reply.illegal
        self.fallbacks += int(reply.fallback)
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens


class AskedPolicy:
    """An outside player as a state policy: each state's decision asked through
    ``protocol.ask`` (sample 0, so a recurring decision is the cache's), its probabilities
    returned; the costs counted."""

    def __init__(self, player: Any, fallback: str = "check-fold", bar: Any = None) -> None:
        self.player = player
        self.fallback = check_fallback(fallback)
        self.counts = AnswerCounts()
        self.name = str(getattr(player, "name", "player"))
        self.bar = bar

    def action_probabilities(self, state: State) -> dict[int, float]:
        reply = ask(self.player, describe(state), 0, fallback=self.fallback)
        self.counts.add(reply)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(requests=self.counts.requests, cached=self.counts.cached,
                                 refresh=False)
        return dict(reply.probs)


@dataclass(frozen=True)
class HoldemMatchReport:
    """A duplicate match of the player against one opponent (per hand, from the player's side)."""

    opponent: str
    hands: int
    mbb_per_hand: float
    mbb_per_hand_ci: float
    """95% half-width (normal approximation over deals)."""
    chips_per_hand: float
    queries: int
    illegal_answers: int
    fallbacks: int

    def to_json(self) -> dict[str, Any]:
        return {"opponent": self.opponent, "hands": self.hands,
                "mbb_per_hand": self.mbb_per_hand,
                "mbb_per_hand_ci": self.mbb_per_hand_ci, "chips_per_hand": self.chips_per_hand,
                "queries": self.queries, "illegal_answers": self.illegal_answers,
                "fallbacks": self.fallbacks}


def holdem_match(player: Any, opponent_policy: Any, hands: int, seed: int, *,
                 game: Game | None = None, fallback: str = "check-fold",
                 progress: bool = False) -> HoldemMatchReport:
    """Duplicate heads-up hold'em: ``hands`` hands (an even number: each deal is played with
    the seats swapped) of ``player`` against ``opponent_policy`` (any state policy, an agent,
    or a built-in opponent's name: ``pokerzoo.evaluation.opponents``) in ``game`` (default:
    ``no_limit_holdem``), by ``pokerzoo.evaluation.head_to_head``."""
    from pokerzoo.evaluation.head_to_head import head_to_head
    from pokerzoo.evaluation.opponents import make_opponent
    from pokerzoo.games import load_game

    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 2 or hands % 2:
        raise ConfigError(f"hands must be an even integer >= 2 (each deal is played twice, "
                          f"seats swapped), got {hands!r}")
    game = load_game("no_limit_holdem") if game is None else game
    if game.num_players != 2 or game.name.split("(")[0] not in HOLDEM_FAMILIES:
        raise ConfigError(f"holdem_match plays heads-up hold'em, not {game.name} with "
                          f"{game.num_players} players")
    opponent = opponent_policy if isinstance(opponent_policy, str) else str(
        getattr(opponent_policy, "name", type(opponent_policy).__name__))
    if isinstance(opponent_policy, str):
        opponent_policy = make_opponent(opponent_policy, game)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"versus {opponent}", unit="question")
    asked = AskedPolicy(player, fallback, bar)
    try:
        result = head_to_head(game, [asked, opponent_policy], hands // 2, seed=seed)
    finally:
        if bar is not None:
            bar.close()
    return HoldemMatchReport(opponent, int(result.num_hands), float(result.mbb_per_game[0]),
                             float(result.mbb_per_game_ci[0]), float(result.mean_chips[0]),
                             asked.counts.queries, asked.counts.illegal,
                             asked.counts.fallbacks)


for _family in HOLDEM_FAMILIES:
    RENDERERS[_family] = render_holdem


__all__ = ["HOLDEM_FAMILIES", "AnswerCounts", "AskedPolicy", "HoldemMatchReport",
           "holdem_match", "position_names", "render_holdem"]
