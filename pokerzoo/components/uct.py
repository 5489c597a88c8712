"""Adaptive UCT: information-set Monte Carlo tree search with the early stop of NFSP-PLT.

One search answers "which action should ``player`` take here?" (Li et al. 2023, Algorithm 2):

* **Determinisation.** Each simulation starts from a full history drawn from the searcher's
  information set by a sampler (``pokerzoo.components.determinisation``), weighted by the
  belief (e.g. the opponents' average-policy reach).
* **Tree over information sets.** Nodes are keyed by ``(player, information_state_key)``, so
  statistics are shared by every history the player cannot tell apart and its choices depend
  only on what it knows (no strategy fusion across determinisations).
* **Opponents** (``UCTConfig.opponents``): ``"policy"`` (default) lets every other player act
  by ``opponent_policy`` (their average policy in NFSP, uniform if none is given), so the
  search computes a *best response* to that policy, which is what NFSP's best response is;
  ``"search"`` gives every player its own information-set nodes, each maximising its own
  return (a self-play search, no opponent model needed).
* **Selection** is PUCT: ``argmax_a Q(s,a) + c * P(s,a) * sqrt(N(s)) / (1 + N(s,a))``. This is
  the paper's ``U ~ P(s,a) / (1 + N(s,a))`` with AlphaZero's ``c * sqrt(N(s))`` as the factor:
  without it exploration would shrink like ``1/N`` and the search would turn greedy, with it
  every action keeps being tried in proportion to its prior. ``Q`` is the mean return of the
  node's player, min-max normalised over the values seen in this search (as in MuZero) so
  that ``c`` does not depend on the game's chip scale; an unvisited action takes the node's
  own mean value (first-play urgency). ``N(s)`` counts from 1, so the first pick follows the
  prior.
* **Leaf evaluation**: a new node is evaluated by ``evaluator(state, player) -> (priors,
  value)`` (e.g. a Q-network: priors over the acting player's legal actions, ``player``'s
  expected return; it must look only at ``player``'s information) or, without one, by uniform
  priors and a random rollout to the end (opponents by their policy in ``"policy"`` mode).
* **Adaptive stop**: after ``threshold`` simulations, and every ``test_every`` after that,
  each remaining root action is compared with the most visited one by a two-sample z-test
  on their returns, ``z = (mean_best - mean_a) / sqrt(var_best/n_best + var_a/n_a)``; an action
  with ``z > z_{alpha/2}``, ``alpha = 1 - confidence`` (Algorithm 2's two-sided critical value),
  is dropped and no longer selected at the root. The search stops when one action remains,
  else at ``max_simulations``, and recommends the most visited remaining action.
  (Algorithm 2 prints the test under ``iteration <= T_Threshold``; the text, Steps 1-3, and
  Table 6 make clear it starts *after* the threshold, which is what we do.)
"""

from __future__ import annotations

import bisect
import copy
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from pokerzoo.components.determinisation import Sampler, resampling_sampler
from pokerzoo.components.uct_config import OPPONENT_MODES, SearchResult, UCTConfig
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import State
from pokerzoo.policy import as_state_policy

Evaluator = Callable[[State, int], tuple[Any, float]]
"""``(state, player) -> (priors, value)``: priors over the acting player's legal actions (a
mapping action -> weight, or an array over ``num_distinct_actions``), ``player``'s value."""

__all__ = ["OPPONENT_MODES", "AdaptiveUCT", "Evaluator", "SearchResult", "UCTConfig"]


class _Node:
    """Statistics of one information set: per action visits, sum and sum of squares."""

    __slots__ = ("player", "actions", "prior", "n", "w", "w2", "total", "value0", "active")

    def __init__(self, player: int, actions: list[int], prior: list[float], value0: float):
        self.player = player
        self.actions = actions
        self.prior = prior
        k = len(actions)
        self.n = [0] * k
        self.w = [0.0] * k
        self.w2 = [0.0] * k
        self.total = 0
        self.value0 = value0
        self.active = [True] * k


