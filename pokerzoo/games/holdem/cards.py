"""Cards of a standard 52-card deck as small integers, and 7-card hand evaluation.

A card is ``4 * rank + suit`` with ranks ``2 3 4 5 6 7 8 9 T J Q K A`` (0..12) and suits
``c d h s`` (0..3), so ``0`` is "2c" and ``51`` is "As". This is the encoding of phevaluator, so
cards go to the evaluator without conversion.

Hand evaluation is wrapped here so that the library behind it can be swapped in one place. The
choice was made by measurement (one CPU core, 50,000 random 7-card hands, Python 3.11):

===================================================  ===========
evaluator                                            per 7 cards
===================================================  ===========
phevaluator 0.6 native ``evaluate_7cards`` (C)       0.38 us
phevaluator 0.6 public ``evaluate_cards``            1.03 us
eval7 0.1.11 ``evaluate`` on prebuilt ``Card`` list  0.83 us
eval7 0.1.11 with int -> ``Card`` conversion         1.42 us
===================================================  ===========

phevaluator wins by 2x and takes plain ints in our encoding; it is a core dependency of the
package, while eval7 stays a test dependency used as the second, independent evaluator in the
agreement test. If phevaluator's private native module ever moves, the public function (same
results, slower) is used instead.

>>> card_to_string(51), card_to_string(0), string_to_card("Td")
('As', '2c', 33)
>>> hand_rank([48, 49, 50, 51, 44, 0, 5]) < hand_rank([0, 5, 9, 14, 22, 30, 40])
True
"""

from __future__ import annotations

from collections.abc import Sequence

from pokerzoo.errors import ConfigError

try:  # the C extension behind phevaluator's public API: 2.5x faster than the wrapper
    from phevaluator._pheval import evaluate_7cards as _eval7
except ImportError:  # pragma: no cover - layout of a future phevaluator release
    from phevaluator import evaluate_7cards as _eval7

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NUM_CARDS = 52

CARD_STRINGS: tuple[str, ...] = tuple(RANKS[c // 4] + SUITS[c % 4] for c in range(NUM_CARDS))
_CARD_INDEX = {s: i for i, s in enumerate(CARD_STRINGS)}


def card_to_string(card: int) -> str:
    """Two-character name of a card int, e.g. ``51 -> "As"``, ``33 -> "Td"``."""
    if not 0 <= card < NUM_CARDS:
        raise ConfigError(f"card must be in 0..51, got {card!r}")
    return CARD_STRINGS[card]


def string_to_card(name: str) -> int:
    """Card int of a two-character name such as ``"As"`` or ``"td"`` (rank case-insensitive)."""
    key = name[:1].upper() + name[1:].lower()
    try:
        return _CARD_INDEX[key]
    except KeyError:
        raise ConfigError(f"not a card name: {name!r} (expected e.g. 'As', 'Td', '2c')") from None


def cards_from_string(text: str) -> list[int]:
    """Card ints of a concatenated string such as ``"AsKd"`` (spaces allowed)."""
    s = text.replace(" ", "")
    if len(s) % 2:
        raise ConfigError(f"odd-length card string {text!r}")
    return [string_to_card(s[i : i + 2]) for i in range(0, len(s), 2)]


def hand_rank(cards: Sequence[int]) -> int:
    """Strength of the best 5-card hand among exactly 7 cards: **smaller is stronger**.

    1 is a royal flush, 7462 the worst high card (phevaluator's equivalence classes), so two
    hands tie exactly when their ranks are equal.
    """
    return _eval7(*cards)


evaluate_7 = _eval7
"""The raw evaluator ``evaluate_7(c1, ..., c7) -> int`` for hot loops (same as ``hand_rank``)."""
