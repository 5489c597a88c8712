"""VCFR variants against random interaction on unknown Kuhn at a small budget.

The claim tested: VCFR lowers NashConv in d* below random interaction on unknown
Kuhn with the same interactions. This probe measures whether that holds, over sampled
environments (environment e and agent seed e), for the paper's VCFR and variants, and prints
one line per variant: the mean log10 NashConv in d*, the per-environment values (paired: the
same environments for every variant) and the paired difference to random interaction with its
standard error.

One family of variants is not a config of ``ModelBasedAgent`` but a subclass defined here,
``SeatExplorer``: in hand k of a round seat k explores (uniform play, or the bonus solver's
average) while the other seat plays the output policy. NashConv weighs a player's deviations
by the opponent's reach, and this interaction samples a seat's own off-path actions under
exactly that reach; it is kept here, not in the agent, because it did not beat random
interaction either (see ``bench/results/vcfr/kuhn_probe.md``).

Usage: ``python bench/vcfr_kuhn_probe.py [--hands 2000] [--envs 10] [--first-env 0]
[--variants NAME ...]``; results are in ``bench/results/vcfr/kuhn_probe.md``.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from pokerzoo import load_game
from pokerzoo.agents.unknown_env.model_based import (
    MODEL_BASED_PRESETS,
    ModelBasedAgent,
    ModelBasedConfig,
)
from pokerzoo.components.networks import torch_threads
from pokerzoo.evaluation.unknown import nash_conv_in_true_model


class SeatExplorer(ModelBasedAgent):
    """Hand k of a round: seat k plays ``explorer`` (``"uniform"`` or ``"bonus"``: the
    information-gain solver's average), the other seat the output policy."""

    explorer = "uniform"

    def _start_round(self) -> np.ndarray:
        bonus_average = super()._start_round()
        output = self.normalised(self.output_policy_array())
        explore = self.uniform_profile() if self.explorer == "uniform" else bonus_average
        profiles = []
        for hand in range(self.episodes_per_round):
            rows = self.tree.infoset_player == hand % self.tree.num_players
            profile = output.copy()
            profile[rows] = explore[rows]
            profiles.append(profile)
        return np.stack(profiles)


_PLAIN = {"output": "plain"}
VARIANTS: dict[str, tuple[str | None, str, dict[str, Any]]] = {
    "random interaction": (None, "random-interaction", {}),
    "naive CFR": (None, "naive-cfr", {}),
    "VCFR (paper: BNN gain, eta 0.005, sampled model)": (None, "vcfr", {}),
    "VCFR, posterior-mean model": (None, "vcfr", {"environment": "mean"}),
    "VCFR, eta 0.1, plain output": (None, "vcfr", {"eta": 0.1, **_PLAIN}),
    "VCFR, eta 0.5, plain output": (None, "vcfr", {"eta": 0.5, **_PLAIN}),
    "VCFR, exact Beta gain, eta 0.2, plain output": (
        None, "vcfr", {"eta": 0.2, "information_gain": "beta", **_PLAIN}),
    "seat explores uniformly, naive CFR output": ("uniform", "naive-cfr", {}),
    "seat explores uniformly, VCFR plain output": ("uniform", "vcfr", _PLAIN),
    "seat explores with VCFR's bonus average, plain output": ("bonus", "vcfr", _PLAIN),
    "seat explores with VCFR's bonus average (eta 0.1), plain output": (
        "bonus", "vcfr", {"eta": 0.1, **_PLAIN}),
}
DEFAULT_VARIANTS = [
    "random interaction", "VCFR (paper: BNN gain, eta 0.005, sampled model)",
    "seat explores uniformly, naive CFR output", "seat explores uniformly, VCFR plain output",
]


def run(variant: str, env: int, hands: int) -> float:
    """log10 NashConv in d* of ``variant`` after ``hands`` hands in environment ``env``."""
    explorer, preset, params = VARIANTS[variant]
    game = load_game("unknown_kuhn_poker", seed=env)
    config = ModelBasedConfig.from_params(**{**MODEL_BASED_PRESETS[preset], **params})
    agent = ModelBasedAgent(game, config, seed=env)
    if explorer is not None:
        agent = SeatExplorer(game, config, seed=env)
        agent.explorer = explorer
    agent.iterate(hands)
    return math.log10(max(nash_conv_in_true_model(game, agent.policy()), 1e-12))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--envs", type=int, default=10)
    parser.add_argument("--first-env", type=int, default=0)
    parser.add_argument("--variants", nargs="*", choices=sorted(VARIANTS),
                        default=DEFAULT_VARIANTS)
    args = parser.parse_args()
    envs = range(args.first_env, args.first_env + args.envs)
    names = args.variants if "random interaction" in args.variants else [
        "random interaction", *args.variants]
    print(f"| variant | mean log10 NashConv in d* after {args.hands:,} hands | minus random "
          "(paired, ± s.e.) | better than random on | per environment |")
    print("|---|---|---|---|---|")
    baseline: np.ndarray | None = None
    with torch_threads(1):
        for name in names:
            values = np.array([run(name, env, args.hands) for env in envs])
            if baseline is None:
                baseline = values
            diff = values - baseline
            spread = diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
            shown = ", ".join(f"{v:.2f}" for v in values)
            print(f"| {name} | {values.mean():.3f} | {diff.mean():+.3f} ± {spread:.3f} | "
                  f"{int((diff < 0).sum())} of {len(diff)} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
