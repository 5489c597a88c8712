"""Does information gain help exploration? VCFR's data against random interaction's, paired.

The VCFR paper credits information gain with more efficient exploration (abstract; Sec. 4)
but measures only the output's NashConv. The quality of an agent's *data* is measured here by
``nash_conv_resolved``: its final posterior mean solved by CFR+ to convergence and scored in
the true model d*. VCFR and random interaction are compared on the same environments (same env
seeds) at the same number of hands: per environment the difference VCFR - random, then its
mean and 95% t interval. Negative means VCFR's hands taught it more.

Cells are read from any number of result folders of ``reproduce_vcfr.py`` / ``vcfr_runs``
(a run is the same up to a number of hands whatever its total budget, so a 10,000-round cell
measured at 20,000 hands pairs with a 20,000-round cell measured there); one reward reading
at a time.

    python bench/vcfr_paired.py --hands 20000 --folders bench/results/vcfr/fixed_rounds20000 \\
        bench/results/vcfr/fixed_rounds10000 --out bench/results/vcfr/paired_information_gain.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table
from vcfr_runs import load_records, paired_difference, provenance

PAIR = ("vcfr", "random-interaction")


def measured(folders: list[Path], game: str, hands: int) -> dict[tuple[str, int], Any]:
    """``(variant, env) -> (measures at hands, record)`` for the pair's agents, first folder
    first (a later folder's cell of the same env is skipped)."""
    found: dict[tuple[str, int], Any] = {}
    for folder in folders:
        for record in load_records(folder):
            key = (record["variant"], record["env"])
            at = record["measures"].get(str(hands))
            if record["game"] == game and record["variant"] in PAIR and at and key not in found:
                found[key] = (at, record)
    return found


def report(folders: list[Path], game: str, hands: int, where: str = "") -> str:
    """The paired table, mean difference and interval; ``where`` the cells ran (a sentence
    after the first paragraph) and each folder's machines and unfinished cells of the pair."""
    found = measured(folders, game, hands)
    envs = sorted(e for v, e in found if v == PAIR[0] and (PAIR[1], e) in found)
    if not envs:
        return f"no environment has both {PAIR[0]} and {PAIR[1]} measured at {hands:,} hands"
    priors = {found[(v, e)][1]["reward_prior"] for e in envs for v in PAIR}
    if len(priors) > 1:
        raise SystemExit(f"cells of several reward readings {sorted(priors)}: pass one folder set")
    rows, a, b = [], [], []
    for env in envs:
        x, y = (found[(v, env)][0] for v in PAIR)
        a.append(x["nash_conv_resolved"])
        b.append(y["nash_conv_resolved"])
        rows.append([env, f"{a[-1]:.4f}", f"{b[-1]:.4f}", f"{a[-1] - b[-1]:+.4f}",
                     f"{x['terminals_observed']:,}", f"{y['terminals_observed']:,}",
                     f"{x['nash_conv_output']:.4f}", f"{y['nash_conv_output']:.4f}"])
    mean, low, high = paired_difference(np.array(a), np.array(b))
    verdict = ("VCFR's data better (the interval excludes 0)" if high < 0 else
               "random interaction's data better (the interval excludes 0)" if low > 0 else
               "no difference shown (the interval contains 0)")
    lines = [
        f"# Information gain and exploration: {PAIR[0]} against {PAIR[1]}, paired\n",
        f"{game}, reward_prior={priors.pop()}, {hands:,} hands each, {len(envs)} environments "
        f"(env seeds {', '.join(map(str, envs))}); re-solved = the posterior mean solved by "
        "CFR+ to NashConv 1e-4 and scored in d*. Cells from: "
        + ", ".join(f"`{f}`" for f in folders) + ".\n",
        *([where + "\n"] if where else []),
        *[line for f in folders for line in provenance(f, PAIR)], "",
        table(["env", "vcfr re-solved", "random re-solved", "difference",
               "vcfr terminals", "random terminals", "vcfr output", "random output"], rows),
        "",
        f"Mean re-solved NashConv: vcfr {np.mean(a):.4f}, random {np.mean(b):.4f}; mean paired "
        f"difference {mean:+.4f}, 95% t interval [{low:+.4f}, {high:+.4f}] over {len(envs)} "
        f"pairs: {verdict}.",
        "",
        "Command: `python bench/vcfr_paired.py --game " + game + f" --hands {hands} --folders "
        + " ".join(str(f) for f in folders) + "`",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", nargs="+", required=True)
    parser.add_argument("--game", default="leduc5")
    parser.add_argument("--hands", type=int, required=True)
    parser.add_argument("--out", default=None, help="also write the report here")
    parser.add_argument("--where", default="", help="where the cells ran, said in the report")
    args = parser.parse_args()
    text = report([Path(f) for f in args.folders], args.game, args.hands, args.where)
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
