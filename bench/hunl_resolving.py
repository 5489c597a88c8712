"""A Deep CFR blueprint re-solved on the turn and river against the blueprint alone.

The ``resolver`` agent on heads-up no-limit hold'em (``pokerzoo.agents.resolver.holdem``:
the blueprint plays preflop and flop, each re-solved street is solved at its start by the
range solver from the blueprint's ranges, unsafe re-solving) is measured three ways:

* head to head against the blueprint, duplicate deals, bb/100 with a 95% CI; beside it the
  same deals with the blueprint in the resolver's chair (same card and action streams), whose
  per-deal difference removes every hand the re-solves do not touch (common random numbers:
  the blueprint against itself wins 0 in expectation, so the difference estimates the same
  bb/100 with a smaller CI);
* LBR (``pokerzoo.evaluation.lbr``) of both, on the same deals;
* the EV loss (``pokerzoo.evaluation.spot_decision``) of both at a river spot the blueprint reaches
  (its own ranges there, ``own_ranges``): the first decision of each player.

The blueprint (``--run``, default ``runs/hunl_spot_deep_cfr``) is rebuilt by ``python train.py
--config configs/hunl_blueprint.toml`` (3 min 14 s on one core, 5.6 GB peak memory; portable
torch arithmetic, the same bits on any x86-64: ``bench/results/blueprint.md``). Each report
names the blueprint its state was played with: the states committed before 2026-12-03 are of
the earlier, native-arithmetic blueprint (``bench/results/blueprint_native.md``).

Resumable: every finished chunk of deals is kept in ``--state`` (JSON) and the report
``--out`` rewritten; a rerun with the same settings goes on where it stopped.

    python bench/hunl_resolving.py --deals 20000 --lbr-deals 4000 --state big.json --out big.md

A second process on other deals (its own state), then one report over both:

    python bench/hunl_resolving.py --deals 6000 --first-deal 9600 --lbr-deals 0 --no-spot \
        --off-tree blueprint --state bench/results/hunl_resolving_part2.json --out part2.md
    python bench/hunl_resolving.py --off-tree blueprint --deals 9600 --lbr-deals 400 \
        --merge bench/results/hunl_resolving_part2.json      # the committed report

The same match re-scored by AIVAT (both strategies known, check-down values; its own state
file, the same deal indices; ``bench/results/aivat.md``):

    nice python bench/hunl_resolving.py --off-tree blueprint --aivat --deals 3000 --chunk 10

LBR of the blueprint and of the resolver again on the LBR's deals, each hand scored raw and by
AIVAT (LBR's choices are pure, the policy's probabilities known; check-down values with the
exact pre-flop equities; its own state file; the section "LBR with AIVAT" of ``aivat.md``):

    taskset -c 1 python bench/hunl_resolving.py --off-tree blueprint --lbr-aivat \
        --lbr-deals 100 --chunk 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_version, library_versions, table

from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation.head_to_head import Z95, MatchSpec, match_entropy, play_deals
from pokerzoo.evaluation.lbr import LBRSpec, lbr_deals

RESULTS = Path(__file__).resolve().parent / "results"


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", default="runs/hunl_spot_deep_cfr", help="the blueprint's run")
    ap.add_argument("--deals", type=int, default=40, help="duplicate deals of the match")
    ap.add_argument("--first-deal", type=int, default=0,
                    help="index of this state's first deal (a second process on other deals: "
                         "give it its own --state, --lbr-deals 0 and --no-spot, and --merge "
                         "its file into the first's report)")
    ap.add_argument("--merge", nargs="*", default=[], metavar="STATE",
                    help="state files of processes that played other deals (--first-deal): "
                         "their deals are added to this report (nothing is played)")
    ap.add_argument("--lbr-deals", type=int, default=10, help="LBR deals of each policy")
    ap.add_argument("--chunk", type=int, default=20, help="deals between saves")
    ap.add_argument("--streets", default="turn,river")
    ap.add_argument("--iterations", type=int, default=200, help="most iterations per re-solve")
    ap.add_argument("--exploitability-pct", type=float, default=1.0)
    ap.add_argument("--max-seconds", type=float, default=20.0,
                    help="a re-solve's time limit (0: none, deterministic)")
    ap.add_argument("--turn-raise-cap", type=int, default=2)
    ap.add_argument("--off-tree", default="resolve", choices=("resolve", "blueprint"),
                    help="where the line leaves a re-solve's tree: re-solve from the next "
                         "decision, or the blueprint plays the street (the earlier runs)")
    ap.add_argument("--continual", action="store_true",
                    help="also re-solve at every decision of the player asked")
    ap.add_argument("--gadget", default="unsafe", choices=("unsafe", "cfr-d"),
                    help="re-solves inside a street: unsafe or behind the CFR-D gadget")
    ap.add_argument("--board", default="Ks7d2c9h4s", help="the river spot's board")
    ap.add_argument("--pot", type=int, default=12, help="the river spot's pot")
    ap.add_argument("--lbr-wp-samples", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--state", default=str(RESULTS / "hunl_resolving.json"))
    ap.add_argument("--out", default=str(RESULTS / "hunl_resolving.md"))
    ap.add_argument("--no-spot", action="store_true", help="skip the spot EV loss")
    ap.add_argument("--aivat", action="store_true",
                    help="play the match (and the blueprint-vs-blueprint control) again on the "
                         "same deals, scored raw and by AIVAT with check-down values (both "
                         "strategies known); kept in --aivat-state, reported in --aivat-out "
                         "beside the raw results of --state on the same deal indices")
    ap.add_argument("--aivat-state", default=str(RESULTS / "hunl_resolving_aivat.json"))
    ap.add_argument("--aivat-out", default=str(RESULTS / "aivat.md"))
    ap.add_argument("--lbr-aivat", action="store_true",
                    help="LBR of the blueprint and of the resolver on the first --lbr-deals "
                         "deals (the deals and seeds of --state's LBR), every hand scored raw "
                         "and by AIVAT (check-down values); kept in --lbr-aivat-state, "
                         "reported in --aivat-out")
    ap.add_argument("--lbr-aivat-state", default=str(RESULTS / "hunl_resolving_lbr_aivat.json"))
    ap.add_argument("--lbr-note", default=str(RESULTS / "aivat_lbr_note.md"),
                    help="a reading of the LBR with AIVAT results, appended to that section of "
                         "--aivat-out if the file exists")
    ap.add_argument("--small-games", default=str(RESULTS / "aivat_small.md"),
                    help="the Kuhn and Leduc AIVAT results (bench/aivat_small.py) appended to "
                         "--aivat-out")
    ap.add_argument("--note", default=str(RESULTS / "hunl_resolving_note.md"),
                    help="a reading of the results, appended to the report if the file exists")
    args = ap.parse_args()
    if args.first_deal < 0:
        ap.error(f"--first-deal must be 0 or more, not {args.first_deal}")
    missing = [name for name in args.merge if not Path(name).is_file()]
    if missing:
        ap.error(f"--merge: no state file at {', '.join(missing)}")
    return args


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the saved deals depend on (a resume must match it); the in-street options only
    where they differ from the earlier runs' behaviour, so those state files still match."""
    out = {k: getattr(args, k) for k in ("run", "streets", "iterations", "exploitability_pct",
                                         "turn_raise_cap", "seed", "lbr_wp_samples",
                                         "max_seconds")}
    if args.off_tree != "blueprint":
        out["off_tree"] = args.off_tree
    if args.continual:
        out["continual"] = True
    if args.gadget != "unsafe":
        out["gadget"] = args.gadget
    if args.first_deal:
        out["first_deal"] = args.first_deal
    return out


