"""NFSP-PLT episodes per second through the AEC learner adapter, against the same agent on our
batched env, all on RLCard's Leduc rules and measured in this run.

Rows (all NFSP-PLT, the same settings, ``num_envs`` hands at a time):

* ``VectorPokerEnv`` (ours, batched arrays): ``NFSP`` on the ``rlcard`` Leduc variant;
* adapter over our AEC env: ``AECNFSP`` on ``pokerzoo.make("leduc_holdem_v0",
  variant="rlcard")`` (``PokerEnv``);
* adapter over our drop-in: ``AECNFSP`` on ``pokerzoo.integrations.pettingzoo_classic``'s
  ``leduc_holdem_v4``;
* adapter over PettingZoo's own ``pettingzoo.classic.leduc_holdem_v4`` (RLCard inside).

Each row reports episodes per CPU second with learning, and without it (random legal actions
through the same env, no networks): the second column says how much of the time is the env's.

    python bench/bench_foreign_envs.py                 # 3000 episodes per row
    python bench/bench_foreign_envs.py --episodes 10000 --out bench/results/foreign_envs.md
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import table

import pokerzoo
from pokerzoo import load_game
from pokerzoo.agents.nfsp.aec import make_aec_preset
from pokerzoo.agents.registry import make_agent
from pokerzoo.components.networks import torch_threads
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.wrappers.aec_learner import AECLearnerEnv

PARAMS = {"num_envs": 64, "learn_every": 32, "batch_size": 256, "optimizer": "adam",
          "rl_learning_rate": 0.01, "sl_learning_rate": 0.02, "min_buffer_size": 256,
          "eta": 0.3, "epsilon_timescale": 2000.0}
"""tests/agents/test_nfsp.py's short-run settings (the foreign-env tests use them too)."""


def pettingzoo_leduc() -> Any:
    from pettingzoo.classic import leduc_holdem_v4

    return leduc_holdem_v4.env()


def our_dropin_leduc() -> Any:
    from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4

    return leduc_holdem_v4.env()


def our_aec_leduc() -> Any:
    return pokerzoo.make("leduc_holdem_v0", **LEDUC_VARIANTS["rlcard"])


ENVS: dict[str, Callable[[], Any]] = {
    "adapter: our AEC env (PokerEnv)": our_aec_leduc,
    "adapter: our drop-in leduc_holdem_v4": our_dropin_leduc,
    "adapter: PettingZoo's leduc_holdem_v4": pettingzoo_leduc,
}


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def random_play(step: Callable[[np.ndarray], Any], mask: np.ndarray, episodes: int,
                rng: np.random.Generator) -> None:
    """Uniform legal actions until ``episodes`` hands finished (no networks)."""
    done = 0
    while done < episodes:
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        result = step(actions)
        mask, done = result.mask, done + int(result.done.sum())


def measure(episodes: int, seed: int) -> list[list[object]]:
    rows: list[list[object]] = []
    game = load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"])
    with torch_threads(1):
        agent = make_agent("nfsp-plt", game, seed=seed, **PARAMS)
        learn = cpu(lambda: agent.iterate(episodes))
        venv = VectorPokerEnv(game, PARAMS["num_envs"], seed=seed)
        mask = venv.reset()[1]
        env_only = cpu(lambda: random_play(venv.step, mask, episodes, np.random.default_rng(0)))
        rows.append(["VectorPokerEnv (ours, batched)", agent.iteration / learn,
                     episodes / env_only, env_only / learn])
        for name, factory in ENVS.items():
            agent = make_aec_preset("nfsp-plt", factory, seed=seed, **PARAMS)
            learn = cpu(lambda a=agent: a.iterate(episodes))
            adapter = AECLearnerEnv(factory, PARAMS["num_envs"], seed=seed)
            mask = adapter.reset()[1]
            env_only = cpu(lambda a=adapter, m=mask: random_play(
                a.step, m, episodes, np.random.default_rng(0)))
            rows.append([name, agent.iteration / learn, episodes / env_only, env_only / learn])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the Markdown table here")
    args = parser.parse_args()
    rows = measure(args.episodes, args.seed)
    text = (f"NFSP-PLT on RLCard's Leduc, {args.episodes} episodes per row, one torch thread, "
            f"{platform.processor() or platform.machine()}, Python {platform.python_version()}\n\n"
            + table(["env", "episodes/s (NFSP-PLT)", "episodes/s (env only, random)",
                     "env share of the time"], rows))
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
