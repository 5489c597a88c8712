"""The ``resolver`` agent on heads-up no-limit hold'em: a blueprint re-solved on later streets.

``make_agent("resolver", game, blueprint="runs/hunl_spot_deep_cfr")`` on no-limit hold'em
builds a :class:`HoldemResolver`: the blueprint (a run folder or checkpoint of an agent on the
same game, rebuilt from the checkpoint's build record; loading runs no code) plays the
preflop and the flop, and the streets named by ``streets`` are re-solved at their start
(``holdem.HoldemResolvingPolicy``: unsafe re-solving from the blueprint's ranges), again from
the current decision where the line leaves a re-solve's tree (``off_tree``), and at every own
decision with ``holdem_continual`` (behind the CFR-D gadget inside a street with
``holdem_gadget="cfr-d"``). There is nothing to learn: a unit of ``iterate`` only counts, so
a run folder holds the settings.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.agents.base import Agent, check_state_iteration, check_units
from pokerzoo.agents.resolver.config import ResolverConfig
from pokerzoo.agents.resolver.holdem import HoldemResolvingPolicy, parse_streets
from pokerzoo.agents.resolver.holdem_tree import SpotSettings, menu
from pokerzoo.checkpoint import find_run_checkpoint, read_header
from pokerzoo.errors import CheckpointError, ConfigError, InvalidPolicyError
from pokerzoo.games.base import Game, State
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.torch_arithmetic import use_portable_arithmetic


def is_holdem(game: Game) -> bool:
    """Whether ``game`` is hold'em (played by :class:`HoldemResolver`)."""
    return isinstance(game, HoldemGame)


def blueprint_record(path: Path) -> tuple[Path, dict[str, Any]]:
    """The checkpoint at ``path`` (a file or a run folder) and how its agent was built."""
    if path.is_dir():
        checkpoint = find_run_checkpoint(path)
        if checkpoint is None:
            raise ConfigError(f"blueprint folder {str(path)!r} holds no checkpoint")
    elif path.is_file():
        checkpoint = path
    else:
        raise ConfigError(f"blueprint {str(path)!r}: no such run folder or checkpoint")
    try:
        build = read_header(checkpoint)["meta"].get("build")
    except CheckpointError as err:
        raise ConfigError(f"blueprint {str(path)!r}: {err}") from None
    config = checkpoint.parent / "config.json"
    if not isinstance(build, dict) and config.is_file():
        data = json.loads(config.read_text(encoding="utf-8"))
        build = {"agent": data.get("agent"), "agent_params": data.get("agent_params") or {},
                 "seed": data.get("seed", 0), "game": data.get("game"),
                 "game_params": data.get("game_params") or {}, "game_view": "full"}
    if not isinstance(build, dict) or not build.get("agent") or not build.get("game"):
        raise ConfigError(f"blueprint {str(path)!r} does not record how its agent was built; "
                          "give a run folder or a checkpoint saved by train.py")
    return checkpoint, build


def load_blueprint(path: str, game: Game) -> Any:
    """The policy of the agent saved at ``path``; ConfigError if it was trained on another
    game (or other game parameters) than ``game``."""
    from pokerzoo.agents.registry import make_agent
    from pokerzoo.games.registry import load_game

    checkpoint, build = blueprint_record(Path(path))
    if build.get("portable_arithmetic"):  # its strategy network is trained as it loads
        use_portable_arithmetic(f"the blueprint {str(path)!r} (built so)")
    theirs = load_game(build["game"], **(build.get("game_params") or {}))
    if repr(theirs) != repr(game) or build.get("game_view", "full") != "full":
        raise ConfigError(f"the blueprint at {path!r} plays {theirs!r}, not {game!r}: the "
                          "blueprint must be an agent of the same game")
    agent = make_agent(build["agent"], theirs, seed=int(build.get("seed") or 0),
                       **(build.get("agent_params") or {}))
    agent.load(checkpoint)
    return agent.policy()