def merged(state: dict[str, Any], others: list[Path]) -> dict[str, Any]:
    """``state`` with the deals, re-solves and fallbacks of other processes' state files
    added (same settings but for ``first_deal``; their deal indices are in ``deal_ranges``)."""
    first = state["settings"].get("first_deal", 0)
    out = {**state, "deal_ranges": [[first, first + len(state["match"])]]}
    for path in others:
        other = json.loads(path.read_text())
        mine = {k: v for k, v in state["settings"].items() if k != "first_deal"}
        theirs = {k: v for k, v in other["settings"].items() if k != "first_deal"}
        if mine != theirs:
            sys.exit(f"{path} holds deals of other settings {other['settings']}")
        start = other["settings"].get("first_deal", 0)
        out["deal_ranges"] = [*out["deal_ranges"], [start, start + len(other["match"])]]
        for key in ("match", "baseline", "resolve_seconds", "resolve_iterations",
                    "resolve_rounds", "resolve_pct"):
            out[key] = out[key] + other[key]
        pad = len(other["resolve_seconds"]) - len(other.get("resolve_origins") or [])
        mine_pad = len(state["resolve_seconds"]) - len(state.get("resolve_origins") or [])
        out["resolve_origins"] = (["street"] * mine_pad + list(state.get("resolve_origins") or [])
                                  + ["street"] * pad + list(other.get("resolve_origins") or []))
        out["fallbacks"] = {k: out["fallbacks"].get(k, 0) + v
                            for k, v in other["fallbacks"].items()}
        out["max_chip_gap"] = max(out["max_chip_gap"], other["max_chip_gap"])
        out["wall_seconds"] = out["wall_seconds"] + other["wall_seconds"]
    return out


