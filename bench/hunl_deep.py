"""Deep CFR (and Deep GXFP) on heads-up no-limit hold'em: LBR, head-to-head, the flop spot.

The game is ``no_limit_holdem`` with its defaults, which are the Deep GXFP paper's abstraction
(its abstraction): blinds 50/100 chips, 100 bb deep, actions fold, check/call, bet/raise half
pot, bet/raise pot, all-in. The tree does not fit, so each deep agent traverses sampled deals:
on batches of ``HoldemArrays`` rows (``agents.deep.array_traversal``, the agents' default
``traversal_backend="auto"``; ``"states"`` would walk ``State`` objects instead, the same
samples several times slower). Both get the same budget; at a few points of its training its
average-strategy network is measured by

* LBR (``evaluation.lbr``): a lower bound on its exploitability, mbb/g with a 95% CI;
* head-to-head bb/100 with a 95% CI (duplicate deals) against random, always-call, a briefly
  trained NFSP-PLT, and the other deep agent at the same point;
* its action frequencies in the paper's flop spot (``flop_spot``; see its docstring for the
  preflop line), beside GTO+ and the paper's Deep GXFP.

Everything done is kept under ``--work`` (checkpoints, policy networks, one JSON per measured
point) and skipped on rerun, so a run can be stopped and resumed. ``--diagnose`` (training
nothing) records from what is there how the big blind's strategy answers each of the hero's
raises at the spot and (Deep GXFP) the utility network's estimate of each hero action.
``--summary-only`` rewrites ``bench/results/deep/hunl.md`` and ``hunl.png`` from the records
of ``--work`` and of each
``--earlier`` run (a directory of the same records; a ``note.md`` in a records directory is
that run's reading, shown under its tables).

The agents trained here are this benchmark's own (the paper's 50/100 game), not the HUNL
blueprint of the other ``bench/hunl_*`` benchmarks: that one is rebuilt by ``python train.py
--config configs/hunl_blueprint.toml`` (``bench/results/blueprint.md``).

    python bench/hunl_deep.py                          # the default (tiny) budget
    python bench/hunl_deep.py --agents deep-cfr --iterations 4 --eval-at 2,4   # a quick look
    python bench/hunl_deep.py --summary-only \\
        --work bench/results/deep/hunl_records/arrays-3000x48 \\
        --earlier bench/results/deep/hunl_records/states-200x48
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table

RESULTS = Path(__file__).resolve().parent / "results" / "deep"
PAPER = {
    "GTO+": {"fold": 0.0, "call": 8.3, "raise half": 21.0, "raise pot": 70.7},
    "Deep GXFP (paper)": {"fold": 0.4, "call": 11.2, "raise half": 19.1, "raise pot": 69.3},
}
"""The paper's Table 1 (per cent); it has no all-in action."""
ACTION_NAMES = ("fold", "call", "raise half", "raise pot", "all-in")
HERO_CARDS = ("Ad", "Qh")
FLOP = ("Qs", "Jh", "2h")
VILLAIN_CARDS = ("3c", "4d")
"""Any two cards: the hero's information state does not contain them."""
BIG_BLIND = 100
"""Chips (the game's default blinds are 50/100)."""
LINES = {"raise half pot, call ($8 pot)": 2, "raise pot, call ($12 pot)": 3}
"""The preflop lines of ``flop_spot``: the button's opening action, then the big blind calls."""