def state_from_key(game: Game, key: Hashable) -> State:
    """A state with the information state ``key`` (``(seat, hole, board, betting)``): the
    seat's cards, any two others for the opponent, the board and the betting replayed."""
    if not (isinstance(key, tuple) and len(key) == 4):
        raise ConfigError(f"{key!r} is not a hold'em information state (seat, hole, board, "
                          "betting)")
    seat, hole, board, actions = key
    used = set(hole) | set(board)
    spare = [c for c in range(52) if c not in used][:2]
    holes = {seat: list(hole), 1 - seat: spare}
    state = game.new_initial_state()
    for s in range(2):
        for card in holes[s]:
            state.apply_action(int(card))
    cards, moves = iter(board), iter(actions)
    while True:
        if state.is_chance_node():
            card = next(cards, None)
            if card is None:
                break
            state.apply_action(int(card))
            continue
        move = next(moves, None)
        if move is None or state.is_terminal():
            break
        state.apply_action(int(move))
    return state



def legal_distribution(probs: np.ndarray, observation: object, where: object) -> np.ndarray:
    """``probs`` over the game's actions kept on the observation's ``action_mask`` (where it
    has one) and renormalised; InvalidPolicyError naming ``where`` if nothing legal is left."""
    mask = observation.get("action_mask") if isinstance(observation, Mapping) else None
    if mask is not None:
        probs = np.where(np.asarray(mask) > 0, probs, 0.0)
    if not probs.sum() > 0:
        raise InvalidPolicyError(f"the resolver gives no probability to a legal action at "
                                 f"{where!r}")
    return probs / probs.sum()

class HoldemResolver(Agent):
    """The re-solving agent on heads-up no-limit hold'em (see the module docstring)."""

    name = "resolver"

    def __init__(self, game: Game, config: ResolverConfig, seed: int = 0) -> None:
        if not is_holdem(game) or game.num_players != 2:
            raise ConfigError(f"HoldemResolver plays heads-up hold'em, not {game!r}")
        if getattr(game, "is_limit", False):
            raise ConfigError(f"{game.name}: re-solving hold'em needs no-limit's pot-fraction "
                              "sizes (the range solver's spots); limit hold'em is not supported")
        menu(game)
        if config.blueprint is None:
            raise ConfigError("the resolver on hold'em needs blueprint=<run folder or "
                              "checkpoint> of an agent on the same game (e.g. Deep CFR)")
        self.config = config
        self.game = game
        self.seed = int(seed)
        streets = parse_streets(config.streets)
        settings = SpotSettings(config.turn_raise_cap, config.river_raise_cap,
                                config.turn_river_sizes)
        self._policy = HoldemResolvingPolicy(
            game, load_blueprint(config.blueprint, game), streets,
            exploitability_pct=float(config.exploitability_pct),
            max_iterations=config.iterations, max_seconds=config.max_seconds,
            settings=settings, off_tree=config.off_tree, continual=config.holdem_continual,
            gadget=config.holdem_gadget)
        self._iteration = 0

    def iterate(self, n: int = 1) -> None:
        """Nothing to learn (the blueprint is fixed, re-solves happen in play): counts."""
        self._iteration += check_units(n)

    def policy(self) -> HoldemResolvingPolicy:
        return self._policy

    def act_probabilities(self, observation: Any,
                          info: Mapping[str, Any] | None = None) -> np.ndarray:
        """The re-solving policy at an env turn, from ``info["info_state"]``."""
        if not isinstance(info, Mapping) or "info_state" not in info:
            raise ConfigError("the resolver's act_probabilities needs the info dict of a "
                              "pokerzoo env turn (with 'info_state')")
        state = state_from_key(self.game, info["info_state"])
        probs = np.zeros(self.game.num_distinct_actions)
        for a, p in self._policy.action_probabilities(state).items():
            probs[a] = p
        return legal_distribution(probs, observation, info["info_state"])

    def state_dict(self) -> dict[str, Any]:
        return {"iteration": self._iteration, "process": None, "trainer": None}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._iteration = check_state_iteration(state["iteration"])

    @property
    def resolves(self) -> int:
        """Re-solves performed so far."""
        return len(self._policy.stats.seconds)


__all__ = ["HoldemResolver", "blueprint_record", "is_holdem", "load_blueprint", "state_from_key"]
