"""Outside players from specs: the adapters of each ``KIND:REST`` spec kind.

``ADAPTER_SPECS[kind](rest, **options)`` makes the player a spec names, ``rest`` being the spec
after ``KIND:``:

* ``callable``: ``module:function`` or ``path/to/bot.py:function`` (``CallablePlayer``);
* ``cmd``: a command line, ``"python bot.py --seed 3"`` (``ProgramPlayer``; options
  ``timeout`` in seconds per decision and ``cwd``);
* ``openspiel``: ``module:object``, an ``open_spiel.python.policy.Policy`` or a factory of one
  (``OpenSpielPlayer``);
* ``rlcard``: a model id of RLCard's zoo (``leduc-holdem-cfr``, ...) or ``module:object``, an
  RLCard agent or a factory of one with no arguments (``RLCardPlayer``).

Options a kind does not take are a ``TypeError`` of Python's own; an unknown kind is the
caller's to report.

>>> player = ADAPTER_SPECS["callable"]("pokerzoo.judge.decision:labels_of")
>>> type(player).__name__
'CallablePlayer'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.judge.callables import CallablePlayer, load_callable, load_object
from pokerzoo.judge.foreign_players import RLCARD_MODELS, OpenSpielPlayer, RLCardPlayer
from pokerzoo.judge.programs import ProgramPlayer


def _object_of(kind: str, rest: str, what: str) -> Any:
    module, colon, attr = rest.rpartition(":")
    if not (colon and module.strip() and attr.strip()):
        raise ConfigError(f"malformed spec {kind + ':' + rest!r}; expected {kind}:module:{what} "
                          f"or {kind}:path/to/file.py:{what}")
    return load_object(rest, what)


def make_callable(rest: str) -> CallablePlayer:
    """The player of a ``module:function`` spec (see ``load_callable``)."""
    return load_callable(rest)


def make_program(rest: str, *, timeout: float = 10.0,
                 cwd: str | os.PathLike[str] | None = None) -> ProgramPlayer:
    """The player of a ``cmd:"PROGRAM ARGS"`` spec: the program, started now."""
    return ProgramPlayer(rest, timeout=timeout, cwd=cwd)


def make_openspiel(rest: str) -> OpenSpielPlayer:
    """The player of an ``openspiel:module:object`` spec."""
    return OpenSpielPlayer(_object_of("openspiel", rest, "object"), name=rest)


def make_rlcard(rest: str) -> RLCardPlayer:
    """The player of an ``rlcard:MODEL_ID`` or ``rlcard:module:object`` spec."""
    if ":" not in rest:
        if rest not in RLCARD_MODELS:
            raise ConfigError(f"unknown RLCard model {rest!r}; give one of "
                              f"{', '.join(RLCARD_MODELS)} or rlcard:module:object")
        return RLCardPlayer(rest)
    agent = _object_of("rlcard", rest, "object")
    if isinstance(agent, type) or (callable(agent) and
                                   not callable(getattr(agent, "eval_step", None))):
        try:
            agent = agent()
        except Exception as error:  # a factory's own failure, whatever it is: one line
            raise ConfigError(f"rlcard:{rest} names a factory that failed with no arguments: "
                              f"{type(error).__name__}: {error}") from None
    return RLCardPlayer(agent)


ADAPTER_SPECS: dict[str, Callable[..., Any]] = {
    "callable": make_callable,
    "cmd": make_program,
    "openspiel": make_openspiel,
    "rlcard": make_rlcard,
}
"""``make(rest_of_spec, **options) -> player`` of each spec kind (see the module)."""
