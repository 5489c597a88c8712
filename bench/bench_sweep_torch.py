"""A level-synchronous batched torch form of one CFR+ iteration over a public tree, timed beside
the compiled (numba) sweep in the same run.

The numba engine (``pokerzoo.public.sweep_kernel``) walks the tree depth first, one node at a
time. Here every node of one depth is processed together, which is what a GPU wants:

* **strategies**: regret matching of all of a player's decision nodes at once, one tensor op
  over a ``[decisions, actions, hands]`` block (actions padded to the widest node);
* **reaches down**: both players' reach ``[nodes, hands]``, pushed one depth at a time (the
  children of decisions by their action's probability, of chance nodes by the dealt card's
  mask);
* **terminal values**, all terminals of the tree in chunks: folds by per-card sums of the
  opponent's reach (a ``[T, H] x [H, 52]`` product, then inclusion-exclusion), showdowns by
  cumulative sums over the opponent's hands sorted by strength on each river board, the hands
  sharing a card removed by cumulative sums over each card's own sorted list (the batched form
  of ``pokerzoo.public.holdem_terminal``'s two sweeps with 52 per-card sums);
* **values up**: one ``index_add_`` per depth and kind of parent (the traverser's decisions
  weighted by its strategy, the opponent's summed, chance children masked and weighted, the
  isomorphic cards a chance child stands for gathered through their hand permutations);
* **updates**: the traverser's regrets and strategy sums in one op over its whole block, with
  the engine's discount scalars (``pokerzoo.public.solver.discounts``), alternating players
  as the engine does.

The script first checks the torch form against ``PublicSolver`` on small river, turn and flop
spots (step by step, float64: see :func:`check`), then
times iterations of ``--spot`` (default PioSOLVER's 3betpotFAST flop) on ``--device`` beside the
numba engine's seconds per iteration (2 threads, and every core) measured in the same run, and
writes ``sweep_torch.md`` under ``--out``.

    python bench/bench_sweep_torch.py [--device cuda] [--spot configs/spots/pio_3betpotfast.toml]
        [--iterations 10] [--out bench/results/]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.public.holdem_spot import HoldemSpot, build_spot_tree  # noqa: E402
from pokerzoo.public.holdem_terminal import hand_strengths, same_combo_index  # noqa: E402
from pokerzoo.public.solver import PublicSolver, SolverConfig, discounts  # noqa: E402
from pokerzoo.public.tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree  # noqa: E402

SPOT = ROOT / "configs" / "spots" / "pio_3betpotfast.toml"
PAD_STRENGTH = 1 << 30


class TorchSweep:
    """CFR-family iterations on a hold'em spot's public tree as batched torch ops.

    Regrets and strategy sums are ``[decisions of p, actions, hands of p]`` per player (padded
    actions held at 0); ``iterate`` runs player 0's pass then player 1's, as ``PublicSolver``.
    """

    def __init__(self, tree: PublicTree, device: str = "cpu", dtype: torch.dtype = torch.float64,
                 algorithm: str = "cfr+", chunk: int = 4096) -> None:
        self.tree, self.device, self.dtype, self.chunk = tree, torch.device(device), dtype, chunk
        self.config = SolverConfig(algorithm=algorithm)
        self.iterations = 0
        n = tree.num_nodes
        self.hands = (tree.num_hands(0), tree.num_hands(1))
        kind, player, first = tree.kind, tree.player, tree.first_child
        self.dec = [np.flatnonzero((kind == DECISION) & (player == p)) for p in (0, 1)]
        dec_index = np.full(n, -1, dtype=np.int64)
        for p in (0, 1):
            dec_index[self.dec[p]] = np.arange(self.dec[p].size)
        self.width = int(tree.num_children[kind == DECISION].max())
        self.kids, self.amask = [], []
        for p in (0, 1):
            a = np.arange(self.width)
            count = tree.num_children[self.dec[p]][:, None]
            kids = np.where(a < count, first[self.dec[p]][:, None] + a, n)  # n: a zero row
            self.kids.append(self._t(kids))
            self.amask.append(self._f(a < count)[:, :, None])
        self.regrets = [torch.zeros(d.size, self.width, h, device=self.device, dtype=dtype)
                        for d, h in zip(self.dec, self.hands)]
        self.sums = [torch.zeros_like(r) for r in self.regrets]
        self.keep = [self._f(~tree.card_masks[p].astype(bool)) for p in (0, 1)]  # [52, H_p]
        self.init = [self._f(tree.initial_reach[p]) for p in (0, 1)]
        self.levels = [self._level(d, dec_index) for d in range(1, int(tree.depth.max()) + 1)]
        self._terminal_tables()

    def _t(self, array: Any) -> torch.Tensor:
        return torch.as_tensor(np.array(array, dtype=np.int64), device=self.device)

    def _f(self, array: Any) -> torch.Tensor:
        return torch.as_tensor(np.array(array, dtype=np.float64), device=self.device,
                               dtype=self.dtype)

    def _level(self, depth: int, dec_index: np.ndarray) -> dict[str, Any]:
        """Index tensors of the edges into the nodes at ``depth``, grouped by parent kind."""
        tree = self.tree
        child = np.flatnonzero(tree.depth == depth)
        parent = tree.parent[child]
        out: dict[str, Any] = {}
        for p in (0, 1):
            at = (tree.kind[parent] == DECISION) & (tree.player[parent] == p)
            c, par = child[at], parent[at]
            out[f"dec{p}"] = (self._t(c), self._t(par), self._t(dec_index[par]),
                              self._t(c - tree.first_child[par]))
        at = tree.kind[parent] == CHANCE
        c, par = child[at], parent[at]
        out["chance"] = (self._t(c), self._t(par), self._t(tree.chance_card[c]),
                         self._f(tree.chance_weight[c])[:, None])
        counts = tree.iso_count[c].astype(np.int64)
        rows = np.repeat(c, counts)
        k = tree.iso_offset[rows] + (np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts,
                                                                         counts))
        out["iso"] = (self._t(rows), self._t(tree.parent[rows]), self._t(tree.iso_card[k]),
                      self._f(tree.chance_weight[rows])[:, None], self._t(k))
        return out

    def _terminal_tables(self) -> None:
        """Per player as the one valued: fold and showdown terminals with their amounts, and
        per river board the sorted orders and per-card sorted lists of the opponent's hands."""
        tree = self.tree
        hands = [np.asarray(h, dtype=np.int64) for h in tree.hands]
        self.iso_perm = [self._t(np.asarray(tree.iso_perm[p])[tree.iso_row]) for p in (0, 1)]
        self.cards = [self._t(h) for h in hands]
        self.same = [self._t(np.where(s >= 0, s, self.hands[1 - p])) for p, s in
                     enumerate((same_combo_index(hands[0], hands[1]),
                                same_combo_index(hands[1], hands[0])))]
        boards = np.asarray(tree.boards, dtype=np.int64)
        onboard = np.zeros((boards.shape[0], 52), dtype=bool)
        rows = np.repeat(np.arange(boards.shape[0]), boards.shape[1])
        onboard[rows[boards.ravel() >= 0], boards.ravel()[boards.ravel() >= 0]] = True
        self.board_keep = [self._f(~(onboard[:, h[:, 0]] | onboard[:, h[:, 1]])) for h in hands]
        self.card_mask = [self._f(tree.card_masks[p].T) for p in (0, 1)]  # [H_p, 52]
        fold = np.flatnonzero(tree.kind == FOLD)
        sd = np.flatnonzero(tree.kind == SHOWDOWN)
        self.fold = (self._t(fold), self._t(tree.board[fold]), self._t(tree.folder[fold]),
                     self._f(tree.contrib[fold]))
        used, board_of = np.unique(tree.board[sd], return_inverse=True)
        self.showdown = (self._t(sd), self._t(board_of), self._t(tree.board[sd]),
                         self._f(tree.contrib[sd]))
        strength = [np.stack([hand_strengths(h, [int(c) for c in boards[b] if c >= 0])
                              for b in used.tolist()]).astype(np.int64) for h in hands]
        self.sd_tables = [self._showdown_tables(strength[p], strength[1 - p], hands[p],
                                                hands[1 - p]) for p in (0, 1)]

    def _showdown_tables(self, own: np.ndarray, opp: np.ndarray, own_hands: np.ndarray,
                         opp_hands: np.ndarray) -> tuple[torch.Tensor, ...]:
        """For each board ``[U, ...]``: the opponent's hands by strength (blocked ones, strength
        -1, first: their reach is 0), where each own hand falls in that order (strictly weaker
        before ``lo``, at most as strong before ``hi``), and the same per card of the own hand
        in the sorted list of the opponent's hands holding that card."""
        u, ho = opp.shape
        order = np.argsort(opp, axis=1, kind="stable")
        ordered = np.take_along_axis(opp, order, axis=1)
        lo = torch.searchsorted(torch.as_tensor(ordered), torch.as_tensor(own), right=False)
        hi = torch.searchsorted(torch.as_tensor(ordered), torch.as_tensor(own), right=True)
        # Each (board, card, opponent hand holding it), sorted by board, card, strength.
        b = np.repeat(np.arange(u), 2 * ho)
        card = np.tile(opp_hands.T.ravel(), u)
        hand = np.tile(np.concatenate([np.arange(ho), np.arange(ho)]), u)
        st = opp[b, hand]
        sort = np.lexsort((hand, st, card, b))
        b, card, hand, st = b[sort], card[sort], hand[sort], st[sort]
        group = b * 52 + card
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        pos = np.arange(group.size) - np.repeat(starts, np.diff(np.r_[starts, group.size]))
        width = int(pos.max()) + 1
        lists = np.full((u, 52, width), ho, dtype=np.int64)
        lists[b, card, pos] = hand
        lstr = np.full((u, 52, width), PAD_STRENGTH, dtype=np.int64)
        lstr[b, card, pos] = st
        flat = []
        for j in (0, 1):
            x = own_hands[:, j]  # [H] the own hand's j-th card
            seq = torch.as_tensor(np.ascontiguousarray(lstr[:, x, :]))  # [U, H, width]
            val = torch.as_tensor(own)[:, :, None]
            base = torch.as_tensor(x * (width + 1))[None, :]
            plo = torch.searchsorted(seq, val, right=False)[..., 0]
            phi = torch.searchsorted(seq, val, right=True)[..., 0]
            flat += [base + plo, base + phi, base.expand(u, -1) + width]
        dev = self.device
        return (torch.as_tensor(order, device=dev), lo.to(dev), hi.to(dev),
                torch.as_tensor(lists.reshape(u, -1), device=dev), *(f.to(dev) for f in flat),
                torch.tensor(width, device=dev))

    def _compat(self, t: int, r: torch.Tensor, rpad: torch.Tensor) -> torch.Tensor:
        """Per own hand, the opponent's reach over hands sharing no card with it."""
        sums = r @ self.card_mask[1 - t]  # [T, 52]
        a, b = self.cards[t][:, 0], self.cards[t][:, 1]
        return r.sum(1, keepdim=True) - sums[:, a] - sums[:, b] + rpad[:, self.same[t]]

    def terminal_values(self, t: int, opp_reach: torch.Tensor, v: torch.Tensor) -> None:
        """Write player ``t``'s values at every terminal into ``v`` (opponent reach given)."""
        o = 1 - t
        ids, board, folder, contrib = self.fold
        for s in range(0, ids.numel(), self.chunk):
            sl = slice(s, s + self.chunk)
            r = opp_reach[ids[sl]]
            rpad = torch.cat([r, r.new_zeros(r.shape[0], 1)], 1)
            c = contrib[sl]
            scale = torch.where(folder[sl] == o, c[:, o], -c[:, t])[:, None]
            v[ids[sl]] = self._compat(t, r, rpad) * scale * self.board_keep[t][board[sl]]
        ids, table, board, contrib = self.showdown
        order, lo, hi, lists, wlo0, whi0, wall0, wlo1, whi1, wall1, width = self.sd_tables[t]
        w = int(width)
        for s in range(0, ids.numel(), self.chunk):
            sl = slice(s, s + self.chunk)
            u = table[sl]
            r = opp_reach[ids[sl]]
            n = r.shape[0]
            rpad = torch.cat([r, r.new_zeros(n, 1)], 1)
            cum = torch.cat([r.new_zeros(n, 1), rpad.gather(1, order[u]).cumsum(1)], 1)
            win = cum.gather(1, lo[u])
            lose = cum[:, -1:] - cum.gather(1, hi[u])
            per_card = rpad.gather(1, lists[u]).view(n, 52, w).cumsum(2)
            cc = torch.cat([r.new_zeros(n, 52, 1), per_card], 2).view(n, 52 * (w + 1))
            for wlo, whi, wall in ((wlo0, whi0, wall0), (wlo1, whi1, wall1)):
                win -= cc.gather(1, wlo[u])
                lose -= cc.gather(1, wall[u]) - cc.gather(1, whi[u])
            c = contrib[sl]
            mine, theirs = c[:, t:t + 1], c[:, o:o + 1]
            tie = (theirs - mine) / 2
            val = tie * self._compat(t, r, rpad) + (theirs - tie) * win + (-mine - tie) * lose
            v[ids[sl]] = val * self.board_keep[t][board[sl]]

    def _strategy(self, p: int, average: bool) -> torch.Tensor:
        x = (self.sums[p] if average else self.regrets[p]).clamp(min=0) * self.amask[p]
        total = x.sum(1, keepdim=True)
        uniform = self.amask[p] / self.amask[p].sum(1, keepdim=True)
        return torch.where(total > 0, x / torch.where(total > 0, total, 1), uniform)

    def _pass(self, t: int, average: bool, update: bool) -> torch.Tensor:
        """One traversal for ``t``: reaches down, terminal values, values up; returns the
        values ``[nodes + 1, H_t]`` (and updates ``t``'s regrets and sums if ``update``)."""
        n = self.tree.num_nodes
        sigma = [self._strategy(p, average) for p in (0, 1)]
        reach = [torch.zeros(n + 1, h, device=self.device, dtype=self.dtype) for h in self.hands]
        for p in (0, 1):
            reach[p][0] = self.init[p]
        for lv in self.levels:
            for p in (0, 1):
                c, par, d, a = lv[f"dec{p}"]
                for q in (0, 1):
                    x = reach[q][par]
                    reach[q][c] = x * sigma[p][d, a] if q == p else x
            c, par, card, _ = lv["chance"]
            for q in (0, 1):
                reach[q][c] = reach[q][par] * self.keep[q][card]
        v = torch.zeros(n + 1, self.hands[t], device=self.device, dtype=self.dtype)
        self.terminal_values(t, reach[1 - t], v)
        for lv in reversed(self.levels):
            for p in (0, 1):
                c, par, d, a = lv[f"dec{p}"]
                v.index_add_(0, par, v[c] * sigma[t][d, a] if p == t else v[c])
            c, par, card, weight = lv["chance"]
            v.index_add_(0, par, weight * self.keep[t][card] * v[c])
            c, par, card, weight, k = lv["iso"]
            if c.numel():
                moved = v[c[:, None], self.iso_perm[t][k]]
                v.index_add_(0, par, weight * self.keep[t][card] * moved)
        if update:
            pos, neg, floor, sum_discount, sum_weight = discounts(self.config, self.iterations + 1)
            dec = torch.as_tensor(self.dec[t], device=self.device)
            act = v[self.kids[t]]  # [D, A, H]
            r = self.regrets[t]
            r.copy_(torch.where(r > 0, r * pos, r * neg) + act - v[dec][:, None, :])
            if floor:
                r.clamp_(min=0)
            r.mul_(self.amask[t])
            self.sums[t].mul_(sum_discount).add_(sum_weight * reach[t][dec][:, None, :] * sigma[t])
        return v

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            for t in (0, 1):
                self._pass(t, average=False, update=True)
            self.iterations += 1

    def game_value(self) -> float:
        """Player 0's expected chips when both play their average strategies."""
        v = self._pass(0, average=True, update=False)
        return float(self.init[0] @ v[0]) / self.tree.pair_mass