def agent_params(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """The budget of each deep agent (the same traversals and SGD steps for both)."""
    common = {"device": "cpu", "batch_size": args.batch}
    if name == "deep-cfr":
        return {**common, "traversals": args.traversals, "advantage_steps": args.steps,
                "policy_steps": args.policy_steps, "advantage_memory": args.memory,
                "strategy_memory": args.memory}
    return {**common, "traversals": args.traversals, "utility_steps": args.steps,
            "strategy_steps": args.steps, "strategy_memory": args.memory}


def make_deep(name: str, game: Any, args: argparse.Namespace) -> Any:
    """``make_agent("deep-cfr", game)`` builds the sampled-traversal Deep CFR for hold'em;
    Deep GXFP's sampled-traversal version is built directly. Both traverse array rows by
    default."""
    from pokerzoo.agents.registry import make_agent

    if name == "deep-gxfp":
        from pokerzoo.agents.deep.state_gxfp import StateDeepGXFP

        return StateDeepGXFP(game, seed=args.seed, **agent_params(name, args))
    return make_agent(name, game, seed=args.seed, **agent_params(name, args))


def card(text: str) -> int:
    from pokerzoo.games.holdem.cards import CARD_STRINGS

    return CARD_STRINGS.index(text)


def flop_spot(game: Any, opening: int, villain: tuple[str, ...] = VILLAIN_CARDS) -> Any:
    """The paper's spot: $1/$2 (50/100 chips, so $1 = 50 chips), $200 (100 big blind) stacks,
    the hero on the button (seat 0: in position after the flop) with Ad Qh, flop Qs Jh 2h, the
    big blind bets half the pot into the hero.

    The paper's $10 flop pot (say a 2.5 big blind open, called) is not reachable in this
    abstraction: the button's half-pot open is to 200 chips ($4; the pot after the call is
    $8) and its pot-sized open to 300 ($6; $12 pot). Both lines are measured; the big
    blind's flop bet is half of that pot, as in the paper.
    """
    state = flop_before_bet(game, opening, villain)
    state.apply_action(2)  # the big blind bets half the pot
    assert state.current_player() == 0 and state.legal_actions() == [0, 1, 2, 3, 4]
    return state


def flop_before_bet(game: Any, opening: int, villain: tuple[str, ...] = VILLAIN_CARDS) -> Any:
    """The line of ``flop_spot`` up to the big blind's first flop decision."""
    state = game.new_initial_state()
    for c in (*HERO_CARDS, *villain):
        state.apply_action(card(c))
    state.apply_action(opening)  # the button opens
    state.apply_action(1)  # the big blind calls
    for c in FLOP:
        state.apply_action(card(c))
    assert state.current_player() == 1
    return state


def spot_frequencies(game: Any, policy: Any) -> dict[str, dict[str, float]]:
    """Per preflop line: the hero's action frequencies (per cent) at the flop spot."""
    out = {}
    for line, opening in LINES.items():
        state = flop_spot(game, opening)
        probs = policy.action_probabilities(state)
        out[line] = {ACTION_NAMES[a]: 100.0 * probs.get(a, 0.0) for a in range(5)}
    return out


def villain_answers(game: Any, policy: Any, opening: int) -> dict[str, Any]:
    """How ``policy`` as the big blind answers each of the hero's raises at the flop spot.

    Per hero raise: the big blind's fold / call / raise frequencies (per cent), averaged over
    its hole cards (those not on the board or in the hero's hand) weighted by the chance its
    own strategy reaches the spot with them (calling the open, betting the flop); also that
    range's share of all its hands (``reach``: per cent)."""
    import numpy as np

    from pokerzoo.games.holdem.cards import CARD_STRINGS

    used = {card(c) for c in (*HERO_CARDS, *FLOP)}
    free = [c for c in CARD_STRINGS if card(c) not in used]
    pairs = [(a, b) for i, a in enumerate(free) for b in free[i + 1:]]
    weight = np.empty(len(pairs))
    answers = np.zeros((3, len(pairs), 3))  # hero raise, villain hand, fold/call/raise
    for k, pair in enumerate(pairs):
        state = game.new_initial_state()
        for c in (*HERO_CARDS, *pair):
            state.apply_action(card(c))
        state.apply_action(opening)
        before = flop_before_bet(game, opening, pair)
        # Its chance of calling the open, then of betting half the pot on the flop.
        weight[k] = (policy.action_probabilities(state)[1]
                     * policy.action_probabilities(before)[2])
        spot = before.child(2)
        for i, raise_ in enumerate((2, 3, 4)):
            probs = policy.action_probabilities(spot.child(raise_))
            answers[i, k] = [probs.get(0, 0.0), probs.get(1, 0.0),
                             sum(v for a, v in probs.items() if a >= 2)]
    mean = np.einsum("k,ikj->ij", weight, answers) / max(weight.sum(), 1e-12)
    return {"reach": 100.0 * float(weight.mean()),
            **{ACTION_NAMES[r]: dict(zip(("fold", "call", "raise"), 100.0 * mean[i]))
               for i, r in enumerate((2, 3, 4))}}


def nfsp_opponent(game: Any, args: argparse.Namespace, work: Path) -> Any:
    """NFSP-PLT trained by self-play for ``--nfsp-hands`` hands (kept under ``work``).

    The registry's defaults (SGD, squared TD error, rewards in big blinds) diverge on this game
    within a few thousand hands (``TD errors must be finite``); Adam, the Huber loss, a
    gradient clip of 1 and rewards in units of 100 big blinds keep it finite.
    """
    from pokerzoo.agents.registry import make_agent

    agent = make_agent("nfsp-plt", game, seed=args.seed, optimizer="adam", loss="huber",
                       max_grad_norm=1.0, reward_scale=0.01)
    path = work / f"nfsp-plt-{args.nfsp_hands}.ckpt"
    if path.exists():
        agent.load(path)
    else:
        start = time.perf_counter()
        agent.iterate(args.nfsp_hands)
        agent.save(path)
        (work / "nfsp-plt.json").write_text(json.dumps(
            {"hands": agent.iteration, "seconds": time.perf_counter() - start}))
    return agent.policy()


def policy_from_file(game: Any, path: Path) -> Any:
    """The average-strategy network saved at a measured point, as a state policy."""
    import torch

    from pokerzoo.agents.deep.network import CardBettingNet
    from pokerzoo.agents.deep.state_policy import NetworkStatePolicy

    saved = torch.load(path, weights_only=True)
    net = CardBettingNet(game.information_state_layout, game.num_distinct_actions,
                         int(saved["width"]))
    net.load_state_dict(saved["state"])
    return NetworkStatePolicy(game, [net] * game.num_players)


def save_policy(policy: Any, width: int, path: Path) -> None:
    import torch

    net = policy.nets[0]
    torch.save({"width": width, "state": net.state_dict()}, path.with_suffix(".tmp"))
    os.replace(path.with_suffix(".tmp"), path)


def write_json(path: Path, record: Any) -> None:
    path.with_suffix(".tmp").write_text(json.dumps(record, indent=1))
    os.replace(path.with_suffix(".tmp"), path)


def measure(game: Any, policy: Any, opponents: dict[str, Any], args: argparse.Namespace,
            seed: int) -> dict[str, Any]:
    """LBR, matches against each opponent and the flop spot of one policy."""
    from pokerzoo.evaluation import head_to_head
    from pokerzoo.evaluation.lbr import local_best_response

    start = time.perf_counter()
    lbr = local_best_response(game, policy, args.lbr_deals, seed=seed, wp_samples=args.wp)
    record: dict[str, Any] = {
        "lbr_mbb": lbr.mbb_per_game, "lbr_ci": lbr.mbb_per_game_ci,
        "lbr_seconds": time.perf_counter() - start, "matches": {},
    }
    for name, opponent in opponents.items():
        m = head_to_head(game, [policy, opponent], args.match_deals, seed=seed + 1)
        record["matches"][name] = [float(m.bb_per_100[0]), float(m.bb_per_100_ci[0])]
    record["spot"] = spot_frequencies(game, policy)
    record["seconds"] = time.perf_counter() - start
    return record


def train_agent(name: str, game: Any, opponents: dict[str, Any], args: argparse.Namespace,
                work: Path) -> None:
    """Train ``name`` up to ``--iterations``, measuring at ``--eval-at`` (resumable)."""
    agent = make_deep(name, game, args)
    points = sorted(int(p) for p in args.eval_at.split(","))
    ckpt = work / f"{name}.ckpt"
    meta_path = work / f"{name}.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"train_seconds": 0.0,
                                                                           "nodes": 0}
    if ckpt.exists():
        agent.load(ckpt)  # older checkpoints resume: check_saved_config
        print(f"{name}: resumed at iteration {agent.iteration}", flush=True)
    while agent.iteration < max(points):
        start = time.perf_counter()
        nodes0 = agent.nodes_touched
        agent.iterate(1)
        meta["train_seconds"] += time.perf_counter() - start
        meta["nodes"] += agent.nodes_touched - nodes0
        print(f"{name}: iteration {agent.iteration} ({time.perf_counter() - start:.0f} s, "
              f"{meta['nodes']:,} states so far)", flush=True)
        if agent.iteration in points:
            point = work / f"{name}-it{agent.iteration}.json"
            policy = agent.policy()
            save_policy(policy, agent.config.width, point.with_suffix(".pt"))
            if not point.exists():
                record = measure(game, policy, opponents, args, seed=1000 + agent.iteration)
                record.update(iteration=agent.iteration, train_seconds=meta["train_seconds"],
                              nodes=meta["nodes"])
                write_json(point, record)
                print(f"{name} at {agent.iteration}: LBR {record['lbr_mbb']:+.0f} +- "
                      f"{record['lbr_ci']:.0f} mbb/g, {record['matches']}", flush=True)
            agent.save(ckpt)
            write_json(meta_path, meta)


