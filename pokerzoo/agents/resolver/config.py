"""The continual re-solving agent's parameters (``ResolverConfig``)."""

from __future__ import annotations

from dataclasses import dataclass

from pokerzoo.errors import ConfigError

GADGETS = ("cfr-d", "unsafe", "max-margin")
DEPTHS = ("round", None)
LEAVES = ("oracle", "network")
PLAY_RULES = ("average", "random-iteration")
ALGORITHMS = ("dcfr", "cfr+")
ORACLES = ("joint", "per-pass")
LEAF_RULES = ("current", "mean", "cfr-avg")
TRUNKS = ("solve", "blueprint")


@dataclass(frozen=True)
class ResolverConfig:
    """How the agent re-solves at each of its turns (DeepStack's loop; Moravcik et al. 2017).

    Defaults follow DeepStack: the CFR-D gadget, a depth limit at the end of the betting round,
    the average strategy of the re-solve. Where the papers leave a choice open the field says
    which reading is taken.
    """

    gadget: str = "cfr-d"
    """How a re-solve treats the opponent: ``"cfr-d"`` (Burch, Johanson, Bowling 2014: the
    opponent may take the counterfactual values kept from the previous solve instead of
    entering), ``"max-margin"`` (Moravcik et al. 2016: maximise the smallest margin between
    those values and what the opponent gets) or ``"unsafe"`` (both ranges, no guarantee)."""
    depth: str | None = "round"
    """Where a re-solve stops: ``"round"`` (at the end of the current betting round, with
    values from ``leaves`` at the public cards dealt next) or ``None`` (to the end of the
    game; ``leaves`` unused). In a game with one betting round (Kuhn) the round's end is the
    game's end: both are the same, and no leaf values are asked for."""
    leaves: str = "oracle"
    """Values at the depth limit: ``"oracle"`` (the rest of the game solved for the ranges
    reaching the leaf) or ``"network"`` (a value network over public belief states)."""
    iterations: int = 1000
    """Iterations of each re-solve (and of the first solve from the root)."""
    algorithm: str = "dcfr"
    """The re-solves' CFR variant: ``"dcfr"`` (1.5, 0, 2) or ``"cfr+"``."""
    oracle_mode: str = "joint"
    """How ``leaves="oracle"`` solves the rest of the game below a leaf: ``"joint"`` (the rest
    has its own regrets, updated in every pass of the trunk at the trunk's current reaches:
    CFR on the whole subgame, converging at CFR's own rate) or ``"per-pass"`` (solved anew for
    the current reaches in every pass, DeepStack's ideal value function and CFR-D's
    subgame solves: exact leaf values, but the trunk converges only at CFR-D's O(1/sqrt(T)))."""
    leaf_rule: str = "mean"
    """Which values the per-pass leaf sources (``leaves="network"``, ``oracle_mode=
    "per-pass"``) give a depth-limited re-solve (``pokerzoo.public.subgames.depth_limit``):
    ``"mean"`` (the default: every CFR pass at the current strategies' reaches, and the
    opponent's leaf values handed to the next re-solve are its per-pass values averaged over
    the iterations, as DeepStack averages the re-solve's counterfactual values; on Leduc's
    learned leaves 0.043 NashConv against 0.0625, ``bench/results/resolving.md``),
    ``"current"`` (the same passes, the values handed on asked anew at the average
    strategies' reaches: values the trunk was never solved against; the earlier default)
    or ``"cfr-avg"`` (ReBeL's CFR-AVG, Brown et al. 2020: each pass asks for the values at the
    average strategies' public belief state, differenced so that their weighted mean is
    that value). Unused with the joint oracle, whose rests are solved with the trunk."""
    leaf_iterations: int = 200
    """DCFR iterations of each per-pass solve of the rest (``oracle_mode="per-pass"``)."""
    play: str = "average"
    """Which strategy of a re-solve is played: ``"average"`` (CFR's average) or
    ``"random-iteration"`` (ReBeL's rule, Brown et al. 2020: the current strategy of an
    iteration drawn uniformly, the draw seeded by the agent's seed and the public state, so
    that play and tabularisation draw the same one)."""
    continual: bool = True
    """Re-solve at every turn (DeepStack's continual re-solving), or, with ``False``, only
    where the line leaves the previous solve (at the start of each round below a depth-limit
    leaf, or of round 2 after a blueprint), playing the previous solve's strategy inside it
    (a round solved once at its start, as the isolated re-solves of the references)."""
    trunk: str = "solve"
    """The agent's first action: ``"solve"`` (solve from the root of the game, depth-limited
    as every re-solve) or ``"blueprint"`` (play a CFR+ blueprint of the whole game in the first
    betting round and re-solve from the second round on)."""
    blueprint_iterations: int = 1000
    """CFR+ iterations of the blueprint (``trunk="blueprint"``)."""
    network: str | None = None
    """A value network checkpoint for ``leaves="network"`` (a file the value-net trainer
    wrote); ``None`` trains one as the run's units."""
    value_states: int = 40_000
    """Public belief states the value network trains on (``leaves="network"``, no
    ``network`` file)."""
    value_validation_states: int = 2_000
    """Held-out public belief states its validation error is measured on."""
    blueprint: str | None = None
    """Heads-up no-limit hold'em only (and required there): a run folder or checkpoint of an
    agent on the same game whose policy plays before the re-solved streets and gives the
    ranges they are re-solved from (``holdem``)."""
    streets: str = "turn,river"
    """Hold'em: the streets re-solved at their start, ``"turn"``, ``"river"`` or both."""
    exploitability_pct: float = 1.0
    """Hold'em: a re-solve stops at this exploitability in % of the pot (or at ``iterations``
    or ``max_seconds``)."""
    max_seconds: float | None = None
    """Hold'em: a re-solve's time limit (``None``: none, and play is deterministic)."""
    turn_raise_cap: int | None = 2
    """Hold'em: bets plus raises per street in a turn re-solve's tree (deeper game raises
    are off the tree: see ``off_tree``)."""
    river_raise_cap: int | None = None
    """Hold'em: the same for river re-solves (``None``: no cap, river trees are small)."""
    turn_river_sizes: str = "75%"
    """Hold'em: the river's bet sizes inside a turn re-solve's tree (the river is re-solved at
    its own start with the game's full menu)."""
    off_tree: str = "resolve"
    """Hold'em: where the line leaves a re-solve's tree, ``"resolve"`` (re-solve from the next
    decision) or ``"blueprint"`` (the blueprint plays the rest of the street); checked by
    ``holdem.HoldemResolvingPolicy``."""
    holdem_continual: bool = False
    """Hold'em: also re-solve at each of the agent's own decisions (DeepStack's loop)."""
    holdem_gadget: str = "unsafe"
    """Hold'em: re-solves inside a street ``"unsafe"`` or behind the ``"cfr-d"`` gadget."""

    def __post_init__(self) -> None:
        choices = (("gadget", GADGETS), ("depth", DEPTHS), ("leaves", LEAVES),
                   ("play", PLAY_RULES), ("trunk", TRUNKS), ("algorithm", ALGORITHMS),
                   ("oracle_mode", ORACLES), ("leaf_rule", LEAF_RULES))
        for name, allowed in choices:
            if getattr(self, name) not in allowed:
                raise ConfigError(f"{name} must be one of {list(allowed)}, not "
                                  f"{getattr(self, name)!r}")
        if not isinstance(self.continual, bool):
            raise ConfigError(f"continual must be True or False, not {self.continual!r}")
        for name in ("iterations", "leaf_iterations", "blueprint_iterations", "value_states",
                     "value_validation_states"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an int >= 1, not {value!r}")
        for name in ("turn_raise_cap", "river_raise_cap"):
            cap = getattr(self, name)
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
                raise ConfigError(f"{name} must be an int >= 1 or None, not {cap!r}")
        if not (isinstance(self.exploitability_pct, (int, float))
                and not isinstance(self.exploitability_pct, bool)
                and self.exploitability_pct > 0):
            raise ConfigError(f"exploitability_pct must be a number > 0, not "
                              f"{self.exploitability_pct!r}")
        if self.max_seconds is not None and not (
                isinstance(self.max_seconds, (int, float)) and self.max_seconds > 0):
            raise ConfigError(f"max_seconds must be a number > 0 or None, not "
                              f"{self.max_seconds!r}")
        if self.network is not None and self.leaves != "network":
            raise ConfigError("network names a value net for leaves='network'; with "
                              f"leaves={self.leaves!r} leave it out")
