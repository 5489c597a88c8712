"""Helpers of the ACPC tests: deterministic policies and clients on threads."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from pokerzoo.games.base import State


class HashPolicy:
    """A deterministic policy that still folds, calls and raises: the action is a hash of the
    acting player's information (stable across processes, unlike ``hash``)."""

    def __init__(self, salt: int) -> None:
        self.salt = salt

    def action_probabilities(self, state: State) -> dict[int, float]:
        legal = state.legal_actions()
        key = repr(state.information_state_key()).encode()
        return {legal[zlib.crc32(key, self.salt) % len(legal)]: 1.0}


class Background:
    """Functions run on threads; ``join`` returns their results and re-raises their errors."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.results: dict[int, Any] = {}

    def start(self, fn: Callable[[], Any]) -> None:
        index = len(self.threads)

        def target() -> None:
            try:
                self.results[index] = fn()
            except BaseException as exc:  # handed to the test by join
                self.results[index] = exc

        thread = threading.Thread(target=target, daemon=True)
        self.threads.append(thread)
        thread.start()

    def join(self, timeout: float = 30.0) -> list[Any]:
        for thread in self.threads:
            thread.join(timeout)
            assert not thread.is_alive(), "a client thread did not finish"
        return [self.results[i] for i in range(len(self.threads))]


@pytest.fixture
def background() -> Background:
    return Background()
