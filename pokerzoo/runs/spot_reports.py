"""``evaluate.py --spot`` and ``--spot-decision``: saved runs scored at a spot.

The evaluators (``pokerzoo.evaluation.spot_eval``, ``pokerzoo.evaluation.spot_decision``)
score a policy; this module opens each run's agent (``pokerzoo.runs.load.load_agent``), hands
its policy to them, and formats the report the script prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.spot_decision import (
    evaluate_decision,
    line_locks,
    node_at,
    range_frequencies,
    scored_nodes,
    solve_locked,
)
from pokerzoo.evaluation.spot_eval import (
    DEFAULT_MAX_QUERIES,
    check_queries,
    evaluate_at_spot,
    find_line,
    own_ranges,
)
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import PublicTree
from pokerzoo.runs.load import load_agent


def spot_report(runs: list[Any], spot_path: str | Path, players: str = "both",
                exploitability_pct: float = 0.3, ranges: str = "declared") -> dict[str, Any]:
    """``evaluate.py --spot``: each run (a ``SavedRun``) scored at the spot as ``players``
    (``"oop"``, ``"ip"`` or ``"both"``) at the spot's ``"declared"`` ranges (the equilibrium
    solved once for all) or at the ranges its own play reaches the spot with (``"own"``:
    :func:`own_ranges`, one equilibrium per run)."""
    spot = HoldemSpot.from_toml(spot_path)
    spot = HoldemSpot.from_dict({**spot.to_dict(), "suit_isomorphism": False})
    scored = {"oop": [0], "ip": [1], "both": [0, 1]}.get(players)
    if scored is None:
        raise ConfigError(f"the spot player must be oop, ip or both, got {players!r}")
    if ranges not in ("declared", "own"):
        raise ConfigError(f"the spot ranges must be declared or own, got {ranges!r}")

    def solved(at: HoldemSpot) -> PublicSolver:
        tree = build_spot_tree(at)
        for p in scored:
            check_queries(tree, p, DEFAULT_MAX_QUERIES)
        for run in runs:
            find_line(run.game, at)
        solver = PublicSolver(tree)
        solver.solve(5000, target_pct=exploitability_pct)
        return solver

    equilibrium = solved(spot) if ranges == "declared" else None
    out: dict[str, Any] = {"spot": str(spot_path), "ranges": ranges}
    if equilibrium is not None:
        out["equilibrium_exploitability_pct"] = equilibrium.exploitability_pct()
    for run in runs:
        policy = load_agent(run.folder).policy()
        at, eq = spot, equilibrium
        if eq is None:
            at = own_ranges(run.game, policy, spot)
            eq = solved(at)
        results = {("oop", "ip")[p]: evaluate_at_spot(run.game, policy, at, p,
                                                      equilibrium=eq).to_dict()
                   for p in scored}
        results = {k: {**r, "spot_equilibrium_exploitability_pct": eq.exploitability_pct(),
                       "spot_ranges": ranges} for k, r in results.items()}
        out[run.label] = {
            "spot_ev_loss_chips": {k: r["spot_ev_loss_chips"] for k, r in results.items()},
            "spot_ev_loss_pct_pot": {k: r["spot_ev_loss_pct_pot"] for k, r in results.items()},
            "details": results,
        }
    return out


def format_spot_report(report: Mapping[str, Any]) -> str:
    """The lines ``evaluate.py --spot`` prints."""
    lines = [f"spot {report['spot']} at {report['ranges']} ranges"]
    for label, r in report.items():
        if not isinstance(r, Mapping):
            continue
        for who, chips in r["spot_ev_loss_chips"].items():
            off = r["details"][who]["spot_off_tree_mass"]
            eq = r["details"][who]["spot_equilibrium_exploitability_pct"]
            lines.append(f"{label} as {who}: EV loss {chips:.4g} chips = "
                         f"{r['spot_ev_loss_pct_pot'][who]:.4g}% of the pot (equilibrium "
                         f"exploitable by {eq:.3f}% of the pot)"
                         + (f" (policy mass off the spot's tree, at most {off:.1%} of a hand's, "
                            "renormalized)" if off > 1e-9 else ""))
    return "\n".join(lines)


def decision_report(runs: list[Any], spot_path: str | Path, line: Sequence[str],
                    scope: str = "decision", exploitability_pct: float = 0.3,
                    ranges: str = "declared", hands: Sequence[str] = (),
                    off_tree: str = "nearest", max_iterations: int = 5000,
                    threads: int = 1) -> dict[str, Any]:
    """``evaluate.py --spot FILE --spot-decision LINE``: each run (a ``SavedRun``) scored at the
    decision ``line`` leads to, at the spot's declared ranges (one equilibrium for all) or at
    the ranges its own play reaches the decision with (``"own"``: ``own_ranges`` through the
    line, one tree and equilibrium per run); ``hands`` (e.g. ``["AdQh"]``): their frequencies,
    agent beside equilibrium."""
    if ranges not in ("declared", "own"):
        raise ConfigError(f"the spot ranges must be declared or own, got {ranges!r}")
    spot = HoldemSpot.from_toml(spot_path)
    spot = HoldemSpot.from_dict({**spot.to_dict(), "suit_isomorphism": False})
    line = list(line)
    for run in runs:
        find_line(run.game, spot)  # refused before anything is built or solved

    def prepared(at: HoldemSpot) -> tuple[PublicTree, PublicSolver]:
        tree = build_spot_tree(at)
        node = node_at(tree, line)
        scored_nodes(tree, node, scope)
        return tree, solve_locked(tree, line_locks(tree, node), exploitability_pct,
                                  max_iterations, threads)

    shared = prepared(spot) if ranges == "declared" else None
    out: dict[str, Any] = {"spot": str(spot_path), "ranges": ranges, "decision": line,
                           "scope": scope, "off_tree": off_tree}
    for run in runs:
        policy = load_agent(run.folder).policy()
        at = spot if ranges == "declared" else own_ranges(run.game, policy, spot, through=line)
        tree, eq = shared if shared is not None else prepared(at)
        r = evaluate_decision(run.game, policy, at, tree, line, scope, exploitability_pct,
                              max_iterations, eq, off_tree, threads)
        entry = r.to_dict()
        entry["spot_hands"] = {h: r.hand_frequencies(tree, h) for h in hands}
        entry["spot_range_frequencies"] = range_frequencies(tree, r)
        out[run.label] = entry
    return out


def format_decision_report(report: dict[str, Any]) -> str:
    """The lines ``evaluate.py --spot ... --spot-decision`` prints."""
    lines = [f"spot {report['spot']} at {report['ranges']} ranges, "
             f"{report['scope']} after {', '.join(report['decision'])}"]
    for label, r in report.items():
        if not isinstance(r, dict):
            continue
        low, high = r["spot_ev_loss_bounds_chips"]
        lines.append(
            f"{label} as {r['spot_player']}: EV loss {r['spot_ev_loss_chips']:.4g} chips = "
            f"{r['spot_ev_loss_pct_pot']:.4g}% of the pot (bounds {low:.4g} to {high:.4g} "
            f"chips; solves exploitable by {r['spot_equilibrium_exploitability_pct']:.3f}% and "
            f"{r['spot_locked_exploitability_pct']:.3f}% of the pot; off-tree share at most "
            f"{r['spot_off_tree_mass']:.1%}, {report['off_tree']})")
        for who in ("agent", "equilibrium"):
            freq = r["spot_range_frequencies"][who]
            lines.append(f"  range, {who}: " + ", ".join(f"{a} {v:.1f}%" for a, v in freq.items()))
        for hand, freqs in r["spot_hands"].items():
            for who, freq in freqs.items():
                lines.append(f"  {hand}, {who}: "
                             + ", ".join(f"{a} {v:.1f}%" for a, v in freq.items()))
    return "\n".join(lines)
