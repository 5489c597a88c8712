"""Lazy ``"module:attribute"`` entry points and unknown-name errors, shared by the registries.

The agent and env tables name what they build by strings, so listing them or rejecting an
unknown name imports nothing (no family module, no torch); ``load`` imports on first use.

>>> load("pokerzoo.errors:ConfigError").__name__
'ConfigError'
>>> str(unknown_name("agent", "cfr++", ["cfr", "cfr+"]))
"unknown agent 'cfr++' (did you mean 'cfr+'?); valid agents are ['cfr', 'cfr+']"
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from typing import Any

from pokerzoo.errors import ConfigError


def split(entry_point: str) -> tuple[str, str]:
    """``"package.module:attr.sub"`` -> ``("package.module", "attr.sub")``; ``ConfigError`` for
    a string not of that form."""
    module, sep, attribute = entry_point.partition(":")
    if not (sep and module and attribute) or ":" in attribute:
        raise ConfigError(
            f"entry point {entry_point!r} must be 'package.module:attribute'"
        )
    return module, attribute


def load(entry_point: str) -> Any:
    """Import the module of ``entry_point`` and return the attribute it names."""
    module_name, attribute = split(entry_point)
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigError(
                f"entry point {entry_point!r}: {module_name!r} has no attribute {attribute!r}"
            ) from None
    return target


def unknown_name(
    kind: str, name: object, valid: Iterable[str], listed_as: str = "valid"
) -> ConfigError:
    """The error for an unknown ``kind`` name: the closest valid name, then all of them
    (after "<listed_as> <kind>s are")."""
    names = sorted(valid)
    close = closest_name(name, names) if isinstance(name, str) else None
    hint = f" (did you mean {close!r}?)" if close else ""
    return ConfigError(f"unknown {kind} {name!r}{hint}; {listed_as} {kind}s are {names}")


def _spelling(name: str) -> str:
    """How a name reads aloud: lower case, ``+`` as "plus", separators dropped, so "cfrplus",
    "CFR_plus" and "cfr+" read alike."""
    return "".join(c for c in name.lower().replace("+", "plus") if c.isalnum())


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The valid name ``name`` most likely meant: one spelt the same way aloud (``cfrplus``
    -> ``cfr+``), else the closest by difflib, else ``None``.

    >>> closest_name("cfrplus", ["cfr", "cfr+", "lcfr"])
    'cfr+'
    >>> closest_name("leduc", ["kuhn_poker", "leduc_holdem"])
    'leduc_holdem'
    """
    names = list(names)
    spelt = {_spelling(valid): valid for valid in names}
    if _spelling(name) in spelt:
        return spelt[_spelling(name)]
    close = difflib.get_close_matches(_spelling(name), list(spelt), n=1, cutoff=0.5)
    return spelt[close[0]] if close else None
