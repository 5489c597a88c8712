"""The example files shipped with pokerzoo: the configs (``configs/*.toml``), the spot files
(``configs/spots/*.toml``) and the env pages (``docs/envs/*.md``), found the same way in a
checkout and in an installed wheel.

A wheel holds them under ``pokerzoo/data/`` with the repository's layout (``setup.py`` copies
them there); a checkout (or an editable install) has them at the repository root. Either way
``shipped_root() / "configs/spots/nlh_limped_river.toml"`` is the file, and
``resolve_shipped`` lets a command take a shipped file by the path the README and the docs
print, or by its bare name, when no such file is on disk:

>>> Path(resolve_shipped("nlh_limped_river")).name
'nlh_limped_river.toml'
>>> "preflop_100bb" in shipped_names("configs")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SPOT_FOLDERS = ("configs/spots", "configs")
"""Where a bare name is looked for, in this order: a spot file, then a config."""


def shipped_root() -> Path:
    """The folder holding ``configs/`` and ``docs/envs/``: the installed package's ``data``
    folder, or the checkout's root when pokerzoo runs from a checkout."""
    packaged = Path(str(resources.files("pokerzoo"))) / "data"
    if (packaged / "configs").is_dir():
        return packaged
    return Path(__file__).resolve().parents[2]


def shipped_names(folder: str = "configs/spots") -> list[str]:
    """The names (file stems) of the ``.toml`` files shipped in ``folder``."""
    return sorted(p.stem for p in (shipped_root() / folder).glob("*.toml"))


def resolve_shipped(path: str) -> str:
    """``path`` itself when it exists; otherwise the shipped file it names, as the repository
    path (``configs/spots/X.toml``, ``spots/X.toml``) or the bare name (``X`` or ``X.toml``,
    a spot first, then a config); otherwise ``path`` unchanged, so that opening it fails with
    the usual one-line "no such file"."""
    given = Path(path)
    if given.exists() or given.is_absolute():
        return path
    root = shipped_root()
    relative = given.as_posix().removeprefix("./")
    candidates = [root / relative] if relative.startswith("configs/") else []
    candidates.append(root / "configs" / relative)
    if len(given.parts) == 1:
        name = given.name if given.suffix == ".toml" else f"{given.name}.toml"
        candidates += [root / folder / name for folder in SPOT_FOLDERS]
    return next((str(c) for c in candidates if c.is_file()), path)