class _Uniforms:
    """Uniform floats drawn from the generator in blocks (one numpy call per 4096 draws)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.buf = rng.random(4096)
        self.i = 0

    def __call__(self) -> float:
        if self.i == len(self.buf):
            self.buf = self.rng.random(4096)
            self.i = 0
        u = self.buf[self.i]
        self.i += 1
        return float(u)


class AdaptiveUCT:
    """Information-set MCTS with PUCT selection and the adaptive stop (module docstring).

    Args:
        config: search parameters.
        evaluator: leaf value/prior function ``(state, player) -> (priors, value)``; ``None``
            uses uniform priors and random rollouts.
        opponent_policy: a ``StatePolicy`` or callable for the other players (``"policy"``
            mode; uniform random if ``None``); also weights the belief when ``search`` builds
            the sampler itself.
        rollout_policy: how the searcher (and, in ``"search"`` mode, everyone) plays in
            rollouts; uniform random if ``None``.
        seed: anything ``numpy.random.default_rng`` takes.
    """

    def __init__(
        self,
        config: UCTConfig | None = None,
        evaluator: Evaluator | None = None,
        opponent_policy: object | None = None,
        rollout_policy: object | None = None,
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    ) -> None:
        self.config = config or UCTConfig()
        self.evaluator = evaluator
        self.opponent_policy = None if opponent_policy is None else as_state_policy(opponent_policy)
        self.rollout_policy = None if rollout_policy is None else as_state_policy(rollout_policy)
        self.rng = np.random.default_rng(seed)
        self._uniform = _Uniforms(self.rng)
        self._policy_cache: dict[Hashable, tuple[list[int], list[float]]] = {}

    # Public API ----------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The random state between searches: the generator and its unread block of uniforms
        (the rest of a search's data is rebuilt by every search)."""
        return {
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "uniforms": self._uniform.buf.copy(),
            "uniforms_used": self._uniform.i,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self._uniform.buf = np.array(state["uniforms"], dtype=np.float64)
        self._uniform.i = int(state["uniforms_used"])

    def search(self, state: State | None = None, sampler: Sampler | None = None) -> SearchResult:
        """Search from the searcher's information set and recommend an action.

        Args:
            state: a state where the searcher is to act; if no ``sampler`` is given, its
                hidden information is resampled by ``resampling_sampler`` with the opponent
                policy as belief.
            sampler: draws determinisations (full states with the searcher to act).

        Raises:
            ValueError: if neither is given, or the sampler leaves the information set.
        """
        if sampler is None:
            if state is None:
                raise ConfigError("search needs a state or a sampler")
            sampler = resampling_sampler(state, opponent_policy=self.opponent_policy)
        cfg = self.config
        root_state = sampler(self.rng)
        player = root_state.current_player()
        if player < 0:
            raise ConfigError(f"the searcher must be a player to act, got {player}")
        root_key = (player, root_state.information_state_key(player))
        if state is not None and state.information_state_key(player) != root_key[1]:
            raise ConfigError("the sampler draws states outside the state's information set")
        self._policy_cache.clear()
        self._lo, self._hi = math.inf, -math.inf
        nodes: dict[Hashable, _Node] = {}
        root = self._expand(root_state, player, nodes, root_key)
        if len(root.actions) == 1:
            return self._result(root, 0, False)
        z_crit = cfg.z_critical
        sims, stopped = 0, False
        next_test = cfg.threshold
        while sims < cfg.max_simulations:
            s = root_state if sims == 0 else sampler(self.rng)
            self._simulate(s, player, nodes, root)
            sims += 1
            if next_test is not None and sims >= next_test:
                next_test = sims + cfg.test_every
                if self._prune(root, z_crit) == 1:
                    stopped = sims < cfg.max_simulations
                    break
        return self._result(root, sims, stopped)

    # Simulation ----------------------------------------------------------------------------------

    def _simulate(self, s: State, searcher: int, nodes: dict[Hashable, _Node], root: _Node) -> None:
        searched = self.config.opponents == "search"
        path: list[tuple[_Node, int]] = []
        values: Mapping[int, float] | Sequence[float]
        node = root
        while True:
            p = s.current_player()
            if p < 0:
                if s.is_terminal():
                    values = s.returns()
                    break
                s.apply_action(self._sample_chance(s))
                continue
            if p != searcher and not searched:
                s.apply_action(self._opponent_action(s, p))
                continue
            if path:  # the root node is known; deeper nodes are looked up or created
                key = (p, s.information_state_key(p))
                found = nodes.get(key)
                if found is None:
                    node = self._expand(s, p, nodes, key)
                    values = self._leaf_values(s, node, path, searcher)
                    break
                node = found
            i = self._select(node, node is root)
            path.append((node, i))
            s.apply_action(node.actions[i])
        for nd, i in path:
            v = float(values[nd.player])
            nd.n[i] += 1
            nd.w[i] += v
            nd.w2[i] += v * v
            nd.total += 1
            if v < self._lo:
                self._lo = v
            if v > self._hi:
                self._hi = v

    def _select(self, node: _Node, at_root: bool) -> int:
        lo, hi = self._lo, self._hi
        scale = 1.0 / (hi - lo) if hi > lo else 0.0
        if math.isnan(node.value0):  # a rollout-mode root has no value of its own
            fpu = sum(node.w) / node.total if node.total else math.nan
        else:
            fpu = (sum(node.w) + node.value0) / (node.total + 1)
        fpu_norm = 0.5 if (not scale or math.isnan(fpu)) else (fpu - lo) * scale
        explore = self.config.c_puct * math.sqrt(max(1, node.total))
        best, best_score = -1, -math.inf
        for i in range(len(node.actions)):
            if at_root and not node.active[i]:
                continue
            n = node.n[i]
            q = (node.w[i] / n - lo) * scale if (n and scale) else (0.5 if n else fpu_norm)
            score = q + explore * node.prior[i] / (1 + n)
            if score > best_score:
                best, best_score = i, score
        return best

    def _expand(self, s: State, p: int, nodes: dict[Hashable, _Node], key: Hashable) -> _Node:
        actions = s.legal_actions()
        if self.evaluator is None:
            prior = [1.0 / len(actions)] * len(actions)
            value0 = math.nan
        else:
            raw, value0 = self.evaluator(s, p)
            prior = _priors(raw, actions)
        node = _Node(p, actions, prior, float(value0))
        nodes[key] = node
        return node

    def _leaf_values(
        self, s: State, leaf: _Node, path: list[tuple[_Node, int]], searcher: int
    ) -> Mapping[int, float] | Sequence[float]:
        if self.evaluator is None:
            values = self._rollout(s, searcher)
            leaf.value0 = float(values[leaf.player])
            return values
        out = {leaf.player: leaf.value0}
        game = s.game
        for nd, _ in path:
            q = nd.player
            if q in out:
                continue
            if game.num_players == 2 and game.is_zero_sum:
                out[q] = -leaf.value0
            else:
                out[q] = float(self.evaluator(s, q)[1])
        return out

    def _rollout(self, s: State, searcher: int) -> list[float]:
        searched = self.config.opponents == "search"
        while True:
            p = s.current_player()
            if p < 0:
                if s.is_terminal():
                    return s.returns()
                s.apply_action(self._sample_chance(s))
            elif p != searcher and not searched:
                s.apply_action(self._opponent_action(s, p))
            elif self.rollout_policy is not None:
                s.apply_action(self._sample(self.rollout_policy.action_probabilities(s)))
            else:
                legal = s.legal_actions()
                s.apply_action(legal[int(self._uniform() * len(legal))])

    # Sampling helpers ----------------------------------------------------------------------------

    def _sample_chance(self, s: State) -> int:
        outcomes = s.chance_outcomes()
        u = self._uniform()
        acc = 0.0
        for a, prob in outcomes:
            acc += prob
            if u < acc:
                return a
        return outcomes[-1][0]

    def _sample(self, probs: Mapping[int, float]) -> int:
        actions = list(probs)
        cum = list(np.cumsum([probs[a] for a in actions]))
        i = bisect.bisect_right(cum, self._uniform() * cum[-1])
        return actions[min(i, len(actions) - 1)]

    def _opponent_action(self, s: State, p: int) -> int:
        if self.opponent_policy is None:
            legal = s.legal_actions()
            return legal[int(self._uniform() * len(legal))]
        if not self.config.cache_opponent_policy:
            return self._sample(self.opponent_policy.action_probabilities(s))
        key = (p, s.information_state_key(p))
        entry = self._policy_cache.get(key)
        if entry is None:
            probs = self.opponent_policy.action_probabilities(s)
            actions = [a for a in probs if probs[a] > 0]
            if not actions:
                raise ConfigError(f"opponent policy gives no action positive probability at {s}")
            entry = (actions, list(np.cumsum([probs[a] for a in actions])))
            self._policy_cache[key] = entry
        actions, cum = entry
        i = bisect.bisect_right(cum, self._uniform() * cum[-1])
        return actions[min(i, len(actions) - 1)]

    # Adaptive stop ---------------------------------------------------------------------------

    def _prune(self, root: _Node, z_crit: float) -> int:
        """Drop root actions significantly worse than the most visited; returns how many remain."""
        live = [i for i in range(len(root.actions)) if root.active[i]]
        best = max(live, key=lambda i: (root.n[i], _mean(root, i)))
        nb = root.n[best]
        if nb < self.config.min_test_visits:
            return len(live)
        mb, vb = _mean(root, best), _var(root, best)
        for i in live:
            n = root.n[i]
            if i == best or n < self.config.min_test_visits:
                continue
            diff = mb - _mean(root, i)
            se = math.sqrt(vb / nb + _var(root, i) / n)
            if (se == 0.0 and diff > 0.0) or (se > 0.0 and diff / se > z_crit):
                root.active[i] = False
        return sum(root.active)

    def _result(self, root: _Node, sims: int, stopped: bool) -> SearchResult:
        k = len(root.actions)
        visits = np.array(root.n, dtype=np.int64)
        q = np.array([_mean(root, i) if root.n[i] else math.nan for i in range(k)])
        std = np.array([math.sqrt(_var(root, i)) if root.n[i] > 1 else math.nan for i in range(k)])
        live = [i for i in range(k) if root.active[i]]
        best = max(live, key=lambda i: (root.n[i], -math.inf if math.isnan(q[i]) else q[i]))
        return SearchResult(
            action=root.actions[best],
            actions=tuple(root.actions),
            visits=visits,
            q=q,
            std=std,
            simulations=sims,
            stopped_early=stopped,
            candidates=tuple(root.actions[i] for i in live),
        )


def _mean(node: _Node, i: int) -> float:
    return node.w[i] / node.n[i] if node.n[i] else -math.inf


def _var(node: _Node, i: int) -> float:
    """Unbiased sample variance of action ``i``'s returns (0 with fewer than two)."""
    n = node.n[i]
    if n < 2:
        return 0.0
    mean = node.w[i] / n
    return max(0.0, (node.w2[i] - n * mean * mean) / (n - 1))


def _priors(raw: Any, actions: list[int]) -> list[float]:
    """Evaluator priors restricted to the legal actions and renormalised (uniform if none)."""
    if isinstance(raw, Mapping):
        p = [max(0.0, float(raw.get(a, 0.0))) for a in actions]
    else:
        arr = np.asarray(raw, dtype=np.float64)
        p = [max(0.0, float(arr[a])) for a in actions]
    total = sum(p)
    if not total > 0.0 or not math.isfinite(total):
        return [1.0 / len(actions)] * len(actions)
    return [x / total for x in p]
