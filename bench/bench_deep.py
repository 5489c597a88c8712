"""Deep CFR on Leduc: pokerzoo's next to OpenSpiel's PyTorch ``DeepCFRSolver``, same machine.

Four runs, one thread each: OpenSpiel's Deep CFR with its recommended Leduc settings (3 x 64
MLPs, 1,500 external-sampling traversals per player and iteration, 750 advantage steps and
5,000 policy steps at batch 2,048, memories 1e6, Adam lr 1e-3, advantage networks
reinitialised every iteration); ours with the same budgets (preset ``openspiel-leduc``, on our
7-layer card/betting network); ours with a cheaper mini-batch budget (``--fast-params``); and
a named preset of ours as it is (``--preset``, default ``leduc-fast``: full-memory gradient
steps, 45 iterations). Reported
per checkpoint: exact NashConv of the average (strategy-network) policy, traversals, nodes
touched, wall-clock and CPU seconds of training (evaluation excluded; the strategy-network
training a checkpoint needs is counted). Results are recorded as JSON under
``bench/results/deep/`` after every checkpoint, so a rerun reuses finished runs (``--fresh``
redoes them, ``--reuse-partial`` also keeps runs stopped early); ``leduc.md`` and
``leduc.png`` are written from the records.

    python bench/bench_deep.py                          # everything (hours on one core)
    python bench/bench_deep.py --skip-openspiel         # ours only, OpenSpiel's record reused
    python bench/bench_deep.py --iterations 20 --fresh  # a shorter budget

A long run stopped early still leaves a point: ``kill -USR1 <pid>`` makes it train and record
a checkpoint at the end of its current iteration. OpenSpiel's module imports ``dm-tree`` only
for ``map_structure`` over its named tuples of arrays; when ``dm-tree`` is missing a minimal
stand-in for exactly that is installed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.machinery
import json
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from common import table

RESULTS = Path(__file__).resolve().parent / "results" / "deep"

# OpenSpiel's recommended Leduc settings (OpenSpiel's Deep CFR).
SETTINGS: dict[str, Any] = {
    "layers": (64, 64, 64),
    "traversals": 1_500,
    "advantage_steps": 750,
    "policy_steps": 5_000,
    "batch": 2_048,
    "memory": 1_000_000,
    "learning_rate": 1e-3,
}


def _record(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


def _load(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


def _ensure_dm_tree() -> None:
    """Install a stand-in ``tree`` module when dm-tree is absent (see the module docstring)."""
    try:
        import tree  # noqa: F401
    except ImportError:
        def map_structure(fn: Any, *structures: Any) -> Any:
            first = structures[0]
            if isinstance(first, tuple) and hasattr(first, "_fields"):
                return type(first)(*(map_structure(fn, *xs) for xs in zip(*structures)))
            if isinstance(first, (tuple, list)):
                return type(first)(map_structure(fn, *xs) for xs in zip(*structures))
            return fn(*structures)

        module = types.ModuleType("tree")
        # torch's compiler machinery looks modules up by spec on first optimizer use.
        module.__spec__ = importlib.machinery.ModuleSpec("tree", None)
        module.map_structure = map_structure  # type: ignore[attr-defined]
        sys.modules["tree"] = module


# --------------------------------------------------------------------------------------------
# OpenSpiel
# --------------------------------------------------------------------------------------------


def _checkpoint_on_signal() -> list[int]:
    """A list that becomes non-empty on SIGUSR1: ``kill -USR1 <pid>`` asks a long run for a
    checkpoint at the end of its current iteration (for a run that will not finish in time)."""
    import signal

    flag: list[int] = []
    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, lambda *_: flag.append(1))
    return flag


def run_openspiel(iterations: int, checkpoints: list[int], seed: int, path: Path) -> dict:
    """OpenSpiel's ``DeepCFRSolver.solve`` loop, unrolled to evaluate at ``checkpoints``.

    The loop body is ``solve``'s (traversals per player, reinitialise and train the advantage
    network, next iteration). At a checkpoint the strategy network is trained from its fresh
    initialisation on the strategy memory and evaluated, then reinitialised, which is what
    OpenSpiel's own ``print_nash_convs`` option does; the last checkpoint's training is exactly
    the one ``solve`` ends with. Nodes touched counts every call of ``_traverse_game_tree``
    (chance, decision and terminal states alike).
    """
    _ensure_dm_tree()
    import pyspiel
    import torch
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import deep_cfr

    torch.set_num_threads(1)

    class Counting(deep_cfr.DeepCFRSolver):
        nodes = 0

        def _traverse_game_tree(self, state: Any, player: int) -> Any:
            self.nodes += 1
            return super()._traverse_game_tree(state, player)

    game = pyspiel.load_game("leduc_poker")
    s = SETTINGS
    solver = Counting(
        game,
        policy_network_layers=s["layers"],
        advantage_network_layers=s["layers"],
        num_iterations=iterations,
        num_traversals=s["traversals"],
        learning_rate=s["learning_rate"],
        batch_size_advantage=s["batch"],
        batch_size_strategy=s["batch"],
        memory_capacity=s["memory"],
        policy_network_train_steps=s["policy_steps"],
        advantage_network_train_steps=s["advantage_steps"],
        reinitialize_advantage_networks=True,
        seed=seed,
    )
    record: dict = {"agent": "openspiel-deep-cfr", "settings": s, "seed": seed,
                    "iterations": iterations, "complete": False, "curve": []}
    train = cpu = 0.0
    extra = _checkpoint_on_signal()
    for it in range(1, iterations + 1):
        start, start_cpu = time.perf_counter(), time.process_time()
        for p in range(game.num_players()):
            for _ in range(s["traversals"]):
                solver._traverse_game_tree(solver._root_node, p)
            solver._reinitialize_advantage_network(p)
            solver._learn_advantage_network(p)
        solver._iteration += 1
        train += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        print(f"openspiel it {it} train {train:.0f}s cpu {cpu:.0f}s nodes {solver.nodes}",
              flush=True)
        if it in checkpoints or extra:
            extra.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            solver._learn_strategy_network()
            policy_seconds = time.perf_counter() - start
            policy_cpu = time.process_time() - start_cpu
            average = os_policy.tabular_policy_from_callable(game, solver.action_probabilities)
            conv = float(exploitability.nash_conv(game, average))
            solver._reinitialize_policy_network()
            record["curve"].append({
                "iteration": it, "traversals": it * s["traversals"], "nodes": solver.nodes,
                "seconds": round(train + policy_seconds, 1),
                "cpu_seconds": round(cpu + policy_cpu, 1),
                "policy_seconds": round(policy_seconds, 1), "nash_conv": conv})
            record["complete"] = it == iterations
            _record(path, record)
            print(f"openspiel it {it} NashConv {conv:.4f} "
                  f"(+{policy_seconds:.0f}s policy training)", flush=True)
    return record


# --------------------------------------------------------------------------------------------
# pokerzoo
# --------------------------------------------------------------------------------------------


def run_ours(label: str, iterations: int, checkpoints: list[int], seed: int, params: dict,
             device: str, path: Path, preset: str = "openspiel-leduc") -> dict:
    """pokerzoo's Deep CFR (``preset``, default ``openspiel-leduc``, with ``params`` overriding
    it).

    Clocked: ``iterate`` (traversals and advantage networks) and, at a checkpoint, ``policy()``
    (the strategy network trained from scratch and tabularised); not clocked: the exact
    NashConv. The traversal kernel is compiled before the clock starts.
    """
    import torch

    from pokerzoo import load_game
    from pokerzoo.agents.deep.deep_cfr import DEEP_CFR_PRESETS, DeepCFR
    from pokerzoo.evaluation import nash_conv

    torch.set_num_threads(1)
    game = load_game("leduc_holdem")
    agent: Any
    if label.startswith("pokerzoo-deep-gxfp"):
        from pokerzoo.agents.deep.deep_gxfp import DeepGXFP

        agent = DeepGXFP(game, seed=seed, device=device, **params)
    else:
        agent = DeepCFR(game, DEEP_CFR_PRESETS[preset], seed=seed, device=device, **params)
        # Compile (or load from numba's cache) on scratch copies, outside the clock.
        agent.traversal.warm_up(agent._sigma)
    config = {k: v for k, v in dataclasses.asdict(agent.config).items() if k != "device"}
    record: dict = {"agent": label, "preset": preset, "config": config, "params": params,
                    "seed": seed,
                    "device": str(agent.device), "iterations": iterations,
                    "complete": False, "curve": []}
    train = cpu = 0.0
    extra = _checkpoint_on_signal()
    for it in range(1, iterations + 1):
        start, start_cpu = time.perf_counter(), time.process_time()
        agent.iterate(1)
        train += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        if it in checkpoints or extra:
            extra.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            average = agent.policy()
            policy_seconds = time.perf_counter() - start
            policy_cpu = time.process_time() - start_cpu
            conv = nash_conv(agent.tree, average)
            memory_conv = _memory_average_nash_conv(agent)
            record["curve"].append({
                "iteration": it, "traversals": it * agent.config.traversals,
                "nodes": getattr(agent, "nodes_touched", None),
                "seconds": round(train + policy_seconds, 1),
                "cpu_seconds": round(cpu + policy_cpu, 1),
                "policy_seconds": round(policy_seconds, 1), "nash_conv": conv,
                "memory_average_nash_conv": memory_conv})
            record["complete"] = it == iterations
            _record(path, record)
            print(f"memory average NashConv {memory_conv}", flush=True)
            print(f"{label} it {it} train {train:.0f}s cpu {cpu:.0f}s NashConv {conv:.4f} "
                  f"(+{policy_seconds:.0f}s policy training)", flush=True)
    return record


def _memory_average_nash_conv(agent: Any) -> float | None:
    """Diagnostic, not clocked: NashConv of the exact t-weighted average of Deep CFR's
    strategy memory per information set (what a perfect strategy network would output), so the
    strategy network's own error shows; ``None`` for agents without that memory."""
    import numpy as np

    from pokerzoo.evaluation import nash_conv
    from pokerzoo.tree.tabular_policy import TabularPolicy

    memory = getattr(agent, "strategy_memory", None)
    if memory is None or not hasattr(agent, "_masks") or len(memory) == 0:
        return None
    batch = memory.gather(np.arange(len(memory)))
    tree = agent.tree
    weight = np.bincount(batch.iset, weights=batch.t, minlength=tree.num_infosets)
    sums = np.stack([np.bincount(batch.iset, weights=batch.t * batch.value[:, a],
                                 minlength=tree.num_infosets)
                     for a in range(tree.num_actions)], axis=1)
    mask = np.asarray(tree.infoset_mask, dtype=np.float64)
    probs = np.where(weight[:, None] > 0, sums / np.maximum(weight, 1e-300)[:, None],
                     mask / mask.sum(axis=1, keepdims=True))
    return float(nash_conv(tree, TabularPolicy.from_tree(tree, probs)))


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _reach(record: dict, level: float) -> dict | None:
    """The first checkpoint of ``record`` at or below NashConv ``level``."""
    return next((c for c in record["curve"] if c["nash_conv"] <= level), None)


