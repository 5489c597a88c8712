#!/usr/bin/env python
"""PPO self-play on a pokerzoo env with RLlib, measured in mbb/hand by pokerzoo's matches.

Needs ``pip install "pokerzoo[rllib]"``. The learner plays a frozen snapshot of itself that is
refreshed every ``--snapshot-every`` iterations; each refresh prints the learner's winnings
against the previous snapshot and against a uniform random player (95% confidence intervals,
duplicate deals). See ``pokerzoo.integrations.rllib_selfplay``.

Examples:
    python examples/rllib_selfplay.py                          # Leduc, 20 iterations
    python examples/rllib_selfplay.py --iterations 6 --snapshot-every 3
    python examples/rllib_selfplay.py --env kuhn_poker_v0 --hidden 32
    python examples/rllib_selfplay.py --game-param num_ranks=5 --eval-hands 4000
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, too

from pokerzoo.errors import ConfigError
from pokerzoo.integrations.rllib import rllib_env_names
from pokerzoo.integrations.rllib_selfplay import SelfPlayConfig, self_play
from pokerzoo.runs.cli import add_debug_flag, parse_assignments, run_cli

DEFAULTS = SelfPlayConfig()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples:")[1],
    )
    p.add_argument("--env", default=DEFAULTS.env,
                   help=f"pokerzoo env name or RLlib id ({', '.join(rllib_env_names())})")
    p.add_argument("--game-param", action="append", metavar="KEY=VALUE",
                   help="game parameter or env option, e.g. num_ranks=5 (repeatable)")
    p.add_argument("--iterations", type=int, default=DEFAULTS.iterations,
                   help="PPO training iterations")
    p.add_argument("--snapshot-every", type=int, default=DEFAULTS.snapshot_every,
                   help="measure the learner and refresh the snapshot every N iterations")
    p.add_argument("--eval-hands", type=int, default=DEFAULTS.eval_hands,
                   help="hands per measurement and opponent")
    p.add_argument("--seed", type=int, default=DEFAULTS.seed, help="RLlib and match seed")
    p.add_argument("--train-batch-size", type=int, default=DEFAULTS.train_batch_size,
                   help="decisions sampled per iteration")
    p.add_argument("--minibatch-size", type=int, default=DEFAULTS.minibatch_size)
    p.add_argument("--epochs", type=int, default=DEFAULTS.num_epochs,
                   help="PPO passes over each batch")
    p.add_argument("--lr", type=float, default=DEFAULTS.lr, help="Adam learning rate")
    p.add_argument("--entropy-coeff", type=float, default=DEFAULTS.entropy_coeff)
    p.add_argument("--hidden", default=",".join(map(str, DEFAULTS.hidden)),
                   help="hidden layer sizes, comma-separated")
    p.add_argument("--num-env-runners", type=int, default=DEFAULTS.num_env_runners,
                   help="RLlib remote env runners (0: sample in this process)")
    p.add_argument("--threads", type=int, default=DEFAULTS.torch_threads,
                   help="torch threads during the run")
    add_debug_flag(p)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
    except ValueError:
        raise ConfigError(
            f"--hidden takes comma-separated layer sizes such as 64,64, got {args.hidden!r}"
        ) from None
    config = SelfPlayConfig(
        env=args.env,
        env_config=parse_assignments(args.game_param, "--game-param"),
        iterations=args.iterations,
        snapshot_every=args.snapshot_every,
        eval_hands=args.eval_hands,
        seed=args.seed,
        train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size,
        num_epochs=args.epochs,
        lr=args.lr,
        entropy_coeff=args.entropy_coeff,
        hidden=hidden,
        num_env_runners=args.num_env_runners,
        torch_threads=args.threads,
    )
    result = self_play(config, on_report=lambda report: print(report.line(), flush=True))
    final = result.reports[-1]
    mean, half = final.vs_random
    print(f"PPO trained {config.iterations} iterations in {result.train_seconds:.1f} s; "
          f"against random: {mean:+.0f} +- {half:.0f} mbb/hand")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main, None))
