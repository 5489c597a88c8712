"""The torch backend of ``PublicSolver``: each pass level by level, in batched tensor ops.

The numba sweep (``pokerzoo.public.engine.sweep_kernel``) walks the tree depth first, one node at a
time. Here every node of one depth is processed together, which is what a GPU wants (a loop
over depths and over chunks of terminals; none over nodes or hands):

* **strategies**: regret matching of all of a player's decision nodes at once, over a
  ``[decisions, actions, hands]`` block gathered from the flat storage (actions padded to the
  widest node);
* **reaches down**: both players' reach ``[nodes, hands]``, one depth at a time (the children
  of decisions by their action's probability, of chance nodes by the dealt card's mask);
* **terminal values**, all terminals in chunks: dense ``[H_0, H_1]`` payoff matrices (Kuhn,
  Leduc) as batched products; hold'em folds by per-card sums of the opponent's reach (a
  ``[T, H] x [H, 52]`` product, then inclusion-exclusion), showdowns by cumulative sums over
  the opponent's hands sorted by strength on each river board, the hands sharing a card
  removed by cumulative sums over each card's own sorted list (the batched form of
  ``pokerzoo.public.engine.holdem_terminal``'s two sweeps with 52 per-card sums);
* **values up**: one ``index_add_`` per depth and kind of parent (the traverser's decisions
  weighted by its strategy or, for a best response, their largest action value; the
  opponent's summed; chance children masked and weighted, the isomorphic cards a chance child
  stands for gathered through their hand permutations);
* **updates**: the traverser's regrets and strategy sums in one step over its whole block, with
  the iteration's ``pokerzoo.schedule.Discounts``, written back into the flat storage.

Storage is float32 in the tree's flat layout (``PublicTree.offset``), as the numba sweep keeps
it; arithmetic is in ``dtype`` (float64 by default: the values then equal numba's to rounding,
about 1e-12 relative; float32 halves the per-pass memory and is faster on a GPU, at about
1e-6). On the CPU the storage tensors share memory with numpy arrays (``regrets()``,
``sums()``), so a solver's ``regrets`` / ``sums`` are the live storage, as with numba.

Measured on one H200 (``bench/bench_sweep_torch.py``, PioSOLVER's 3betpotFAST flop, CFR+):
0.176 s per iteration against 1.917 s for the numba sweep on 2 CPU threads of that machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from pokerzoo import schedule
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.public.engine.backend import BackendSupport, Recorded
from pokerzoo.public.engine.holdem_terminal import hand_strengths, same_combo_index
from pokerzoo.public.engine.sweep_kernel import MODE_AVERAGE, MODE_BEST_RESPONSE, MODE_CFR
from pokerzoo.public.engine.tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree
from pokerzoo.schedule import Discounts

if TYPE_CHECKING:
    from pokerzoo.public.engine.solver import SolverConfig

TORCH_SUPPORT = BackendSupport(
    name="torch",
    algorithms=tuple(a for a in schedule.ALGORITHMS if not schedule.predictive(a)),
    storages=("f32",),
    devices=("cpu", "cuda"), terminals=("DenseTerminals", "HoldemTerminals"), locks=False,
    isomorphism=True, max_threads=1, record=True, frontier=False,
)
"""The torch backend's declaration: the plain discounted step of the schedule, float32
storage, no locks, one solver thread (torch's own intra-op threads run the ops)."""
PAD_STRENGTH = 1 << 30
"""A strength above every hand's: the padding of the per-card sorted lists."""
DTYPES = (torch.float64, torch.float32)
MODES = (MODE_CFR, MODE_BEST_RESPONSE, MODE_AVERAGE)


def torch_device(name: str) -> torch.device:
    """The torch device ``name`` (``"cpu"``, ``"cuda"``, ``"cuda:N"``), refused in one line
    where it is not there."""
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"device {name!r}: torch finds no CUDA device here; use "
                              "device='cpu'")
        index = int(name.split(":")[1]) if ":" in name else 0
        if index >= torch.cuda.device_count():
            raise ConfigError(f"device {name!r}: torch finds {torch.cuda.device_count()} CUDA "
                              "device(s)")
    return torch.device(name)


