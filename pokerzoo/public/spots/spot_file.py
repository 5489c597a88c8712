"""Reading a hold'em spot file: what ``HoldemSpot.from_toml`` and ``solve.py SPOT.toml`` read.

A spot file is untrusted input, so every step refuses in one ``ConfigError`` line instead of a
traceback or a hang: the path must be a regular file (checked with ``stat`` before it is
opened, so a FIFO or a device is never opened and nothing waits on it) of at most
``MAX_SPOT_FILE_BYTES``; its bytes must be UTF-8; the text must parse as TOML (deep nesting,
which makes ``tomllib`` recurse, is refused too); and every known key must have a type a
:class:`~pokerzoo.public.spots.holdem_spot.HoldemSpot` field takes. The values themselves (cards,
ranges, sizes, ranges of numbers) are checked by ``HoldemSpot``.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError

MAX_SPOT_FILE_BYTES = 1 << 20
"""The largest spot file read (1 MiB; the shipped spots are under 2 KB)."""

_SIZE_FIELDS = ("flop_sizes", "turn_sizes", "river_sizes")
_TEXT_FIELDS = ("board", "oop_range", "ip_range", "turn_donk", "river_donk")
_INT_FIELDS = ("starting_pot", "effective_stack", "raise_cap", "street_bets", "to_act")
_NUMBER_FIELDS = ("add_allin_threshold", "force_allin_threshold", "merging_threshold")
_SIZE_FORMS = ("a size string ('52%'), a [bets, raises] pair of strings, one such pair per "
               "player, or a table {oop = [bets, raises], ip = [bets, raises]}")


def _type_name(value: object) -> str:
    """The TOML name of a parsed value's type, what a user wrote."""
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
             dict: "table"}
    return names.get(type(value), type(value).__name__)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text_pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def _check_sizes(name: str, value: object) -> None:
    if isinstance(value, str) or _is_text_pair(value):
        return
    if isinstance(value, list) and len(value) == 2 and all(_is_text_pair(v) for v in value):
        return
    if isinstance(value, dict):
        for seat in ("oop", "ip"):
            if seat in value and not _is_text_pair(value[seat]):
                raise ConfigError(f"{name}.{seat} must be a [bets, raises] pair of strings such "
                                  f"as [\"52%\", \"45%\"], got {_type_name(value[seat])} "
                                  f"{value[seat]!r:.60}")
        extra = sorted(set(value) - {"oop", "ip"})
        if extra or len(value) != 2:
            raise ConfigError(f"{name} as a table takes exactly the keys 'oop' and 'ip', got "
                              f"{sorted(value)!r:.80}")
        return
    raise ConfigError(f"{name} must be {_SIZE_FORMS}; got {_type_name(value)} {value!r:.60}")


def check_spot_types(data: Mapping[str, Any]) -> None:
    """Refuse a key of a parsed spot table whose value has a type no ``HoldemSpot`` field
    takes, in one line naming the key, the type found and what is allowed (unknown and missing
    keys are ``HoldemSpot.from_dict``'s to refuse)."""
    for name, value in data.items():
        if name in _SIZE_FIELDS:
            _check_sizes(name, value)
            continue
        allowed = None
        if name in _TEXT_FIELDS and not isinstance(value, str):
            allowed = "a string"
        elif name in _INT_FIELDS and not _is_int(value):
            allowed = "an integer"
        elif name in _NUMBER_FIELDS and not (_is_int(value) or isinstance(value, float)):
            allowed = "a number"
        elif name == "suit_isomorphism" and not isinstance(value, bool):
            allowed = "true or false"
        elif name == "street_chips" and not (
                isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)):
            allowed = "an array of two integers (out of position, in position)"
        if allowed is not None:
            raise ConfigError(f"spot field {name} must be {allowed}, got {_type_name(value)} "
                              f"{value!r:.60}")


def _read_bytes(path: Path) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file of at most the limit
    before opening it (a FIFO would block ``open`` until a writer came)."""
    shown = str(path)
    try:
        info = os.stat(path)
    except OSError as err:
        raise ConfigError(f"cannot read spot file {shown!r}: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"spot file {shown!r} is not a regular file (a FIFO, device or "
                          f"folder); give a TOML file")
    if info.st_size > MAX_SPOT_FILE_BYTES:
        raise ConfigError(f"spot file {shown!r} is {info.st_size:,} bytes; a spot file may "
                          f"hold at most {MAX_SPOT_FILE_BYTES:,}")
    try:
        # O_NONBLOCK: should the path have been swapped for a FIFO since the stat, opening
        # it still returns at once, and the fstat below refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise ConfigError(f"cannot read spot file {shown!r}: {err.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ConfigError(f"spot file {shown!r} is not a regular file; give a TOML file")
        try:
            raw = fh.read(MAX_SPOT_FILE_BYTES + 1)
        except OSError as err:
            raise ConfigError(f"cannot read spot file {shown!r}: {err.strerror}") from None
    if len(raw) > MAX_SPOT_FILE_BYTES:
        raise ConfigError(f"spot file {shown!r} holds more than {MAX_SPOT_FILE_BYTES:,} bytes, "
                          f"the most a spot file may hold")
    return raw


def read_spot_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The whole parsed TOML of a spot file (the spot's fields and its ``[locks]``), read in
    checked steps: a regular file of at most ``MAX_SPOT_FILE_BYTES``, UTF-8, TOML.

    Raises:
        ConfigError: one line saying what is wrong with the file (not a regular file, too
            large, not UTF-8, not TOML, nested too deep).
    """
    path = Path(path)
    shown = str(path)
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"spot file {shown!r} is not UTF-8 text (byte {err.start} is "
                          f"{raw[err.start]:#04x}); give a TOML file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"spot file {shown!r} is not valid TOML: {err}") from None
    except RecursionError:
        raise ConfigError(f"spot file {shown!r} nests arrays or tables too deep to read; a "
                          f"spot has at most two levels") from None
    return data


def read_spot_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The spot table of a TOML spot file (its top-level keys, or its ``[spot]`` table), every
    known key of an allowed type.

    Raises:
        ConfigError: one line saying what is wrong with the file (not a regular file, too
            large, not UTF-8, not TOML, nested too deep, a key of the wrong type).
    """
    shown = str(path)
    data = read_spot_document(path)
    table = data.get("spot", data)
    if not isinstance(table, dict):
        raise ConfigError(f"spot file {shown!r}: 'spot' must be a table of fields, got "
                          f"{_type_name(table)}")
    check_spot_types(table)
    return table


__all__ = ["MAX_SPOT_FILE_BYTES", "check_spot_types", "read_spot_document", "read_spot_file"]
