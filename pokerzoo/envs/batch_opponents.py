"""Fixed opponents that answer many hands in one call, for ``PokerVectorEnv``.

The batched counterpart of ``pokerzoo.wrappers.opponents.as_opponent``: an opponent here is
called once per step on every hand where it is to act, as ``fn(obs [k, D], mask [k, A],
seat [k])``, and answers actions ``[k]`` or weights ``[k, A]`` (sampled on the legal actions
with the env's Generator). ``as_batch_opponent`` accepts:

* ``"random"`` or ``None``: uniform over the legal actions;
* a ``TabularPolicy`` (or an agent whose ``policy()`` is one, read once: the opponent stays
  fixed): each hand's row found from its information-state tensor by a vectorised lookup over
  the game tree's information sets (games whose tree can be built);
* an agent or policy answering whole batches per seat (``average_probs(seat, obs, mask)``,
  e.g. NFSP and its network policy);
* a Stable-Baselines3 model (one batched ``predict``, deterministic, with masks for
  MaskablePPO; an illegal prediction of a model without masks becomes a random legal action);
* a callable ``fn({"observation": [k, D], "action_mask": [k, A]}, {"seat": [k]})`` returning
  actions ``[k]`` or weights ``[k, A]`` (called on batches, not on single hands).

Weights are sampled by ``pokerzoo.sampling.sample_rows`` in float64, one uniform per hand.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.games.base import Game
from pokerzoo.sampling import sample_rows

BatchOpponent = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``fn(obs [k, D], mask [k, A], seat [k]) -> actions [k] or weights [k, A]``."""