def cross_matches(game: Any, agents: list[str], args: argparse.Namespace, work: Path) -> None:
    """The deep agents against each other at each common measured point."""
    from pokerzoo.evaluation import head_to_head

    if len(agents) < 2:
        return
    a, b = agents[:2]
    for point in sorted(int(p) for p in args.eval_at.split(",")):
        out = work / f"cross-it{point}.json"
        pa, pb = (work / f"{x}-it{point}.pt" for x in (a, b))
        if out.exists() or not (pa.exists() and pb.exists()):
            continue
        m = head_to_head(game, [policy_from_file(game, pa), policy_from_file(game, pb)],
                         args.match_deals, seed=2000 + point)
        write_json(out, {"iteration": point, "players": [a, b],
                         "bb_per_100": [float(m.bb_per_100[0]), float(m.bb_per_100_ci[0])]})


def reference_lbr(game: Any, opponents: dict[str, Any], args: argparse.Namespace,
                  work: Path) -> None:
    """LBR against the fixed opponents, to calibrate what LBR finds with these settings."""
    from pokerzoo.evaluation.lbr import local_best_response

    out = work / "reference-lbr.json"
    if out.exists():
        return
    record = {}
    for name in ("random", "always-call"):
        r = local_best_response(game, opponents[name], args.lbr_deals, seed=999,
                                wp_samples=args.wp)
        record[name] = [r.mbb_per_game, r.mbb_per_game_ci]
    write_json(out, record)


def gxfp_utilities(game: Any, path: Path) -> dict[str, Any]:
    """Deep GXFP's action-utility network of the hero (seat 0) at the flop spot, read from
    the checkpoint at ``path``, in big blinds per action: what its best decisions, and so its
    strategy, follow. Only the network is read (no agent is built), so a checkpoint of an
    older config still answers."""
    import torch

    from pokerzoo.agents.deep.network import CardBettingNet
    from pokerzoo.agents.deep.state_traversal import value_scale
    from pokerzoo.checkpoint import read_checkpoint

    _, state = read_checkpoint(path, agent_name="deep-gxfp")
    net = CardBettingNet(game.information_state_layout, game.num_distinct_actions,
                         int(state["config"]["width"]))
    net.load_state_dict({k: torch.as_tensor(v) for k, v in state["utility"][0]["weights"].items()})
    out: dict[str, Any] = {"iteration": int(state["iteration"])}
    for line, opening in LINES.items():
        spot = flop_spot(game, opening)
        with torch.no_grad():
            u = net(torch.as_tensor(spot.information_state_tensor(0)[None]))[0].numpy()
        out[line] = {ACTION_NAMES[a]: float(u[a]) / value_scale(game) / BIG_BLIND
                     for a in spot.legal_actions()}
    return out


def diagnose(game: Any, agents: list[str], work: Path) -> None:
    """``diagnosis.json``: the big blind's answers at the spot under each measured policy,
    and Deep GXFP's utility estimates there at its last checkpoint."""
    out = work / "diagnosis.json"
    record = json.loads(out.read_text()) if out.exists() else {"answers": {}}
    for name in agents:
        for pt in sorted(work.glob(f"{name}-it*.pt"), key=lambda p: int(p.stem.split("-it")[1])):
            key = f"{name} it {int(pt.stem.split('-it')[1])}"
            if key not in record["answers"]:
                policy = policy_from_file(game, pt)
                record["answers"][key] = {line: villain_answers(game, policy, opening)
                                          for line, opening in LINES.items()}
                write_json(out, record)
                print(f"diagnosed {key}", flush=True)
        if name == "deep-gxfp":
            # The last checkpoint, and any kept of earlier points (deep-gxfp-it<n>.ckpt).
            for ckpt in sorted(work.glob(f"{name}*.ckpt")):
                u = gxfp_utilities(game, ckpt)
                record.setdefault("utilities", {})[str(u.pop("iteration"))] = u
    write_json(out, record)


