"""The report of the NFSP-PLT paper protocol grid (``nfsp_paper.py``'s seed records).

Per preset: the mean over seeds, with a 95% t-interval, of the final matches (chips and bb per
hand against Random, NFSP-UCT and Deep CFR) and of NashConv; the PLT - PER and PER - NFSP
differences with Welch 95% intervals; a verdict per difference: "reproduced" only where the
interval excludes 0 with the paper's sign (PLT above PER against Random, Tables 3-4; PER above
NFSP is the paper's premise, not a table: vanilla NFSP is in none of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from nfsp_paper import HUNL_PAPER, OPPONENTS, PAPER_LEDUC, PRESETS
from scipy import stats

METRICS = {  # name -> (reader, the sign a better agent has, label)
    "chips_random": (lambda r: r["final"]["random"]["chips"], 1, "chips/hand vs Random"),
    "nash_conv": (lambda r: r["nash_conv"], -1, "NashConv (chips)"),
}
DIFFERENCES = (("nfsp-plt", "nfsp-per"), ("nfsp-per", "nfsp"))
PAPER_DIFF = {("nfsp-plt", "nfsp-per"): "+0.078 bb/h vs Random (Tables 3-4, one agent each)",
              ("nfsp-per", "nfsp"): "not in the paper's tables (its premise: PER helps)"}


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and 95% t half-width (0 for one value)."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) < 2:
        return float(x.mean()), float("nan")
    return float(x.mean()), float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """mean(a) - mean(b) and its Welch 95% half-width."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(x) < 2 or len(y) < 2:
        return float(x.mean() - y.mean()), float("nan")
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = np.sqrt(vx + vy)
    df = (vx + vy) ** 2 / max(vx**2 / (len(x) - 1) + vy**2 / (len(y) - 1), 1e-300)
    return float(x.mean() - y.mean()), float(stats.t.ppf(0.975, df) * se)


def verdict(diff: float, half: float, sign: int) -> str:
    """"reproduced" only where the interval excludes 0 on the paper's side."""
    if not np.isfinite(half):
        return "too few seeds"
    if diff - half > 0 or diff + half < 0:
        return "reproduced" if np.sign(diff) == sign else "opposite sign"
    return "not distinguishable from 0"


def _fmt(m: float, h: float, digits: int = 3) -> str:
    return f"{m:+.{digits}f} ± {h:.{digits}f}"