def load_state(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    fresh = {"settings": settings(args), "match": [], "baseline": [], "lbr_blueprint": [],
             "lbr_resolver": [], "resolve_seconds": [], "resolve_iterations": [],
             "resolve_rounds": [], "resolve_origins": [],
             "resolve_pct": [], "spot": None, "max_chip_gap": 0, "wall_seconds": 0.0,
             "fallbacks": {"off_tree": 0, "dropped": 0, "empty": 0, "range": 0}}
    if not path.is_file():
        return fresh
    state = json.loads(path.read_text())
    if state["settings"] != settings(args):
        sys.exit(f"{path} holds deals of other settings {state['settings']}; give another "
                 "--state or the same settings")
    return state


def save(path: Path, state: dict[str, Any]) -> None:
    write_atomically(path, json.dumps(state, indent=1))


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    if len(x) < 2:
        return float(np.mean(x)) if len(x) else float("nan"), float("inf")
    return float(x.mean()), float(Z95 * x.std(ddof=1) / np.sqrt(len(x)))


def spot_losses(game: Any, blueprint: Any, resolver: Any, args: argparse.Namespace
                ) -> dict[str, Any]:
    """EV loss at the first decision of each player of the river spot: the blueprint, the
    resolver of the match, and a resolver of the river alone (whose ranges are the spot's:
    the blueprint's own along the line; the turn re-solve's change them)."""
    from pokerzoo.agents.resolver.holdem import HoldemResolvingPolicy
    from pokerzoo.agents.resolver.holdem_tree import menu
    from pokerzoo.evaluation.spot_decision import (
        evaluate_decision,
        line_locks,
        node_at,
        solve_locked,
    )
    from pokerzoo.evaluation.spot_eval import own_ranges
    from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree

    sizes = menu(game)
    stack = min(game.config.seat_stacks()) - args.pot // 2
    spot = HoldemSpot(board=args.board, starting_pot=args.pot, effective_stack=stack,
                      oop_range="AA", ip_range="AA", river_sizes=(sizes, sizes),
                      suit_isomorphism=False)
    spot = own_ranges(game, blueprint, spot)
    tree = build_spot_tree(spot)
    out: dict[str, Any] = {"board": args.board, "pot": args.pot, "stack": stack,
                           "nodes": int(tree.num_nodes)}
    river_only = HoldemResolvingPolicy(
        game, blueprint, (3,), exploitability_pct=args.exploitability_pct,
        max_iterations=args.iterations, max_seconds=args.max_seconds or None)
    for line in ([], ["check"]):
        node = node_at(tree, line)
        eq = solve_locked(tree, line_locks(tree, node), 0.3, 2000)
        for name, policy in (("blueprint", blueprint), (f"resolver {args.streets}", resolver),
                             ("resolver river", river_only)):
            r = evaluate_decision(game, policy, spot, tree, line, equilibrium=eq)
            out[f"{name} {'oop' if not line else 'ip'}"] = {
                "loss_chips": r.ev_loss_chips, "loss_pct_pot": r.ev_loss_pct_pot,
                "bounds": list(r.ev_loss_bounds_chips),
                "eq_pct": r.equilibrium_exploitability_pct, "off_tree": r.off_tree_mass}
    return out


def report(state: dict[str, Any], args: argparse.Namespace, big_blind: float) -> str:
    s = state["settings"]
    scale = 100.0 / big_blind
    lines = [
        "# Deep CFR blueprint re-solved on the turn and river vs the blueprint alone",
        "",
        "`python bench/hunl_resolving.py " + " ".join(sys.argv[1:]) + "` (resumable). "
        "Machine: 2 CPU cores shared with another engineer's jobs (timings are of a busy "
        "machine).",
        "",
        f"Blueprint: `{s['run']}` (Deep CFR, 10 iterations, no-limit hold'em $1/$2, $200 "
        f"stacks, sizes 1/2, 3/4, 1 pot and all-in). "
        + blueprint_line(state.get("blueprint_build")) + " Re-solving: streets "
        f"{s['streets']}, "
        f"unsafe, from the blueprint's ranges (each street's re-solve gives the next street's "
        f"ranges), stopped at {s['exploitability_pct']}% of the pot or {s['iterations']} "
        f"iterations; turn trees capped at {s['turn_raise_cap']} bets+raises per street, "
        "river inside a turn tree 3/4-pot bets only, no raises (re-solved at its start "
        f"with the full menu); each re-solve also stops at {s['max_seconds']} s. "
        + in_street(s),
        "",
        "## Head to head (duplicate deals, 2 hands each)",
        "",
    ]
    m = np.asarray(state["match"], dtype=float).reshape(-1, 2)
    b = np.asarray(state["baseline"], dtype=float).reshape(-1, 2)
    rows = []
    if len(m):
        mu, ci = mean_ci(m[:, 0])
        rows.append(["resolver vs blueprint", len(m), f"{mu * scale:+.1f} ± {ci * scale:.1f}"])
        n = min(len(m), len(b))
        mu, ci = mean_ci(m[:n, 0] - b[:n, 0])
        rows.append(["same, minus blueprint-vs-blueprint on the same streams", n,
                     f"{mu * scale:+.1f} ± {ci * scale:.1f}"])
        touched = int(np.sum(np.abs(m[:n, 0] - b[:n, 0]) > 1e-9))
        ranges = state.get("deal_ranges")
        where = ("" if not ranges or len(ranges) < 2 else " Deal indices played: "
                 + ", ".join(f"{a:,}-{b - 1:,}" for a, b in ranges)
                 + " (processes in parallel, each on a range fixed before it started).")
        lines += [table(["match", "deals", "resolver bb/100 (95% CI)"], rows), "",
                  f"Deals whose result the re-solves changed: {touched} of {n}.{where}", ""]
    sec = np.asarray(state["resolve_seconds"], dtype=float)
    if len(sec):
        rounds = np.asarray(state["resolve_rounds"])
        # Files from before origins were recorded hold street-start re-solves only: pad those.
        recorded = list(state.get("resolve_origins") or [])
        origins = ["street"] * (len(sec) - len(recorded)) + recorded
        its = np.asarray(state["resolve_iterations"], dtype=float)
        pct = np.asarray(state["resolve_pct"], dtype=float)
        rows = []
        for rnd, name in ((2, "turn"), (3, "river")):
            k = rounds == rnd
            if k.any():
                inner = sum(not o.startswith("street") for o, r in zip(origins, rounds, strict=True)
                            if r == rnd)
                rows.append([name, int(k.sum()), inner, f"{sec[k].mean():.2f}",
                             f"{np.median(sec[k]):.2f}", f"{sec[k].max():.1f}",
                             f"{its[k].mean():.0f}", f"{np.median(pct[k]):.2f}"])
        lines += ["Re-solves (spot, match and LBR; seconds include building the tree):", "",
                  table(["street", "re-solves", "of them inside the street", "s mean",
                         "s median", "s max",
                         "iterations mean", "expl. % pot median"], rows), "",
                  f"Decisions left to the blueprint: {state['fallbacks']['off_tree']} off the "
                  f"re-solve's tree, {state['fallbacks']['dropped']} with a hand outside its "
                  f"range, {state['fallbacks']['empty']} where the blueprint never reaches the "
                  "street with any hand of a player (counted per policy query; LBR asks up to "
                  "1,326 per public state); largest chip gap between a game and a spot size: "
                  f"{state['max_chip_gap']}. Actions whose solved strategy gave no hand of "
                  "the player the action (range weighted by the blueprint there): "
                  f"{state['fallbacks'].get('range', 0)}.", ""]
    lines += ["## LBR (lower bound on exploitability; mbb/g, 95% CI; same deals for both)", ""]
    rows = []
    for name in ("blueprint", "resolver"):
        w = np.asarray(state[f"lbr_{name}"], dtype=float).reshape(-1, 2)
        if len(w):
            mu, ci = mean_ci(w.mean(axis=1))
            rows.append([name, len(w), f"{mu * 1000 / big_blind:+.0f} ± "
                                       f"{ci * 1000 / big_blind:.0f}"])
    wb = np.asarray(state["lbr_blueprint"], dtype=float).reshape(-1, 2)
    wr = np.asarray(state["lbr_resolver"], dtype=float).reshape(-1, 2)
    n = min(len(wb), len(wr))
    if n:
        mu, ci = mean_ci(wr[:n].mean(axis=1) - wb[:n].mean(axis=1))
        rows.append(["resolver - blueprint (paired deals)", n,
                     f"{mu * 1000 / big_blind:+.0f} ± {ci * 1000 / big_blind:.0f}"])
    if rows:
        lines += [table(["policy", "deals", "LBR mbb/g"], rows), ""]
    spot = state.get("spot")
    if spot:
        lines += [f"## Spot EV loss (river {spot['board']}, pot {spot['pot']}, {spot['stack']} "
                  "behind, both players at the blueprint's own ranges)", "",
                  "EV loss against the spot's equilibrium at each player's first decision "
                  "(`evaluation.spot_decision`, rest re-solved around the locked decision); chips "
                  "and % of the pot, with the interval the solves' error allows.", ""]
        rows = []
        for key, r in spot.items():
            if isinstance(r, dict):
                rows.append([key, f"{r['loss_chips']:.3f}", f"{r['loss_pct_pot']:.2f}",
                             f"[{r['bounds'][0]:.2f}, {r['bounds'][1]:.2f}]",
                             f"{r['eq_pct']:.2f}"])
        lines += [table(["policy / player", "EV loss chips", "% pot", "bounds (chips)",
                         "equilibrium expl. % pot"], rows), ""]
    note = Path(args.note)
    if note.is_file():
        lines += [note.read_text().strip(), ""]
    lines += [f"Wall time so far: {state['wall_seconds'] / 60:.1f} min.", "",
              "A bigger run (one process: about 10 hours at this run's rate of ~1.5 s per "
              "deal; the re-solves' 20 s limit makes them depend on the machine's speed):", "",
              "    python bench/hunl_resolving.py --deals 20000 --lbr-deals 4000 "
              "--state bench/results/hunl_resolving_big.json "
              "--out bench/results/hunl_resolving_big.md", ""]
    return "\n".join(lines)


def in_street(s: dict[str, Any]) -> str:
    """How the run's re-solves treat a line inside a street."""
    if s.get("off_tree", "blueprint") == "blueprint":
        return ("Where the line left a re-solve's tree (a raise past the cap), the blueprint "
                "played the rest of the street.")
    text = ("Where the line leaves a re-solve's tree (a raise past the cap), the street is "
            "re-solved from the next decision (ranges: the street-start ranges times the "
            "solved strategies along the line, the off-tree raise counted as a call)")
    if s.get("continual"):
        text += ", and at every decision of the player asked (continual re-solving)"
    gadget = s.get("gadget", "unsafe")
    return text + (", behind the CFR-D gadget." if gadget == "cfr-d" else ", unsafe.")


def blueprint_line(build: dict[str, Any] | None) -> str:
    """Which blueprint a report's runs used, from the build record its state saved."""
    if not build:
        return ("Blueprint: built by `configs/hunl_blueprint.toml` with torch's native "
                "arithmetic (before 2026-12-03), which rebuilds it bit for bit only on the "
                "processor it was built on (`bench/results/blueprint_native.md`).")
    if build.get("portable_arithmetic"):
        return ("Blueprint: built by `python train.py --config configs/hunl_blueprint.toml` "
                f"with portable torch arithmetic (torch {build.get('torch')}), so the same "
                "bits on any x86-64 processor (`bench/results/blueprint.md`).")
    return ("Blueprint: built with torch's native arithmetic, the same only on the processor "
            "it was built on (`bench/results/blueprint_native.md`).")


def run_build(run: str) -> dict[str, Any]:
    """The parts of the blueprint's build record a report names it by."""
    from pokerzoo.agents.resolver.holdem_agent import blueprint_record

    _, build = blueprint_record(Path(run))
    return {k: build.get(k) for k in ("agent", "seed", "portable_arithmetic", "torch")}


def where_the_variance_is(m: np.ndarray, ma: np.ndarray, b: np.ndarray,
                          ba: np.ndarray) -> str:
    """Where the head-to-head's variance lies: on the deals the re-solves touched (the match
    and its control end apart) or on the others, raw minus control and AIVAT minus control,
    and how far any fixed weighting of the two AIVAT corrections could take it (fitted here,
    so a bound, not an estimator)."""
    n = len(m)
    touched = np.abs(m - b) > 1e-9
    k = int(touched.sum())
    if n < 3 or k == 0:
        return "Where the variance is: no deal touched by a re-solve yet."
    raw, corrected = m - b, ma - ba

    def share(x: np.ndarray) -> float:
        total = float(np.sum((x - x.mean()) ** 2))
        return 100.0 * float(np.sum((x[touched] - x.mean()) ** 2)) / total if total else 0.0

    terms = np.stack([ma - m, ba - b], axis=1)
    terms = terms - terms.mean(axis=0)
    beta = np.linalg.lstsq(terms, raw - raw.mean(), rcond=None)[0]
    best = float(np.var(raw - terms @ beta, ddof=1))
    return (
        f"Where the variance is: the re-solves touched {k} of {n} deals (the match and its "
        f"control end apart), and those carry {share(raw):.0f}% of raw minus control's "
        f"variance (the others are 0 exactly) and {share(corrected):.0f}% of AIVAT minus "
        "control's: on the untouched deals the corrections do not cancel (the resolver's "
        "re-solved probabilities are not the blueprint's even where it plays the same "
        f"action), adding variance {float(np.var(corrected[~touched])):.1f} chips² a deal "
        f"there. On a touched deal the mean square is {float(np.mean(raw[touched] ** 2)):,.0f} "
        f"chips² raw minus control and {float(np.mean(corrected[touched] ** 2)):,.0f} AIVAT "
        "minus control: check-down values remove little of it. Even the best fixed weights of "
        f"the two corrections (fitted on these deals: {beta[0]:+.2f} on the match's, "
        f"{beta[1]:+.2f} on the control's) would leave {best:,.0f} of raw minus control's "
        f"{float(np.var(raw, ddof=1)):,.0f} chips² (a ratio of "
        f"{float(np.var(raw, ddof=1)) / best:.2f}); the goal needs 9.")


def aivat_match_lines(state: dict[str, Any], recorded: dict[str, Any], args: argparse.Namespace,
                      big_blind: float) -> list[str]:
    """The head-to-head part of ``aivat.md``: the match re-scored by AIVAT beside its raw
    results (``state``: the ``--aivat`` state; ``recorded``: the ``--state`` it replays)."""
    scale = 100.0 / big_blind
    first = state["settings"].get("first_deal", 0)
    m = np.asarray(state["match"], dtype=float).reshape(-1, 2)[:, 0]
    ma = np.asarray(state["match_aivat"], dtype=float).reshape(-1, 2)[:, 0]
    b = np.asarray(state["baseline"], dtype=float).reshape(-1, 2)[:, 0]
    ba = np.asarray(state["baseline_aivat"], dtype=float).reshape(-1, 2)[:, 0]
    n = len(m)
    old_first = recorded["settings"].get("first_deal", 0)
    old_m = np.asarray(recorded["match"], dtype=float).reshape(-1, 2)[:, 0]
    old_b = np.asarray(recorded["baseline"], dtype=float).reshape(-1, 2)[:, 0]
    lo, hi = max(first, old_first), min(first + n, old_first + len(old_m))
    both = max(hi - lo, 0)
    same_m = int(np.sum(np.abs(m[lo - first:hi - first] - old_m[lo - old_first:hi - old_first])
                        < 1e-9))
    same_b = int(np.sum(np.abs(b[lo - first:hi - first] - old_b[lo - old_first:hi - old_first])
                        < 1e-9))
    # Deals where the two runs disagree should be deals a re-solve touched (time-limited
    # re-solves depend on the machine's speed); a disagreement elsewhere would mean other deals.
    new_touched = np.abs(m[lo - first:hi - first] - b[lo - first:hi - first]) > 1e-9
    old_touched = np.abs(old_m[lo - old_first:hi - old_first]
                         - old_b[lo - old_first:hi - old_first]) > 1e-9
    differ = np.abs(m[lo - first:hi - first] - old_m[lo - old_first:hi - old_first]) > 1e-9
    differ_untouched = int(np.sum(differ & ~new_touched & ~old_touched))
    rows = []
    raw_var = float(np.var(m, ddof=1)) if n > 1 else float("nan")
    control_var = float(np.var(m - b, ddof=1)) if n > 1 else float("nan")
    for name, x in (("raw", m), ("raw minus blueprint-vs-blueprint control", m - b),
                    ("AIVAT", ma), ("AIVAT minus AIVAT-scored control", ma - ba)):
        mu, ci = mean_ci(x)
        var = float(np.var(x, ddof=1)) if n > 1 else float("nan")
        rows.append([name, n, f"{mu * scale:+.1f} ± {ci * scale:.1f}",
                     f"{raw_var / var:.1f}" if var > 0 else "n/a",
                     f"{control_var / var:.1f}" if var > 0 else "n/a"])
    target = 12_440
    widths = []
    for name, x in (("AIVAT", ma), ("AIVAT minus control", ma - ba),
                    ("raw minus control", m - b)):
        if n > 1:
            widths.append(f"{name} ±{Z95 * x.std(ddof=1) / np.sqrt(target) * scale:.1f}")
    ratio_vs_control = (float(np.var(m - b, ddof=1)) / float(np.var(ma - ba, ddof=1))
                        if n > 1 and np.var(ma - ba) > 0 else float("nan"))
    scaled = 14.4 / np.sqrt(ratio_vs_control)
    s = state["settings"]
    if same_b * 10 >= both * 9:  # the control replays the recorded one: the same blueprint
        same_deals = (
            f"Same deals: of the {both} deal indices played both here and in "
            f"`{Path(args.state).name}` ({lo}-{hi - 1}), the raw result of the match equals "
            f"the recorded one on {same_m} and the control's on {same_b}. (Re-solves stop at "
            f"{s['max_seconds']} s as well as at 1% of the pot, so a re-solve that hit the "
            "time limit on a busier or quieter machine can differ; the control has no "
            "re-solves.) Deals the re-solves touched (match and control differ) in either "
            f"run: {int(np.sum(new_touched | old_touched))}; deals that differ although "
            f"neither run's re-solves touched them: {differ_untouched}.")
    else:
        same_deals = (
            f"Same deals, another blueprint: `{Path(args.state).name}` was played with the "
            "blueprint built before 2026-12-03 (native torch arithmetic, an Intel Xeon), and "
            f"on the {both} deal indices played in both ({lo}-{hi - 1}) the control equals "
            f"its recorded one on {same_b} only, the match on {same_m}: the same cards, "
            "another blueprint's play, so the two matches are not compared deal by deal. "
            f"Deals the re-solves touched here (match and control differ): "
            f"{int(np.sum(new_touched))} of {both}.")
    command = state.get("command") or "python bench/hunl_resolving.py " + " ".join(sys.argv[1:])
    code = state.get("code") or code_version(RESULTS.parent.parent)
    libraries = state.get("libraries") or library_versions()
    return [
        "# AIVAT on hold'em: the re-solving agent against its blueprint",
        "",
        f"`{command}` (resumable, "
        f"`{Path(args.aivat_state).name}`). The match of `bench/results/hunl_resolving.md` "
        f"(its settings: blueprint `{s['run']}`, the one named below; re-solving turn and "
        f"river, unsafe, 1% of the pot, {s['iterations']} iterations or {s['max_seconds']} s "
        f"per re-solve; seed {s['seed']}) played on its first deals, every hand scored by AIVAT "
        "(`pokerzoo.evaluation.aivat`, Burch et al., AAAI 2018, arXiv:1612.06915): both "
        "strategies known (the resolver's probabilities recorded at each of its decisions, "
        "the blueprint's network probabilities), every card dealt corrected, value function "
        "`CheckDownValues` (`pokerzoo.evaluation.holdem_values`: each player's chips if the "
        "hand were checked down from the state, a pending bet called). The control is the "
        "blueprint against itself on the same streams, scored alike.",
        "",
        "## Head to head (resolver bb/100, 95% CI; duplicate deals, 2 hands each)",
        "",
        table(["estimate", "deals", "resolver bb/100", "variance ratio raw / this",
               "variance ratio (raw minus control) / this"], rows),
        "",
        "Unbiasedness check: the corrections' mean (AIVAT minus raw, zero in expectation) is "
        f"{mean_ci(ma - m)[0] * scale:+.1f} ± {mean_ci(ma - m)[1] * scale:.1f} bb/100 for the "
        f"match and {mean_ci(ba - b)[0] * scale:+.1f} ± {mean_ci(ba - b)[1] * scale:.1f} for "
        "the control.",
        "",
        same_deals,
        "",
        blueprint_line(state.get("blueprint_build")),
        "",
        f"Width at 12,440 deals from the variances measured here: {', '.join(widths)} "
        "bb/100, against the goal of ±4.8 (a third of ±14.4, the control-subtracted raw "
        "interval of `bench/results/hunl_resolving.md`). Over so few deals the variance is "
        "dominated by the rare deals the re-solves touch, so the raw-minus-control projection "
        "is to be read against the ±14.4 the full 12,440 deals measured; the ratio is what "
        f"carries over: ±14.4 scaled by the measured ratio of AIVAT-minus-control to "
        f"raw-minus-control variance gives **±{scaled:.1f}** at 12,440 deals.",
        "",
        where_the_variance_is(m, ma, b, ba),
        "",
        f"Wall time of the match: {state['wall_seconds'] / 60:.1f} min on one core of 2 shared. "
        f"Code {code}; {libraries}.",
        "",
    ]


LBR_POLICIES = ("blueprint", "resolver")
"""The policies ``--lbr-aivat`` measures, in the order it plays each chunk."""


def lbr_rows(rows: Any) -> np.ndarray:
    """``rows`` (a state's list for one policy) as ``[deals, 4]`` chips: raw LBR as seat 0
    and seat 1, then AIVAT's score of the same hands (``lbr_deals`` with ``aivat=``)."""
    out = np.asarray(rows, dtype=float).reshape(-1, 4) if len(rows) else np.zeros((0, 4))
    return out


def lbr_estimates(raw: np.ndarray, corrected: np.ndarray, big_blind: float) -> dict[str, float]:
    """Per-deal chips, raw and AIVAT-scored (the same hands), as mbb/g means with 95%
    half-widths and the variance ratio (raw per-deal variance over AIVAT's; ``nan`` under two
    deals or where AIVAT's variance is 0)."""
    to_mbb = 1000.0 / big_blind
    mu, ci = mean_ci(raw)
    amu, aci = mean_ci(corrected)
    ratio = float("nan")
    if len(raw) > 1 and np.var(corrected, ddof=1) > 0:
        ratio = float(np.var(raw, ddof=1) / np.var(corrected, ddof=1))
    return {"deals": len(raw), "raw": mu * to_mbb, "raw_ci": ci * to_mbb,
            "aivat": amu * to_mbb, "aivat_ci": aci * to_mbb, "variance_ratio": ratio}


def lbr_aivat_summary(rows: Any, seconds: float, big_blind: float) -> dict[str, float]:
    """One policy's LBR with AIVAT (``lbr_rows``' layout): ``lbr_estimates`` of its deals
    and the seconds per deal."""
    w = lbr_rows(rows)
    out = lbr_estimates(w[:, :2].mean(axis=1), w[:, 2:].mean(axis=1), big_blind)
    out["seconds_per_deal"] = seconds / len(w) if len(w) else float("nan")
    return out


def paired_lbr_difference(first: Any, second: Any, big_blind: float) -> dict[str, float]:
    """``second`` minus ``first`` on the deals both played (the first ``min`` of each:
    the same deal seeds), raw and AIVAT-scored, as ``lbr_estimates``."""
    a, b = lbr_rows(first), lbr_rows(second)
    n = min(len(a), len(b))
    return lbr_estimates(b[:n, :2].mean(axis=1) - a[:n, :2].mean(axis=1),
                         b[:n, 2:].mean(axis=1) - a[:n, 2:].mean(axis=1), big_blind)


def _pm(value: float, half: float) -> str:
    return f"{value:+,.0f} ± {half:,.0f}"


def _ratio(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{value:.1f}"


def deep_gxfp_lines(path: Path) -> list[str]:
    """The Deep GXFP LBR-with-AIVAT numbers (``bench/deep_gxfp_hunl_lbr.py``), for scale."""
    if not path.is_file():
        return []
    points = json.loads(path.read_text())["points"]
    if not points:
        return []

    def about(key: str) -> str:  # the points' mean half-width, to 50 mbb/g
        return f"{round(float(np.mean([p[key] for p in points])) / 50) * 50:,}"

    return [
        "For scale, LBR with AIVAT on another heads-up no-limit network: Deep GXFP at "
        + ", ".join(str(p["iteration"]) for p in points) + " iterations on "
        "`no_limit_holdem`'s defaults (blinds 50/100, 100 bb), "
        f"{points[0]['deals']} duplicate deals a point, check-down values. The variance ratio "
        "is " + " / ".join(f"{p['variance_ratio']:.1f}" for p in points) + ", so the intervals "
        f"go from about ± {about('lbr_ci')} to about ± {about('aivat_ci')} mbb/g (`python "
        "bench/deep_gxfp_hunl_lbr.py`, `bench/results/deep/hunl_lbr_aivat.md`).",
        "",
    ]


LBR_SPEED = [
    "LBR's speed, before and after the faster LBR, is in `bench/results/lbr_speed.md`. With "
    "the uniform player, 2 workers against the 1-worker original, it is 306 against 14.07 "
    "deals/s (21.7x) on limit and 300 against 16.65 (18.0x) on no-limit, with the same chips "
    "on every deal.",
    "",
]


def lbr_aivat_lines(lbr: dict[str, Any] | None, recorded: dict[str, Any],
                    args: argparse.Namespace, big_blind: float) -> list[str]:
    """The "LBR with AIVAT" section of ``aivat.md`` from the ``--lbr-aivat`` state (``None``:
    not measured) and the ``--state`` whose LBR deals it replays."""
    lines = ["## LBR with AIVAT", ""]
    others = deep_gxfp_lines(RESULTS / "deep" / "hunl_lbr_aivat.json") + LBR_SPEED
    if not lbr or not len(lbr["resolver"]):
        return lines + ["Not measured yet for the resolver and its blueprint: `python "
                        "bench/hunl_resolving.py --off-tree blueprint --lbr-aivat --lbr-deals "
                        "N` measures it.", ""] + others
    s = lbr["settings"]
    summaries = {name: lbr_aivat_summary(lbr[name], lbr["seconds"][name], big_blind)
                 for name in LBR_POLICIES}
    diff = paired_lbr_difference(lbr["blueprint"], lbr["resolver"], big_blind)
    rows = [[name, r["deals"], _pm(r["raw"], r["raw_ci"]), _pm(r["aivat"], r["aivat_ci"]),
             _ratio(r["variance_ratio"]), f"{r['seconds_per_deal']:.2f}"]
            for name, r in summaries.items()]
    rows.append(["resolver minus blueprint (paired deals)", diff["deals"],
                 _pm(diff["raw"], diff["raw_ci"]), _pm(diff["aivat"], diff["aivat_ci"]),
                 _ratio(diff["variance_ratio"]), "-"])
    checks = []
    for name in LBR_POLICIES:
        mine = lbr_rows(lbr[name])
        old = np.asarray(recorded.get(f"lbr_{name}") or [], dtype=float).reshape(-1, 2)
        n = min(len(mine), len(old))
        same = int(np.sum(np.all(np.abs(mine[:n, :2] - old[:n]) < 1e-9, axis=1)))
        checks.append(f"{same} of {n} ({name})")
    gap = {name: lbr_estimates(lbr_rows(lbr[name])[:, 2:].mean(axis=1)
                               - lbr_rows(lbr[name])[:, :2].mean(axis=1),
                               np.zeros(len(lbr[name])), big_blind)
           for name in LBR_POLICIES}
    sec = np.asarray(lbr["resolve_seconds"], dtype=float)
    rounds = np.asarray(lbr["resolve_rounds"], dtype=int)
    solves = ", ".join(f"{int(np.sum(rounds == rnd))} on the {name} "
                       f"({sec[rounds == rnd].mean():.1f} s mean)"
                       for rnd, name in ((2, "turn"), (3, "river"))
                       if np.any(rounds == rnd)) or "none"
    share = 100.0 * sec.sum() / lbr["seconds"]["resolver"] if lbr["seconds"]["resolver"] else 0.0
    lines += [
        f"`{lbr['command']}` (resumable, `{Path(args.lbr_aivat_state).name}`). LBR (Lisy and "
        "Bowling, \"Equilibrium Approximation Quality of Current No-Limit Poker Bots\", "
        "arXiv:1612.07547; every bet size of the game, "
        f"{s['lbr_wp_samples']} board samples per win probability) of the blueprint and of "
        f"the resolver over it (`{s['run']}` as it was rebuilt for this run) on the first "
        "deals of the LBR of "
        "`bench/results/hunl_resolving.md`, with the same deal seeds (deal d deals the same "
        "cards in both runs; the policies' actions are drawn from the deal's stream too), "
        "every hand also scored by AIVAT: the policy's probabilities recorded at each of its "
        "decisions, LBR's choices pure (their terms vanish), every card dealt corrected; value "
        "function `CheckDownValues` with the exact pre-flop equities "
        "(`preflop_equity.equity_table()`). mbb/g for LBR (a lower bound on the policy's "
        "exploitability), mean ± 95% half-width over deals (2 hands each, LBR in each seat); "
        "variance ratio = raw per-deal variance / AIVAT's; seconds per deal of one core, "
        "the resolver's including its re-solves.",
        "",
        table(["policy", "deals", "LBR mbb/g", "LBR with AIVAT mbb/g", "variance ratio",
               "s per deal"], rows),
        "",
        "Unbiasedness check: the corrections' mean (AIVAT minus raw, zero in expectation) is "
        + " and ".join(f"{_pm(g['raw'], g['raw_ci'])} mbb/g for the {name}"
                       for name, g in gap.items()) + ".",
        "",
        f"Same deals: the raw LBR equals the one recorded in `{Path(args.state).name}` "
        f"(`lbr_blueprint`, `lbr_resolver`) on {' and '.join(checks)} deals. (The blueprint "
        "has no re-solves: a blueprint deal that differs is a blueprint that plays otherwise. "
        f"The resolver's re-solves stop at {s['max_seconds']} s as well as at 1% of the pot, "
        "so its deals can also differ with the machine's load.)",
        "",
        f"Re-solves during the resolver's LBR: {solves}; {share:.0f}% of its time. Policy "
        f"queries left to the blueprint off the re-solve's tree: {lbr['off_tree']:,} (LBR asks "
        "up to 1,326 per public state).",
        "",
        f"Wall time: {lbr['wall_seconds'] / 60:.1f} min on one core of 2 shared. Code "
        f"{lbr['code']}; {lbr['libraries']}.",
        "",
        blueprint_line(lbr.get("blueprint_build")),
        "",
    ]
    note = getattr(args, "lbr_note", None)
    if note and Path(note).is_file():
        lines += [Path(note).read_text().strip(), ""]
    return lines + others


def small_games_lines(path: Path) -> list[str]:
    """The "Kuhn and Leduc" section: ``bench/aivat_small.py``'s report without its title."""
    lines = ["## Kuhn and Leduc", ""]
    if not path.is_file():
        return lines + ["Not measured yet: `python bench/aivat_small.py --deals 500 --seeds 20` "
                        f"writes `{path.name}`.", ""]
    body = path.read_text().strip().splitlines()
    if body and body[0].startswith("# "):
        body = body[1:]
    while body and not body[0].strip():
        body = body[1:]
    return lines + [f"From `bench/results/{path.name}`:", "", *body, ""]


def aivat_report(state: dict[str, Any], recorded: dict[str, Any], args: argparse.Namespace,
                 big_blind: float, lbr: dict[str, Any] | None = None) -> str:
    """``bench/results/aivat.md``: the match re-scored by AIVAT beside its raw results, LBR
    with AIVAT of both policies (``lbr``: the ``--lbr-aivat`` state) and the Kuhn and Leduc
    results of ``--small-games``."""
    if len(state["match"]) < 2:
        head = ["# AIVAT on hold'em: the re-solving agent against its blueprint", "",
                "## Head to head", "", "Not measured yet: `python bench/hunl_resolving.py "
                "--off-tree blueprint --aivat --deals N` plays it.", ""]
    else:
        head = aivat_match_lines(state, recorded, args, big_blind)
    return "\n".join(head + lbr_aivat_lines(lbr, recorded, args, big_blind)
                     + small_games_lines(Path(args.small_games)))


def read_state(path: Path, args: argparse.Namespace, fresh: dict[str, Any]) -> dict[str, Any]:
    """The state at ``path`` (``fresh`` if there is none); exits if its settings differ."""
    state: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else fresh
    if state["settings"] != settings(args):
        sys.exit(f"{path} holds deals of other settings {state['settings']}")
    return state


def write_aivat_report(args: argparse.Namespace, big_blind: float) -> str:
    """Rewrite ``--aivat-out`` from the saved states (nothing is played); returns its text."""
    fresh = {"settings": settings(args), "match": []}
    state = read_state(Path(args.aivat_state), args, fresh)
    lbr_path = Path(args.lbr_aivat_state)
    lbr = read_state(lbr_path, args, {}) if lbr_path.is_file() else None
    recorded = json.loads(Path(args.state).read_text())
    text = aivat_report(state, recorded, args, big_blind, lbr)
    write_atomically(Path(args.aivat_out), text)
    return text


def checkpoint(path: Path, state: dict[str, Any], wall_seconds: float,
               args: argparse.Namespace, big_blind: float) -> None:
    """Save ``state`` to ``path`` with its wall time and what made it (command, code,
    libraries: the report reads them from the state, so a later rewrite keeps them), and
    rewrite ``--aivat-out``."""
    state.update(wall_seconds=wall_seconds, blueprint_build=run_build(args.run),
                 command="python bench/hunl_resolving.py " + " ".join(sys.argv[1:]),
                 code=code_version(RESULTS.parent.parent), libraries=library_versions())
    save(path, state)
    write_aivat_report(args, big_blind)


def run_aivat(args: argparse.Namespace, game: Any, resolver: Any, blueprint: Any) -> None:
    """``--aivat``: the match and its control again on the same deals, scored by AIVAT (with
    ``--deals`` no more than are saved: only the report is rewritten)."""
    from pokerzoo.evaluation.aivat import AIVATSpec, aivat_deals
    from pokerzoo.evaluation.holdem_values import CheckDownValues

    path = Path(args.aivat_state)
    fresh: dict[str, Any] = {"settings": settings(args), "match": [], "match_aivat": [],
                             "baseline": [], "baseline_aivat": [], "wall_seconds": 0.0}
    state = read_state(path, args, fresh)
    value = CheckDownValues(game)
    entropy = match_entropy(args.seed, None)
    specs = {"match": AIVATSpec(game, (resolver, blueprint), (True, True), value, entropy),
             "baseline": AIVATSpec(game, (blueprint, blueprint), (True, True), value, entropy)}
    start, base_wall = time.perf_counter(), state["wall_seconds"]
    bar = tqdm(total=max(args.deals - len(state["match"]), 0), desc="AIVAT deals", unit="deal")
    while len(state["match"]) < args.deals:
        d0 = len(state["match"])
        d1 = min(d0 + args.chunk, args.deals)
        deals = (args.first_deal + d0, args.first_deal + d1)
        for key, spec in specs.items():
            raw, corrected = aivat_deals(spec, deals)
            state[key] += raw.tolist()
            state[f"{key}_aivat"] += corrected.tolist()
        checkpoint(path, state, base_wall + time.perf_counter() - start, args, game.chip_unit)
        bar.update(d1 - d0)
    bar.close()
    print(write_aivat_report(args, game.chip_unit))


def run_lbr_aivat(args: argparse.Namespace, game: Any, resolver: Any, blueprint: Any) -> None:
    """``--lbr-aivat``: LBR of the blueprint and of the resolver on the first ``--lbr-deals``
    deals, raw and AIVAT-scored, in chunks of ``--chunk`` deals (each policy's chunk saved
    as it ends), with the seconds of each policy and of the resolver's re-solves."""
    from pokerzoo.evaluation.holdem_values import CheckDownValues
    from pokerzoo.public.spots.preflop_equity import equity_table

    path = Path(args.lbr_aivat_state)
    fresh: dict[str, Any] = {"settings": settings(args), "blueprint": [], "resolver": [],
                             "seconds": dict.fromkeys(LBR_POLICIES, 0.0),
                             "resolve_seconds": [], "resolve_rounds": [], "off_tree": 0,
                             "wall_seconds": 0.0}
    state = read_state(path, args, fresh)
    values = CheckDownValues(game, preflop=equity_table(progress=False))
    entropy = match_entropy(args.seed, None)
    bets = tuple(range(2, game.num_distinct_actions))
    policies = {"blueprint": blueprint, "resolver": resolver}
    start, base_wall = time.perf_counter(), state["wall_seconds"]
    seen, off_tree = len(resolver.stats.seconds), resolver.stats.off_tree
    todo = sum(max(args.lbr_deals - len(state[name]), 0) for name in LBR_POLICIES)
    bar = tqdm(total=todo, desc="LBR with AIVAT (policy-deals)", unit="deal")
    while any(len(state[name]) < args.lbr_deals for name in LBR_POLICIES):
        stop = min(len(state["resolver"]) + args.chunk, args.lbr_deals)
        for name in LBR_POLICIES:
            first = len(state[name])
            if first >= stop:
                continue  # a resumed run whose blueprint chunk was saved already
            spec = LBRSpec(game, policies[name], bets, args.lbr_wp_samples, entropy,
                           aivat=values)
            began = time.perf_counter()
            state[name] += lbr_deals(spec, (first, stop)).tolist()
            state["seconds"][name] += time.perf_counter() - began
            stats = resolver.stats
            state["resolve_seconds"] += stats.seconds[seen:]
            state["resolve_rounds"] += stats.rounds[seen:]
            state["off_tree"] += stats.off_tree - off_tree
            seen, off_tree = len(stats.seconds), stats.off_tree
            checkpoint(path, state, base_wall + time.perf_counter() - start, args,
                       game.chip_unit)
            bar.update(stop - first)
    bar.close()
    print(write_aivat_report(args, game.chip_unit))


def main() -> None:
    args = parse()
    from pokerzoo.agents.registry import make_agent
    from pokerzoo.agents.resolver.holdem_agent import blueprint_record
    from pokerzoo.games.registry import load_game

    state_path, out = Path(args.state), Path(args.out)
    state = load_state(state_path, args)
    _, build = blueprint_record(Path(args.run))
    game = load_game(build["game"], **(build.get("game_params") or {}))
    if args.merge:
        text = report(merged(state, [Path(p) for p in args.merge]), args, game.chip_unit)
        write_atomically(out, text)
        print(text)
        return
    start = time.perf_counter()
    base_wall = state["wall_seconds"]
    base_fallbacks = dict(state["fallbacks"])  # earlier processes' counts: a resume adds to them
    agent = make_agent("resolver", game, blueprint=args.run, streets=args.streets,
                       iterations=args.iterations, exploitability_pct=args.exploitability_pct,
                       turn_raise_cap=args.turn_raise_cap,
                       max_seconds=args.max_seconds or None, off_tree=args.off_tree,
                       holdem_continual=args.continual, holdem_gadget=args.gadget)
    resolver = agent.policy()
    blueprint = resolver.blueprint
    if args.aivat:
        run_aivat(args, game, resolver, blueprint)
        return
    if args.lbr_aivat:
        run_lbr_aivat(args, game, resolver, blueprint)
        return
    entropy = match_entropy(args.seed, None)
    seen = 0

    def absorb() -> None:
        nonlocal seen
        st = resolver.stats
        state["resolve_seconds"] += st.seconds[seen:]
        state["resolve_iterations"] += st.iterations[seen:]
        state["resolve_pct"] += st.exploitability_pct[seen:]
        state["resolve_rounds"] += st.rounds[seen:]
        state.setdefault("resolve_origins", [])
        state["resolve_origins"] += st.origins[seen:]
        seen = len(st.seconds)
        counts = {"off_tree": st.off_tree, "dropped": st.dropped_hands,
                  "empty": st.empty_ranges, "range": st.range_fallbacks}
        state["fallbacks"] = {k: base_fallbacks.get(k, 0) + v for k, v in counts.items()}
        state["max_chip_gap"] = max(state["max_chip_gap"], st.max_chip_gap)
        state["wall_seconds"] = base_wall + time.perf_counter() - start
        state["blueprint_build"] = run_build(args.run)
        save(state_path, state)
        write_atomically(out, report(state, args, game.chip_unit))

    if state["spot"] is None and not args.no_spot:
        state["spot"] = spot_losses(game, blueprint, resolver, args)
        absorb()
    bets = tuple(range(2, game.num_distinct_actions))
    todo = max(args.deals - len(state["match"]), 0) + max(args.lbr_deals -
                                                          len(state["lbr_resolver"]), 0)
    bar = tqdm(total=todo, desc="deals", unit="deal")
    while len(state["match"]) < args.deals or len(state["lbr_resolver"]) < args.lbr_deals:
        d0 = len(state["match"])
        if d0 < args.deals:
            d1 = min(d0 + args.chunk, args.deals)
            first = args.first_deal
            part = play_deals(MatchSpec(game, (resolver, blueprint), entropy),
                              (first + d0, first + d1))
            base = play_deals(MatchSpec(game, (blueprint, blueprint), entropy),
                              (first + d0, first + d1))
            state["match"] += part.per_deal.tolist()
            state["baseline"] += base.per_deal.tolist()
            bar.update(d1 - d0)
        l0 = len(state["lbr_resolver"])
        if l0 < args.lbr_deals:
            l1 = min(l0 + max(args.chunk // 2, 1), args.lbr_deals)
            for name, policy in (("blueprint", blueprint), ("resolver", resolver)):
                spec = LBRSpec(game, policy, bets, args.lbr_wp_samples, entropy)
                state[f"lbr_{name}"] += lbr_deals(spec, (l0, l1)).tolist()
            bar.update(l1 - l0)
        absorb()
    bar.close()
    absorb()
    print(report(state, args, game.chip_unit))


if __name__ == "__main__":
    main()
