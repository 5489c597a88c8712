"""One way to build configs: frozen dataclasses from mappings, with checked names, types, ranges.

Every config in pokerzoo is a frozen dataclass. ``from_mapping`` builds one from a mapping (a
TOML table, a JSON object, keyword arguments): nested dataclass fields from nested mappings,
unknown names refused with the valid ones and a did-you-mean, values checked against the
field's annotation. NumPy scalars count as the Python types they stand for (``np.int64(3)`` is
an int), ``bool`` is never an int, ints are accepted where floats are meant, lists become
tuples. Range checks live in each dataclass's ``__post_init__`` and go through ``check``, so
that an error raised deep in a nested config names the field as the user typed it.

>>> from pokerzoo.components.uct_config import UCTConfig
>>> from_mapping(UCTConfig, {"max_simulations": np.int64(100), "threshold": 50}).threshold
50
>>> from_mapping(UCTConfig, {"confidence": 1})
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: confidence must be in (0, 1), got 1.0
>>> from_mapping(UCTConfig, {"max_simulation": 10})
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: unknown parameter 'max_simulation' for UCTConfig (did you mean ...
>>> from_mapping(UCTConfig, {"test_every": True})
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: test_every must be an integer, got True
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import numpy as np

from pokerzoo.errors import ConfigError

C = TypeVar("C")

Path = tuple[str, ...]
"""Where a field sits in a nested config: ``("prioritized", "eps")``."""

KIND = "kind"
"""The key that picks a member of a union of configs (each member's ``kind`` class attribute)."""


def field_error(field: str, requirement: str, value: Any) -> ConfigError:
    """``ConfigError("<field> must be <requirement>, got <value>")`` that remembers the field.

    ``from_mapping`` uses the remembered parts to rename the field as the user typed it.
    """
    err = ConfigError(f"{field} must be {requirement}, got {value!r}")
    err.field = field  # type: ignore[attr-defined]
    err.requirement = requirement  # type: ignore[attr-defined]
    err.value = value  # type: ignore[attr-defined]
    return err


def check(ok: bool, field: str, requirement: str, value: Any) -> None:
    """Raise ``field_error(field, requirement, value)`` unless ``ok``.

    >>> check(3 >= 1, "batch_size", ">= 1", 3)
    >>> check(0 > 0, "per_eps", "> 0", 0)
    Traceback (most recent call last):
    ...
    pokerzoo.errors.ConfigError: per_eps must be > 0, got 0
    """
    if not ok:
        raise field_error(field, requirement, value)


def from_mapping(
    cls: type[C],
    values: Mapping[str, Any],
    *,
    what: str | None = None,
    names: Mapping[Path, str] | None = None,
) -> C:
    """Build the frozen dataclass ``cls`` from ``values`` (nested mappings for nested configs).

    Args:
        cls: the dataclass.
        values: field values; omitted fields keep their defaults.
        what: how errors call the config (default: the class name).
        names: how the user typed nested fields (``{("prioritized", "eps"): "per_eps"}``);
            others are named by their dotted path (``prioritized.eps``).

    Raises:
        ConfigError: unknown names, wrong types, or a range check of the dataclass.
    """
    try:
        return _build(cls, values, (), what)
    except ConfigError as err:
        path = getattr(err, "path", None)
        if path is None or not hasattr(err, "requirement"):
            raise
        typed = (names or {}).get(path, ".".join(path))
        if typed == err.field:  # type: ignore[attr-defined]
            raise
        raise field_error(typed, err.requirement, err.value) from err  # type: ignore[attr-defined]


def with_overrides(
    cls: type[C],
    config: C | Mapping[str, Any] | None,
    overrides: Mapping[str, Any],
    *,
    what: str | None = None,
) -> C:
    """The config an agent's constructor was given, checked as ``from_mapping`` checks.

    Every agent constructor takes ``config`` and keyword ``overrides`` of its fields and
    resolves them here, so a direct constructor refuses what ``make_agent`` refuses, with
    the same one-line message.

    Args:
        cls: the config dataclass.
        config: a ``cls``, a mapping of its fields, or ``None`` for the defaults.
        overrides: fields replacing ``config``'s.
        what: how errors call the config (default: the class name).

    Raises:
        ConfigError: a ``config`` of another type, unknown names, wrong types or ranges.

    >>> from pokerzoo.components.uct_config import UCTConfig
    >>> with_overrides(UCTConfig, UCTConfig(threshold=50), {"max_simulations": 100}).threshold
    50
    >>> with_overrides(UCTConfig, None, {"max_simulation": 10}, what="UCT")
    Traceback (most recent call last):
    ...
    pokerzoo.errors.ConfigError: unknown parameter 'max_simulation' for UCT (did you mean ...
    """
    if isinstance(config, cls):
        if not overrides:
            return config
        base = {f.name: getattr(config, f.name) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                if f.init}
    elif config is None or isinstance(config, Mapping):
        base = dict(config or {})
    else:
        raise ConfigError(f"config must be a {cls.__name__} (or a mapping of its fields), "
                          f"got {config!r}")
    return from_mapping(cls, {**base, **overrides}, what=what)


def normalise(obj: Any) -> None:
    """Check and normalise every field of the frozen dataclass ``obj`` against its annotation.

    Call it first in ``__post_init__`` so directly built configs get the same type checks as
    ``from_mapping`` (NumPy scalars become Python ones, lists tuples, ints floats).
    """
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        if f.name in hints:
            value = getattr(obj, f.name)
            try:
                fixed = _coerce(value, hints[f.name], f.name, (f.name,))
            except ConfigError as err:
                if not hasattr(err, "requirement"):
                    raise
                # Relative to ``obj``: the caller building it knows where ``obj`` sits.
                raise field_error(f.name, err.requirement, err.value) from None  # type: ignore[attr-defined]
            if fixed is not value:
                object.__setattr__(obj, f.name, fixed)


def _build(cls: type[C], values: Mapping[str, Any], path: Path, what: str | None) -> C:
    if not isinstance(values, Mapping):
        raise ConfigError(f"{_dotted(path) or cls.__name__} must be a mapping of parameters, "
                          f"got {values!r}")
    valid = [f.name for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    for name in values:
        if name not in valid:
            raise unknown_name(name, valid, what or cls.__name__, path)
    hints = _hints(cls)
    kwargs = {
        name: _coerce(value, hints.get(name, Any), _dotted(path + (name,)), path + (name,))
        for name, value in values.items()
    }
    try:
        return cls(**kwargs)
    except ConfigError as err:
        if hasattr(err, "field") and not hasattr(err, "path"):
            err.path = path + (err.field,)  # type: ignore[attr-defined]
        raise


def unknown_name(name: Any, valid: list[str], what: str, path: Path = ()) -> ConfigError:
    """``ConfigError`` for a parameter ``name`` not in ``valid``, with a did-you-mean."""
    close = difflib.get_close_matches(str(name), valid, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    where = f" in {_dotted(path)}" if path else ""
    return ConfigError(
        f"unknown parameter {name!r} for {what}{where}{hint}; valid parameters are {valid}"
    )


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of ``cls`` (cached: configs are built in loops)."""
    if cls not in _HINTS:
        _HINTS[cls] = _resolve_hints(cls)
    return _HINTS[cls]


def _resolve_hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except (NameError, TypeError):
        pass
    # Some annotation names what is only imported for type checkers: check the fields that
    # resolve, leave the others to their owner.
    module = sys.modules.get(cls.__module__)
    scope = dict(vars(module)) if module is not None else {}
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for name, ann in getattr(klass, "__annotations__", {}).items():
            try:
                hints[name] = eval(ann, scope, {}) if isinstance(ann, str) else ann
            except Exception:  # any failure to resolve means: do not check
                hints.pop(name, None)
    return hints


def _dotted(path: Path) -> str:
    return ".".join(path)


def _coerce(value: Any, hint: Any, name: str, path: Path) -> Any:
    """``value`` as the type ``hint`` describes, or a ``ConfigError`` naming ``name``."""
    if hint is Any or hint is object:
        return value
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return _coerce_union(value, get_args(hint), name, path)
    if origin is Literal:
        allowed = get_args(hint)
        if isinstance(value, np.generic):
            value = value.item()
        if not any(value == a and type(value) is type(a) for a in allowed):
            raise _typed_error(name, path, f"one of {allowed}", value)
        return value
    if hint is type(None):
        if value is not None:
            raise _typed_error(name, path, "None", value)
        return None
    if hint is bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise _typed_error(name, path, "true or false", value)
    if hint is int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
        raise _typed_error(name, path, "an integer", value)
    if hint is float:
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)
        ):
            return float(value)
        raise _typed_error(name, path, "a number", value)
    if hint is str:
        if isinstance(value, str):
            return str(value)
        raise _typed_error(name, path, "a string", value)
    if origin is tuple:
        return _coerce_tuple(value, get_args(hint), name, path)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if isinstance(value, hint):
            return value
        if isinstance(value, Mapping):
            return _build(hint, value, path, None)
        raise _typed_error(name, path, f"a mapping of {hint.__name__} fields", value)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        if isinstance(value, Mapping):
            return value
        raise _typed_error(name, path, "a mapping", value)
    return value  # other annotations (paths, callables, ...) are the owner's to check


def _coerce_tuple(value: Any, args: tuple[Any, ...], name: str, path: Path) -> Any:
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise _typed_error(name, path, "a list", value)
    items = list(value)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_coerce(v, args[0], name, path) for v in items)
    if args and len(items) != len(args):
        raise _typed_error(name, path, f"a list of {len(args)} items", value)
    if not args:
        return tuple(items)
    return tuple(_coerce(v, a, name, path) for v, a in zip(items, args))


def _coerce_union(value: Any, args: tuple[Any, ...], name: str, path: Path) -> Any:
    if value is None:
        if type(None) in args:
            return None
        raise _typed_error(name, path, _describe(args), value)
    members = [a for a in args if a is not type(None)]
    configs = [a for a in members if dataclasses.is_dataclass(a) and isinstance(a, type)]
    if configs and not isinstance(value, tuple(configs)) and isinstance(value, (str, Mapping)):
        return _config_member(value, configs, name, path)
    first: ConfigError | None = None
    for member in members:
        try:
            return _coerce(value, member, name, path)
        except ConfigError as err:
            if getattr(err, "path", path) != path:
                raise  # the member matched; a field inside it is wrong
            first = first or err
    if len(members) == 1 and first is not None:
        raise first  # "X | None": the member's own message says what was wrong inside it
    raise _typed_error(name, path, _describe(args), value) from first


def _config_member(value: Any, configs: list[type], name: str, path: Path) -> Any:
    """The member of a union of configs that ``value`` (a kind name or a mapping) means."""
    kinds = {getattr(c, KIND, c.__name__): c for c in configs}
    if isinstance(value, str):
        if value not in kinds:
            raise _typed_error(name, path, f"one of {sorted(kinds)}", value)
        return kinds[value]()
    if KIND in value:
        kind = value[KIND]
        if kind not in kinds:
            raise _typed_error(f"{name}.{KIND}", path + (KIND,), f"one of {sorted(kinds)}", kind)
        return _build(kinds[kind], {k: v for k, v in value.items() if k != KIND}, path, None)
    if len(configs) == 1:
        return _build(configs[0], value, path, None)
    fits = [c for c in configs if set(value) <= {f.name for f in dataclasses.fields(c)}]
    if len(fits) == 1:
        return _build(fits[0], value, path, None)
    if not fits:
        valid = sorted({f.name for c in configs for f in dataclasses.fields(c)})
        bad = next(k for k in value if k not in valid) if set(value) - set(valid) else None
        if bad is not None:
            raise unknown_name(bad, valid, " or ".join(sorted(kinds)), path)
    raise ConfigError(
        f"{name} is one of {sorted(kinds)}; say which with {KIND!r} "
        f"(e.g. {{{KIND!r}: {sorted(kinds)[0]!r}, ...}}), got {dict(value)!r}"
    )


def _describe(args: tuple[Any, ...]) -> str:
    names = ["None" if a is type(None) else getattr(a, "__name__", str(a)) for a in args]
    return " or ".join(names)


def _typed_error(name: str, path: Path, requirement: str, value: Any) -> ConfigError:
    err = field_error(name, requirement, value)
    err.path = path  # type: ignore[attr-defined]
    return err


def field_docs(cls: type) -> dict[str, str]:
    """``{field name: doc}`` of a dataclass, from the string literal under each field.

    >>> from pokerzoo.games.kuhn import KuhnConfig
    >>> field_docs(KuhnConfig)["num_players"].split(",")[0]
    'Number of players'

    """
    docs: dict[str, str] = {}
    # Base dataclasses first, so a subclass's own doc of a field wins.
    for klass in reversed(cls.__mro__):
        if klass is not object and dataclasses.is_dataclass(klass):
            docs.update(_own_field_docs(klass))
    return docs


def _own_field_docs(cls: type) -> dict[str, str]:
    """The field docs written in ``cls``'s own class body."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source shipped: fields without docs
        return {}
    body = ast.parse(source).body[0]
    docs: dict[str, str] = {}
    if not isinstance(body, ast.ClassDef):
        return docs
    for node, following in zip(body.body, body.body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs
