"""RLlib (new API stack) on pokerzoo's games: the envs as RLlib ``MultiAgentEnv``s and an
action-masking PPO RLModule that reads pokerzoo's observation dict as it is.

RLlib's own adapters do not fit: ``PettingZooEnv.render`` passes an argument PettingZoo's
``render()`` does not take, and RLlib's action-masking example module expects an
``"observations"`` key where PettingZoo (and pokerzoo) use ``"observation"``.

* ``register_envs()`` registers every AEC env of pokerzoo's table in Tune's registry under its
  PettingZoo id (``config.environment("pokerzoo/leduc_holdem-v0", env_config={...})``;
  ``env_config`` holds game parameters and env options, as ``pokerzoo.make`` takes them).
* ``PokerMultiAgentEnv`` plays the AEC env turn by turn: only the agent to act gets an
  observation; when the hand ends, every agent that acted gets its last observation and its
  reward (the chips won or lost).
* ``MaskedPPOTorchRLModule`` is RLlib's default PPO torch module on the ``"observation"``
  tensor, with the logits of actions outside ``"action_mask"`` set to ``MASKED_LOGIT``;
  ``masked_module_spec(...)`` builds its ``RLModuleSpec`` with the env's spaces.
* ``pokerzoo.integrations.rllib_selfplay``: PPO against frozen snapshots of itself, its progress
  measured in mbb/hand by pokerzoo's own matches.

Ray is imported only when one of these is used, so this module imports without it (install
it with ``pip install "pokerzoo[rllib]"``); the two classes are built on first access.

>>> from pokerzoo.integrations.rllib import rllib_env_names
>>> "pokerzoo/leduc_holdem-v0" in rllib_env_names()
True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pokerzoo.envs.registry import ENVS, make
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import check_int

if TYPE_CHECKING:
    from gymnasium import spaces

MASKED_LOGIT = -1e9
"""The logit of an illegal action: its probability is exactly zero in float32, and a row whose
every action is masked (an observation at the end of a hand) stays finite (uniform)."""

DEFAULT_ENV = "leduc_holdem_v0"
"""The env ``PokerMultiAgentEnv`` plays when its config names none."""

INSTALL_HINT = 'RLlib cannot be imported: pip install "pokerzoo[rllib]" (or "ray[rllib]")'

__all__ = [  # noqa: F822 (the two classes come from __getattr__)
    "DEFAULT_ENV",
    "MASKED_LOGIT",
    "MaskedPPOTorchRLModule",
    "PokerMultiAgentEnv",
    "masked_module_spec",
    "register_envs",
    "rllib_env_names",
]


def require_rllib() -> None:
    """Import RLlib, or raise ``ImportError`` saying how to install it."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} ({exc})") from exc


def rllib_env_names() -> list[str]:
    """The names ``register_envs()`` registers: every AEC env's PettingZoo id, sorted."""
    return sorted(spec.aec_id for spec in ENVS.values() if spec.aec_id is not None)


def pokerzoo_env_name(rllib_name: str) -> str:
    """The pokerzoo env name of an RLlib id (``"pokerzoo/leduc_holdem-v0"`` ->
    ``"leduc_holdem_v0"``); pokerzoo names pass through. ``ConfigError`` for unknown names."""
    for spec in ENVS.values():
        if rllib_name in (spec.aec_id, spec.name):
            return spec.name
    raise ConfigError(
        f"unknown pokerzoo env {rllib_name!r}; RLlib names are {rllib_env_names()} "
        f"(pokerzoo names {sorted(ENVS)} work too)"
    )


def register_envs(names: Sequence[str] | None = None) -> list[str]:
    """Register pokerzoo's AEC envs in Tune's env registry under their PettingZoo ids.

    Args:
        names: the ids (or pokerzoo env names) to register; default every id of
            ``rllib_env_names()``.

    Returns:
        The registered ids: pass one to ``AlgorithmConfig.environment(...)``, with game
        parameters and env options in ``env_config``.

    Raises:
        ConfigError: for an unknown name, listing the known ones.
        ImportError: if RLlib is not installed.
    """
    require_rllib()
    from ray.tune.registry import register_env

    if isinstance(names, str):
        raise ConfigError(f"names must be a sequence of env ids, got the string {names!r}")
    wanted = rllib_env_names() if names is None else list(names)
    registered = []
    for name in wanted:
        env_name = pokerzoo_env_name(name)
        rllib_name = ENVS[env_name].aec_id or env_name
        register_env(rllib_name, functools.partial(_create_env, env_name))
        registered.append(rllib_name)
    return registered