def run_records(work: Path) -> dict[str, Any]:
    """One run's records: measured points, cross matches, references, NFSP, diagnosis."""
    def read(name: str) -> Any:
        path = work / name
        return json.loads(path.read_text()) if path.exists() else None

    records = [json.loads(p.read_text()) | {"agent": p.name.split("-it")[0]}
               for p in sorted(work.glob("deep-*-it*.json"))]
    records.sort(key=lambda r: (r["agent"], r["iteration"]))
    cross = sorted((json.loads(p.read_text()) for p in work.glob("cross-it*.json")),
                   key=lambda c: c["iteration"])
    command_file = work / "command.txt"
    commands = ([c for c in command_file.read_text().splitlines() if c]
                if command_file.exists() else [])
    budget = make_parser().parse_args(commands[-1].split()[2:]) if commands else None
    note = work / "note.md"
    return {"records": records, "cross": cross, "commands": commands, "budget": budget,
            "refs": read("reference-lbr.json"), "nfsp": read("nfsp-plt.json"),
            "diagnosis": read("diagnosis.json"),
            "note": note.read_text().strip() if note.exists() else None}


def run_section(run: dict[str, Any], heading: str) -> list[str]:
    """The Markdown of one run."""
    records, budget = run["records"], run["budget"]
    iters = max((r["iteration"] for r in records), default=0)
    lines = [f"## {heading}"]
    if budget is not None:
        lines += ["", f"{iters} iterations of {budget.traversals:,} traversals per player "
                      f"({iters * budget.traversals:,} each); {budget.steps} SGD steps per "
                      f"network fit (Deep CFR's strategy network: {budget.policy_steps}), "
                      f"batch {budget.batch}, memories {budget.memory:,}; LBR "
                      f"{budget.lbr_deals} deals, matches {budget.match_deals:,} deals."]
    lines += ["", "Commands (in order): `" + "`, `".join(run["commands"]) + "`"]
    if run["note"]:
        lines += ["", run["note"]]
    lines += ["", "### Exploitability lower bound (LBR) and matches, bb/100 for the agent, "
                  "95% CI", ""]
    opponents = sorted({o for r in records for o in r["matches"]})
    headers = ["agent", "iteration", "states visited", "train s", "LBR mbb/g"] + [
        f"vs {o}" for o in opponents]
    rows = []
    for r in records:
        rows.append([r["agent"], r["iteration"], f"{r['nodes']:,}", round(r["train_seconds"]),
                     f"{r['lbr_mbb']:+.0f} ± {r['lbr_ci']:.0f}"] + [
            f"{r['matches'][o][0]:+.0f} ± {r['matches'][o][1]:.0f}" if o in r["matches"]
            else "-" for o in opponents])
    lines.append(table(headers, rows))
    if run["cross"]:
        lines += ["", "Deep agents against each other (bb/100 for the first, 95% CI):", ""]
        lines.append(table(["iteration", "match", "bb/100"], [
            [c["iteration"], f"{c['players'][0]} vs {c['players'][1]}",
             f"{c['bb_per_100'][0]:+.0f} ± {c['bb_per_100'][1]:.0f}"] for c in run["cross"]]))
    if run["refs"]:
        lines += ["", "LBR with the same settings against the fixed opponents (calibration): " +
                  ", ".join(f"{k} {v[0]:+.0f} ± {v[1]:.0f} mbb/g"
                            for k, v in run["refs"].items()) + "."]
    if run["nfsp"]:
        lines += ["", f"NFSP-PLT opponent: {run['nfsp']['hands']:,} self-play hands in "
                      f"{run['nfsp']['seconds']:.0f} s (Adam, Huber loss, clip 1, rewards in 100 "
                      "bb: the registry defaults diverge on this game)."]
    lines += ["", "### The flop spot (hero on the button, Ad Qh on Qs Jh 2h, facing a half-pot "
              "bet), per cent", ""]
    gto = PAPER["GTO+"]

    def distance(freq: dict[str, float]) -> str:
        # Total variation to GTO+ in points (GTO+ has no all-in: 0 there).
        return f"{sum(abs(freq[a] - gto.get(a, 0.0)) for a in freq) / 2:.0f}"

    spot_rows = [[name, "-"] + [f"{v[a]:.1f}" for a in ACTION_NAMES[:4]] + ["-", distance(v)]
                 for name, v in PAPER.items()]
    for r in records:
        for line, freq in r["spot"].items():
            spot_rows.append([f"{r['agent']} it {r['iteration']}", line] +
                             [f"{freq[a]:.1f}" for a in ACTION_NAMES] + [distance(freq)])
    lines.append(table(["policy", "preflop line", *ACTION_NAMES, "TV to GTO+"], spot_rows))
    diagnosis = run["diagnosis"]
    if diagnosis:
        lines += ["", "The big blind's answer to each hero raise at the spot under the same "
                      "policy (per cent of its range there: its hands weighted by the chance "
                      "the policy calls the open and bets the flop with them; *reach*: that "
                      "range's share of all its hands):", ""]
        rows = []
        by_point = sorted(diagnosis["answers"].items(),
                          key=lambda kv: (kv[0].split(" it ")[0], int(kv[0].split(" it ")[1])))
        for key, per_line in by_point:
            for line, a in per_line.items():
                rows.append([key, line, f"{a['reach']:.1f}"] + [
                    f"{a[r]['fold']:.0f} / {a[r]['call']:.0f} / {a[r]['raise']:.0f}"
                    for r in ACTION_NAMES[2:]])
        lines.append(table(["policy", "preflop line", "reach"] + [
            f"vs {r}: fold / call / raise" for r in ACTION_NAMES[2:]], rows))
        if "utilities" in diagnosis:
            lines += ["", "Deep GXFP's hero utility network at the spot (its estimates of the "
                          "hero's winnings after each action, in big blinds; folding loses "
                          "exactly the 2 or 3 big blinds of the open):", ""]
            lines.append(table(["iteration", "preflop line", *ACTION_NAMES], [
                [it, line] + [f"{v[a]:+.1f}" for a in ACTION_NAMES]
                for it, per_line in sorted(diagnosis["utilities"].items(),
                                           key=lambda kv: int(kv[0]))
                for line, v in per_line.items()]))
    return lines