def play(
    opponent: BatchOpponent,
    obs: np.ndarray,
    mask: np.ndarray,
    seat: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Ask ``opponent`` about ``k`` hands and return ``k`` legal actions.

    Raises:
        InvalidPolicyError: an answer of the wrong shape, or an illegal action.
    """
    k, num_actions = mask.shape
    answer = np.asarray(opponent(obs, mask, seat))
    if answer.shape == (k, num_actions):
        return sample_rows(answer.astype(np.float64), rng, mask)
    if answer.shape != (k,) or not np.issubdtype(answer.dtype, np.integer):
        raise InvalidPolicyError(
            f"a batched opponent must answer {k} integer actions or a [{k}, {num_actions}] "
            f"array of weights, got shape {answer.shape} of {answer.dtype}"
        )
    actions = answer.astype(np.int64)
    ok = (actions >= 0) & (actions < num_actions)
    ok[ok] = mask[np.flatnonzero(ok), actions[ok]] > 0
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise InvalidPolicyError(
            f"the opponent played {int(actions[i])} where the legal actions are "
            f"{np.flatnonzero(mask[i]).tolist()}"
        )
    return actions


def check_opponent_signature(fn: Callable[..., Any], expected: str) -> None:
    """Refuse at construction a callable opponent that cannot be called with two positional
    arguments ``(observation, info)``: otherwise it would fail only at its first turn.

    Raises:
        ConfigError: naming the callable's signature and the ``expected`` one.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # a builtin without a readable signature: its first turn will tell
    try:
        signature.bind(None, None)
    except TypeError:
        name = getattr(fn, "__qualname__", type(fn).__name__)
        raise ConfigError(
            f"the opponent {name}{signature} cannot be called as an opponent: a callable "
            f"opponent takes two arguments, (observation, info), answering {expected}"
        ) from None


def as_batch_opponent(spec: Any, game: Game, rng_of: Callable[[], np.random.Generator]) -> Any:
    """Wrap ``spec`` (see the module docstring) as a ``BatchOpponent`` for ``game``.

    Raises:
        ConfigError: if ``spec`` is none of the accepted kinds.
    """
    if spec is None or (isinstance(spec, str) and spec == "random"):
        return lambda obs, mask, seat: mask
    if isinstance(spec, str):
        raise ConfigError(f"unknown opponent {spec!r}; the only named opponent is 'random'")
    table = _table_of(spec)
    if table is not None:
        return TableLookup(table, game)
    batched = getattr(spec, "average_probs", None) or getattr(
        getattr(spec, "agent", None), "average_probs", None
    )
    if callable(batched):
        return _per_seat(batched)
    if hasattr(spec, "predict") and hasattr(spec, "observation_space"):
        return _sb3_opponent(spec, rng_of)
    if callable(spec):
        check_opponent_signature(spec, "({'observation', 'action_mask'}, {'seat'}) on batches")
        return lambda obs, mask, seat: spec(
            {"observation": obs, "action_mask": mask}, {"seat": seat}
        )
    raise ConfigError(
        f"cannot play with {type(spec).__name__} in a vector env: pass 'random', a "
        "TabularPolicy (or an agent whose policy() is one), an agent with "
        "average_probs(seat, obs, mask), a Stable-Baselines3 model or a callable answering "
        "batches ({'observation', 'action_mask'}, {'seat'}) -> actions or weights"
    )


def _table_of(spec: Any) -> Any:
    """The ``TabularPolicy`` behind ``spec`` (itself, or an agent's ``policy()``), else None."""
    from pokerzoo.policy import PolicySource
    from pokerzoo.tree import TabularPolicy

    if isinstance(spec, TabularPolicy):
        return spec
    if isinstance(spec, PolicySource) and not hasattr(spec, "average_probs"):
        policy = spec.policy()
        if isinstance(policy, TabularPolicy):
            return policy
    return None


def _per_seat(batched: Callable[[int, np.ndarray, np.ndarray], np.ndarray]) -> BatchOpponent:
    def answer(obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> np.ndarray:
        out = np.zeros(mask.shape, dtype=np.float64)
        for s in np.unique(seat):  # one network call per seat, not per hand
            rows = np.flatnonzero(seat == s)
            out[rows] = batched(int(s), obs[rows], mask[rows])
        return out

    return answer


class TableLookup:
    """A ``TabularPolicy`` answering batches: rows found from information-state tensors.

    Every information set's float32 tensor, read as raw bytes, is a sort key; a batch is looked
    up with one ``searchsorted`` over those keys and checked for exact equality, so a tensor
    the policy does not cover raises instead of borrowing a neighbour's row.
    """

    def __init__(self, policy: Any, game: Game) -> None:
        from pokerzoo.tree import build

        tree = build(game)
        probs = policy.aligned_to(tree)
        keys = _row_bytes(tree.information_state_tensors)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
            raise ConfigError(
                f"two information sets of {game.name} share a tensor; look the policy up by "
                "key with SingleAgentEnv instead"
            )
        self._keys = keys
        self._probs = probs[order]

    def __call__(self, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> np.ndarray:
        query = _row_bytes(obs)
        at = np.minimum(np.searchsorted(self._keys, query), len(self._keys) - 1)
        found = self._keys[at] == query
        if not found.all():
            raise InvalidPolicyError(
                f"the policy covers no information set with tensor "
                f"{np.asarray(obs)[int(np.flatnonzero(~found)[0])].tolist()}; was it computed "
                "for another game?"
            )
        return self._probs[at]


def _row_bytes(tensors: np.ndarray) -> np.ndarray:
    """``[k]`` keys: each float32 row's bytes as one opaque value (sortable, exact)."""
    rows = np.ascontiguousarray(tensors, dtype=np.float32)
    return rows.view(np.dtype((np.void, rows.shape[1] * 4))).ravel()


def _sb3_opponent(model: Any, rng_of: Callable[[], np.random.Generator]) -> BatchOpponent:
    wants_dict = isinstance(model.observation_space, spaces.Dict)
    takes_mask = "action_masks" in inspect.signature(model.predict).parameters

    def answer(obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> np.ndarray:
        x = {"observation": obs, "action_mask": mask} if wants_dict else obs
        kwargs = {"action_masks": mask.astype(bool)} if takes_mask else {}
        actions, _ = model.predict(x, deterministic=True, **kwargs)
        actions = np.asarray(actions, dtype=np.int64).reshape(len(mask))
        illegal = mask[np.arange(len(mask)), actions] == 0
        if illegal.any():  # a model trained without masks: a random legal action instead
            actions[illegal] = sample_rows(mask[illegal], rng_of())
        return actions

    return answer
