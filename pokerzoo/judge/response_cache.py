"""A cache on disk of chat-completion replies, one JSON file per request, so a rerun costs nothing.

A request is keyed by the sha256 of the canonical JSON of what decides its reply, not of where it
is sent: the model, the messages, the sampling parameters and the sample and vote indices (the
same model behind another URL answers from the same cache). Each file holds the request fields
beside the reply, and a file is used only when they match the request exactly and the reply has
the expected types; anything else (a file cut short, edited, of another request) is ignored
with a warning and the request is sent again. Files are written atomically and read with
``json`` only.

>>> import tempfile
>>> cache = ResponseCache(tempfile.mkdtemp())
>>> fields = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "seed": 0}
>>> cache.get(fields) is None
True
>>> cache.put(fields, CachedReply("Final Answer: call", 12, 3))
>>> cache.get(fields)
CachedReply(content='Final Answer: call', prompt_tokens=12, completion_tokens=3)
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError, PokerzooWarning

__all__ = ["FORMAT", "CachedReply", "ResponseCache", "request_key"]

FORMAT = "pokerzoo-chat-cache-1"


def user_cache_folder(part: str) -> Path:
    """The judge's default cache folder ``part``: ``$POKERZOO_CACHE/part``, else
    ``~/.cache/pokerzoo/part`` (LLM answers in ``llm``, solved spots in ``judge``)."""
    root = os.environ.get("POKERZOO_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "pokerzoo") / part


@dataclass(frozen=True)
class CachedReply:
    """A reply as cached: its content (``None`` where the endpoint sent none) and usage."""

    content: str | None
    prompt_tokens: int
    completion_tokens: int


def request_key(fields: dict[str, Any]) -> str:
    """The sha256 hex digest of the canonical JSON of ``fields`` (sorted keys, no spaces)."""
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Replies on disk under ``folder`` (created if missing), one ``<key>.json`` per request."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"the cache folder {str(folder)!r} is a file; give a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot make the cache folder {str(folder)!r}: "
                              f"{exc.strerror}") from None

    def path_of(self, fields: dict[str, Any]) -> Path:
        """The file that caches the request ``fields``."""
        return self.folder / f"{request_key(fields)}.json"

    def get(self, fields: dict[str, Any]) -> CachedReply | None:
        """The cached reply to ``fields``, or ``None`` (missing, or unusable: warned)."""
        path = self.path_of(fields)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            return self._unusable(path, f"it cannot be read ({exc})")
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            return self._unusable(path, f"it is not JSON ({exc.msg} at line {exc.lineno})")
        reply = _checked(data, fields)
        if isinstance(reply, str):
            return self._unusable(path, reply)
        return reply

    def put(self, fields: dict[str, Any], reply: CachedReply) -> None:
        """Cache ``reply`` to the request ``fields`` (atomically)."""
        data = {"format": FORMAT, "request": fields, "content": reply.content,
                "usage": {"prompt_tokens": reply.prompt_tokens,
                          "completion_tokens": reply.completion_tokens}}
        write_atomically(self.path_of(fields), json.dumps(data, ensure_ascii=False, indent=1),
                         what="cached reply")

    @staticmethod
    def _unusable(path: Path, why: str) -> None:
        warnings.warn(f"ignoring the cached reply {str(path)!r}: {why}; asking again",
                      PokerzooWarning, stacklevel=3)
        return None


def _checked(data: Any, fields: dict[str, Any]) -> CachedReply | str:
    """The reply in ``data`` if it is a well-formed entry for ``fields``, else why not."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return f"it is not a {FORMAT} entry"
    if data.get("request") != fields:
        return "it caches another request"
    content = data.get("content")
    usage = data.get("usage")
    if content is not None and not isinstance(content, str):
        return "its content is not text"
    if not isinstance(usage, dict):
        return "it has no usage"
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    for count in (prompt, completion):
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            return "its token counts are not whole numbers >= 0"
    assert isinstance(prompt, int) and isinstance(completion, int)  # checked just above
    return CachedReply(content, prompt, completion)
