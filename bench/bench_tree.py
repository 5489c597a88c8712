"""Tree building, exact exploitability and CFR speed: pokerzoo next to OpenSpiel and LiteEFG.

Run: ``python bench/bench_tree.py`` (LiteEFG columns need ``pip install liteefg``).
Times are CPU seconds of this process, single thread, best of three.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from common import cpu_seconds, rate, table

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFR
from pokerzoo.evaluation import nash_conv
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.tree import TabularPolicy, build

try:
    import pyspiel
except ImportError:  # pragma: no cover - open_spiel is a test dependency
    pyspiel = None
try:
    import LiteEFG as leg
    from LiteEFG.baselines.CFR import graph as liteefg_cfr_graph
except ImportError:
    leg = None


def ours_rows(cfr_iterations: int) -> dict[str, float]:
    leduc = load_game("leduc_holdem")
    out: dict[str, float] = {}
    out["build"] = cpu_seconds(lambda: build(leduc).sequence_form)
    tree = build(leduc)
    policy = TabularPolicy.uniform(tree).probs
    nash_conv(tree, policy)  # compile
    out["exploitability"] = cpu_seconds(lambda: [nash_conv(tree, policy) for _ in range(100)]) / 100
    for label, game in [
        ("kuhn", load_game("kuhn_poker")),
        ("leduc", leduc),
        ("leduc5", load_game("leduc_holdem", **LEDUC_VARIANTS["leduc5"])),
    ]:
        solver = CFR(game)
        solver.iterate(1)  # compile
        out[f"cfr_{label}"] = rate(solver.iterate, cfr_iterations)
    return out


def openspiel_rows(cfr_iterations: int) -> dict[str, float]:
    out: dict[str, float] = {}
    leduc = pyspiel.load_game("leduc_poker")
    out["build"] = cpu_seconds(lambda: pyspiel.CFRSolver(leduc))
    solver = pyspiel.CFRSolver(leduc)
    solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    out["exploitability"] = cpu_seconds(lambda: pyspiel.exploitability(leduc, policy))
    for label, name in [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")]:
        game = pyspiel.load_game(name)
        solver = pyspiel.CFRSolver(game)
        n = cfr_iterations if label == "kuhn" else max(20, cfr_iterations // 100)

        def run(k: int, solver=solver) -> None:
            for _ in range(k):
                solver.evaluate_and_update_policy()

        out[f"cfr_{label}"] = rate(run, n, repeat=1)
    return out


def liteefg_rows(cfr_iterations: int) -> dict[str, float]:
    out: dict[str, float] = {}
    leg.set_threads(1)
    leduc = pyspiel.load_game("leduc_poker")
    out["build"] = cpu_seconds(lambda: leg.OpenSpielEnv(leduc, traverse_type="Enumerate"), 1)
    for label, name in [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")]:
        env = leg.OpenSpielEnv(pyspiel.load_game(name), traverse_type="Enumerate")
        graph = liteefg_cfr_graph()
        env.set_graph(graph)

        def run(k: int, env=env, graph=graph) -> None:
            for _ in range(k):
                graph.update_graph(env)
                env.update_strategy(graph.current_strategy(), update_best=False)

        out[f"cfr_{label}"] = rate(run, max(100, cfr_iterations // 10), repeat=1)
        if label == "leduc":
            strategy = graph.current_strategy()
            out["exploitability"] = cpu_seconds(
                lambda env=env, s=strategy: env.exploitability(s, "last-iterate")
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=5000, help="CFR iterations timed")
    args = parser.parse_args()
    results = {"pokerzoo": ours_rows(args.iterations)}
    if pyspiel is not None:
        results["OpenSpiel (C++)"] = openspiel_rows(args.iterations)
    if leg is not None and pyspiel is not None:
        results["LiteEFG"] = liteefg_rows(args.iterations)
    names = list(results)
    rows = [
        ("build Leduc tree (ms; ours with its sequence form)", "build", 1e3),
        ("one exact exploitability, Leduc (ms)", "exploitability", 1e3),
        ("CFR iterations/s, Kuhn", "cfr_kuhn", 1.0),
        ("CFR iterations/s, Leduc", "cfr_leduc", 1.0),
        ("CFR iterations/s, Leduc(5)", "cfr_leduc5", 1.0),
    ]
    anchors = names[1:]
    body = []
    for label, key, scale in rows:
        values = [results[n].get(key) for n in names]
        cells = [v * scale if v is not None else "n/a" for v in values]
        ours = values[0]
        for other in anchors:
            theirs = results[other].get(key)
            if ours is None or theirs is None:
                cells.append("")
            else:
                # Always "how many times better is pokerzoo": rates divide, times invert.
                ratio = ours / theirs if key.startswith("cfr") else theirs / ours
                cells.append(f"{ratio:,.1f}x")
        body.append([label, *cells])
    headers = ["measure", *names, *[f"pokerzoo vs {other}" for other in anchors]]
    print(table(headers, body))
    print("\nOpenSpiel's Python-side timing loops add a little overhead to its C++ CFR; "
          "Leduc(5) is not an OpenSpiel game.")


if __name__ == "__main__":
    main()
