"""A Python function as an outside player, and ``module:object`` specs resolved to objects.

The function gets the ``Decision`` (and, if it takes a second parameter, the sample index) and
returns what ``pokerzoo.judge.protocol`` reads: an action id, a label (``"call"``,
``"raise 4"``) or a distribution ``{id or label: probability}``.

>>> from pokerzoo import load_game
>>> from pokerzoo.judge.decision import describe
>>> from pokerzoo.judge.protocol import ask
>>> state = load_game("kuhn_poker").new_initial_state()
>>> state.apply_action(2); state.apply_action(0)  # K to player 0
>>> ask(CallablePlayer(lambda decision: decision.legal[-1].label), describe(state)).probs
{1: 1.0}
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.judge.decision import Decision
from pokerzoo.judge.protocol import Answer

CALLABLE_FORMS = "module:function (a dotted module on the path) or path/to/bot.py:function"
"""The forms a ``module:object`` spec may take, as errors name them."""


def _takes_sample(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` accepts a second positional argument (the sample index)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False  # a builtin without a signature: call it with the decision only
    positional = 0
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


class CallablePlayer:
    """A Python callable as an outside player.

    ``fn(decision)`` or, when ``fn`` takes a second positional parameter, ``fn(decision,
    sample)`` (its signature is read once, here). What it returns is read by
    ``pokerzoo.judge.protocol``; what it raises becomes a one-line ``PlayerError`` there.

    Args:
        fn: the function (any callable).
        name: the name reports show (default: the function's qualified name).

    Raises:
        ConfigError: ``fn`` is not callable.
    """

    def __init__(self, fn: Callable[..., Answer], *, name: str | None = None) -> None:
        if not callable(fn):
            raise ConfigError("a callable player needs a function (decision) or (decision, "
                              f"sample); got an object of type {type(fn).__name__}")
        self.fn = fn
        self.takes_sample = _takes_sample(fn)
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__

    def decide(self, decision: Decision, sample: int) -> Answer:
        """The function's answer at ``decision`` (the sample index passed where it takes one)."""
        if self.takes_sample:
            return self.fn(decision, sample)
        return self.fn(decision)

    def __repr__(self) -> str:
        return f"CallablePlayer({self.name})"


def split_spec(spec: str, what: str = "function") -> tuple[str, str]:
    """``"module:attr"`` as ``(module, attr)``, split at the last colon (so a Windows path's
    drive letter stays in the module part).

    >>> split_spec("bots/kuhn.py:equilibrium")
    ('bots/kuhn.py', 'equilibrium')
    >>> split_spec("kuhn")
    Traceback (most recent call last):
    pokerzoo.errors.ConfigError: malformed spec 'kuhn'; expected module:function (a dotted \
module on the path) or path/to/bot.py:function

    Raises:
        ConfigError: not a string of that form, naming the forms allowed.
    """
    if isinstance(spec, str):
        module, colon, attr = spec.rpartition(":")
        if colon and module.strip() and attr.strip():
            return module.strip(), attr.strip()
    forms = CALLABLE_FORMS.replace("function", what)
    raise ConfigError(f"malformed spec {spec!r}; expected {forms}")


def _is_file_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def _import_file(path_text: str) -> ModuleType:
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise ConfigError(f"cannot import {path_text!r}: no such file")
    # A name no other module has, so two bots both called bot.py do not replace each other.
    name = f"_pokerzoo_judged_{abs(hash(str(path.resolve())))}_{path.stem}"
    if name in sys.modules:  # imported before: its top-level code is not run twice
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError(f"cannot import {path_text!r}: not a Python source file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise ConfigError(f"importing {path_text!r} failed: {type(error).__name__}: "
                          f"{error}") from None
    return module


def _import_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            raise ConfigError(f"cannot import module {name!r}: no module named {error.name!r} "
                              "on the path (give a file as path/to/bot.py:function)") from None
        raise ConfigError(f"importing module {name!r} failed: {error}") from None
    except Exception as error:
        raise ConfigError(f"importing module {name!r} failed: {type(error).__name__}: "
                          f"{error}") from None


def load_object(spec: str, what: str = "function") -> Any:
    """The object a ``module:attr`` spec names (``attr`` may be dotted: ``mod:Class.method``);
    the module is a dotted name on ``sys.path`` or a path to a ``.py`` file.

    Raises:
        ConfigError: a malformed spec, a module that cannot be imported, or a missing attribute
            (listing the module's public names).
    """
    module_name, attr = split_spec(spec, what)
    module = _import_file(module_name) if _is_file_path(module_name) else \
        _import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            public = sorted(n for n in vars(module) if not n.startswith("_"))
            shown = ", ".join(public[:12]) + (", ..." if len(public) > 12 else "")
            raise ConfigError(f"{module_name!r} has no attribute {attr!r}; its public names: "
                              f"{shown or 'none'}") from None
    return obj


def load_callable(spec: str) -> CallablePlayer:
    """``CallablePlayer`` of the function a ``module:function`` spec names.

    >>> player = load_callable("pokerzoo.judge.decision:labels_of")
    >>> player.name, player.takes_sample
    ('labels_of', False)

    Raises:
        ConfigError: see ``load_object``; also an attribute that is not callable.
    """
    fn = load_object(spec)
    if not callable(fn):
        raise ConfigError(f"{spec!r} is not callable (an object of type {type(fn).__name__}); "
                          "a callable player is a function (decision) or (decision, sample)")
    return CallablePlayer(fn, name=split_spec(spec)[1])
