"""Train the resolver's value network on Leduc and measure it (its loss and its leaves' NashConv).

Solves N public belief states at the end of round one (half DeepStack's random ranges, half
ReBeL's states of play from a DCFR solve of the whole game), trains ``ValueNet`` on them, and
writes under ``--out``: ``net.pzc`` (``load_value_net``), ``trainer.pzc`` (resumable: run the
same command again to go on), ``curve.png`` (validation error in chips per pot against
steps), ``value_net_leduc.json`` and ``value_net_leduc.md``. The data chunks go to
``--data-dir`` (resumable too). It also compares the network's leaf values with the exact
oracle's at the leaves of Leduc's round one solved depth-limited with oracle leaves (the
reaches a re-solver meets), in chips.

    python bench/value_net_leduc.py --states 60000 --steps 12000 --out bench/results/value_net

With ``--trunk-states N`` it fine-tunes a trained net (``--base-net``) on the public belief
states a continual re-solving agent with that net actually asks about (ReBeL's data from the
agent's own play): the agent is tabularised once with a ``leaves.RecordingLeaves`` around the
net, N (and ``--trunk-validation-states``) of the recorded queries are drawn and solved (chunks
under ``--data-dir``/trunk, resumable), and training goes on over the random states and these
together. The data of the base run must be in ``--data-dir`` (same settings).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

import pokerzoo
from pokerzoo.agents.resolver.pbs import StateBatch
from pokerzoo.agents.resolver.value_net import NetworkLeaves, load_value_net
from pokerzoo.agents.resolver.value_training import ValueNetTrainer
from pokerzoo.atomic import write_atomically


def leaf_check(game: pokerzoo.games.base.Game, net_path: Path) -> dict[str, float]:
    """Net versus oracle values at the leaves of Leduc's round one (depth-limited solve with
    oracle leaves, its average strategies' reaches)."""
    from pokerzoo.public.subgames.depth_limit import DepthLimitedSolver
    from pokerzoo.public.subgames.leaf_values import OracleLeaves
    from pokerzoo.public.subgames.subgame import public_subgame

    sub = public_subgame(game, [], [np.ones(6), np.ones(6)], "round")
    oracle = OracleLeaves(game, iterations=3000, tolerance=1e-6, algorithm="dcfr")
    solver = DepthLimitedSolver(sub, oracle, algorithm="dcfr")
    solver.iterate(200)
    reach0, reach1 = solver.leaf_reaches()
    leaves = np.arange(sub.num_leaves)
    exact = oracle.values(sub, leaves, reach0, reach1)
    learned = NetworkLeaves(load_value_net(net_path, game)).values(sub, leaves, reach0, reach1)
    # Through the leaves, each player's expected chips per deal (range-weighted values over
    # the pair mass) change by at most this; per hand, values against a normalised opponent.
    mass = sub.tree.pair_mass
    gap = [float(np.abs((learned[p] - exact[p]) * (reach0, reach1)[p]).sum()) / mass
           for p in (0, 1)]
    opp = [np.maximum(r.sum(axis=1, keepdims=True), 1e-12) for r in (reach1, reach0)]
    hand = max(float((np.abs(learned[p] - exact[p]) / opp[p]).max()) for p in (0, 1))
    return {"leaf_value_error_chips": sum(gap) / 2, "leaf_value_max_hand_error_chips": hand}