def engine_blocks(solver: PublicSolver, p: int, width: int, sums: bool = False) -> np.ndarray:
    """The numba engine's regrets (or strategy sums) of player ``p`` in the torch layout
    ``[D, A, H]``."""
    tree = solver.tree
    flat = solver.sums if sums else solver.regrets
    dec = np.flatnonzero((tree.kind == DECISION) & (tree.player == p))
    h = tree.num_hands(p)
    a = np.arange(width)
    count = tree.num_children[dec][:, None, None]
    idx = tree.offset[dec][:, None, None] + a[None, :, None] * h + np.arange(h)[None, None, :]
    valid = np.broadcast_to(a[None, :, None] < count, idx.shape)
    out = np.zeros(idx.shape)
    out[valid] = flat[idx[valid]]
    return out


def check(tree: PublicTree, iterations: int = 3, device: str = "cpu",
          algorithm: str = "cfr+") -> dict[str, float]:
    """The torch form against ``PublicSolver``, step by step: before each of ``iterations``
    iterations the engine's regrets and sums are copied into the torch form, both iterate
    once, and the largest difference of the regrets and sums (relative to the largest
    magnitude) is kept; then both compute the game value of the engine's average strategy.

    Free-running iterates are not compared: where the opponent's reach is exactly 0, regret
    increments are rounding noise in both (float32 against float64 here), which regret
    matching turns into different strategies there, so the runs drift apart by more than
    rounding while each is right."""
    ours = PublicSolver(tree, algorithm=algorithm)
    torch_form = TorchSweep(tree, device=device, dtype=torch.float64, algorithm=algorithm)

    def sync() -> None:
        for p in (0, 1):
            for sums, target in ((False, torch_form.regrets[p]), (True, torch_form.sums[p])):
                target.copy_(torch.as_tensor(engine_blocks(ours, p, torch_form.width, sums)))
        torch_form.iterations = ours.iterations

    diff = 0.0
    for _ in range(iterations):
        sync()
        ours.iterate(1)
        torch_form.iterate(1)
        for p in (0, 1):
            for sums, got in ((False, torch_form.regrets[p]), (True, torch_form.sums[p])):
                ref = engine_blocks(ours, p, torch_form.width, sums)
                scale = max(float(np.abs(ref).max(initial=0.0)), 1e-300)
                diff = max(diff, float(np.abs(ref - got.cpu().numpy()).max()) / scale)
    sync()
    return {"step_diff": diff, "engine_value": ours.game_value()[0],
            "torch_value": torch_form.game_value()}


