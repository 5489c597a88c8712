"""Train any pokerzoo agent on any game.

With no arguments: CFR+ on Leduc hold'em for 20,000 iterations, printing its exploitability.
A run folder that holds a checkpoint of the same run resumes it.

Examples:
    python train.py --agent cfr --game leduc_holdem --iterations 1000 --out runs/cfr_leduc
    python train.py --agent cfr+ --game leduc_holdem --game-param num_ranks=5 --seconds 60
    python train.py --agent nfsp --game limit_holdem --seconds 60 --out runs/nfsp_holdem
    python train.py --config configs/leduc_cfr_plus.toml   # an example config shipped here
    python train.py --agent nfsp --game kuhn_poker --episodes 200000 --workers 2
    python train.py --env pettingzoo.classic.leduc_holdem_v4:env --agent nfsp-plt --episodes 5000
    python train.py --list
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from collections.abc import Sequence

from pokerzoo.agents.registry import registered_agents
from pokerzoo.errors import ConfigError
from pokerzoo.games import registered_games
from pokerzoo.runs.cli import add_debug_flag, add_worker_flags, parse_assignments
from pokerzoo.runs.config import DEFAULT_UNITS, RunConfig, default_budget
from pokerzoo.runs.run import MAX_STEPS_PER_HAND, train
from pokerzoo.runs.shipped import resolve_shipped


class _HelpWithAgents(argparse.Action):
    """``--help``: the flags, then every agent's hyperparameters with their docs (built only
    when asked for: it imports the agent families, torch included)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from pokerzoo.runs.help import agents_help

        parser.print_help()
        print()
        print(agents_help(default_budget))
        parser.exit()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter,
                                allow_abbrev=False,
                                add_help=False)
    p.add_argument("-h", "--help", action=_HelpWithAgents,
                   help="show this help, with every agent's hyperparameters, and exit")
    p.add_argument("--agent", help="agent name (default cfr+; see --list)")
    p.add_argument("--game", help="game name (default leduc_holdem; see --list)")
    p.add_argument("--game-param", action="append", metavar="KEY=VALUE", help="game parameter")
    p.add_argument("--env", metavar="MODULE:FACTORY",
                   help="train on any PettingZoo AEC env instead of a game, e.g.\n"
                        "pettingzoo.classic.leduc_holdem_v4:env (agents nfsp, nfsp-per,\n"
                        "nfsp-plt (default), mccfr-es, mccfr-os; pokerzoo.runs.foreign)")
    p.add_argument("--max-hand-steps", type=int, default=MAX_STEPS_PER_HAND, metavar="N",
                   help="--env: most steps of one hand before the env is refused as never "
                        f"ending\n(default {MAX_STEPS_PER_HAND:,})")
    p.add_argument("--agent-param", action="append", metavar="KEY=VALUE", help="hyperparameter")
    p.add_argument("--iterations", type=int,
                   help="budget in iterations (solvers; default {:,}, MCCFR more: see "
                        "below)".format(DEFAULT_UNITS["iterations"]))
    p.add_argument("--episodes", type=int,
                   help="budget in episodes (self-play learners; default {:,})".format(
                       DEFAULT_UNITS["episodes"]))
    p.add_argument("--rounds", type=int,
                   help="budget in rounds of the unknown-environment agents (Algorithm 1: "
                        "a round of learning, then its hands; spent as rounds x "
                        "episodes_per_round episodes)")
    p.add_argument("--seconds", type=float,
                   help="wall-clock budget for this invocation, final evaluation included,\n"
                        "set-up apart (it starts after the tree build, the first evaluation\n"
                        "and a warm-up iteration that compiles the kernels; it ends at most\n"
                        "0.5 s late when an iteration is shorter than that). Alone: no units\n"
                        "budget; with --iterations/--episodes: whichever ends first")
    p.add_argument("--seed", type=int, help="random seed (default 0)")
    p.add_argument("--eval-every", type=int, help="units between evaluations")
    p.add_argument("--checkpoint-every", type=int, help="units between checkpoints")
    p.add_argument("--eval-hands", type=int,
                   help="hands per match evaluation where the tree does not fit (default 2000)")
    p.add_argument("--eval-lbr-deals", type=int,
                   help="heads-up hold'em: deals of local best response per evaluation "
                        "(default 0: off)")
    p.add_argument("--out", help="run folder (default runs/<agent>_<game>, plus any game and "
                                 "agent\nparameters and a non-zero seed: runs/cfr+_leduc_holdem_"
                                 "num_ranks=5)")
    p.add_argument("--config", help="TOML file with the same keys; flags override it (a path\n"
                                    "that does not exist names a config shipped with\n"
                                    "pokerzoo: configs/leduc_cfr_plus.toml or leduc_cfr_plus)")
    p.add_argument("--portable-arithmetic", action="store_true", default=None,
                   help="torch agents: the same bits on every x86-64 processor (MKL's\n"
                        "compatible path and ATen's default kernels; slower)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--no-tensorboard", action="store_true", help="skip TensorBoard logs")
    p.add_argument("--list", action="store_true", help="list agents and games, then exit")
    add_worker_flags(p)
    add_debug_flag(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.config:
        args.config = resolve_shipped(args.config)
    if args.list:
        print("agents:")
        for name, spec in registered_agents().items():
            needs = "".join(f", needs {package}" for package in spec.requires)
            print(f"  {name:<12} ({spec.units}{needs}) {spec.description}")
        print("games:\n  " + "\n  ".join(registered_games()))
        return 0
    if args.env is not None and args.game is not None:
        raise ConfigError("give --game or --env, not both")
    if args.env is not None and args.rounds is not None:
        raise ConfigError("--env agents play no rounds; give --episodes")
    flags = {
        "agent": args.agent or ("nfsp-plt" if args.env and not args.config else None),
        "game": args.env or args.game,
        "seed": args.seed,
        "iterations": args.iterations,
        "episodes": args.episodes,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "eval_every": args.eval_every,
        "checkpoint_every": args.checkpoint_every,
        "eval_hands": args.eval_hands,
        "eval_lbr_deals": args.eval_lbr_deals,
        "out": args.out,
        "workers": args.workers,
        "ray_address": args.ray_address,
        "portable_arithmetic": args.portable_arithmetic,
    }
    if args.game_param:
        flags["game_params"] = parse_assignments(args.game_param, "--game-param")
    if args.agent_param:
        flags["agent_params"] = parse_assignments(args.agent_param, "--agent-param")
    if args.no_tensorboard:
        flags["tensorboard"] = False
    if args.config:
        config = RunConfig.from_toml(args.config, **flags)
    else:
        config = RunConfig.from_dict({k: v for k, v in flags.items() if v is not None})
    if args.out is None and not (args.config and "out" in _toml_keys(args.config)):
        config = RunConfig.from_dict({**config.__dict__, "out": default_out(config)})
    summary = train(config, progress=not args.no_progress, max_steps_per_hand=args.max_hand_steps)
    units = summary["units"]
    if summary.get("interrupted"):
        # Ctrl-C: one line, no traceback; the checkpoint holds what was learned.
        print(f"stopped by Ctrl-C: {config.out}/checkpoint.pzc holds {summary['iterations_done']} "
              f"{units}; run the same command to resume", file=sys.stderr)
        return 130
    held, budget = summary["held_before"], summary["budget_units"]
    if summary["resumed"] and budget is not None and held >= budget:
        print(f"{config.out} already holds {held} {units}, the budget asks for {budget}: "
              "nothing to train (raise --" + ("episodes" if units != "iterations" else
                                               "iterations") + " to go on). Its result:")
    warm = summary["setup_units"]
    # Set-up is counted apart from --seconds (pokerzoo.training.loop.Trainer): say both.
    setup = "tree build and compile" + (f", {warm} warm-up {units[:-1] if warm == 1 else units}"
                                        if warm else "")
    print(f"{summary['agent']} on {summary['game']}: set-up {summary['setup_seconds']:.1f} s "
          f"({setup}), then {summary['iterations_done'] - held - warm} {units} in "
          f"{summary['seconds_this_run']:.1f} s"
          + (f" (resumed), {summary['iterations_done']} {units} in all"
             if summary["resumed"] else ""))
    if "exploitability" in summary:
        e = summary["exploitability"]
        print(f"exploitability: {e:.6g} chips/game = "
              f"{summary['exploitability_mbb_per_game']:.4g} mbb/g "
              f"(NashConv {summary['nash_conv']:.6g})")
    if "bb_per_100_vs_random" in summary:
        print(f"vs random: {summary['bb_per_100_vs_random']:.2f} +- {summary['ci95']:.2f} bb/100")
    if "vs_random_per_hand" in summary:
        print(f"vs random: {summary['vs_random_per_hand']:.3f} +- "
              f"{summary['vs_random_ci95']:.3f} per hand (both seats)")
    if "lbr_mbb_per_game" in summary:
        print(f"LBR: {summary['lbr_mbb_per_game']:.0f} +- {summary['lbr_ci95']:.0f} mbb/g "
              "(a lower bound on exploitability)")
    if "distributed" in summary:
        print(f"{summary['workers']} workers: {summary['distributed']}")
    print(f"run folder: {config.out}")
    return 0


def default_out(config: RunConfig) -> str:
    """``runs/<agent>_<game>``, with the game and agent parameters and a non-zero seed added
    (``runs/cfr+_leduc_holdem_num_ranks=5``): runs that differ get different folders, so a
    second command never collides with the first's run; long names end in a short hash."""
    parts = [f"{config.agent}_{config.game}"]
    for params in (config.game_params, config.agent_params):
        parts += [f"{k}={v}" for k, v in sorted(params.items())]
    if config.seed:
        parts.append(f"seed={config.seed}")
    name = re.sub(r"[^A-Za-z0-9_.+=,-]", "", "_".join(parts))
    if len(name) > 80:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[:60]}_{digest}"
    return f"runs/{name}"


def _toml_keys(path: str) -> set[str]:
    import tomllib

    try:
        with open(path, "rb") as fh:
            return set(tomllib.load(fh))
    except (OSError, tomllib.TOMLDecodeError):
        return set()
