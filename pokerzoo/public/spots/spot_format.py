"""The spot file's reference, generated from :class:`~pokerzoo.public.spots.holdem_spot.HoldemSpot`.

``key_table()`` is the Markdown table of every key (type, default, what it means) built from
the dataclass fields and the docstrings under them; ``docs/spot_format.md`` holds it (a test
checks the page carries the table as generated, so a new field cannot go undocumented).
``EXAMPLE_SPOT`` is the commented spot file ``solve.py --example`` prints: it parses and
solves as it is, with a node lock.
"""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, fields
from typing import Any

from pokerzoo.config import field_docs
from pokerzoo.public.spots.holdem_spot import HoldemSpot


@dataclass(frozen=True)
class SpotKey:
    """One key of a spot file: its name, type, default (``None``: required) and meaning."""

    name: str
    type: str
    default: str | None
    doc: str


def _toml_value(value: Any) -> str:
    """A default as a spot file writes it."""
    if value is None:
        return NO_DEFAULT
    if isinstance(value, tuple):
        value = [list(v) if isinstance(v, tuple) else v for v in value]
    return json.dumps(value)


NO_DEFAULT = "none (leave the key out)"
_SIZES_TYPE = "string, [bets, raises] or {oop, ip}"


def spot_keys() -> list[SpotKey]:
    """Every key a spot file may hold, in the order of the ``HoldemSpot`` fields."""
    docs = field_docs(HoldemSpot)
    out = []
    for f in fields(HoldemSpot):
        if not f.init:
            continue
        kind = str(f.type)
        if f.name.endswith("_sizes"):
            kind = _SIZES_TYPE
        kind = kind.replace("tuple[int, int]", "[int, int]").replace(" | None", " or none")
        default = None if f.default is MISSING else _toml_value(f.default)
        out.append(SpotKey(f.name, kind, default, " ".join(docs.get(f.name, "").split())))
    return out


def key_table() -> str:
    """The Markdown table of every spot key (``docs/spot_format.md`` holds it)."""
    rows = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for key in spot_keys():
        doc = re.sub(r"``(.+?)``", r"`\1`", key.doc).replace("|", "\\|")
        default = ("required" if key.default is None else key.default
                   if key.default == NO_DEFAULT else f"`{key.default}`")
        rows.append(f"| `{key.name}` | {key.type.replace('|', 'or')} | {default} | {doc} |")
    return "\n".join(rows) + "\n"


EXAMPLE_SPOT = """\
# A hold'em spot for solve.py (python solve.py THIS.toml --exploitability 0.5).
# Every key is in docs/spot_format.md. Player 0 (OOP) is out of position and acts first.
# Amounts are integer chips.

board = "QsJh2h8c3d"        # 3, 4 or 5 cards: the spot starts on the flop, turn or river
starting_pot = 100          # chips in the pot now
effective_stack = 150       # chips each player has behind
oop_range = "AA,KK,QQ,AKs,T9s,87s:0.5"   # PioSOLVER syntax; ":0.5" is a weight
ip_range = "JJ-99,AQs,KQo:0.5,65s"

# Sizes per street, three forms:
#   river_sizes = "50%"                 bets of both players, no raises
#   river_sizes = ["50%", "a"]          [bets, raises] of both players
#   [river_sizes]                       one [bets, raises] pair per player
#   oop = ["50%", "a"]
#   ip = ["33%,75%", "2.5x"]
# Sizes: "52%" of the pot, "2.5x" the bet faced (raises), "a" all-in, "e" geometric,
# "100c" chips added; comma separated.
river_sizes = ["50%", "a"]
# flop_sizes and turn_sizes take the same forms (a river spot has no flop or turn betting).

# Tree options (0 or left out: off):
# turn_donk = "33%"           # OOP leading the turn after calling the flop
# river_donk = "33%"
# add_allin_threshold = 1.5   # add an all-in when it is at most this many pots
# force_allin_threshold = 0.15
# merging_threshold = 0.1
raise_cap = 3                 # most bets plus raises per street
# suit_isomorphism = true     # deal one card of each suit-symmetric set (exact, faster)

# Starting inside the street, e.g. facing a 50-chip bet:
# street_chips = [50, 0]      # chips OOP, IP have put in on this street already
# street_bets = 1             # bets and raises made on it
# to_act = 1                  # who acts at the root

# Node locks: the line (comma-separated action labels, as --line takes them; "root" the
# root), then hands (a class "AKs", a combo "AhKh", a range "QQ+") -> {action: frequency}
# or one action. Left-out actions share the rest equally; "*" is every hand not named.
# The whole decision is locked, so each hand of the acting player's range needs an entry
# (or "*").
[locks.check]                 # IP after OOP checks
JJ = "check"                  # always check
AQs = { check = 0.25 }        # check 25%, bet 50 75%
"*" = { "bet 50" = 1 }        # everything else bets
"""
"""The commented spot file ``solve.py --example`` prints (it parses and solves as it is)."""


__all__ = ["EXAMPLE_SPOT", "SpotKey", "key_table", "spot_keys"]
