"""Is a rebuilt HUNL blueprint the recorded one, deal by deal?

The blueprint is rebuilt by one command (about 3 min on one core, 5.6 GB peak memory, a
1.07 GB checkpoint; ``configs/hunl_blueprint.toml`` says more):

    python train.py --config configs/hunl_blueprint.toml

Its torch arithmetic is portable (``pokerzoo.torch_arithmetic``), so a rebuild on any x86-64
processor with the same torch build is the same blueprint. This plays the rebuilt blueprint
against itself on the first ``--deals`` duplicate deals of the HUNL match's streams (seed 0,
deal indices from 0, as ``bench/hunl_resolving.py`` deals them; no re-solves: cheap), and
compares each deal's chips with the reference ``bench/results/blueprint_reference.json``;
``--write-reference`` writes that file instead (with the machine and library versions it was
made with). The outcome goes to ``--out``.

    python bench/blueprint_check.py --deals 2000
    python bench/blueprint_check.py --deals 2000 --write-reference

``--state FILE`` compares with a ``bench/hunl_resolving.py`` state file's ``baseline`` (the
blueprint against itself on that match's deals) instead: whether the rebuild is the blueprint
behind that file's results.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_version, library_versions, machine_name

from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation.head_to_head import MatchSpec, match_entropy, play_deals

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCE = RESULTS / "blueprint_reference.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", default="runs/hunl_spot_deep_cfr", help="the rebuilt blueprint")
    ap.add_argument("--reference", default=str(REFERENCE),
                    help="the recorded blueprint's chips per deal (written by "
                         "--write-reference)")
    ap.add_argument("--write-reference", action="store_true",
                    help="record the rebuild as the reference instead of comparing")
    ap.add_argument("--state", help="compare with a bench/hunl_resolving.py state file's "
                                    "baseline instead")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--out", default=str(RESULTS / "blueprint.md"))
    args = ap.parse_args()
    if args.deals < 1 or args.chunk < 1:
        ap.error("--deals and --chunk must be at least 1")
    if args.write_reference and args.state:
        ap.error("--write-reference records the rebuild; --state compares it: give one")
    from pokerzoo.agents.resolver.holdem_agent import blueprint_record, load_blueprint
    from pokerzoo.games.registry import load_game
    from pokerzoo.torch_arithmetic import arithmetic_in_use

    first, seed, recorded, against = 0, 0, None, None
    if args.state:
        state = json.loads(Path(args.state).read_text())
        recorded = np.asarray(state["baseline"], dtype=float).reshape(-1, 2)
        first = int(state["settings"].get("first_deal", 0))
        seed = int(state["settings"]["seed"])
        against = f"the recorded `baseline` of `{Path(args.state).name}`"
    elif not args.write_reference:
        reference = json.loads(Path(args.reference).read_text())
        recorded = np.asarray(reference["per_deal"], dtype=float).reshape(-1, 2)
        seed = int(reference["seed"])
        against = (f"the reference `{Path(args.reference).name}` (made on {reference['machine']}"
                   f", {reference['libraries']}, torch {reference['torch']})")
    n = args.deals if recorded is None else min(args.deals, len(recorded))
    _, build = blueprint_record(Path(args.run))
    game = load_game(build["game"], **(build.get("game_params") or {}))
    start = time.perf_counter()
    blueprint = load_blueprint(args.run, game)
    load_seconds = time.perf_counter() - start
    arithmetic = arithmetic_in_use()
    spec = MatchSpec(game, (blueprint, blueprint), match_entropy(seed, None))
    replayed = []
    start = time.perf_counter()
    for d0 in tqdm(range(0, n, args.chunk), desc="deals", unit="chunk"):
        d1 = min(d0 + args.chunk, n)
        replayed.append(play_deals(spec, (first + d0, first + d1)).per_deal)
    play_seconds = time.perf_counter() - start
    got = np.concatenate(replayed)
    checkout = Path(__file__).resolve().parent.parent
    import torch

    if args.write_reference:
        record = {"config": "configs/hunl_blueprint.toml", "seed": seed, "deals": n,
                  "arithmetic": arithmetic, "torch": str(torch.__version__),
                  "code": code_version(checkout), "libraries": library_versions(),
                  "machine": machine_name(), "per_deal": got.reshape(-1).tolist()}
        write_atomically(Path(args.reference), json.dumps(record) + "\n")
        print(f"wrote {args.reference}: {n} deals, {int(np.sum(np.abs(got[:, 0]) > 1e-9))} "
              f"with a non-zero result (load {load_seconds:.1f} s, play {play_seconds:.1f} s)")
        return
    assert recorded is not None
    same = np.all(np.abs(got - recorded[:n]) < 1e-9, axis=1)
    differ = np.flatnonzero(~same)
    outcome = (f"**equal on {int(same.sum())} of {n} deals**" if not len(differ) else
               f"**differs on {len(differ)} of {n} deals** (first at deal index "
               f"{first + int(differ[0])}: recorded {recorded[differ[0]].tolist()}, replayed "
               f"{got[differ[0]].tolist()})")
    nonzero = int(np.sum(np.abs(recorded[:n, 0]) > 1e-9))
    text = "\n".join([
        "# The HUNL Deep CFR blueprint, rebuilt",
        "",
        "Rebuild (one command, no time cap; the blueprint the `bench/hunl_*` benchmarks use, "
        "at `runs/hunl_spot_deep_cfr`):",
        "",
        "    python train.py --config configs/hunl_blueprint.toml",
        "",
        "Its torch arithmetic is portable (`portable_arithmetic = true`: MKL's compatible path "
        "and ATen's default kernels, `pokerzoo.torch_arithmetic`), so the rebuild is the same "
        "bits on any x86-64 processor with the same torch build. Measured on an AMD EPYC "
        "(2026-12-03): 3 min 14 s wall on one core, 5.6 GB peak memory, a 1.07 GB checkpoint "
        "(mostly the advantage and strategy memories, which resuming needs); final `vs random: "
        "+259.60 +- 289.18 bb/100`.",
        "",
        "## The rebuild against the recorded blueprint",
        "",
        f"`python bench/blueprint_check.py {' '.join(sys.argv[1:])}`: the rebuilt blueprint "
        f"(arithmetic in use: {arithmetic}) against itself on deals {first}-{first + n - 1} "
        f"(seed {seed}, the card and action streams of the HUNL match), compared with "
        f"{against} deal by deal: {outcome}. {nonzero} of those deals have a non-zero result, "
        f"so the comparison is not of folds alone. Load {load_seconds:.1f} s (the strategy "
        f"network is trained as the blueprint loads), play {play_seconds:.1f} s.",
        "",
        "What this shows and what it does not: on this processor the rebuild is the "
        "reference, deal by deal. That the bits are the same on another processor rests on the "
        "two switches (MKL documents its compatible path as giving the same results on every "
        "Intel and compatible processor; ATen's default kernels are one compiled code for any "
        "x86-64) and on the reference: a rebuild elsewhere that does not give *equal on every "
        "deal* here is a finding to report, with its processor.",
        "",
        "The blueprint of the results written before 2026-12-03 was built with torch's native "
        "arithmetic on an Intel Xeon and rebuilds only there: `bench/results/blueprint_native.md`"
        ". Measured on this AMD EPYC, one core each, the config's final `vs random` line with "
        "each switch: native -24.90; ATen's AVX2 kernels with MKL's AVX2 -24.90; MKL limited to "
        "SSE4.2 -24.90; MKL compatible alone +151.00; ATen default alone +227.50; both +259.60, "
        "and both with MKL limited to SSE4.2 +259.60 (bb/100).",
        "",
        f"Code {code_version(checkout)}; {library_versions()}, torch {torch.__version__}; "
        f"machine: {machine_name()}.",
        "",
    ])
    write_atomically(Path(args.out), text)
    print(text)


if __name__ == "__main__":
    main()
