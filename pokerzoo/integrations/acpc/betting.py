"""A hand as the ACPC dealer plays it, in its real chips (``project_acpc_server``'s rules).

pokerzoo's no-limit game raises only the sizes of its menu, so the client replays an ACPC
dealer's hand in pokerzoo's game with translated raises (``matchstate.replay``). What the
dealer really did is followed here, token by token, in the dealer's own chips and position
order: who is to act, how much each position has put in, the smallest and largest raise
allowed, and at the end what each position won. The rules are those of the ACPC dealer:

* the blinds are put in first; a no-limit raise is ``r<N>``, ``N`` the raiser's whole
  commitment over the hand; the smallest raise is to the current bet plus the largest of
  the last raise and the big blind (a player whose stack is below it may still go all-in);
* a limit raise adds the round's ``raiseSize`` (capped at the stack) and ``maxRaises``
  counts the raises of a round (the blinds are none);
* the first player of a round is the round's ``firstPlayer`` or the next one still able to
  act; a player who folded or is all-in does not act again;
* once one player is left the hand ends; once fewer than two can act the hand goes to the
  showdown; payoffs are each side pot split evenly among its best hands (fractions of a chip
  kept, as the dealer's log does).

>>> from pokerzoo.games import load_game
>>> rules = rules_of(load_game("no_limit_holdem"), (1, 0))  # ACPC's reverse blinds
>>> hand = AcpcHand(rules)
>>> for token in ["r300", "r900", "c"]:
...     hand.apply(token)
>>> hand.round, hand.spent, hand.current_player()
(1, [900, 900], 0)
>>> hand.raise_range()
(1000, 10000)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.cards import hand_rank
from pokerzoo.integrations.acpc.matchstate import holdem_game

NUM_ROUNDS = 4


@dataclass(frozen=True)
class Rules:
    """The betting rules of an ACPC gamedef, by ACPC position."""

    limit: bool
    blinds: tuple[int, ...]
    stacks: tuple[int, ...]
    first_player: tuple[int, ...]
    """The first position to act in each round (0-based)."""
    raise_sizes: tuple[int, ...]
    """Limit: the size of a raise in each round (no-limit: unused)."""
    max_raises: tuple[int, ...] | None
    """Limit: the most raises in each round (``None``: no cap)."""

    @property
    def num_players(self) -> int:
        return len(self.blinds)


def rules_of(game: Game, seats: Sequence[int] | None = None) -> Rules:
    """The ACPC rules of pokerzoo's hold'em ``game`` with ACPC position ``p`` played by
    pokerzoo seat ``seats[p]`` (``gamedef.seats_of_gamedef``; default: seat ``p``)."""
    holdem = holdem_game(game)
    n = holdem.num_players
    seat_of = tuple(range(n)) if seats is None else tuple(seats)
    if sorted(seat_of) != list(range(n)):
        raise ConfigError(f"seats must name each of the {n} pokerzoo seats once, got {seats!r}")
    cfg = holdem.config
    seat_blinds = [cfg.small_blind, cfg.big_blind] + [0] * (n - 2)
    position = {seat: p for p, seat in enumerate(seat_of)}
    first = (position[holdem.preflop_first],) + (position[holdem.postflop_first],) * 3
    cap = holdem.raise_cap
    return Rules(
        limit=holdem.is_limit,
        blinds=tuple(seat_blinds[s] for s in seat_of),
        stacks=tuple(holdem.starting_stacks[s] for s in seat_of),
        first_player=first,
        raise_sizes=tuple(holdem.bet_sizes),
        max_raises=(cap - 1, cap, cap, cap) if holdem.is_limit and cap else None,
    )


class AcpcHand:
    """One hand under ``rules``, advanced by the ACPC tokens ``apply`` is given."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        n = rules.num_players
        self.spent = list(rules.blinds)
        self.max_spent = max(self.spent)
        self.big_blind = max(rules.blinds) or 1
        self.min_raise_to = 2 * self.max_spent if self.max_spent else 1
        self.folded = [False] * n
        self.round = 0
        self.actions: list[list[tuple[int, str]]] = [[] for _ in range(NUM_ROUNDS)]
        self.finished = False

    # ----------------------------------------------------------------- who acts

    def all_in(self, position: int) -> bool:
        return self.spent[position] >= self.rules.stacks[position]

    def _acting(self) -> int:
        return sum(not f and not self.all_in(p) for p, f in enumerate(self.folded))

    def _next(self, position: int) -> int:
        n = self.rules.num_players
        for step in range(1, n + 1):
            p = (position + step) % n
            if not self.folded[p] and not self.all_in(p):
                return p
        raise ConfigError("no ACPC position can act in this hand")

    def current_player(self) -> int:
        """The position to act (the hand is not finished)."""
        if self.finished:
            raise ConfigError("the hand is over: no one is to act")
        done = self.actions[self.round]
        if done:
            return self._next(done[-1][0])
        return self._next(self.rules.first_player[self.round] - 1)

    def raise_range(self) -> tuple[int, int] | None:
        """The smallest and largest raise-to of the player to act (limit: the one size),
        ``None`` where no raise is allowed."""
        caps = self.rules.max_raises
        raises = sum(kind == "r" for _, kind in self.actions[self.round])
        if caps is not None and raises >= caps[self.round]:
            return None
        if self._acting() <= 1:
            return None
        p = self.current_player()
        stack = self.rules.stacks[p]
        if self.rules.limit:
            size = min(self.max_spent + self.rules.raise_sizes[self.round], stack)
            return None if size <= self.max_spent else (size, size)
        if self.min_raise_to > stack:
            return None if self.max_spent >= stack else (stack, stack)
        return self.min_raise_to, stack

    def to_call(self) -> int:
        p = self.current_player()
        return min(self.max_spent, self.rules.stacks[p]) - self.spent[p]

    # ----------------------------------------------------------------- actions

    def apply(self, token: str) -> None:
        """Play the ACPC ``token`` (``f``, ``c``, ``r`` or ``r<N>``) of the player to act.

        Raises:
            ConfigError: a token the ACPC dealer would not have sent here (it sends only
                valid actions): a fold with nothing to call, a raise where none is allowed
                or of a size outside ``raise_range``.
        """
        p = self.current_player()
        kind = token[:1]
        if kind == "f":
            if self.spent[p] >= self.max_spent:
                raise ConfigError("a fold with nothing to call")
            self.folded[p] = True
        elif kind == "c" and token == "c":
            self.spent[p] = min(self.max_spent, self.rules.stacks[p])
        elif kind == "r":
            allowed = self.raise_range()
            if allowed is None:
                raise ConfigError(f"{token!r} where no raise is allowed")
            if self.rules.limit:
                if token != "r":
                    raise ConfigError(f"{token!r}: a limit raise has no size")
                to = allowed[0]
            else:
                if not token[1:].isdecimal():
                    raise ConfigError(f"{token!r}: a no-limit raise needs its size, r<N>")
                to = int(token[1:])
                if not allowed[0] <= to <= allowed[1]:
                    raise ConfigError(f"{token!r} is outside the raises allowed, "
                                      f"r{allowed[0]} to r{allowed[1]}")
                self.min_raise_to = max(self.min_raise_to, 2 * to - self.max_spent)
            self.max_spent = to
            self.spent[p] = to
        else:
            raise ConfigError(f"{token!r} is not f, c, r or r<N>")
        self.actions[self.round].append((p, kind))
        self._end_of_action()

    def _called(self) -> int:
        """Players who have matched the current bet in this round and can still act."""
        count = 0
        for p, kind in reversed(self.actions[self.round]):
            if kind in "rc" and not self.all_in(p):
                count += 1
            if kind == "r":
                break
        return count

    def _end_of_action(self) -> None:
        if sum(self.folded) + 1 >= self.rules.num_players:
            self.finished = True
        elif self._called() >= self._acting():
            if self._acting() > 1 and self.round + 1 < NUM_ROUNDS:
                self.round += 1
                self.min_raise_to = self.max_spent + self.big_blind
            else:
                self.finished = True
                self.round = NUM_ROUNDS - 1

    # ----------------------------------------------------------------- the end

    def payoffs(self, hole_cards: Sequence[Sequence[int]],
                board: Sequence[int]) -> list[float]:
        """Each position's chips won (lost: negative) in the finished hand; ``hole_cards``
        and the five ``board`` cards are needed only at a showdown."""
        if not self.finished:
            raise ConfigError("the hand is not over")
        n = self.rules.num_players
        if sum(self.folded) + 1 >= n:
            winner = self.folded.index(False)
            return [float(sum(self.spent) - self.spent[p]) if p == winner
                    else -float(self.spent[p]) for p in range(n)]
        if len(board) != 5 or any(len(hole_cards[p]) != 2
                                  for p in range(n) if not self.folded[p]):
            raise ConfigError("a showdown needs the hole cards of every player still in and "
                              "five board cards")
        strength = {p: -hand_rank([*hole_cards[p], *board])  # larger is stronger
                    for p in range(n) if not self.folded[p]}
        won = [0.0] * n
        level = 0
        for top in sorted(set(self.spent)):
            layer = [p for p in range(n) if self.spent[p] >= top]
            amount = (top - level) * len(layer)
            live = [p for p in layer if p in strength]
            if live:
                best = max(strength[p] for p in live)
                winners = [p for p in live if strength[p] == best]
                for p in winners:
                    won[p] += amount / len(winners)
            level = top
        return [won[p] - self.spent[p] if not self.folded[p] else -float(self.spent[p])
                for p in range(n)]


def chips_text(value: float) -> str:
    """``value`` as the ACPC dealer's log writes chips: no trailing zeros (``5``, ``-2.5``)."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
