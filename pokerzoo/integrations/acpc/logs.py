"""Reading the logs of an ACPC match: the dealer's (``project_acpc_server``'s ``NAME.log`` or
pokerzoo's ``--acpc-log``) and a pokerzoo client's (``play_on_dealer(..., log=...)``), and
checking that they agree hand by hand.

The dealer's log has a line ``STATE:<hand>:<betting>:<cards>:<payoffs>:<names>`` per hand
(payoffs and names ``|``-separated, in the positions of that hand) and ``SCORE:<totals>:<names>``
at the end; lines starting with ``#`` are comments. A client's log has, per hand, the last
``MATCHSTATE`` line it was sent, ``:`` and the chips its position won.

>>> dealer = read_dealer_log("# a comment\\nSTATE:0:cc/cc/cc/cc:AhAd|2c3d/KsQsJs/9h/8h:"
...                          "20|-20:pz|ex\\nSCORE:20|-20:pz|ex\\n")
>>> client = read_client_log("MATCHSTATE:1:0:cc/cc/cc/cc:AhAd|2c3d/KsQsJs/9h/8h:-20\\n")
>>> compare(dealer, client)
Agreement(hands=1, agreed=1, first_disagreement=None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pokerzoo.errors import ConfigError


@dataclass(frozen=True)
class LoggedHand:
    """A hand of the dealer's log."""

    hand: int
    betting: str
    cards: str
    payoffs: tuple[float, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class DealerLog:
    hands: list[LoggedHand]
    score: dict[str, float] | None
    """Each player's total, by name (``None``: no ``SCORE`` line, the match did not end)."""


@dataclass(frozen=True)
class ClientHand:
    """A hand of a client's log."""

    hand: int
    position: int
    betting: str
    chips: float


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{what} {text!r} is not a number")
    return value


def read_dealer_log(text: str) -> DealerLog:
    """The hands and the score of a dealer's log.

    Raises:
        ConfigError: a line that is not a comment, ``STATE`` or ``SCORE`` line (naming it).
    """
    hands: list[LoggedHand] = []
    score: dict[str, float] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(":")
        if fields[0] == "STATE" and len(fields) == 6 and fields[1].isdecimal():
            payoffs = tuple(_number(v, f"log line {number}: payoff")
                            for v in fields[4].split("|"))
            names = tuple(fields[5].split("|"))
            if len(payoffs) != len(names):
                raise ConfigError(f"log line {number}: {len(payoffs)} payoffs for "
                                  f"{len(names)} names")
            hands.append(LoggedHand(int(fields[1]), fields[2], fields[3], payoffs, names))
        elif fields[0] == "SCORE" and len(fields) == 3:
            totals = [_number(v, f"log line {number}: score") for v in fields[1].split("|")]
            names = tuple(fields[2].split("|"))
            if len(totals) != len(names):
                raise ConfigError(f"log line {number}: {len(totals)} totals for "
                                  f"{len(names)} names")
            score = dict(zip(names, totals, strict=True))
        else:
            raise ConfigError(f"log line {number}: {line[:80]!r} is not a STATE or SCORE line")
    return DealerLog(hands, score)


def read_client_log(text: str) -> list[ClientHand]:
    """The hands of a client's log.

    Raises:
        ConfigError: a line that is not a comment or ``MATCHSTATE:...:<chips>`` (naming it).
    """
    hands = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(":")
        if fields[0] != "MATCHSTATE" or len(fields) != 6 or not fields[1].isdecimal() \
                or not fields[2].isdecimal():
            raise ConfigError(f"client log line {number}: {line[:80]!r} is not "
                              "MATCHSTATE:<position>:<hand>:<betting>:<cards>:<chips>")
        hands.append(ClientHand(int(fields[2]), int(fields[1]), fields[3],
                                _number(fields[5], f"client log line {number}: chips")))
    return hands


@dataclass(frozen=True)
class Agreement:
    hands: int
    """Hands in the client's log."""
    agreed: int
    """Those the dealer's log has with the same betting and the same chips for the
    client's position."""
    first_disagreement: str | None
    """What the first hand that does not agree shows (``None``: all agree)."""

    @property
    def ok(self) -> bool:
        return self.hands > 0 and self.agreed == self.hands


def compare(dealer: DealerLog, client: list[ClientHand], tolerance: float = 1e-6) -> Agreement:
    """Whether every hand of a client's log is in the dealer's log with the same betting
    and the same chips for the client's position."""
    by_hand = {h.hand: h for h in dealer.hands}
    agreed = 0
    first = None
    for mine in client:
        logged = by_hand.get(mine.hand)
        if logged is None:
            problem = "is not in the dealer's log"
        elif logged.betting != mine.betting:
            problem = f"has betting {logged.betting!r} in the dealer's log, {mine.betting!r} here"
        elif not 0 <= mine.position < len(logged.payoffs):
            problem = f"has no position {mine.position} in the dealer's log"
        elif abs(logged.payoffs[mine.position] - mine.chips) > tolerance:
            problem = (f"pays position {mine.position} {logged.payoffs[mine.position]:g} in the "
                       f"dealer's log, {mine.chips:g} here")
        else:
            agreed += 1
            continue
        if first is None:
            first = f"hand {mine.hand} {problem}"
    return Agreement(len(client), agreed, first)