def summary(work: Path, args: argparse.Namespace) -> str:
    """The Markdown results and the PNG, from the JSON records under ``work`` (the main run)
    and each ``--earlier`` directory."""
    runs = [run_records(work)] + [run_records(Path(e)) for e in args.earlier]
    lines = [
        "# Deep CFR / Deep GXFP on heads-up no-limit hold'em",
        "",
        "`no_limit_holdem` defaults: blinds 50/100, 100 bb stacks, actions fold, check/call, "
        "half pot, pot, all-in (the paper's abstraction). Both agents get the same budget in "
        "each run: one process, one torch thread, on a machine of 2 cores shared with other "
        "jobs (*train s* is wall time); nothing here is near convergence. The paper's Table 1 "
        "(GTO+ and its Deep GXFP in the flop spot) has no all-in action; *TV to GTO+* counts "
        "all-in as off GTO+.",
        "",
        "The paper's $10 flop pot is not reachable in this abstraction (the button's opens are "
        "to $4 or $6), so both neighbouring lines are shown: button raises half pot (to $4) or "
        "pot (to $6), big blind calls, big blind bets half the pot on the flop.",
    ]
    for i, run in enumerate(runs):
        heading = "Latest run" if i == 0 else f"Earlier run {len(runs) - i}"
        lines += [""] + run_section(run, heading)
    _plot(runs)
    return "\n".join(lines) + "\n"


