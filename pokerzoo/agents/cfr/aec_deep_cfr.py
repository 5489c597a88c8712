"""Deep CFR on a copyable PettingZoo AEC env: ``StateDeepCFR``'s traversals over the env's states.

``AECDeepCFR(env_fn, layout=...)`` is ``pokerzoo.agents.deep.StateDeepCFR`` walking
``AECState``s (``pokerzoo.wrappers.aec_learner_state``): each traversal starts from a deep copy
of the env reset with a seed drawn from the agent's own generator (chance stays inside the
env), and the traverser's decisions are expanded by deep copies, so the env must be copyable
(``check_copyable``, once, at start). The networks are Deep CFR's card/betting networks, which
need to know which observation entries are cards: pass ``layout``, a
``pokerzoo.games.base.TensorLayout`` of the observation's fields (names with ``card`` or
``rank`` are cards, see ``agents.deep.network``), or use an env of pokerzoo's, whose game
declares it. The observation must be an information state (``aec_learner_state``).

Checkpoints are ``StateDeepCFR``'s plus the generator of the traversals' reset seeds; a run
resumed from one continues exactly as the uninterrupted run (no hand is in flight between
iterations).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.agents.deep.deep_cfr_base import DeepCFRConfig
from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR
from pokerzoo.agents.deep.state_traversal import SampledTraversal, external_sampling_states
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import TensorLayout
from pokerzoo.wrappers.aec_learner import AECSpec, as_factory, check_copyable, inspect_env
from pokerzoo.wrappers.aec_learner_state import AECState


class AECDeepGame:
    """The game face Deep CFR's state traversals read: sizes, the layout, fresh states."""

    def __init__(self, env: Any, spec: AECSpec, layout: TensorLayout, seed: int) -> None:
        self.env = env
        self.spec = spec
        self.name = f"aec:{spec.name}"
        self.num_players = spec.num_players
        self.num_distinct_actions = spec.num_actions
        self.information_state_layout = layout
        self.rng = np.random.default_rng([seed, 29])
        """Draws the reset seed of every traversal (saved in the agent's checkpoints)."""

    def params(self) -> dict[str, Any]:
        return {"agents": list(self.spec.agents), "num_actions": self.spec.num_actions,
                "layout": [[f.name, f.size] for f in self.information_state_layout.fields]}

    def new_initial_state(self) -> AECState:
        """A copy of the env at a new hand (reset with the next seed)."""
        env = copy.deepcopy(self.env)
        env.reset(seed=int(self.rng.integers(2**31)))
        return AECState(env, self.spec)

    def __repr__(self) -> str:
        return f"AECDeepGame({self.spec.name!r})"


def _layout_of(env: Any, spec: AECSpec, layout: TensorLayout | None) -> TensorLayout:
    if layout is None:
        declared = getattr(getattr(env.unwrapped, "game", None), "information_state_layout", None)
        if not isinstance(declared, TensorLayout):
            raise ConfigError("Deep CFR's networks split cards from betting: pass layout=, a "
                              "TensorLayout of the observation's fields")
        layout = declared
    if layout.size != spec.observation_size:
        raise ConfigError(f"layout has {layout.size} entries, the observation "
                          f"{spec.observation_size}: pass layout= with the observation's fields")
    return layout


class AECDeepCFR(StateDeepCFR):
    """Deep CFR on a copyable AEC env (see the module).

    Args:
        env: a factory ``() -> AECEnv`` or an instance.
        layout: the observation's fields (default: the layout an env of pokerzoo's declares).
        config, seed, overrides: as ``StateDeepCFR``.

    Raises:
        ConfigError: the env breaks a requirement (Discrete actions, a mask, copyable), or no
            layout.
    """

    name = "deep-cfr-aec"

    def __init__(
        self,
        env: Any,
        config: DeepCFRConfig | None = None,
        seed: int = 0,
        *,
        layout: TensorLayout | None = None,
        frontier: int = 64,
        **overrides: Any,
    ) -> None:
        template = as_factory(env)()
        spec = inspect_env(template)
        check_copyable(template)
        game = AECDeepGame(template, spec, _layout_of(template, spec, layout), seed)
        self.spec = spec
        super().__init__(game, config, seed, frontier=frontier,  # type: ignore[arg-type]
                         **overrides)

    def _start_states(self, game: Any, seed: int, workers: int, executor: Any,
                      frontier: int, traversal: Any) -> None:
        # States of the env, whatever the config's traversal_backend says (no array rows).
        super()._start_states(game, seed, workers, executor, frontier,
                              lambda g, _backend, f: SampledTraversal(
                                  g, external_sampling_states, f))

    def act_probabilities(self, observation: Any, info: Any = None) -> np.ndarray:
        """The average strategy at an env turn (the mask from the observation or ``info``)."""
        if self.spec.mask_in_info:
            observation = {"observation": observation, "action_mask": (info or {})["action_mask"]}
        return super().act_probabilities(observation, info)

    def state_dict(self) -> dict[str, Any]:
        """``StateDeepCFR``'s state and the generator of the traversals' reset seeds."""
        game: AECDeepGame = self.game  # type: ignore[assignment]
        return {**super().state_dict(), "env_rng": copy.deepcopy(game.rng.bit_generator.state)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        game: AECDeepGame = self.game  # type: ignore[assignment]
        game.rng.bit_generator.state = copy.deepcopy(dict(state["env_rng"]))