class TorchBackend:
    """CFR-family passes over a public tree as batched torch ops (see the module docstring).

    Args:
        tree: a public tree with dense or hold'em terminals.
        config: the solver's configuration (``device``, ``max_memory_bytes``; the schedule
            stays with ``PublicSolver``).
        dtype: the arithmetic's float type, ``torch.float64`` (default) or ``torch.float32``.
        chunk: terminals evaluated per batched op (bounds the terminals' scratch memory).
    """

    support = TORCH_SUPPORT

    def __init__(self, tree: PublicTree, config: SolverConfig,
                 dtype: torch.dtype = torch.float64, chunk: int = 4096) -> None:
        if dtype not in DTYPES:
            raise ConfigError(f"dtype must be torch.float64 or torch.float32, not {dtype!r}")
        if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
            raise ConfigError(f"chunk must be an int >= 1, not {chunk!r}")
        self.tree, self.dtype, self.chunk = tree, dtype, chunk
        self.device = torch_device(config.device)
        n = tree.num_nodes
        self.hands = (tree.num_hands(0), tree.num_hands(1))
        kind = tree.kind
        self.decisions = [np.flatnonzero((kind == DECISION) & (tree.player == p)) for p in (0, 1)]
        self.max_actions = int(tree.num_children[kind == DECISION].max(initial=1))
        self.memory_bytes = self._estimate()
        if self.memory_bytes > config.max_memory_bytes:
            raise TreeTooLargeError(
                f"the torch backend needs about {self.memory_bytes / 2**30:.2f} GiB for this "
                f"tree, over max_memory_bytes ({config.max_memory_bytes / 2**30:.2f} GiB); use "
                "dtype=torch.float32, fewer bet sizes, or a higher limit",
                estimated_nodes=n)
        decision_index = np.full(n, -1, dtype=np.int64)
        self.rows, self.kids, self.action_mask, self.valid = [], [], [], []
        for p in (0, 1):
            dec = self.decisions[p]
            decision_index[dec] = np.arange(dec.size)
            a = np.arange(self.max_actions)
            count = tree.num_children[dec][:, None].astype(np.int64)
            valid = a < count
            offset = tree.offset[dec][:, None].astype(np.int64)
            # Padded actions read the first row of the node (masked to 0 after the gather).
            self.rows.append(self._long(np.where(valid, offset + a * self.hands[p], offset)))
            self.kids.append(self._long(np.where(valid, tree.first_child[dec][:, None] + a, n)))
            self.action_mask.append(self._float(valid)[:, :, None])
            self.valid.append(torch.as_tensor(valid, device=self.device))
        self.dec_nodes = [self._long(d) for d in self.decisions]
        self.keep = [self._float(~tree.card_masks[p].astype(bool)) for p in (0, 1)]  # [C, H_p]
        self.initial = [self._float(tree.initial_reach[p]) for p in (0, 1)]
        self.iso_perm = [self._long(np.asarray(tree.iso_perm[p])) for p in (0, 1)]
        self.levels = [self._level(d, decision_index)
                       for d in range(1, int(tree.depth.max(initial=0)) + 1)]
        self.terminals = _terminal_values(tree, self)
        size = tree.storage_size
        # Float32 storage, as the numba sweep keeps; on the CPU numpy views share it.
        self._regrets = torch.zeros(size, dtype=torch.float32, device=self.device)
        self._sums = torch.zeros(size, dtype=torch.float32, device=self.device)

    def _long(self, array: Any) -> torch.Tensor:
        return torch.as_tensor(np.array(array, dtype=np.int64), device=self.device)

    def _float(self, array: Any) -> torch.Tensor:
        return torch.as_tensor(np.array(array, dtype=np.float64), device=self.device,
                               dtype=self.dtype)

    def _estimate(self) -> int:
        """Bytes held: the storage, both reaches and the values per node, the strategy blocks
        of both players and the traverser's update temporaries (the terminal tables, small
        beside these, are left out)."""
        tree = self.tree
        item = 8 if self.dtype == torch.float64 else 4
        blocks = [d.size * self.max_actions * h for d, h in zip(self.decisions, self.hands)]
        nodes = (tree.num_nodes + 1) * (sum(self.hands) + max(self.hands))
        return 8 * tree.storage_size + item * (nodes + 2 * sum(blocks) + 4 * max(blocks))

    def _level(self, depth: int, decision_index: np.ndarray) -> dict[str, tuple[Any, ...]]:
        """Index tensors of the edges into the nodes at ``depth``, grouped by parent kind."""
        tree = self.tree
        child = np.flatnonzero(tree.depth == depth)
        parent = tree.parent[child].astype(np.int64)
        out: dict[str, tuple[Any, ...]] = {}
        for p in (0, 1):
            at = (tree.kind[parent] == DECISION) & (tree.player[parent] == p)
            c, par = child[at], parent[at]
            out[f"decision{p}"] = (self._long(c), self._long(par),
                                   self._long(decision_index[par]),
                                   self._long(c - tree.first_child[par]))
        at = tree.kind[parent] == CHANCE
        c, par = child[at], parent[at]
        out["chance"] = (self._long(c), self._long(par), self._long(tree.chance_card[c]),
                         self._float(tree.chance_weight[c])[:, None])
        counts = tree.iso_count[c].astype(np.int64)
        rows = np.repeat(c, counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        k = tree.iso_offset[rows].astype(np.int64) + np.arange(rows.size) - first
        out["iso"] = (self._long(rows), self._long(tree.parent[rows]),
                      self._long(tree.iso_card[k]),
                      self._float(tree.chance_weight[rows])[:, None],
                      self._long(tree.iso_row[k]))
        return out

    def _blocks(self, storage: torch.Tensor, p: int,
                select: slice = slice(None)) -> torch.Tensor:
        """Player ``p``'s ``[decisions, actions, hands]`` block of ``storage`` in ``dtype``
        (padded actions 0), of the decisions ``select`` picks."""
        windows = storage.unfold(0, self.hands[p], 1)  # row r: storage[r:r + H_p]
        return windows[self.rows[p][select]].to(self.dtype) * self.action_mask[p][select]

    def _write(self, storage: torch.Tensor, p: int, block: torch.Tensor) -> None:
        """Player ``p``'s ``block`` back into the flat ``storage`` (padded actions left out),
        in chunks of rows so that the flat indices stay small."""
        h = self.hands[p]
        valid = self.valid[p]
        rows = self.rows[p][valid]
        values = block[valid].to(torch.float32)
        step = max(1, (1 << 22) // max(h, 1))
        columns = torch.arange(h, device=self.device)
        for s in range(0, rows.numel(), step):
            index = (rows[s:s + step, None] + columns).reshape(-1)
            storage.index_copy_(0, index, values[s:s + step].reshape(-1))

    def _matched(self, p: int, average: bool, select: slice = slice(None)) -> torch.Tensor:
        """Player ``p``'s strategies ``[decisions, actions, hands]`` (of the decisions
        ``select`` picks): regret matching (or the normalised sums), uniform where nothing is
        positive, as ``sweep_kernel.node_strategy`` computes them (the positive parts summed
        action by action, then one division)."""
        x = self._blocks(self._sums if average else self._regrets, p, select).clamp(min=0)
        total = x[:, 0].clone()
        for a in range(1, self.max_actions):
            total += x[:, a]
        total = total[:, None, :]
        mask = self.action_mask[p][select]
        uniform = mask / mask.sum(1, keepdim=True)
        return torch.where(total > 0, x / torch.where(total > 0, total, 1.0), uniform)

    def run(self, mode: int, traverser: int, step: Discounts,
            record: int = -1) -> tuple[np.ndarray, Recorded]:
        """One pass (``SolverBackend.run``): root values ``[H_traverser]`` and the record."""
        if mode not in MODES or traverser not in (0, 1):
            raise ConfigError(f"a pass takes a mode of {MODES} and a traverser 0 or 1, not "
                              f"{mode!r} and {traverser!r}")
        if not -1 <= record < self.tree.num_nodes:
            raise ConfigError(f"record must be a node id of this tree or -1, not {record!r}")
        t = traverser
        n = self.tree.num_nodes
        sigma = [self._matched(p, average=mode != MODE_CFR) for p in (0, 1)]
        reach = [torch.zeros(n + 1, h, device=self.device, dtype=self.dtype)
                 for h in self.hands]
        for p in (0, 1):
            reach[p][0] = self.initial[p]
        for level in self.levels:
            for p in (0, 1):
                c, par, d, a = level[f"decision{p}"]
                for q in (0, 1):
                    reach[q][c] = reach[q][par] * sigma[p][d, a] if q == p else reach[q][par]
            c, par, card, _ = level["chance"]
            for q in (0, 1):
                reach[q][c] = reach[q][par] * self.keep[q][card]
        v = torch.zeros(n + 1, self.hands[t], device=self.device, dtype=self.dtype)
        self.terminals.values(t, reach[1 - t], v)
        best = mode == MODE_BEST_RESPONSE
        for level in reversed(self.levels):
            for p in (0, 1):
                c, par, d, a = level[f"decision{p}"]
                if p != t:
                    v.index_add_(0, par, v[c])
                elif best:
                    v.scatter_reduce_(0, par[:, None].expand(-1, v.shape[1]), v[c], "amax",
                                      include_self=False)
                else:
                    v.index_add_(0, par, v[c] * sigma[t][d, a])
            c, par, card, weight = level["chance"]
            v.index_add_(0, par, weight * self.keep[t][card] * v[c])
            c, par, card, weight, perm = level["iso"]
            if c.numel():
                moved = v[c[:, None], self.iso_perm[t][perm]]
                v.index_add_(0, par, weight * self.keep[t][card] * moved)
        recorded = self._recorded(record, t, reach, v) if record >= 0 else ()
        if mode == MODE_CFR:
            self._update(t, step, sigma[t], reach[t], v)
        return v[0].cpu().numpy().copy(), recorded

    def _update(self, t: int, step: Discounts, sigma: torch.Tensor, own_reach: torch.Tensor,
                v: torch.Tensor) -> None:
        """The traverser's regrets and sums after its pass (``sweep_kernel``'s update step)."""
        dec = self.dec_nodes[t]
        if dec.numel() == 0:
            return
        r = self._blocks(self._regrets, t)
        r = torch.where(r > 0, r * step.positive, r * step.negative)
        r = r + v[self.kids[t]] - v[dec][:, None, :]
        if step.floor:
            r = r.clamp(min=0)
        self._write(self._regrets, t, r)
        s = self._blocks(self._sums, t) * step.sum_discount
        s = s + step.sum_weight * own_reach[dec][:, None, :] * sigma
        self._write(self._sums, t, s)

    def _recorded(self, node: int, t: int, reach: list[torch.Tensor],
                  v: torch.Tensor) -> Recorded:
        """What ``run`` records at ``node`` (the numba sweep's layout)."""
        tree = self.tree
        actions = np.zeros((self.max_actions, self.hands[t]))
        if tree.kind[node] == DECISION and int(tree.player[node]) == t:
            first, count = int(tree.first_child[node]), int(tree.num_children[node])
            actions[:count] = v[first:first + count].cpu().numpy()
        return (reach[t][node].cpu().numpy().copy(), reach[1 - t][node].cpu().numpy().copy(),
                v[node].cpu().numpy().copy(), actions)

    def strategy(self, node: int, average: bool) -> np.ndarray:
        """Decision ``node``'s ``[actions, hands]`` strategy (``SolverBackend.strategy``)."""
        tree = self.tree
        p = int(tree.player[node])
        d = int(np.searchsorted(self.decisions[p], node))
        matched = self._matched(p, average, slice(d, d + 1))[0]
        return matched[:int(tree.num_children[node])].cpu().numpy().astype(np.float64)

    def load_storage(self, regrets: np.ndarray, sums: np.ndarray) -> None:
        """Set the storage from flat ``[storage_size]`` arrays (another solver's state, say)."""
        for target, source in ((self._regrets, regrets), (self._sums, sums)):
            if np.shape(source) != tuple(target.shape):
                raise ConfigError(f"storage must be a flat array of {target.shape[0]} entries, "
                                  f"not of shape {np.shape(source)}")
            target.copy_(torch.as_tensor(np.asarray(source, dtype=np.float32)))

    def regrets(self) -> np.ndarray:
        """The regrets, float32 in the flat layout (on the CPU a view of the live storage)."""
        return self._regrets.cpu().numpy()

    def sums(self) -> np.ndarray:
        """The strategy sums, as ``regrets``."""
        return self._sums.cpu().numpy()


def player_storage(tree: PublicTree, player: int) -> np.ndarray:
    """Bool ``[storage_size]``: the storage entries of ``player``'s decision nodes."""
    dec = np.flatnonzero((tree.kind == DECISION) & (tree.player == player))
    starts = tree.offset[dec].astype(np.int64)
    ends = starts + tree.num_children[dec].astype(np.int64) * tree.num_hands(player)
    edges = np.zeros(tree.storage_size + 1, dtype=np.int64)
    np.add.at(edges, starts, 1)
    np.add.at(edges, ends, -1)
    return np.cumsum(edges[:-1]) > 0


class _DenseTerminals:
    """Terminal values from dense ``[T, H_0, H_1]`` payoffs of player 0 (Kuhn, Leduc)."""

    def __init__(self, tree: PublicTree, backend: TorchBackend) -> None:
        terminals: Any = tree.terminals
        nodes = np.flatnonzero(tree.kind >= FOLD)
        self.nodes = backend._long(nodes)
        rows = np.asarray(tree.terminal_data)[nodes]
        table = terminals.table
        self.matrix = backend._long(rows if table is None else table[rows])
        self.scale = None if table is None else backend._float(terminals.scale[rows])
        self.payoffs = backend._float(terminals.payoffs)
        self.chunk = backend.chunk

    def values(self, t: int, opp_reach: torch.Tensor, v: torch.Tensor) -> None:
        """Player ``t``'s values at every terminal into ``v`` (the opponent's reach given)."""
        for s in range(0, self.nodes.numel(), self.chunk):
            ids = self.nodes[s:s + self.chunk]
            m = self.payoffs[self.matrix[s:s + self.chunk]]  # [T, H0, H1]
            r = opp_reach[ids][:, :, None]
            out = (m @ r)[:, :, 0] if t == 0 else -(m.transpose(1, 2) @ r)[:, :, 0]
            if self.scale is not None:
                out = out * self.scale[s:s + self.chunk, None]
            v[ids] = out


class _HoldemTerminals:
    """Hold'em folds and showdowns over two-card hands (see the module docstring)."""

    def __init__(self, tree: PublicTree, backend: TorchBackend) -> None:
        self.chunk, self.hands = backend.chunk, backend.hands
        long, flt = backend._long, backend._float
        hands = [np.asarray(h, dtype=np.int64) for h in tree.hands]
        self.cards = [long(h) for h in hands]
        self.same = [long(np.where(s >= 0, s, self.hands[1 - p])) for p, s in
                     enumerate((same_combo_index(hands[0], hands[1]),
                                same_combo_index(hands[1], hands[0])))]
        boards = np.asarray(tree.boards, dtype=np.int64)
        onboard = np.zeros((boards.shape[0], 52), dtype=bool)
        rows = np.repeat(np.arange(boards.shape[0]), boards.shape[1])
        onboard[rows[boards.ravel() >= 0], boards.ravel()[boards.ravel() >= 0]] = True
        self.board_keep = [flt(~(onboard[:, h[:, 0]] | onboard[:, h[:, 1]])) for h in hands]
        self.card_mask = [flt(tree.card_masks[p].T) for p in (0, 1)]  # [H_p, 52]
        fold = np.flatnonzero(tree.kind == FOLD)
        showdown = np.flatnonzero(tree.kind == SHOWDOWN)
        self.fold = (long(fold), long(tree.board[fold]), long(tree.folder[fold]),
                     flt(tree.contrib[fold]))
        used, board_of = np.unique(tree.board[showdown], return_inverse=True)
        self.showdown = (long(showdown), long(board_of), long(tree.board[showdown]),
                         flt(tree.contrib[showdown]))
        strength = [np.stack([hand_strengths(h, [int(c) for c in boards[b] if c >= 0])
                              for b in used.tolist()]).astype(np.int64)
                    if used.size else np.zeros((0, h.shape[0]), dtype=np.int64) for h in hands]
        self.tables = [_showdown_tables(strength[p], strength[1 - p], hands[1 - p],
                                        hands[p], backend.device) for p in (0, 1)]

    def _compatible(self, t: int, r: torch.Tensor, padded: torch.Tensor) -> torch.Tensor:
        """Per own hand, the opponent's reach ``r`` ``[T, H_o]`` over hands sharing no card
        with it (inclusion-exclusion over the 52 per-card sums)."""
        sums = r @ self.card_mask[1 - t]  # [T, 52]
        a, b = self.cards[t][:, 0], self.cards[t][:, 1]
        return r.sum(1, keepdim=True) - sums[:, a] - sums[:, b] + padded[:, self.same[t]]

    def values(self, t: int, opp_reach: torch.Tensor, v: torch.Tensor) -> None:
        """Player ``t``'s values at every terminal into ``v`` (the opponent's reach given)."""
        o = 1 - t
        ids, board, folder, contrib = self.fold
        for s in range(0, ids.numel(), self.chunk):
            part = slice(s, s + self.chunk)
            r = opp_reach[ids[part]]
            padded = torch.cat([r, r.new_zeros(r.shape[0], 1)], 1)
            c = contrib[part]
            scale = torch.where(folder[part] == o, c[:, o], -c[:, t])[:, None]
            v[ids[part]] = (self._compatible(t, r, padded) * scale
                            * self.board_keep[t][board[part]])
        ids, table, board, contrib = self.showdown
        order, lo, hi, lists, per_card, width = self.tables[t]
        for s in range(0, ids.numel(), self.chunk):
            part = slice(s, s + self.chunk)
            u = table[part]
            r = opp_reach[ids[part]]
            count = r.shape[0]
            padded = torch.cat([r, r.new_zeros(count, 1)], 1)
            cum = torch.cat([r.new_zeros(count, 1), padded.gather(1, order[u]).cumsum(1)], 1)
            win = cum.gather(1, lo[u])
            lose = cum[:, -1:] - cum.gather(1, hi[u])
            # Per card, the cumulative reach of the opponent's hands holding it, by strength:
            # what of ``win`` and ``lose`` shares a card with the own hand.
            held = padded.gather(1, lists[u]).view(count, 52, width).cumsum(2)
            held = torch.cat([r.new_zeros(count, 52, 1), held], 2).view(count, 52 * (width + 1))
            for below, upto, end in per_card:
                win -= held.gather(1, below[u])
                lose -= held.gather(1, end[u]) - held.gather(1, upto[u])
            c = contrib[part]
            mine, theirs = c[:, t:t + 1], c[:, o:o + 1]
            tie = (theirs - mine) / 2
            val = (tie * self._compatible(t, r, padded) + (theirs - tie) * win
                   + (-mine - tie) * lose)
            v[ids[part]] = val * self.board_keep[t][board[part]]


def _showdown_tables(own: np.ndarray, opp: np.ndarray, opp_hands: np.ndarray,
                     own_hands: np.ndarray, device: torch.device) -> tuple[Any, ...]:
    """For each river board ``[U, ...]``: the opponent's hands by strength, where each own
    hand falls in that order (strictly weaker before ``lo``, at most as strong before
    ``hi``), and, per card of the own hand, the same positions in the sorted list of the
    opponent's hands holding that card (flat indices into ``[52, width + 1]`` cumulative
    sums), with that list's ``width``. Blocked hands have reach 0, so their place in an
    order changes nothing."""
    u, ho = opp.shape
    order = np.argsort(opp, axis=1, kind="stable")
    ordered = torch.as_tensor(np.take_along_axis(opp, order, axis=1))
    lo = torch.searchsorted(ordered, torch.as_tensor(own), right=False)
    hi = torch.searchsorted(ordered, torch.as_tensor(own), right=True)
    # Each (board, card, opponent hand holding it), sorted by board, card, strength.
    b = np.repeat(np.arange(u), 2 * ho)
    card = np.tile(opp_hands.T.ravel(), u)
    hand = np.tile(np.concatenate([np.arange(ho), np.arange(ho)]), u)
    st = opp[b, hand]
    sort = np.lexsort((hand, st, card, b))
    b, card, hand, st = b[sort], card[sort], hand[sort], st[sort]
    group = b * 52 + card
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if group.size else group
    pos = np.arange(group.size) - np.repeat(starts, np.diff(np.r_[starts, group.size]))
    width = int(pos.max(initial=0)) + 1
    lists = np.full((u, 52, width), ho, dtype=np.int64)
    lists[b, card, pos] = hand
    strengths = np.full((u, 52, width), PAD_STRENGTH, dtype=np.int64)
    strengths[b, card, pos] = st
    per_card = []
    for j in (0, 1):
        x = own_hands[:, j]  # the own hand's j-th card
        seq = torch.as_tensor(np.ascontiguousarray(strengths[:, x, :]))  # [U, H, width]
        val = torch.as_tensor(own)[:, :, None]
        base = torch.as_tensor(x * (width + 1))[None, :]
        below = torch.searchsorted(seq, val, right=False)[..., 0]
        upto = torch.searchsorted(seq, val, right=True)[..., 0]
        per_card.append(((base + below).to(device), (base + upto).to(device),
                         (base.expand(u, -1) + width).to(device)))
    return (torch.as_tensor(order, device=device), lo.to(device), hi.to(device),
            torch.as_tensor(lists.reshape(u, -1), device=device), per_card, width)


def _terminal_values(tree: PublicTree, backend: TorchBackend) -> Any:
    """The batched terminal values of ``tree``'s terminals (dense or hold'em)."""
    name = type(tree.terminals).__name__
    if name == "DenseTerminals":
        return _DenseTerminals(tree, backend)
    if name == "HoldemTerminals":
        return _HoldemTerminals(tree, backend)
    raise ConfigError(f"the torch backend evaluates DenseTerminals and HoldemTerminals, not "
                      f"{name}; use backend='numba'")


__all__ = ["TORCH_SUPPORT", "TorchBackend", "player_storage", "torch_device"]