def _plot(runs: list[dict[str, Any]]) -> None:
    """LBR and matches against the traversals each agent has made, every run on one axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not any(run["records"] for run in runs):
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for run, style in zip(runs, ("-", ":", "--")):
        per = run["budget"].traversals if run["budget"] is not None else 1
        for agent in sorted({r["agent"] for r in run["records"]}):
            rs = [r for r in run["records"] if r["agent"] == agent]
            x = [r["iteration"] * per for r in rs]
            label = f"{agent} ({per:,}/it)"
            axes[0].errorbar(x, [r["lbr_mbb"] for r in rs], yerr=[r["lbr_ci"] for r in rs],
                             marker="o", capsize=3, ls=style, label=label)
            for opp in sorted(rs[-1]["matches"]):
                axes[1].errorbar(x, [r["matches"][opp][0] for r in rs],
                                 yerr=[r["matches"][opp][1] for r in rs], marker="o",
                                 capsize=3, ls=style, label=f"{label} vs {opp}")
    axes[0].set(xlabel="traversals per player", ylabel="LBR winnings (mbb/g)", xscale="log",
                title="Exploitability lower bound (LBR)")
    axes[1].set(xlabel="traversals per player", ylabel="bb/100", xscale="log",
                title="Head-to-head, 95% CI")
    axes[1].axhline(0, color="grey", lw=0.5)
    for ax in axes:
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(RESULTS / "hunl.png", dpi=110)
    plt.close(fig)


def make_parser() -> argparse.ArgumentParser:
    """The command line (also parses the commands a run's ``command.txt`` kept)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--agents", default="deep-cfr,deep-gxfp")
    parser.add_argument("--iterations", type=int, default=None,
                        help="train to this iteration (default: the last --eval-at point)")
    parser.add_argument("--eval-at", default="4,8,16")
    parser.add_argument("--traversals", type=int, default=150)
    parser.add_argument("--steps", type=int, default=200, help="SGD steps per network fit")
    parser.add_argument("--policy-steps", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--memory", type=int, default=60_000)
    parser.add_argument("--lbr-deals", type=int, default=150)
    parser.add_argument("--wp", type=int, default=12, help="LBR board samples")
    parser.add_argument("--match-deals", type=int, default=1000)
    parser.add_argument("--nfsp-hands", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", default="/tmp/pokerzoo-hunl-deep")
    parser.add_argument("--earlier", action="append", default=[],
                        help="records directory of an earlier run, shown after --work's")
    parser.add_argument("--references", action="store_true",
                        help="also measure LBR against random and always-call")
    parser.add_argument("--diagnose", action="store_true",
                        help="instead of training, record the big blind's answers and GXFP's "
                             "utilities at the spot from what --work has (diagnosis.json)")
    parser.add_argument("--summary-only", action="store_true")
    return parser


def run(game: Any, agents: list[str], args: argparse.Namespace, work: Path) -> None:
    """Train and measure every agent, then the cross matches (and the LBR references)."""
    from pokerzoo.evaluation.opponents import make_opponent

    opponents = {"random": make_opponent("random", game),
                 "always-call": make_opponent("always-call", game)}
    if args.nfsp_hands > 0:
        opponents["nfsp-plt"] = nfsp_opponent(game, args, work)
    for name in agents:
        train_agent(name, game, opponents, args, work)
    cross_matches(game, agents, args, work)
    if args.references:
        reference_lbr(game, opponents, args, work)


def main() -> None:
    args = make_parser().parse_args()
    args.command = "python bench/hunl_deep.py " + " ".join(sys.argv[1:])
    if args.iterations is not None:
        args.eval_at = ",".join(
            str(p) for p in sorted({*map(int, args.eval_at.split(",")), args.iterations})
            if p <= args.iterations)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    command_file = work / "command.txt"
    if not args.summary_only:
        import torch

        from pokerzoo import load_game
        from pokerzoo.agents.registry import registered_agents

        torch.set_num_threads(1)
        done = command_file.read_text().splitlines() if command_file.exists() else []
        command_file.write_text("\n".join(dict.fromkeys([*done, args.command])) + "\n")
        game = load_game("no_limit_holdem")
        agents = [a for a in args.agents.split(",") if a]
        missing = [a for a in agents if a not in registered_agents()]
        if missing:
            print(f"not registered (skipped): {missing}", flush=True)
            agents = [a for a in agents if a not in missing]
        if args.diagnose:  # from what is there: nothing is trained or measured
            diagnose(game, agents, work)
        else:
            run(game, agents, args, work)
    text = summary(work, args)
    (RESULTS / "hunl.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