def small_spots() -> list[tuple[str, HoldemSpot]]:
    """A river spot with the 3betpotFAST ranges, a turn spot and a flop spot with narrow ranges
    (suit isomorphism on both; the flop's all-ins deal the turn and river without betting)."""
    base = HoldemSpot.from_toml(SPOT).to_dict()
    base["river_sizes"] = ("70%", "45%")
    river = dict(base, board="QsJh2h7c3d", turn_sizes=("", ""), flop_sizes=("", ""))
    turn = dict(base, board="QsJs2h7h", oop_range="AA,KK,QQ,AK,KQs,JTs,T9s,22",
                ip_range="QQ,JJ,AQ,KJs,QTs,33,98s", turn_sizes=("55%", ""),
                river_sizes=("70%", ""))
    flop = dict(base, board="QsJh2h", effective_stack=120, oop_range="AA,KK,QQ,AK,JTs,22",
                ip_range="QQ,JJ,AQ,KJs,33,98s", flop_sizes=("50%,a", "a"),
                turn_sizes=("a", ""), river_sizes=("a", ""))
    return [(name, HoldemSpot.from_dict(d)) for name, d in
            (("river", river), ("turn", turn), ("flop", flop))]


def seconds_per_iteration(step: Any, iterations: int, sync: Any = None) -> float:
    step(1)  # warm-up: allocation, compilation
    if sync is not None:
        sync()
    start = time.perf_counter()
    step(iterations)
    if sync is not None:
        sync()
    return (time.perf_counter() - start) / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--spot", default=str(SPOT), help="spot TOML to time")
    parser.add_argument("--iterations", type=int, default=10, help="timed torch iterations")
    parser.add_argument("--numba-iterations", type=int, default=2)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--chunk", type=int, default=16384, help="terminals per batch")
    parser.add_argument("--torch-threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default; 1 on a busy machine)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    if args.iterations < 1 or args.numba_iterations < 1:
        raise ConfigError("--iterations and --numba-iterations must be at least 1")
    dtype = getattr(torch, args.dtype)
    lines = ["# A batched torch form of the CFR+ sweep (bench/bench_sweep_torch.py)", "",
             f"Command: `python bench/bench_sweep_torch.py {' '.join(sys.argv[1:])}`", ""]
    gpu = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "none"
    lines += [f"Machine: {platform.processor() or platform.machine()}, "
              f"{len(os.sched_getaffinity(0))} cores usable, "
              f"GPU {gpu}, torch {torch.__version__}.", "", "## Check against the engine", "",
              "Before each of 3 iterations the engine's regrets and sums are copied into the "
              "torch form (float64) and both iterate once: the largest relative difference of "
              "regrets and sums after the step, then the game value of the engine's average "
              "strategy computed by both.", "",
              "| spot | nodes | step diff (relative) | engine value | torch value |",
              "|---|---|---|---|---|"]
    for name, spot in small_spots():
        tree = build_spot_tree(spot)
        res = check(tree, device=args.device)
        print(name, res, flush=True)
        lines.append(f"| {name} {spot.board} | {tree.num_nodes:,} | {res['step_diff']:.1e} | "
                     f"{res['engine_value']:.9f} | {res['torch_value']:.9f} |")
    spot = HoldemSpot.from_toml(args.spot)
    start = time.perf_counter()
    tree = build_spot_tree(spot)
    build_s = time.perf_counter() - start
    summary = tree.summary()
    print(summary, f"built in {build_s:.1f} s", flush=True)
    timings = []
    for threads in sorted({2, len(os.sched_getaffinity(0))}):
        engine = PublicSolver(tree, algorithm="cfr+", threads=threads)
        sec = seconds_per_iteration(engine.iterate, args.numba_iterations)
        timings.append((f"numba engine, {threads} threads", sec, "-"))
        print(timings[-1], flush=True)
        del engine
    start = time.perf_counter()
    sweep = TorchSweep(tree, device=args.device, dtype=dtype, chunk=args.chunk)
    setup_s = time.perf_counter() - start
    cuda = args.device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else None
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    sec = seconds_per_iteration(sweep.iterate, args.iterations, sync)
    memory = f"{torch.cuda.max_memory_allocated() / 2**30:.2f} GiB" if cuda else "-"
    timings.append((f"torch {args.dtype} on {args.device}", sec, memory))
    print(timings[-1], flush=True)
    lines += ["", f"## Seconds per CFR+ iteration: {spot.board} ({Path(args.spot).name})", "",
              f"Tree: {summary['nodes']:,} nodes ({summary['decision']:,} decisions), hands "
              f"{summary['hands_0']} / {summary['hands_1']}, built in {build_s:.1f} s; torch "
              f"set-up {setup_s:.1f} s; {args.iterations} torch / {args.numba_iterations} numba "
              "iterations timed after one warm-up each.", "",
              "| sweep | s / iteration | peak GPU memory |", "|---|---|---|"]
    lines += [f"| {name} | {s:.3f} | {m} |" for name, s, m in timings]
    two = timings[0][1]
    lines += ["", f"A batched torch sweep gives {sec:.3f} s/iteration on {gpu if cuda else 'CPU'} "
              f"vs {two:.3f} s for the numba engine on 2 threads of this machine "
              f"({two / sec:.1f}x).", ""]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / "sweep_torch.md", "\n".join(lines), what="results file")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
