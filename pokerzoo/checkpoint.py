"""Checkpoints whose loading never runs code: one zip of JSON, ``.npy`` arrays and tensors.

``write_checkpoint(path, agent_name=..., state=...)`` writes one file atomically (a temporary
file in the same folder, fsync, rename). It is an uncompressed zip holding

- ``format.json``: format name and version, the agent's name and free ``meta`` (plain JSON);
- ``state.json``: the nested state with every array or tensor replaced by a reference;
- ``arrays/<ref>.npy``: numpy leaves, read with ``allow_pickle=False``;
- ``tensors.pt``: torch leaves as one flat ``{ref: tensor}`` dict, read with
  ``torch.load(weights_only=True)``. Torch is imported only when a state holds tensors, so
  tabular agents never import it.

A state is a nest of dicts, lists and tuples whose leaves are numpy arrays, numpy scalars,
torch tensors or JSON scalars (``str``, ``int`` of any size, ``float`` including NaN and
infinities, ``bool``, ``None``). Every one of these comes back with its exact type and value:
tuples stay tuples, dicts keep non-string (integer) keys, floats round-trip bit for bit.
Tensors come back on the CPU (``load_state_dict`` of a module or optimiser moves them).

``read_checkpoint`` raises ``CheckpointError`` saying what a file is (missing, truncated, an old
pickle checkpoint, another program's file, a newer format, another agent's) and what to do.

>>> import tempfile, pathlib
>>> import numpy as np
>>> path = pathlib.Path(tempfile.mkdtemp()) / "demo.pzc"
>>> write_checkpoint(path, agent_name="demo", state={"w": np.arange(3.0), "seen": (1, 2**70)})
>>> header, state = read_checkpoint(path, agent_name="demo")
>>> header["agent"], state["w"].tolist(), state["seen"]
('demo', [0.0, 1.0, 2.0], (1, 1180591620717411303424))
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.atomic import check_target, fsync_folder
from pokerzoo.errors import CheckpointError, ConfigError

FORMAT_NAME = "pokerzoo-checkpoint"
FORMAT_VERSION = 1
"""Bumped whenever a reader of the previous version could misread a new file."""

CHECKPOINT_FILE = "checkpoint.pzc"
"""The name of a run folder's checkpoint."""
LEGACY_CHECKPOINT_FILE = "checkpoint.pt"
"""The name pokerzoo before 0.2 used for its (pickle) checkpoints."""

_FORMAT_MEMBER = "format.json"
_STATE_MEMBER = "state.json"
_TENSORS_MEMBER = "tensors.pt"
_ARRAYS_DIR = "arrays/"
_PICKLE_PROTOCOL_BYTE = 0x80
# Markers of the state.json encoding. A user dict with a key starting with "$" (or a key that
# is not a string) is written as "$items", so no user data is ever mistaken for a marker.
_ARRAY, _SCALAR, _TENSOR, _TUPLE, _ITEMS, _FLOAT = (
    "$array", "$npscalar", "$tensor", "$tuple", "$items", "$float",
)
_SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_OLD_PICKLE_ADVICE = (
    "it is an old pickle checkpoint from before pokerzoo 0.2, not loaded because loading "
    "pickle can run code; retrain, or convert it with a trusted copy of the old version "
    "(load it there, then save it with this version's format)"
)