def by_preset(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return {p: sorted((r for r in records if r["preset"] == p), key=lambda r: r["seed"])
            for p in PRESETS if any(r["preset"] == p for r in records)}


def hunl_section(records: list[dict[str, Any]]) -> list[str]:
    """The HUNL runs against Random (mean ± 95% CI over seeds), beside the paper's."""
    if not records:
        return []
    lines = ["", "## Heads-up no-limit against Random (Tables 3-4's HUNL column 1)", "",
             f"Our `{records[0]['game']}`, {records[0]['hands']:,} training hands (paper's "
             f"SGD rates), {records[0]['final_hands']:,} duplicate hands against uniform random. "
             "NFSP-UCT and Deep CFR opponents not trained on HUNL (not in the budget).", "",
             "| preset | seeds | bb/h vs Random | paper |", "|---|---|---|---|"]
    for preset in PRESETS:
        rs = [r for r in records if r["preset"] == preset]
        if rs:
            paper = HUNL_PAPER.get(preset)
            lines.append(f"| {preset} | {len(rs)} | "
                         f"{_fmt(*mean_ci([r['bb_per_hand'] for r in rs]), 2)} | "
                         + (f"{paper[0]} ± {paper[1]} |" if paper else "not reported |"))
    return lines


def report(records: list[dict[str, Any]], command: str, note: str,
           hunl: list[dict[str, Any]] | None = None,
           source: str = "bench/results/nfsp/paper_protocol.md") -> tuple[str, list[str]]:
    """The Markdown report and the rows for ``docs/reproductions.md``."""
    groups = by_preset(records)
    first = records[0]
    proto, bb = first["protocol"], first["big_blind_chips"]
    seeds = {p: len(v) for p, v in groups.items()}
    lines = [
        "# NFSP, NFSP-PER, NFSP-PLT under the NFSP-PLT paper's protocol (Li et al. 2023)",
        "",
        f"`{command}`",
        "",
        note,
        "",
        f"Game: {first['game']}, big blind {bb:g} chips. Optimiser: "
        f"{first['optimizer']['rl']} {first['optimizer']['rl_lr']:g} (Q) / "
        f"{first['optimizer']['sl']} {first['optimizer']['sl_lr']:g} (average policy). "
        f"{proto['hands']:,} training hands, {proto['num_envs']} at a time; against uniform "
        f"random every {proto['eval_every']:,} hands ({proto['curve_deals']:,} duplicate deals "
        f"= {2 * proto['curve_deals']:,} hands); final matches {proto['final_hands']:,} hands "
        "each (duplicate deals). Seeds per preset: "
        + ", ".join(f"{p} {n}" for p, n in seeds.items())
        + ". Intervals: 95% t over seeds (the paper's ± are over evaluation games of one agent). "
        f"Mean per run: {np.mean([r['seconds'] for r in records]):.0f} s wall, "
        f"{np.mean([r.get('cpu_seconds', np.nan) for r in records]):.0f} s CPU.",
        "",
        "## Final matches and NashConv (mean ± 95% CI over seeds)",
        "",
    ]
    head = ["preset", "seeds", "chips/hand vs Random", "bb/h vs Random"]
    head += [f"bb/h vs {o}" for o in OPPONENTS]
    head += ["NashConv (chips)", "paper (bb/h R / UCT / DCFR)"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for preset, rs in groups.items():
        cells = [preset, str(len(rs)), _fmt(*mean_ci([r["final"]["random"]["chips"] for r in rs])),
                 _fmt(*mean_ci([r["final"]["random"]["bb"] for r in rs]))]
        for o in OPPONENTS:
            vals = [r["final"][o]["bb"] for r in rs if o in r["final"]]
            cells.append(_fmt(*mean_ci(vals)) if vals else "not played")
        cells.append(_fmt(*mean_ci([r["nash_conv"] for r in rs])))
        paper = PAPER_LEDUC.get(preset)
        cells.append(" / ".join(f"{paper[k][0]:.4f} ± {paper[k][1]}" for k in
                                ("random", "nfsp-uct", "deep-cfr")) if paper else "not reported")
        lines.append("| " + " | ".join(cells) + " |")
    opp = ", ".join(f"{n} {v:.3f}" for n, v in first.get("opponent_nash_conv", {}).items())
    lines += ["", f"Uniform random's NashConv: {first['nash_conv_uniform']:.3f} chips; the fixed "
              f"opponents' (`bench/results/nfsp/opponents/`): {opp or 'not recorded'}.", "",
              "## Differences (Welch 95% CI over seeds)", "",
              "| difference | metric | ours | paper | verdict |", "|---|---|---|---|---|"]
    rows = []
    for a, b in DIFFERENCES:
        if a not in groups or b not in groups:
            continue
        for name, (read, sign, label) in METRICS.items():
            d, h = welch([read(r) for r in groups[a]], [read(r) for r in groups[b]])
            paper = (PAPER_DIFF[(a, b)] if name == "chips_random"
                     else "not measured (the claim's direction: lower)")
            sign_note = "" if name == "chips_random" else " (better = lower)"
            v = verdict(d, h, sign)
            lines.append(f"| {a} - {b} | {label}{sign_note} | {_fmt(d, h)} | {paper} | {v} |")
            rows.append((a, b, label, d, h, v))
    lines += ["", "## Fig. 2a: against Random during training (mean over seeds)", ""]
    every, points = proto["eval_every"], len(first["curve"])
    picks = sorted({0, points // 10, points // 5, points // 2, points - 1})
    lines += ["| preset | " + " | ".join(f"{every * (i + 1):,} hands" for i in picks) + " |",
              "|---|" + "---|" * len(picks)]
    for preset, rs in groups.items():
        cells = []
        for i in picks:  # the i-th point of every run (runs may overshoot a mark by a batch)
            c = np.mean([r["curve"][i]["random"]["chips"] for r in rs])
            n = np.mean([r["curve"][i]["nash_conv"] for r in rs])
            cells.append(f"{c:+.3f} chips (NashConv {n:.2f})")
        lines.append(f"| {preset} | " + " | ".join(cells) + " |")
    lines += hunl_section(hunl or [])
    return "\n".join(lines) + "\n", docs_rows(groups, rows, command, note, source)


def docs_rows(groups: dict[str, list[dict[str, Any]]], diffs: list[tuple], command: str,
              note: str, source: str) -> list[str]:
    """The Leduc row of the NFSP table of ``docs/reproductions.md``."""
    def final(preset: str, key: str) -> str:
        vals = [r["final"][key]["bb"] for r in groups[preset] if key in r["final"]]
        return _fmt(*mean_ci(vals), 2) if vals else "not played"

    def nash(preset: str) -> str:
        return _fmt(*mean_ci([r["nash_conv"] for r in groups[preset]]), 2).lstrip("+")

    first = next(iter(groups.values()))[0]
    hands = first["protocol"]["hands"]
    paper_side = "; ".join(
        f"{p} ({len(rs)} seeds) {final(p, 'random')} / {final(p, 'nfsp-uct')} / "
        f"{final(p, 'deep-cfr')}" for p, rs in groups.items())
    by_metric = {label: [d for d in diffs if d[2] == label] for label in
                 (METRICS["chips_random"][2], METRICS["nash_conv"][2])}
    diff_text = {label: "; ".join(f"{a} - {b} {_fmt(d, h)} ({v})" for a, b, _, d, h, v in ds)
                 for label, ds in by_metric.items()}
    ours = (f"NashConv (chips) after {hands:,} hands: "
            + ", ".join(f"{p} {nash(p)}" for p in groups)
            + f" (uniform {first['nash_conv_uniform']:.2f}); differences: "
            + diff_text[METRICS["nash_conv"][2]])
    verdicts = [d for d in diffs if d[0] == "nfsp-plt"]
    verdict_text = "; ".join(f"PLT - PER in {label}: {v}" for _, _, label, _, _, v in verdicts)
    return [
        "| NFSP-PLT beats NFSP-PER on Leduc (Sec. 5.2, Tables 3-4) | one trained agent each, "
        "20,000 games: PER 0.9731 ± 0.05 / 0.0168 ± 0.09 / 0.2162 ± 0.07 bb/h, PLT 1.0513 ± 0.05 "
        "/ 0.0189 ± 0.09 / 0.2633 ± 0.07 bb/h against Random / NFSP-UCT / DeepCFR (PLT - PER "
        "+0.078 against Random); ± over games, not seeds; no NashConv | "
        f"{note} bb/h against Random / our NFSP-UCT / our Deep CFR, mean ± 95% CI over seeds: "
        f"{paper_side}; differences in chips/hand against Random: "
        f"{diff_text[METRICS['chips_random'][2]]} (`{source}`) | "
        f"{ours} | {verdict_text or 'not yet measured'} | `{command}` |",
    ]