def _create_env(env_name: str, env_config: Mapping[str, Any] | None) -> Any:
    """Tune's env creator: ``PokerMultiAgentEnv`` of ``env_name`` with ``env_config``."""
    config = dict(env_config or {})
    if "env" in config and pokerzoo_env_name(str(config["env"])) != env_name:
        raise ConfigError(
            f"env_config names env {config['env']!r} but the registered env is {env_name!r}"
        )
    config["env"] = env_name
    return _env_class()(config)


def masked_module_spec(
    env: str = DEFAULT_ENV,
    *,
    hidden: Sequence[int] = (64, 64),
    activation: str = "tanh",
    env_config: Mapping[str, Any] | None = None,
) -> Any:
    """An ``RLModuleSpec`` of ``MaskedPPOTorchRLModule`` with ``env``'s spaces.

    Args:
        env: a pokerzoo env name or its RLlib id (``"pokerzoo/leduc_holdem-v0"``).
        hidden: sizes of the hidden layers (policy and value networks share them).
        activation: RLlib's ``fcnet_activation`` (``"tanh"``, ``"relu"``, ...).
        env_config: game parameters of the env (they change the observation size).

    Raises:
        ConfigError: for an unknown env or a bad ``hidden``.
    """
    require_rllib()
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    if isinstance(hidden, str) or not isinstance(hidden, Sequence) or not hidden:
        raise ConfigError(f"hidden must be a sequence of layer sizes >= 1, got {hidden!r}")
    for h in hidden:
        check_int("each hidden layer size", h, 1)
    params = dict(env_config or {})
    params.pop("env", None)
    aec = make(pokerzoo_env_name(env), **params)
    agent = aec.possible_agents[0]
    return RLModuleSpec(
        module_class=_module_class(),
        observation_space=aec.observation_space(agent),
        action_space=aec.action_space(agent),
        model_config=DefaultModelConfig(
            fcnet_hiddens=list(hidden), fcnet_activation=activation, vf_share_layers=False
        ),
    )


def check_masked_spaces(observation_space: spaces.Space, action_space: spaces.Space) -> None:
    """Check that observations are pokerzoo's dict (``"observation"`` tensor and
    ``"action_mask"`` of one entry per discrete action).

    Raises:
        ConfigError: saying which part is missing or of the wrong shape.
    """
    from gymnasium import spaces

    if not isinstance(observation_space, spaces.Dict) or {"observation", "action_mask"} - set(
        observation_space.spaces
    ):
        raise ConfigError(
            "MaskedPPOTorchRLModule needs a Dict observation space with keys 'observation' "
            f"and 'action_mask' (pokerzoo's envs), got {observation_space!r}"
        )
    if not isinstance(action_space, spaces.Discrete):
        raise ConfigError(f"MaskedPPOTorchRLModule needs a Discrete action space, "
                          f"got {action_space!r}")
    mask_shape = observation_space["action_mask"].shape
    if mask_shape != (int(action_space.n),):
        raise ConfigError(
            f"the action mask has shape {mask_shape} but the action space has "
            f"{int(action_space.n)} actions: they must match"
        )


