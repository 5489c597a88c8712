"""Python functions the judge's tests load as players by ``module:function`` specs."""

from __future__ import annotations

from pokerzoo.judge.decision import Decision


def _card(decision: Decision) -> str:
    line = next(t for t in decision.text.splitlines() if t.startswith("Your card:"))
    return line.split(":")[1].strip()


def equilibrium(decision: Decision) -> dict[str, float]:
    """Kuhn's equilibrium with alpha = 0, read from the rendering: the first player checks
    everything and calls a bet with Q a third of the time; the second bluffs J a third of the
    time after a check, bets K, and calls a bet with Q a third of the time."""
    card = _card(decision)
    labels = {a.label for a in decision.legal}
    if "call" in labels:  # facing a bet
        return {"J": {"fold": 1.0}, "Q": {"fold": 2 / 3, "call": 1 / 3},
                "K": {"call": 1.0}}[card]
    if decision.player == 0:
        return {"check": 1.0}
    return {"J": {"check": 2 / 3, "bet 1": 1 / 3}, "Q": {"check": 1.0},
            "K": {"bet 1": 1.0}}[card]


def by_sample(decision: Decision, sample: int) -> int:
    """The first legal action on even samples, the last on odd ones (by action id)."""
    return decision.legal[0 if sample % 2 == 0 else -1].action


def raises(decision: Decision) -> str:
    """A player whose code is broken."""
    raise KeyError("no such card")


NOT_A_FUNCTION = 3