def report(records: list[dict], out: Path, target: float = 0.3) -> str:
    """The Markdown summary (tables and targets) and ``leduc.png`` of ``records``."""
    lines = ["# Deep CFR on Leduc: pokerzoo next to OpenSpiel (PyTorch)", ""]
    headers = ["iteration", "traversals / player", "nodes touched", "wall s", "CPU s",
               "of which policy net (wall s)", "NashConv", "memory average NashConv"]
    for r in records:
        status = "complete" if r.get("complete") else "stopped before its last iteration"
        lines += [f"## {r['agent']} ({status})", ""]
        if "config" in r:
            lines += [f"Config: `{json.dumps(r['config'])}`, device {r['device']}.", ""]
        else:
            lines += [f"Settings: `{json.dumps(r['settings'])}`.", ""]
        per_player = (r.get("config") or r.get("settings") or {}).get("traversals", 0)
        rows = [[c["iteration"], c["iteration"] * per_player, c["nodes"], c["seconds"],
                 c.get("cpu_seconds", "-"), c["policy_seconds"], f"{c['nash_conv']:.4f}",
                 "-" if c.get("memory_average_nash_conv") is None
                 else f"{c['memory_average_nash_conv']:.4f}"]
                for c in r["curve"]]
        lines += [table(headers, rows), ""]
    openspiel = next((r for r in records if r["agent"].startswith("openspiel")), None)
    ours = [r for r in records if not r["agent"].startswith("openspiel")]
    lines += ["## Targets", ""]
    for r in ours:
        last = r["curve"][-1] if r["curve"] else None
        if last is not None:
            hit = _reach(r, target)
            lines.append(
                f"- {r['agent']}: NashConv {last['nash_conv']:.4f} after {last['iteration']} "
                f"iterations x {r['config']['traversals']:,} traversals; "
                + (f"at or below {target} first at iteration {hit['iteration']}."
                   if hit else f"never at or below {target} at a checkpoint."))
    if openspiel and openspiel["curve"]:
        final = openspiel["curve"][-1]
        lines.append(
            f"- OpenSpiel's last checkpoint: NashConv {final['nash_conv']:.4f} at iteration "
            f"{final['iteration']}, {final['seconds']:,.0f} s wall, "
            f"{final.get('cpu_seconds', float('nan')):,.0f} s CPU"
            + ("" if openspiel.get("complete") else " (the run did not finish)") + ".")
        lines += ["", "Time to each OpenSpiel checkpoint's NashConv (first checkpoint of ours "
                  "at or below it; the target is at most 0.1 of OpenSpiel's time at its last):",
                  ""]
        for level in openspiel["curve"]:
            for r in ours:
                hit = _reach(r, level["nash_conv"])
                head = (f"- OpenSpiel's {level['nash_conv']:.4f} (iteration "
                        f"{level['iteration']}), {r['agent']}: ")
                if hit is None:
                    lines.append(head + "not reached.")
                    continue
                wall = hit["seconds"] / level["seconds"]
                cpu = (hit["cpu_seconds"] / level["cpu_seconds"]
                       if "cpu_seconds" in level else None)
                lines.append(
                    head + f"iteration {hit['iteration']}, {hit['seconds']:,.0f} s wall "
                    f"({wall:.3f} of OpenSpiel's), {hit['cpu_seconds']:,.0f} s CPU"
                    + (f" ({cpu:.3f} of OpenSpiel's)" if cpu is not None else "") + ".")
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "leduc.md").write_text(text)
    _plot(records, out / "leduc.png")
    return text