def trunk_states(game: pokerzoo.games.base.Game, args: argparse.Namespace,
                 folder: Path) -> tuple[StateBatch, StateBatch]:
    """The solved PBSs the re-solving agent with ``args.base_net`` asks about: training and
    validation sets, disjoint draws from its recorded leaf queries."""
    from pokerzoo.agents.resolver.agent import Resolver
    from pokerzoo.agents.resolver.leaves import RecordingLeaves
    from pokerzoo.agents.resolver.pbs import LeafStates

    folder.mkdir(parents=True, exist_ok=True)
    queries = folder / "queries.npz"
    if not queries.exists():
        agent = Resolver(game, depth="round", leaves="network", network=args.base_net,
                         iterations=args.trunk_iterations, leaf_rule="mean")
        recorders: list[RecordingLeaves] = []

        def record(source: object) -> RecordingLeaves:
            recorders.append(RecordingLeaves(source, keep=args.trunk_keep, seed=args.seed))
            return recorders[-1]

        agent.use_leaf_source(record)
        agent.policy()
        nodes, reach0, reach1 = recorders[0].queries()
        buffer = io.BytesIO()
        np.savez(buffer, nodes=nodes, reach0=reach0, reach1=reach1)
        write_atomically(queries, buffer.getvalue())
    with np.load(queries, allow_pickle=False) as data:
        nodes, reach0, reach1 = (np.array(data[k]) for k in ("nodes", "reach0", "reach1"))
    want = args.trunk_states + args.trunk_validation_states
    if nodes.size < want:
        raise SystemExit(f"only {nodes.size} queries recorded, {want} wanted: raise --trunk-keep")
    pick = np.random.default_rng(args.seed).permutation(nodes.size)[:want]
    states = LeafStates(game, "round_end", args.solve_iterations)
    batches = []
    chunk = 1000
    for k in tqdm(range(-(-want // chunk)), desc="solving the agent's leaf queries",
                  unit="chunk"):
        path = folder / f"solved_{k:05d}.npz"
        if not path.exists():
            rows = pick[k * chunk:(k + 1) * chunk]
            batch = states.solve_states(nodes[rows], reach0[rows], reach1[rows])
            buffer = io.BytesIO()
            np.savez(buffer, **{f: getattr(batch, f) for f in StateBatch.FIELDS})
            write_atomically(path, buffer.getvalue())
        with np.load(path, allow_pickle=False) as data:
            batches.append(StateBatch(*(np.array(data[f]) for f in StateBatch.FIELDS)))
    solved = StateBatch.concatenate(batches)
    split = args.trunk_states
    return (StateBatch(*(getattr(solved, f)[:split] for f in StateBatch.FIELDS)),
            StateBatch(*(getattr(solved, f)[split:] for f in StateBatch.FIELDS)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=60_000)
    parser.add_argument("--validation-states", type=int, default=3_000)
    parser.add_argument("--solve-iterations", type=int, default=300)
    parser.add_argument("--steps", type=int, default=12_000)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--lr-halving", type=int, default=3_000)
    parser.add_argument("--eval-every", type=int, default=500)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--out", default="bench/results/value_net")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: its default)")
    parser.add_argument("--no-leaf-check", action="store_true")
    parser.add_argument("--trunk-states", type=int, default=0,
                        help="fine-tune --base-net on this many of the agent's leaf queries")
    parser.add_argument("--trunk-validation-states", type=int, default=2_000)
    parser.add_argument("--trunk-iterations", type=int, default=1000,
                        help="iterations per re-solve of the agent whose queries are recorded")
    parser.add_argument("--trunk-keep", type=float, default=0.1,
                        help="share of the agent's leaf queries recorded")
    parser.add_argument("--base-net", default="bench/results/value_net/net.pzc")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = args.data_dir or str(out / "data")
    game = pokerzoo.load_game("leduc_holdem")
    started = time.perf_counter()
    trainer = ValueNetTrainer(
        game, seed=args.seed, states=args.states, validation_states=args.validation_states,
        solve_iterations=args.solve_iterations, width=args.width, layers=args.layers,
        batch_size=args.batch_size, learning_rate=args.learning_rate,
        lr_halving=args.lr_halving, eval_every=args.eval_every, data_dir=data_dir,
        workers=args.workers, device=args.device)
    checkpoint = out / "trainer.pzc"
    if checkpoint.exists():
        trainer.load(checkpoint)
    elif args.trunk_states:
        base = load_value_net(args.base_net, game)
        trainer.net.load_state_dict(base.state_dict())
    trainer.ensure_data()
    if args.trunk_states:
        trainer.add_data(*trunk_states(game, args, Path(data_dir) / "trunk"))
    data_seconds = time.perf_counter() - started
    bar = tqdm(total=args.steps, initial=min(trainer.iteration, args.steps), unit="step",
               desc="training the value net")
    train_started = time.perf_counter()
    while trainer.iteration < args.steps:
        step = min(args.eval_every, args.steps - trainer.iteration)
        trainer.iterate(step)
        trainer.save(checkpoint)
        trainer.save_net(out / "net.pzc")  # usable at every point of a long run
        bar.update(step)
        bar.set_postfix(val_error_pot=f"{trainer.history[-1][1]:.5f}" if trainer.history
                        else "-")
    bar.close()
    train_seconds = time.perf_counter() - train_started
    trainer.save_net(out / "net.pzc")
    trainer.plot_curve(out / "curve.png")
    assert trainer.train is not None and trainer.validation is not None
    result = {
        "game": "leduc_holdem", "states": len(trainer.train),
        "validation_states": len(trainer.validation), "solve_iterations": args.solve_iterations,
        "target_gap_pot_mean": float(trainer.train.gap.mean()), "steps": trainer.iteration,
        "validation_error_pot": trainer.validation_error(),
        "train_error_pot": trainer.validation_error("train"),
        "history": trainer.history, "device": str(trainer.device),
        "data_seconds_this_invocation": round(data_seconds, 1),
        "train_seconds_this_invocation": round(train_seconds, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs visible",
        "command": "python bench/value_net_leduc.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
            if v not in ("", False, None)),
    }
    if not args.no_leaf_check:
        result.update(leaf_check(game, out / "net.pzc"))
    write_atomically(out / "value_net_leduc.json", json.dumps(result, indent=1) + "\n")
    lines = [
        "# Value network on Leduc", "",
        f"Command: `{result['command']}`", "",
        f"- {result['states']:,} training PBSs, {result['validation_states']:,} held out "
        f"(end of round one; half random recursive ranges, half states of DCFR play"
        + (f"; of them {args.trunk_states:,} and {args.trunk_validation_states:,} the leaf "
           f"queries of the re-solving agent with {args.base_net} (its own play, "
           f"{args.trunk_iterations} iterations per re-solve), the net fine-tuned from that "
           "one" if args.trunk_states else "") + "), each "
        f"solved by {args.solve_iterations} DCFR iterations (mean NashConv of the targets "
        f"{result['target_gap_pot_mean']:.2e} x pot)",
        f"- {result['steps']:,} steps of {args.batch_size}, net {args.layers} x {args.width} "
        f"PReLU, zero-sum layer; device {result['device']}",
        f"- **validation error {result['validation_error_pot']:.5f} chips per pot** "
        f"(mean absolute, every hand the board leaves, both players); training error "
        f"{result['train_error_pot']:.5f}",
        f"- seconds this invocation: data {result['data_seconds_this_invocation']}, training "
        f"{result['train_seconds_this_invocation']} ({result['machine']}; the 2-core machine "
        "is shared by several engineers, so seconds are loose)",
    ]
    if "leaf_value_error_chips" in result:
        lines.append(
            f"- at the leaves of a depth-limited solve of round one (oracle leaves, its "
            f"average reaches): range-weighted leaf value error "
            f"{result['leaf_value_error_chips']:.5f} chips, largest single-hand error "
            f"{result['leaf_value_max_hand_error_chips']:.4f} chips")
    lines += ["", "![validation error](curve.png)", ""]
    write_atomically(out / "value_net_leduc.md", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
