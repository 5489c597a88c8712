"""External-sampling traversals of hold'em as batches of array rows (``HoldemArrays``).

The same traversals as ``state_traversal.external_sampling_states`` (the same
``TraversalSamples``, in distribution), with the frontier held as rows of ``HoldemArrays``
instead of ``State`` objects, so that nothing loops in Python over states. Each frontier
round asks every seat's strategy once, on the tensors and masks of the rows where that seat
acts (the arrays write the information-state tensor bit for bit, see
``tests/envs/test_holdem_arrays.py``); then one gather builds the next rows: a copy of a
traverser row per legal action, one copy of every other row with its sampled action, and one
compiled ``apply`` moves them all on, dealing streets and paying finished hands. Values are
backed up as in the state version (``TraversalRecord``).

Chance: the arrays deal each hand up front, but the state version samples every chance node
as it is reached, so two children of a traverser decision see independent boards. The
children here have their undealt board cards redrawn (uniformly from the cards not yet dealt),
which gives every row the distribution of the state version's, jointly as well.

>>> from pokerzoo import load_game
>>> game = load_game("no_limit_holdem", stacks=(300, 300))
>>> uniform = lambda player, x, mask: mask / mask.sum(axis=1, keepdims=True)
>>> s = external_sampling_arrays(game, uniform, 0, 10, np.random.default_rng(0))
>>> s.num_traversals, s.tensors.shape[1] == game.information_state_layout.size
(10, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numba
import numpy as np

from pokerzoo.agents.deep.state_traversal import (
    SampledTraversal,
    StrategyFn,
    TraversalRecord,
    TraversalSamples,
    checked_strategy,
    external_sampling_states,
    in_chunks,
)
from pokerzoo.config import check
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.arrays import NBOARD, HoldemArrays
from pokerzoo.games.holdem.game import ARRAY_BACKEND, HoldemGame
from pokerzoo.sampling import sample_rows

StrategyTraversal = Callable[..., TraversalSamples]
"""``external_sampling_arrays`` or ``external_sampling_states``."""


def arrays_play(game: Game) -> bool:
    """Whether ``HoldemArrays`` play ``game`` (a hold'em game with the rules they know).

    >>> from pokerzoo import load_game
    >>> arrays_play(load_game("limit_holdem")), arrays_play(load_game("leduc_holdem"))
    (True, False)
    """
    if game.game_type.array_backend != ARRAY_BACKEND:
        return False
    try:
        HoldemArrays(cast(HoldemGame, game), 0)
    except ConfigError:
        return False
    return True


def traversal_function(game: Game, backend: str) -> StrategyTraversal:
    """The traversal function for ``game`` that ``backend`` names (the deep configs'
    ``traversal_backend``): ``"arrays"`` (``external_sampling_arrays``, hold'em only),
    ``"states"`` (``external_sampling_states``, any game), or ``"auto"``: arrays where
    ``arrays_play(game)``, else states.

    >>> from pokerzoo import load_game
    >>> traversal_function(load_game("no_limit_holdem"), "auto").__name__
    'external_sampling_arrays'
    >>> traversal_function(load_game("kuhn_poker"), "auto").__name__
    'external_sampling_states'
    """
    check(backend in ("auto", "arrays", "states"), "traversal_backend",
          "one of 'auto', 'arrays', 'states'", backend)
    if backend == "states":
        return external_sampling_states
    if arrays_play(game):
        return external_sampling_arrays
    if backend == "arrays":
        raise ConfigError(
            f"traversal_backend='arrays' needs a hold'em game the arrays play, got "
            f"{type(game).__name__}; use 'states' or 'auto'")
    return external_sampling_states


def sampled_traversal(game: Game, backend: str, frontier: int = 256) -> SampledTraversal:
    """The traversal of ``game`` that ``backend`` names (see ``traversal_function``), as the
    object an agent holds, ``frontier`` traversals advanced together.

    >>> from pokerzoo import load_game
    >>> sampled_traversal(load_game("limit_holdem"), "auto").walk.__name__
    'external_sampling_arrays'
    """
    return SampledTraversal(game, traversal_function(game, backend), frontier)


def external_sampling_arrays(
    game: Game,
    strategy: StrategyFn,
    player: int,
    num_traversals: int,
    rng: np.random.Generator,
    *,
    frontier: int = 256,
) -> TraversalSamples:
    """``num_traversals`` external-sampling traversals of ``player`` in a hold'em game,
    ``frontier`` at a time (which bounds the rows held at once), as array rows; arguments as
    ``external_sampling_states``.

    Raises:
        ConfigError: ``game`` is not a hold'em game the arrays play, or a bad count or seat.
    """
    if not arrays_play(game):
        raise ConfigError(
            f"array traversals need a limit or no-limit hold'em game, got {type(game).__name__}"
            "; use state_traversal.external_sampling_states")
    return in_chunks(_traverse_chunk, game, strategy, player, num_traversals, rng, frontier)


def _traverse_chunk(
    game: HoldemGame, strategy: StrategyFn, player: int, slots: np.ndarray,
    rng: np.random.Generator, record: TraversalRecord,
) -> None:
    n, A, k = game.num_players, game.num_distinct_actions, len(slots)
    averaging = (player + 1) % n
    rows = HoldemArrays(game, k)
    rows.reset_rows(np.arange(k), rng)
    live = np.arange(k)  # rows of ``rows`` still in play (the rest finished last round)
    while len(live):
        record.visited += len(live)
        seat = rows.current_player()[live]
        mask = rows.mask()[live].astype(bool)
        parents: list[np.ndarray] = []  # the next round's rows, as positions in ``live``
        actions: list[np.ndarray] = []
        next_slots: list[np.ndarray] = []
        expanded = slice(0, 0)  # where the traverser's children sit among the next rows
        for who in range(n):
            idx = np.flatnonzero(seat == who)
            if not len(idx):
                continue
            x = rows.observations(np.full(len(idx), who), live[idx])
            m = mask[idx]
            sigma = checked_strategy(strategy(who, x, m), m, who)
            if who == player:
                ids = record.decisions(x, m, sigma, slots[idx])
                node, legal = np.nonzero(m)  # row-major: each node's legal actions in order
                start = sum(len(p) for p in parents)
                expanded = slice(start, start + len(legal))
                parents.append(idx[node])
                actions.append(legal)
                next_slots.append(ids[node] * A + legal)
            else:
                if who == averaging:
                    record.strategy(x, m, sigma)
                parents.append(idx)
                actions.append(sample_rows(sigma, rng))
                next_slots.append(slots[idx])
        record.end_round()
        rows = rows.take(live[np.concatenate(parents)])
        slots = np.concatenate(next_slots)
        # Children of a traverser decision deal their own boards, as the state version's
        # chance nodes would.
        redraw = np.arange(expanded.start, expanded.stop)
        _redraw_board(redraw, rng.random((len(redraw), 5)), n, rows.deal, rows.scal)
        done, returns = rows.apply(np.concatenate(actions))
        over = np.flatnonzero(done)
        record.terminals(slots[over], returns[over, player])
        record.visited += len(over)
        live = np.flatnonzero(~done)
        slots = slots[live]


@numba.njit(cache=True)
def _redraw_board(rows, uniforms, n, deal, scal):
    """Redraw the board cards not yet dealt in ``rows``: a partial Fisher-Yates shuffle of the
    cards not dealt there, driven by ``uniforms[k]`` (one uniform in [0, 1) per card)."""
    used = np.zeros(52, dtype=np.bool_)
    deck = np.empty(52, dtype=np.int64)
    end = 2 * n + 5
    for k in range(rows.shape[0]):
        i = rows[k]
        first = 2 * n + scal[i, NBOARD]
        used[:] = False
        for j in range(first):
            used[deal[i, j]] = True
        left = 0
        for c in range(52):
            if not used[c]:
                deck[left] = c
                left += 1
        for j in range(end - first):
            pick = j + min(np.int64(uniforms[k, j] * (left - j)), left - j - 1)
            card = deck[pick]
            deck[pick] = deck[j]
            deck[j] = card
            deal[i, first + j] = card
