"""The one protocol every outside player speaks: asked a ``Decision``, it answers an action or a
distribution over the legal actions.

An *outside player* is any object with ``decide(decision, sample) -> answer``; ``sample`` is
the index of the repeated question (``0 .. k-1``), so a stochastic player (an LLM at a
temperature) can be asked k times and a cache can key each answer. An answer is:

- an action id (``int``) or an action label (``"call"``, ``"raise 4"``): that action surely;
- a mapping ``{action id or label: probability}`` over the legal actions;
- a ``Reply``, which also carries what it cost (requests, tokens) and how it went (answers
  that were illegal before this one, whether it is the declared fallback).

A player may also offer ``decide_many(requests) -> list[answer]`` for a list of
``(decision, sample)`` pairs, which the judge calls instead so that a player behind an endpoint
can answer many at once. ``ask`` turns any answer into a checked ``Reply``: an answer it cannot
read, or one naming an illegal action, is asked once more (the player's ``reask`` if it has one,
quoting the error); a second bad answer is replaced by the declared fallback, and both are
counted.

>>> from pokerzoo import load_game
>>> from pokerzoo.judge.decision import describe
>>> state = load_game("kuhn_poker").new_initial_state()
>>> state.apply_action(0); state.apply_action(1)
>>> ask(lambda decision, sample: "bet 1", describe(state)).probs
{1: 1.0}
>>> reply = ask(lambda decision, sample: "raise 9", describe(state), fallback="check-fold")
>>> reply.probs, reply.illegal, reply.fallback
({0: 1.0}, 2, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.judge.decision import Decision

Answer = Any
"""What ``decide`` may return: an action id, a label, ``{action or label: p}`` or a ``Reply``."""


@dataclass(frozen=True)
class Reply:
    """A checked answer: ``probs`` over legal action ids (summing to 1), with its costs.

    ``illegal``: unreadable or illegal answers given at this decision before ``probs`` was
    settled; ``fallback``: ``probs`` is the declared fallback, not the player's answer;
    ``requests``: requests sent (0 where a cache answered); ``cached``: answered from a cache.
    """

    probs: dict[int, float]
    illegal: int = 0
    fallback: bool = False
    requests: int = 1
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    text: str = ""


@runtime_checkable
class OutsidePlayer(Protocol):
    """Protocol: ``decide(decision, sample)`` answers one decision (see the module)."""

    def decide(self, decision: Decision, sample: int) -> Answer: ...


class BadAnswer(ValueError):
    """An answer that names no legal action or is not a distribution (carries the reason)."""


FALLBACKS = ("check-fold", "uniform", "first-legal")
"""Declared fallbacks for a decision the player answered badly twice: check where checking is
legal, else fold (a dealer's rule for a player whose time ran out); the uniform distribution; the
first legal action."""


def check_fallback(rule: str) -> str:
    """``rule`` if it is one of ``FALLBACKS``, else a ``ConfigError`` listing them."""
    if rule not in FALLBACKS:
        raise ConfigError(f"unknown fallback {rule!r}; choose one of {', '.join(FALLBACKS)}")
    return rule


def fallback_probs(decision: Decision, rule: str) -> dict[int, float]:
    """The fallback distribution ``rule`` (one of ``FALLBACKS``) gives at ``decision``."""
    if rule == "uniform":
        p = 1.0 / len(decision.legal)
        return {a.action: p for a in decision.legal}
    if rule == "first-legal":
        return {decision.legal[0].action: 1.0}
    if rule == "check-fold":
        for kind in ("check", "fold"):
            for legal in decision.legal:
                if legal.kind == kind:
                    return {legal.action: 1.0}
        return {decision.legal[0].action: 1.0}
    raise ConfigError(f"unknown fallback {rule!r}; choose one of {', '.join(FALLBACKS)}")


def _action_id(decision: Decision, name: object) -> int:
    if isinstance(name, bool):
        raise BadAnswer(f"{name!r} is not an action")
    if isinstance(name, int) or (hasattr(name, "__index__") and not isinstance(name, str)):
        action = int(name)
        if action not in decision.actions:
            raise BadAnswer(f"action {action} is not legal here; legal actions: "
                            + ", ".join(f"{a.action} ({a.label})" for a in decision.legal))
        return action
    if isinstance(name, str):
        legal = decision.action_of(name)
        if legal is None:
            raise BadAnswer(f"{name!r} is not a legal action here; "
                            + decision.legal_line().lower())
        return legal.action
    raise BadAnswer(f"an answer names an action by id or label, not {type(name).__name__}")


def read_answer(decision: Decision, answer: Answer) -> dict[int, float]:
    """``answer`` as ``{legal action id: probability}`` (a distribution summing to 1).

    Raises:
        BadAnswer: naming what is wrong: an illegal action, a label that names none, negative or
            non-finite probabilities, or probabilities not summing to 1 (within 1e-6).
    """
    if isinstance(answer, Mapping):
        probs: dict[int, float] = {}
        for name, p in answer.items():
            action = _action_id(decision, name)
            try:
                value = float(p)
            except (TypeError, ValueError):
                raise BadAnswer(f"probability {p!r} of {name!r} is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise BadAnswer(f"probability {p!r} of {name!r} is not a finite number >= 0")
            probs[action] = probs.get(action, 0.0) + value
        total = sum(probs.values())
        if abs(total - 1.0) > 1e-6:
            raise BadAnswer(f"probabilities sum to {total:g}, not 1")
        return {a: p / total for a, p in sorted(probs.items()) if p > 0}
    return {_action_id(decision, answer): 1.0}


def _decide(player: Any, decision: Decision, sample: int) -> Answer:
    decide = getattr(player, "decide", None)
    if decide is None:
        if callable(player):
            return player(decision, sample)
        raise ConfigError(f"{type(player).__name__} is not an outside player: it needs "
                          "decide(decision, sample) or to be a callable (decision, sample)")
    return decide(decision, sample)


def settle(decision: Decision, answer: Answer, reask: Callable[[str], Answer] | None,
           fallback: str = "check-fold") -> Reply:
    """A checked ``Reply`` from a first answer, asking again through ``reask(error)`` once.

    ``reask`` gets the reason the first answer was refused and returns a second answer (a
    ``Reply`` whose costs are added); without it the first bad answer goes to the fallback.
    """
    # A plain answer is one question asked; a Reply says what it cost (0 requests if cached).
    costs = Reply({}, requests=0)
    illegal = 0
    attempts = [answer]
    while True:
        current = attempts[-1]
        if not isinstance(current, Reply):
            costs = replace(costs, requests=costs.requests + 1)
        else:
            costs = replace(costs, requests=costs.requests + current.requests,
                            prompt_tokens=costs.prompt_tokens + current.prompt_tokens,
                            completion_tokens=costs.completion_tokens + current.completion_tokens,
                            cached=current.cached if len(attempts) == 1 else costs.cached,
                            text=current.text or costs.text)
            illegal += current.illegal
            if current.fallback:
                return replace(costs, probs=dict(current.probs), illegal=illegal, fallback=True)
            current = current.probs
        try:
            probs = read_answer(decision, current)
            return replace(costs, probs=probs, illegal=illegal)
        except BadAnswer as error:
            illegal += 1
            if reask is None or len(attempts) > 1:
                return replace(costs, probs=fallback_probs(decision, fallback), illegal=illegal,
                               fallback=True)
            attempts.append(reask(str(error)))


def _guarded(where: str, call: Callable[..., Answer], *args: Any) -> Answer:
    """``call(*args)``, an outside player's failure, whatever it is, as one ``PlayerError``."""
    try:
        return call(*args)
    except PlayerError:
        raise
    except Exception as error:
        raise PlayerError(f"the player raised{where}: {type(error).__name__}: {error}") from None


def _asking_again(player: Any, decision: Decision, sample: int) -> Callable[[str], Answer]:
    """The re-ask of one decision: the player's ``reask(decision, sample, error)`` where it
    has one, else ``decide`` again."""
    reask_of = getattr(player, "reask", None)

    def again(reason: str) -> Answer:
        if callable(reask_of):
            return _guarded(f" at {decision.key}", reask_of, decision, sample, reason)
        return _guarded(f" at {decision.key}", _decide, player, decision, sample)

    return again


def ask(player: Any, decision: Decision, sample: int = 0, *,
        fallback: str = "check-fold") -> Reply:
    """Ask ``player`` one decision and return the checked ``Reply`` (see the module).

    A bad answer is asked again once (the player's ``reask(decision, sample, error)`` where it
    has one, else ``decide`` again), then replaced by ``fallback``.

    Raises:
        PlayerError: the player raised (its error quoted in one line).
    """
    check_fallback(fallback)  # an unknown rule fails before anything is asked
    first = _guarded(f" at {decision.key}", _decide, player, decision, sample)
    return settle(decision, first, _asking_again(player, decision, sample), fallback)


def ask_many(player: Any, requests: Sequence[tuple[Decision, int]], *,
             fallback: str = "check-fold") -> list[Reply]:
    """``ask`` for many ``(decision, sample)`` pairs, through ``decide_many`` where offered.

    A player's ``decide_many`` answers the first question of each pair in one go (an endpoint
    client sends them concurrently); re-asks go one by one.
    """
    many = getattr(player, "decide_many", None)
    if not callable(many):
        return [ask(player, d, s, fallback=fallback) for d, s in requests]
    check_fallback(fallback)
    answers = list(_guarded("", many, list(requests)))
    if len(answers) != len(requests):
        raise PlayerError(f"decide_many answered {len(answers)} of {len(requests)} decisions")
    return [settle(decision, answer, _asking_again(player, decision, sample), fallback)
            for (decision, sample), answer in zip(requests, answers, strict=True)]