def _plot(records: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 4, figsize=(19, 4.2))
    keys = [("traversals", "traversals per player"), ("nodes", "nodes touched"),
            ("cpu_seconds", "CPU seconds (one thread)"), ("seconds", "wall-clock seconds")]
    for ax, (key, label) in zip(axes, keys):
        for r in records:
            per_player = (r.get("config") or r.get("settings") or {}).get("traversals", 0)
            points = [(c["iteration"] * per_player if key == "traversals" else c.get(key),
                       c["nash_conv"]) for c in r["curve"]]
            points = [(x, y) for x, y in points if x is not None]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker="o", label=r["agent"])
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(label)
        ax.set_ylabel("NashConv (chips)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle("Deep CFR on Leduc: exact NashConv of the strategy network")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def _checkpoints(text: str, iterations: int) -> list[int]:
    points = sorted({int(x) for x in text.split(",") if x} | {iterations})
    return [p for p in points if 0 < p <= iterations]


FAST_PARAMS = ('{"traversals": 10000, "advantage_steps": 150, "batch_size": 8192, '
               '"policy_steps": 2000, "regret_scale": 13.0}')
"""Our cheaper run: traversals are nearly free in the compiled kernel, so 10,000 per
iteration (the Deep CFR paper's number); fewer SGD steps on larger batches (a folded batch
costs its distinct information sets, not its samples); regrets fitted in units of Leduc's
largest payoff."""


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100, help="OpenSpiel's and our "
                        "same-settings run")
    parser.add_argument("--openspiel-checkpoints", default="25,50")
    parser.add_argument("--checkpoints", default="10,25,50")
    parser.add_argument("--fast-params", default=FAST_PARAMS, help="JSON overrides of our "
                        "preset for a second, cheaper run of ours ('' for none)")
    parser.add_argument("--fast-iterations", type=int, default=40)
    parser.add_argument("--fast-checkpoints", default="10,20,30")
    parser.add_argument("--preset", default="leduc-fast", help="a Deep CFR preset run as it "
                        "is, a third run of ours ('' for none)")
    parser.add_argument("--preset-iterations", type=int, default=45)
    parser.add_argument("--preset-checkpoints", default="20,30,40")
    parser.add_argument("--gxfp-params", default="", help="JSON parameters of a Deep GXFP run "
                        "(none: no Deep GXFP run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["all", "openspiel", "ours"], default="all")
    parser.add_argument("--skip-openspiel", action="store_true")
    parser.add_argument("--fresh", action="store_true", help="redo recorded runs")
    parser.add_argument("--reuse-partial", action="store_true", help="also reuse records of "
                        "runs that stopped early (SIGUSR1 asks a run for a checkpoint)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--device", default="auto", help="torch device of ours (auto: CUDA "
                        "when available)")
    args = parser.parse_args(argv)

    def usable(path: Path, params: dict | None, preset: str = "openspiel-leduc") -> bool:
        recorded = None if args.fresh else _load(path)
        return (recorded is not None and (recorded.get("complete") or args.reuse_partial)
                and (params is None or (recorded.get("params") == params
                                        and recorded.get("preset", preset) == preset)))

    full = f"it{args.iterations}_seed{args.seed}"
    os_path = args.out / f"openspiel_{full}.json"
    paths = [os_path]  # reported whenever recorded, also with --skip-openspiel
    if args.only in ("all", "openspiel") and not args.skip_openspiel:
        if usable(os_path, None):
            print(f"reusing {os_path}")
        else:
            run_openspiel(args.iterations,
                          _checkpoints(args.openspiel_checkpoints, args.iterations),
                          args.seed, os_path)
    ours = "openspiel-leduc"
    runs: list[tuple[str, dict, int, str, str]] = [
        ("pokerzoo-deep-cfr", {}, args.iterations, args.checkpoints, ours)]
    if args.fast_params:
        runs.append(("pokerzoo-deep-cfr-fast", json.loads(args.fast_params),
                     args.fast_iterations, args.fast_checkpoints, ours))
    if args.preset:
        runs.append((f"pokerzoo-deep-cfr-{args.preset}", {}, args.preset_iterations,
                     args.preset_checkpoints, args.preset))
    if args.gxfp_params:
        runs.append(("pokerzoo-deep-gxfp", json.loads(args.gxfp_params),
                     args.fast_iterations, args.fast_checkpoints, ours))
    for label, params, iterations, checkpoints, preset in runs:
        path = args.out / f"{label}_it{iterations}_seed{args.seed}.json"
        paths.append(path)
        if args.only not in ("all", "ours"):
            continue
        if usable(path, params, preset):
            print(f"reusing {path}")
        else:
            run_ours(label, iterations, _checkpoints(checkpoints, iterations), args.seed,
                     params, args.device, path, preset)
    records = [r for r in (_load(p) for p in paths) if r is not None]
    print(report(records, args.out))


if __name__ == "__main__":
    main()