def write_checkpoint(
    path: str | os.PathLike,
    *,
    agent_name: str,
    state: Any,
    meta: Mapping[str, Any] | None = None,
) -> None:
    """Write ``state`` for agent ``agent_name`` to ``path`` atomically.

    Args:
        path: the file to write; its folder is created if needed.
        agent_name: the registered name of the agent, checked again on reading.
        state: a nest of dicts/lists/tuples with array, tensor or JSON-scalar leaves.
        meta: plain JSON data stored in ``format.json`` (e.g. the pokerzoo version).

    Raises:
        CheckpointError: if ``state`` holds anything else, naming where (nothing is written).
    """
    arrays: dict[str, np.ndarray] = {}
    tensors: dict[str, Any] = {}
    encoded = _encode(state, "state", arrays, tensors)
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "agent": agent_name,
        "meta": _encode_meta(meta),
        "arrays": sorted(arrays),
        "tensors": sorted(tensors),
    }
    tensor_bytes = b""
    if tensors:
        import torch  # only states that hold tensors pay for importing torch

        buffer = io.BytesIO()
        torch.save(tensors, buffer)
        tensor_bytes = buffer.getvalue()

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"cannot write the checkpoint to {str(path)!r}: cannot create "
                              f"its folder ({exc.strerror})") from None
    check_target(path, "checkpoint")  # a link, a folder or a device there is never replaced
    try:
        # The "tmp*.tmp" name is what a resumed run folder clears after a crash mid-write.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError as exc:
        raise CheckpointError(f"cannot write the checkpoint to {str(path)!r}: "
                              f"{exc.strerror}") from None
    try:
        # mkstemp's 0600 would leave checkpoints unlike the run's other files.
        os.fchmod(fd, _new_file_mode())
        with os.fdopen(fd, "wb") as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as zf:
                zf.writestr(_FORMAT_MEMBER, json.dumps(header, allow_nan=False))
                zf.writestr(_STATE_MEMBER, json.dumps(encoded, allow_nan=False))
                for ref, array in arrays.items():
                    # Streamed member by member, so a large replay buffer is never copied whole.
                    with zf.open(f"{_ARRAYS_DIR}{ref}.npy", "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, array, allow_pickle=False)
                if tensors:
                    zf.writestr(_TENSORS_MEMBER, tensor_bytes)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            # A full disk or a lost mount: one line naming the target, which is unchanged.
            why = exc.strerror or str(exc)
            raise CheckpointError(f"cannot write the checkpoint to {str(path)!r}: {why} "
                                  f"(the file there, if any, is unchanged)") from None
        raise
    fsync_folder(path.parent)


def read_checkpoint(
    path: str | os.PathLike, *, agent_name: str | None = None
) -> tuple[dict[str, Any], Any]:
    """Read a checkpoint written by ``write_checkpoint``; nothing in the file is executed.

    Args:
        path: the checkpoint file.
        agent_name: if given, the checkpoint must be of this agent.

    Returns:
        ``(header, state)``: ``header`` has ``format``, ``version``, ``agent`` and ``meta``.

    Raises:
        CheckpointError: saying what the file is and what to do, for every unreadable file.
    """
    path = _checked_file(path)
    with _damage_as_checkpoint_error(path):
        with zipfile.ZipFile(path) as zf:
            header = _read_header(zf, path)
            if agent_name is not None and header["agent"] != agent_name:
                raise CheckpointError(
                    f"{path} holds a {header['agent']!r} agent, not {agent_name!r}; load it "
                    f"into a {header['agent']!r} agent (the run folder's config.json says "
                    "which parameters)"
                )
            arrays = {ref: _read_array(zf, ref) for ref in header["arrays"]}
            tensors = _read_tensors(zf, path) if header["tensors"] else {}
            if sorted(tensors) != sorted(header["tensors"]):
                raise CheckpointError(
                    f"{path} is corrupt: its tensors do not match its table of contents"
                )
            encoded = json.loads(zf.read(_STATE_MEMBER))
        state = _decode(encoded, "state", arrays, tensors, path)
        header["meta"] = _decode(header["meta"], "meta", {}, {}, path)
    return header, state


@contextlib.contextmanager
def _damage_as_checkpoint_error(path: Path) -> Iterator[None]:
    """What reading a damaged or foreign file raises, as one ``CheckpointError`` line."""
    try:
        yield
    except zipfile.BadZipFile as exc:
        raise CheckpointError(
            f"{path} is truncated or corrupt, or not a pokerzoo checkpoint ({exc}); "
            "use an intact copy or retrain"
        ) from exc
    except KeyError as exc:  # a member listed in format.json but absent from the zip
        raise CheckpointError(
            f"{path} is incomplete: {exc.args[0] if exc.args else exc}; use an intact copy"
        ) from exc
    except (OSError, EOFError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        # MemoryError: a damaged array header can declare an array larger than the file.
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(
            f"{path} is corrupt ({type(exc).__name__}: {exc}); use an intact copy or retrain"
        ) from exc


def _new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def read_header(path: str | os.PathLike) -> dict[str, Any]:
    """The header of a checkpoint (``format``, ``version``, ``agent``, ``meta``), checked as
    ``read_checkpoint`` checks it, without reading its arrays or tensors.

    Raises:
        CheckpointError: as ``read_checkpoint`` does.
    """
    path = _checked_file(path)
    with _damage_as_checkpoint_error(path):
        with zipfile.ZipFile(path) as zf:
            header = _read_header(zf, path)
        header["meta"] = _decode(header["meta"], "meta", {}, {}, path)
    return header


def _checked_file(path: str | os.PathLike) -> Path:
    """``path`` if it is a non-empty regular file that is not an old pickle checkpoint."""
    if not isinstance(path, (str, os.PathLike)):
        raise ConfigError(
            f"a checkpoint path must be a str or path, not {type(path).__name__}"
        )
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}")
    if not path.is_file():
        raise CheckpointError(f"{path} is not a file, so not a pokerzoo checkpoint")
    # Files under /proc, /sys and /dev look regular (or are devices) but are not data: reading
    # /proc/self/mem from its start fails, and others never end.
    if str(path.resolve()).startswith(("/proc/", "/sys/", "/dev/")):
        raise CheckpointError(
            f"{path} is a system file, not a checkpoint pokerzoo wrote; point to a checkpoint"
        )
    with open(path, "rb") as fh:
        first = fh.read(1)
    if not first:
        raise CheckpointError(f"{path} is empty: the copy is truncated; use an intact copy")
    if first[0] == _PICKLE_PROTOCOL_BYTE:
        raise CheckpointError(f"{path} was not loaded: {_OLD_PICKLE_ADVICE}")
    return path


def plain_data(value: Any) -> Any:
    """``value`` as the plain data a checkpoint's ``meta`` holds: JSON scalars, lists, tuples
    and dicts; numpy scalars as numbers; objects with a ``spec()`` (priors) as their spec;
    dataclasses as their fields.

    >>> plain_data({"sizes": (2, 4), "scale": np.float64(0.5)})
    {'sizes': (2, 4), 'scale': 0.5}

    Raises:
        CheckpointError: for anything else (arrays, tensors, functions), naming it.
    """
    if isinstance(value, np.generic):  # before float: np.float64 is a float subclass
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {key: plain_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain_data(item) for item in value)
    spec = getattr(value, "spec", None)
    if callable(spec):
        return plain_data(spec())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain_data(dataclasses.asdict(value))
    raise CheckpointError(f"{type(value).__name__} value {value!r:.80} has no plain-data form")


def find_run_checkpoint(folder: str | os.PathLike) -> Path | None:
    """The checkpoint of a run folder, or ``None`` if it has none.

    A folder written before 0.2 has only ``checkpoint.pt``; that path is returned so that
    reading it says what it is instead of the run silently starting over.
    """
    folder = Path(folder)
    for name in (CHECKPOINT_FILE, LEGACY_CHECKPOINT_FILE):
        if (folder / name).exists():
            return folder / name
    return None


# Encoding ------------------------------------------------------------------------------------


def _encode(value: Any, where: str, arrays: dict[str, Any], tensors: dict[str, Any]) -> Any:
    """``value`` as JSON data, moving array and tensor leaves into ``arrays``/``tensors``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {_FLOAT: "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, np.ndarray):
        _check_array(value, where)
        ref = f"a{len(arrays)}"
        arrays[ref] = value
        return {_ARRAY: ref}
    if isinstance(value, np.generic):
        array = np.asarray(value)
        _check_array(array, where)
        ref = f"a{len(arrays)}"
        arrays[ref] = array
        return {_SCALAR: ref}
    if _is_tensor(value):
        ref = f"t{len(tensors)}"
        tensors[ref] = value
        return {_TENSOR: ref}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{where}[{i}]", arrays, tensors) for i, v in enumerate(value)]
        return {_TUPLE: items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        plain = all(isinstance(k, str) and not k.startswith("$") for k in value)
        if plain:
            return {k: _encode(v, f"{where}[{k!r}]", arrays, tensors) for k, v in value.items()}
        pairs = []
        for k, v in value.items():
            if not isinstance(k, (str, int)):
                raise CheckpointError(
                    f"cannot checkpoint {where}: key {k!r} is a {type(k).__name__}; "
                    "keys must be str or int"
                )
            pairs.append([k, _encode(v, f"{where}[{k!r}]", arrays, tensors)])
        return {_ITEMS: pairs}
    hint = ""
    if isinstance(value, np.random.Generator):
        hint = " (save rng.bit_generator.state instead)"
    elif hasattr(value, "__dataclass_fields__"):
        hint = " (save dataclasses.asdict(...) instead)"
    raise CheckpointError(
        f"cannot checkpoint {where}: a {type(value).__module__}.{type(value).__qualname__} is "
        "not allowed; leaves must be numpy arrays, torch tensors, str, int, float, bool or "
        f"None in dicts, lists or tuples{hint}"
    )


def _encode_meta(meta: Mapping[str, Any] | None) -> Any:
    arrays: dict[str, Any] = {}
    tensors: dict[str, Any] = {}
    encoded = _encode(dict(meta or {}), "meta", arrays, tensors)
    if arrays or tensors:
        raise CheckpointError("checkpoint meta must be plain JSON data, without arrays or tensors")
    return encoded


def _check_array(array: np.ndarray, where: str) -> None:
    if array.dtype.hasobject:
        raise CheckpointError(
            f"cannot checkpoint {where}: an array of dtype {array.dtype} holds Python objects; "
            "only arrays of numbers, bools or fixed-width strings are allowed"
        )


def _is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")  # a tensor exists only if torch was imported
    return torch is not None and isinstance(value, torch.Tensor)


def _decode(
    value: Any, where: str, arrays: Mapping[str, Any], tensors: Mapping[str, Any], path: Path
) -> Any:
    """Invert ``_encode``."""
    if isinstance(value, list):
        return [_decode(v, f"{where}[{i}]", arrays, tensors, path) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key in (_ARRAY, _SCALAR, _TENSOR):
            table = tensors if key == _TENSOR else arrays
            if not isinstance(inner, str) or inner not in table:
                raise CheckpointError(f"{path} is corrupt: {where} names a missing {key[1:]}")
            found = table[inner]
            return found[()] if key == _SCALAR else found
        if key == _TUPLE and isinstance(inner, list):
            return tuple(_decode(v, f"{where}[{i}]", arrays, tensors, path)
                         for i, v in enumerate(inner))
        if key == _FLOAT and inner in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[inner]
        if key == _ITEMS and isinstance(inner, list):
            if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], (str, int))
                       for p in inner):
                raise CheckpointError(f"{path} is corrupt: {where} has malformed items")
            return {k: _decode(v, f"{where}[{k!r}]", arrays, tensors, path) for k, v in inner}
    if any(k.startswith("$") for k in value):
        raise CheckpointError(f"{path} is corrupt: unknown marker at {where}")
    return {k: _decode(v, f"{where}[{k!r}]", arrays, tensors, path) for k, v in value.items()}


# Reading -------------------------------------------------------------------------------------


def _read_header(zf: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    listed = zf.namelist()
    names = set(listed)
    if len(names) != len(listed):
        # zipfile reads the last of two members with one name: a second copy appended to a
        # checkpoint would silently replace the first.
        twice = sorted({name for name in listed if listed.count(name) > 1})
        raise CheckpointError(
            f"{path} is not a checkpoint pokerzoo wrote: members {twice} appear more than once"
        )
    if any(info.compress_type != zipfile.ZIP_STORED for info in zf.infolist()):
        # Ours are never compressed; refusing others rules out decompression bombs.
        raise CheckpointError(
            f"{path} is not a pokerzoo checkpoint (it has compressed members); "
            "point to a checkpoint written by pokerzoo"
        )
    if _FORMAT_MEMBER not in names:
        what = ("a torch.save file" if any(n.endswith("data.pkl") for n in names)
                else "a zip archive")
        raise CheckpointError(
            f"{path} is {what}, not a pokerzoo checkpoint (it has no {_FORMAT_MEMBER}); "
            "point to a checkpoint written by pokerzoo"
        )
    try:
        header = json.loads(zf.read(_FORMAT_MEMBER))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path} is corrupt: unreadable {_FORMAT_MEMBER} ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise CheckpointError(f"{path} is not a pokerzoo checkpoint (format is not {FORMAT_NAME})")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CheckpointError(f"{path} is corrupt: format version {version!r} is not an integer")
    if version > FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint format version {version}, written by a newer pokerzoo; "
            f"this version reads up to {FORMAT_VERSION}: upgrade pokerzoo to load it"
        )
    if version < 1:
        raise CheckpointError(f"{path} has unknown checkpoint format version {version}")
    ok = (
        isinstance(header.get("agent"), str)
        and isinstance(header.get("meta"), dict)
        and all(isinstance(header.get(k), list) and all(isinstance(r, str) for r in header[k])
                for k in ("arrays", "tensors"))
    )
    if not ok:
        raise CheckpointError(f"{path} is corrupt: {_FORMAT_MEMBER} lacks its fields")
    return header


def _read_array(zf: zipfile.ZipFile, ref: str) -> np.ndarray:
    with zf.open(f"{_ARRAYS_DIR}{ref}.npy") as member:
        array = np.lib.format.read_array(member, allow_pickle=False)
        # Reading to the end makes zipfile check the member's CRC, so damage is caught.
        if member.read():
            raise ConfigError(f"array {ref} has trailing bytes")
    return array


def _read_tensors(zf: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    import torch

    data = zf.read(_TENSORS_MEMBER)
    try:
        tensors = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as exc:  # weights_only refusals and damaged data come as many types
        raise CheckpointError(
            f"{path} was refused: its {_TENSORS_MEMBER} holds more than plain tensors or is "
            f"corrupt ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            "it was not executed; use a checkpoint written by pokerzoo"
        ) from exc
    if not isinstance(tensors, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in tensors.items()
    ):
        raise CheckpointError(f"{path} is corrupt: {_TENSORS_MEMBER} is not a dict of tensors")
    return tensors


# Checking what was read ----------------------------------------------------------------------

_KIND_NAMES = {"f": "floats", "i": "integers", "b": "bools", "u": "unsigned integers"}


def checked_array(
    value: Any,
    field: str,
    *,
    kinds: str = "f",
    shape: tuple[int, ...] | None = None,
    ndim: int | None = None,
    low: float | None = None,
    high: float | None = None,
    finite: bool = True,
) -> np.ndarray:
    """A numpy array read from a checkpoint, refused unless it is what its reader expects.

    Loaders call this before any array reaches compiled code, torch or a strategy, so that a
    tampered or damaged file is refused naming the field instead of being cast silently.

    Args:
        value: what the checkpoint held.
        field: its name, for the message.
        kinds: the allowed numpy dtype kinds ("f" floats, "i" signed, "u" unsigned, "b" bools);
            strings, objects and complex numbers are never allowed unless listed.
        shape: the exact shape required, if any.
        ndim: the number of dimensions required, if any.
        low: the smallest allowed value, if any.
        high: the largest allowed value, if any.
        finite: whether NaN and infinities are refused (float arrays).

    Returns:
        The array (not copied).

    Raises:
        CheckpointError: naming ``field`` and what is allowed.
    """
    if not isinstance(value, np.ndarray):
        raise CheckpointError(f"checkpoint field {field} must be an array, not "
                              f"{type(value).__name__}")
    allowed = " or ".join(_KIND_NAMES.get(k, k) for k in kinds)
    if value.dtype.kind not in kinds:
        raise CheckpointError(f"checkpoint field {field} holds dtype {value.dtype}; it must "
                              f"hold {allowed}")
    if shape is not None and value.shape != tuple(shape):
        raise CheckpointError(f"checkpoint field {field} has shape {list(value.shape)}; it "
                              f"must have shape {list(shape)}")
    if ndim is not None and value.ndim != ndim:
        raise CheckpointError(f"checkpoint field {field} has {value.ndim} dimensions; it must "
                              f"have {ndim}")
    if value.size == 0 or value.dtype.kind == "b":
        return value
    if finite and value.dtype.kind == "f" and not np.isfinite(value).all():
        raise CheckpointError(f"checkpoint field {field} holds NaN or infinite values; it "
                              "must be finite")
    if low is not None and value.min() < low:
        raise CheckpointError(f"checkpoint field {field} holds {value.min().item()!r}; its values "
                              f"must be >= {low}")
    if high is not None and value.max() > high:
        raise CheckpointError(f"checkpoint field {field} holds {value.max().item()!r}; its values "
                              f"must be <= {high}")
    return value


def checked_int(value: Any, field: str, *, low: int = 0, high: int = 2**62) -> int:
    """An integer read from a checkpoint, refused (naming ``field``) unless an int (not a bool)
    in ``low..high``.

    Raises:
        CheckpointError: naming ``field`` and the allowed range.
    """
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CheckpointError(f"checkpoint field {field} is {value!r:.40}; it must be an int "
                              f"from {low} to {high}")
    return value


def checked_weights(weights: Any, field: str) -> Mapping[str, Any]:
    """A network's saved ``state_dict`` (tensors by name), refused unless every tensor is a
    finite float tensor: a net with NaN weights answers NaN everywhere, found only after long
    evaluations.

    Raises:
        CheckpointError: naming ``field`` and the tensor.
    """
    if not isinstance(weights, Mapping):
        raise CheckpointError(f"checkpoint field {field} is not a table of tensors")
    import torch  # only networks' loaders call this

    for name, tensor in weights.items():
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            raise CheckpointError(f"checkpoint field {field}.{name} must be a float tensor")
        if not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"checkpoint field {field}.{name} holds NaN or infinite "
                                  "values; it must be finite")
    return weights