def _build_aec(config: Mapping[str, Any] | None) -> Any:
    """The AEC env a ``PokerMultiAgentEnv`` config names (see its docstring)."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise ConfigError(f"the env config must be a dict (RLlib's env_config), got {config!r}")
    params = dict(config)
    env = params.pop("env", DEFAULT_ENV)
    if isinstance(env, str):
        return make(pokerzoo_env_name(env), **params)
    if not all(hasattr(env, name) for name in ("agent_selection", "last", "possible_agents")):
        raise ConfigError(
            f"config['env'] must be a pokerzoo env name or a PettingZoo AEC env, got {env!r}"
        )
    if params:
        raise ConfigError(
            f"config['env'] is an env object, so the config takes no other keys; got {params}"
        )
    return env


@functools.cache
def _env_class() -> type:
    """``PokerMultiAgentEnv``, built on RLlib's ``MultiAgentEnv`` (imports ray)."""
    require_rllib()
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class PokerMultiAgentEnv(MultiAgentEnv):
        """A pokerzoo AEC env as an RLlib ``MultiAgentEnv``, one hand per episode.

        Args:
            config: RLlib's ``env_config``: ``"env"`` (a pokerzoo env name or RLlib id,
                default ``DEFAULT_ENV``, or an AEC env object) and the game parameters and
                env options ``pokerzoo.make`` takes (``render_mode``, ``num_ranks``, ...).

        Observations are the AEC env's dicts as they are (``"observation"``,
        ``"action_mask"``). Each step returns the observation of the agent to act next; at
        the end of the hand, the last observation and the reward of every agent that acted.
        """

        def __init__(self, config: Mapping[str, Any] | None = None) -> None:
            super().__init__()
            self.aec = _build_aec(config)
            agents = list(self.aec.possible_agents)
            # Seats never leave mid-hand: RLlib sees every seat for the whole episode.
            self.possible_agents = agents
            self.agents = list(agents)
            self.observation_spaces = {a: self.aec.observation_space(a) for a in agents}
            self.action_spaces = {a: self.aec.action_space(a) for a in agents}
            self.render_mode = getattr(self.aec, "render_mode", None)
            self._acted: set[str] = set()

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[dict[str, Any], dict[str, Any]]:
            self.aec.reset(seed=seed, options=options)
            self._acted = set()
            obs, _, _, _, infos = self._collect()
            return obs, infos

        def step(self, action_dict: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
            agent = self.aec.agent_selection
            if not isinstance(action_dict, Mapping) or set(action_dict) != {agent}:
                got = sorted(action_dict) if isinstance(action_dict, Mapping) else action_dict
                raise ConfigError(f"expected an action for {agent!r} only (the agent to act), "
                                  f"got {got!r}")
            self.aec.step(action_dict[agent])
            self._acted.add(agent)
            return self._collect()

        def _collect(self) -> tuple[dict[str, Any], ...]:
            """Advance past finished agents to the next one to act (or the end)."""
            aec = self.aec
            obs: dict[str, Any] = {}
            rewards: dict[str, float] = {}
            terms: dict[str, bool] = {}
            truncs: dict[str, bool] = {}
            infos: dict[str, Any] = {}
            while aec.agents:
                agent = aec.agent_selection
                observation, reward, terminated, truncated, info = aec.last()
                live = not (terminated or truncated)
                if live or agent in self._acted:
                    obs[agent], infos[agent] = observation, info
                if agent in self._acted:
                    rewards[agent] = float(reward)
                if live:
                    break
                if agent in self._acted:
                    terms[agent], truncs[agent] = bool(terminated), bool(truncated)
                aec.step(None)
            done = not aec.agents
            truncs["__all__"] = done and any(truncs.values())
            terms["__all__"] = done and not truncs["__all__"]
            return obs, rewards, terms, truncs, infos

        def render(self) -> Any:
            """The AEC env's ``render()`` (text for ``render_mode="ansi"``)."""
            return self.aec.render()

        def close(self) -> None:
            self.aec.close()

    PokerMultiAgentEnv.__module__ = __name__
    return PokerMultiAgentEnv


@functools.cache
def _module_class() -> type:
    """``MaskedPPOTorchRLModule``, built on RLlib's ``DefaultPPOTorchRLModule``."""
    require_rllib()
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns

    def split(batch: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The action mask and a copy of ``batch`` whose observations are the tensors only."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, Mapping) or {"observation", "action_mask"} - set(obs):
            raise ConfigError(
                "MaskedPPOTorchRLModule needs observations {'observation': ..., "
                f"'action_mask': ...}}, got {type(obs).__name__} "
                f"{sorted(obs) if isinstance(obs, Mapping) else ''}"
            )
        inner = dict(batch)
        inner[Columns.OBS] = obs["observation"]
        return obs["action_mask"], inner

    def masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask == 0, MASKED_LOGIT)
        return out

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO torch module over ``obs["observation"]``, with the logits of
        actions outside ``obs["action_mask"]`` set to ``MASKED_LOGIT`` in every forward
        pass (sampling, inference and training), so PPO never samples or credits them."""

        def __init__(
            self, *, observation_space: Any = None, action_space: Any = None, **kwargs: Any
        ) -> None:
            check_masked_spaces(observation_space, action_space)
            # The networks see the tensor only; the module keeps the env's whole space.
            super().__init__(
                observation_space=observation_space["observation"],
                action_space=action_space,
                **kwargs,
            )
            self.observation_space = observation_space

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, inner = split(batch)
            return masked(super()._forward(inner, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, inner = split(batch)
            return masked(super()._forward_train(inner, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            if embeddings is None:
                _, batch = split(batch)
            return super().compute_values(batch, embeddings)

    MaskedPPOTorchRLModule.__module__ = __name__
    return MaskedPPOTorchRLModule

_LAZY = {"PokerMultiAgentEnv": _env_class, "MaskedPPOTorchRLModule": _module_class}


def __getattr__(name: str) -> Any:
    # The classes subclass RLlib's, so they are built (importing ray) on first access; pickle
    # finds them here by name, so RLlib ships them to its workers by reference.
    if name in _LAZY:
        return _LAZY[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
