"""OpenSpiel's ``universal_poker`` beside the range solver on small river spots, in one run.

Each spot is written twice, as a :class:`HoldemSpot` and as ``universal_poker`` parameters,
with the same pot, stacks, board, ranges and bets. OpenSpiel's ``fcpa`` betting (fold,
check/call, a pot-size bet or raise when it fits under the stack, all-in) is, at a pot of 100
with 200 behind, exactly our river sizes ``("100%,a", "a")``: bet the pot or all-in, raise
all-in only (a pot raise would pass the stack). ``potSize=100`` puts 50 in for each player
(``blind="50 50"``, ``stack="250 250"``), so OpenSpiel's returns are chips net of each
player's contribution since the spot began, the engine's convention
(``pokerzoo.public.engine.tree``): no conversion. Cards are the same integers (4 x rank +
suit, suits ``cdhs``) in both.

* **The handReaches spot** (full 52-card deck, weighted ranges in PioSOLVER's syntax passed as
  OpenSpiel's ``handReaches``): OpenSpiel deals both hands at one chance node of all
  1,624,350 hand pairs, zero-reach pairs and pairs holding a board card included
  (``DistributeHandCardsInSubgame``). Its CFR solvers (C++ ``CFRPlusSolver``, and the same
  walk in ``InitializeInfostateNodes``) apply every outcome and abort on the first pair that
  holds a board card (``CHECK_TRUE(deck_.ContainsCards(card))``, universal_poker.cc), so
  OpenSpiel cannot solve such a spot; its ``expected_returns`` skips zero-probability outcomes,
  so the value of a fixed profile is computed by both and compared (uniform, and a seeded
  random profile).
* **The reduced-deck spot** (the ranks 2 to 6, 20 cards, both ranges every combo off the board):
  OpenSpiel's ordinary mode (no ``handReaches``; ``boardCards`` and ``potSize`` set) deals the
  four hole cards one at a time from the 15 left, which is our game with uniform ranges over
  those cards. Here OpenSpiel's own C++ ``CFRPlusSolver`` runs: both solvers do CFR+ with
  alternating updates and linear averaging, each to the target exploitability
  (``pyspiel.exploitability``: (BR_0 + BR_1) / 2 in chips, as ours); the iterations, the
  values reached (within twice the summed exploitabilities of each other) and the seconds are
  compared (see :func:`solve_race` for why the iterates are not identical).

    python bench/subgame_openspiel.py [--target 0.3] [--out bench/results/subgame_openspiel.md]

``openspiel_river_section()`` returns the Markdown lines (``bench/bench_subgame.py`` calls it).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.games.holdem.cards import RANKS  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver  # noqa: E402
from pokerzoo.public.engine.tree import DECISION, PublicTree  # noqa: E402
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree  # noqa: E402

OUT = ROOT / "bench" / "results" / "subgame_openspiel.md"
POT, BEHIND = 100, 200
RIVER_SIZES = ("100%,a", "a")
"""Our sizes equal to OpenSpiel's fcpa at this pot and stack (see the module docstring)."""
HAND_REACH_BOARD = "QsJh2h7c3d"
PIO_OOP = ("88+,A8s+,A5s-A2s:0.5,AJo+,ATo:0.75,K9s+,KQo,KJo:0.75,KTo:0.25,Q9s+,QJo:0.5,J8s+,"
           "JTo:0.25,T8s+,T7s:0.45,97s+,96s:0.45,87s,86s:0.75,85s:0.45,75s+:0.75,74s:0.45,"
           "65s:0.75,64s:0.5,63s:0.45,54s:0.75,53s:0.5,52s:0.45,43s:0.5,42s:0.45,32s:0.45")
PIO_IP = ("AA:0.25,99-22,AJs-A2s,AQo-A8o,K2s+,K9o+,Q2s+,Q9o+,J6s+,J9o+,T6s+,T9o,96s+,95s:0.5,"
          "98o,86s+,85s:0.5,75s+,74s:0.5,64s+,63s:0.5,54s,53s:0.5,43s")
"""PioSOLVER's 3betpotFAST ranges (configs/spots/pio_3betpotfast.toml), on a river board."""
REDUCED_BOARD = "6s4h3c2h2d"
REDUCED_RANKS = 5
FOLD_ACTION = 0  # OpenSpiel's kFold
_SPENT = re.compile(r"Spent: \[P0: (\d+)\s+P1: (\d+)")


def deck_range(num_ranks: int) -> str:
    """Every combo of the ranks 2 .. ``RANKS[num_ranks - 1]`` as a range string."""
    ranks = RANKS[:num_ranks]
    parts = [r + r for r in ranks]
    for i, hi in enumerate(ranks):
        for lo in ranks[:i]:
            parts += [hi + lo + "s", hi + lo + "o"]
    return ",".join(parts)


def river_spot(board: str, oop: str, ip: str) -> HoldemSpot:
    """A river spot at pot 100 with 200 behind and OpenSpiel's fcpa betting."""
    return HoldemSpot(board=board, starting_pot=POT, effective_stack=BEHIND, oop_range=oop,
                      ip_range=ip, river_sizes=RIVER_SIZES)


def reduced_spot(num_ranks: int = REDUCED_RANKS, board: str = REDUCED_BOARD) -> HoldemSpot:
    """The reduced-deck spot: both ranges every combo of the first ``num_ranks`` ranks."""
    whole = deck_range(num_ranks)
    return river_spot(board, whole, whole)


def acpc_reach_index(card_a: int, card_b: int) -> int:
    """OpenSpiel's index of a hole-card pair in ``handReaches`` (``GetHoleCardsReachIndex``:
    cards ordered by rank, then by suit in the order s h d c)."""
    def key(card: int) -> int:
        return 4 * (card // 4) + 3 - card % 4

    i, j = sorted((key(card_a), key(card_b)))
    return i * (2 * 52 - i - 3) // 2 + j - 1


def hand_reaches(tree: PublicTree) -> str:
    """Both ranges as OpenSpiel's ``handReaches`` string (2 x 1,326 weights)."""
    out = np.zeros(2 * 1326)
    for p in range(2):
        for (a, b), w in zip(tree.hands[p].tolist(), tree.initial_reach[p].tolist()):
            out[p * 1326 + acpc_reach_index(a, b)] = w
    return " ".join(repr(float(x)) for x in out)


def openspiel_game(spot: HoldemSpot, tree: PublicTree, num_ranks: int = 13) -> Any:
    """``universal_poker`` for ``spot``: the handReaches subgame on the full deck
    (``num_ranks`` 13), else the ordinary game on a deck of ``num_ranks`` ranks, where both
    ranges must be every combo of that deck off the board."""
    import pyspiel

    if spot.starting_pot % 2 or len(spot.board_cards) != 5:
        raise ConfigError("the OpenSpiel comparison needs a river spot with an even pot")
    half = spot.starting_pot // 2
    params: dict[str, Any] = {
        "betting": "nolimit", "numPlayers": 2, "numRounds": 4, "blind": f"{half} {half}",
        "firstPlayer": "1 1 1 1", "numSuits": 4, "numRanks": num_ranks, "numHoleCards": 2,
        "numBoardCards": "0 3 1 1", "stack": f"{half + spot.effective_stack} " * 2,
        "bettingAbstraction": "fcpa", "potSize": spot.starting_pot, "boardCards": spot.board,
    }
    params["stack"] = params["stack"].strip()
    if num_ranks == 13:
        params["handReaches"] = hand_reaches(tree)
    else:
        if max(spot.board_cards) >= 4 * num_ranks:
            raise ConfigError(f"the board {spot.board} holds a card outside the deck of "
                              f"{num_ranks} ranks")
        deck = set(range(4 * num_ranks)) - set(spot.board_cards)
        for p in range(2):
            cards = {tuple(sorted(h)) for h in tree.hands[p].tolist()}
            whole = {(a, b) for a in deck for b in deck if a < b}
            if cards != whole or not np.all(tree.initial_reach[p] == 1.0):
                raise ConfigError(f"a reduced deck of {num_ranks} ranks needs both ranges to be "
                                  "every combo of that deck off the board, weight 1")
    return pyspiel.load_game("universal_poker", params)


def _spent(state: Any) -> tuple[int, int]:
    match = _SPENT.search(str(state))
    if match is None:
        raise ConfigError("cannot read the chips put in from an OpenSpiel state")
    return int(match.group(1)), int(match.group(2))


def _deal(root: Any, cards: list[int], subgame: bool) -> Any:
    """The state after dealing ``cards`` (player 0's two, then player 1's two)."""
    if subgame:  # one outcome for all four cards, digits in base 52 (RankActionMixedBase)
        action = 0
        for c in cards:
            action = action * 52 + c
        return root.child(action)
    state = root
    for c in cards:  # on a deck of whole ranks the outcome of a card is its integer
        state = state.child(c)
    return state


@dataclass(frozen=True)
class Infoset:
    """One OpenSpiel information state and where it sits in the public tree."""

    key: str
    node: int
    hand: int
    actions: tuple[int, ...]
    """OpenSpiel's action for each child of ``node``, in the tree's child order."""


def infosets(game: Any, tree: PublicTree, subgame: bool) -> list[Infoset]:
    """Every information state of both players' hands, matched node for node: OpenSpiel's
    fold to our fold child, every other action to the child with the same chips put in (a
    mismatch of actions or chips raises ``ConfigError``)."""
    root = game.new_initial_state()
    board = set(int(c) for c in tree.board_cards(0))
    deck = [c for c in range(game.get_parameters()["numRanks"] * 4) if c not in board]
    out: list[Infoset] = []

    def walk(node: int, state: Any, player: int, hand: int) -> None:
        if tree.kind[node] != DECISION:
            if not state.is_terminal():
                raise ConfigError(f"OpenSpiel goes on where the tree ends at {tree.line(node)}")
            return
        if state.current_player() != int(tree.player[node]):
            raise ConfigError(f"a different player acts at {tree.line(node)}")
        kids = list(tree.children(node))
        by_chips = {tuple(int(x) for x in tree.contrib[c]): c for c in kids
                    if tree.label(c) != "fold"}
        fold = [c for c in kids if tree.label(c) == "fold"]
        actions = [-1] * len(kids)
        for a in state.legal_actions():
            child = state.child(a)
            c = fold[0] if a == FOLD_ACTION and fold else by_chips.get(_spent(child))
            if c is None:
                raise ConfigError(f"OpenSpiel's action {a} at {tree.line(node)} has no match")
            actions[c - kids[0]] = a
            walk(c, child, player, hand)
        if -1 in actions:
            raise ConfigError(f"OpenSpiel lacks an action of {tree.line(node)}")
        if int(tree.player[node]) == player:
            out.append(Infoset(state.information_state_string(player), node, hand,
                               tuple(actions)))

    for p in range(2):
        for h, cards in enumerate(tree.hands[p].tolist()):
            if tree.initial_reach[p][h] <= 0:
                continue
            other = [c for c in deck if c not in cards][:2]
            dealt = cards + other if p == 0 else other + cards
            walk(0, _deal(root, dealt, subgame), p, h)
    return out


def profile(tree: PublicTree, seed: int | None) -> dict[int, np.ndarray]:
    """A strategy at every decision node: uniform (``seed`` None) or random per hand."""
    rng = np.random.default_rng(seed)
    out = {}
    for n in np.flatnonzero(tree.kind == DECISION).tolist():
        a, h = int(tree.num_children[n]), tree.num_hands(int(tree.player[n]))
        out[n] = (np.full((a, h), 1.0 / a) if seed is None
                  else rng.dirichlet(np.ones(a), size=h).T.copy())
    return out


def openspiel_policy(table: list[Infoset], strategies: dict[int, np.ndarray]) -> Any:
    """``strategies`` as a ``pyspiel.TabularPolicy`` over OpenSpiel's information states."""
    import pyspiel

    return pyspiel.TabularPolicy({
        s.key: [(a, float(strategies[s.node][i, s.hand])) for i, a in enumerate(s.actions)]
        for s in table
    })


@dataclass
class FixedValue:
    """Player 0's value of one fixed profile by both, and the seconds each took."""

    ours: float
    theirs: float
    ours_s: float
    theirs_s: float


def fixed_value(tree: PublicTree, game: Any, table: list[Infoset],
                strategies: dict[int, np.ndarray]) -> FixedValue:
    """Player 0's value of ``strategies`` (every node locked, ours; ``expected_returns``,
    OpenSpiel's, zero-probability deals skipped)."""
    import pyspiel

    solver = PublicSolver(tree, locks=strategies, algorithm="cfr+")
    ours, ours_s = 0.0, float("inf")
    for _ in range(3):  # best of 3: the first call also fills the tree's cached tables
        start = time.perf_counter()
        ours = solver.game_value()[0]
        ours_s = min(ours_s, time.perf_counter() - start)
    policy = openspiel_policy(table, strategies)
    start = time.perf_counter()
    theirs = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True, 0.0)[0]
    return FixedValue(ours, float(theirs), ours_s, time.perf_counter() - start)


@dataclass
class SolveRace:
    """CFR+ by both to the same exploitability, checked every ``check_every`` iterations."""

    ours_iterations: int
    theirs_iterations: int
    ours_value: float
    theirs_value: float
    ours_expl: float
    theirs_expl: float
    ours_s: float
    theirs_s: float
    theirs_run: int
    """Iterations OpenSpiel ran in all (its seconds per iteration are over these)."""
    theirs_run_s: float
    theirs_init_s: float
    theirs_check_s: float
    """Mean seconds of one ``pyspiel.exploitability`` check."""


def solve_race(tree: PublicTree, game: Any, target_pct: float, check_every: int = 10,
               max_iterations: int = 2000) -> SolveRace:
    """Both solvers to ``target_pct`` % of the pot, checked every ``check_every`` iterations
    (checks not timed). Both run CFR+ with alternating updates and linear averaging, yet not
    the same iterates: where the opponent's reach of an information state is exactly 0,
    OpenSpiel's regret increments are exactly 0 and ours are rounding noise (~1e-14), which
    regret matching turns into a strategy that matters once the state is reached. So each is
    run to the target on its own. OpenSpiel's average policy is kept at every check point
    (untimed) and its exploitability (slow) is computed only near ours' iteration count:
    downwards from there while still under the target, upwards until under it."""
    import pyspiel

    PublicSolver(tree, algorithm="cfr+").iterate(1)  # compile the sweep before timing
    solver = PublicSolver(tree, algorithm="cfr+")
    ours_s = 0.0
    while solver.iterations < max_iterations and (
            solver.iterations == 0 or solver.exploitability_pct() > target_pct):
        start = time.perf_counter()
        solver.iterate(check_every)
        ours_s += time.perf_counter() - start
    n = solver.iterations
    start = time.perf_counter()
    theirs = pyspiel.CFRPlusSolver(game)
    init_s = time.perf_counter() - start
    snapshots: list[Any] = []
    seconds: list[float] = []
    checks: dict[int, float] = {}
    check_s: list[float] = []

    def run_block() -> None:
        begin = time.perf_counter()
        for _ in range(check_every):
            theirs.evaluate_and_update_policy()
        seconds.append((seconds[-1] if seconds else 0.0) + time.perf_counter() - begin)
        # a copy: average_policy() reads the solver's live table, later iterations included
        snapshots.append(theirs.tabular_average_policy())

    def pct(j: int) -> float:
        if j not in checks:
            begin = time.perf_counter()
            checks[j] = 100.0 * pyspiel.exploitability(game, snapshots[j]) / tree.starting_pot
            check_s.append(time.perf_counter() - begin)
        return checks[j]

    while len(snapshots) * check_every < n:
        run_block()
    j = len(snapshots) - 1
    if pct(j) <= target_pct:
        while j > 0 and pct(j - 1) <= target_pct:
            j -= 1
    else:
        while pct(j) > target_pct and (j + 1) * check_every < max_iterations:
            run_block()
            j += 1
    root = game.new_initial_state()
    theirs_value = pyspiel.expected_returns(root, snapshots[j], -1, True, 0.0)[0]
    return SolveRace(
        ours_iterations=n, theirs_iterations=(j + 1) * check_every,
        ours_value=solver.game_value()[0], theirs_value=float(theirs_value),
        ours_expl=solver.exploitability(), theirs_expl=checks[j] * tree.starting_pot / 100.0,
        ours_s=ours_s, theirs_s=seconds[j], theirs_run=len(snapshots) * check_every,
        theirs_run_s=seconds[-1], theirs_init_s=init_s,
        theirs_check_s=float(np.mean(check_s)),
    )


def _ratio(theirs: float, ours: float) -> str:
    return f"{theirs / ours:,.0f}x" if ours > 0 else "-"


def openspiel_river_section(target_pct: float = 0.3, num_ranks: int = REDUCED_RANKS,
                            seed: int = 0) -> list[str]:
    """The Markdown lines of the OpenSpiel comparison (see the module docstring)."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return ["## OpenSpiel's universal_poker beside the engine (river)", "",
                "Not run: pyspiel is not installed.", ""]
    hr_spot = river_spot(HAND_REACH_BOARD, PIO_OOP, PIO_IP)
    hr_tree = build_spot_tree(hr_spot)
    hr_game = openspiel_game(hr_spot, hr_tree, 13)
    hr_table = infosets(hr_game, hr_tree, subgame=True)
    rd_spot = reduced_spot(num_ranks)
    rd_tree = build_spot_tree(rd_spot)
    rd_game = openspiel_game(rd_spot, rd_tree, num_ranks)
    rd_table = infosets(rd_game, rd_tree, subgame=False)
    PublicSolver(rd_tree, algorithm="cfr+").game_value()  # compile before timing
    rows = []
    for name, tree, game, table in (("handReaches", hr_tree, hr_game, hr_table),
                                    ("reduced deck", rd_tree, rd_game, rd_table)):
        for label, s in (("uniform", None), (f"random (seed {seed})", seed)):
            v = fixed_value(tree, game, table, profile(tree, s))
            rows.append([name, f"value of the {label} profile", f"{v.ours:.12f}",
                         f"{v.theirs:.12f}", f"{abs(v.ours - v.theirs):.1e}",
                         f"{v.ours_s:.6f}", f"{v.theirs_s:.2f}", _ratio(v.theirs_s, v.ours_s)])
    race = solve_race(rd_tree, rd_game, target_pct)
    n, m = race.ours_iterations, race.theirs_iterations
    bound = 2 * (race.ours_expl + race.theirs_expl)
    rows += [
        ["reduced deck", f"CFR+ iterations to {target_pct}% of the pot", str(n), str(m), "",
         "", "", ""],
        ["reduced deck", "CFR+ exploitability reached (chips)", f"{race.ours_expl:.6f}",
         f"{race.theirs_expl:.6f}", "", "", f"{race.theirs_check_s:.1f}", ""],
        ["reduced deck", "CFR+ value of the average there", f"{race.ours_value:.6f}",
         f"{race.theirs_value:.6f}", f"{abs(race.ours_value - race.theirs_value):.1e}",
         "", "", ""],
        ["reduced deck", "CFR+ seconds per iteration", "", "", "",
         f"{race.ours_s / n:.6f}", f"{race.theirs_run_s / race.theirs_run:.3f}",
         _ratio(race.theirs_run_s / race.theirs_run, race.ours_s / n)],
        ["reduced deck", f"CFR+ seconds to {target_pct}% of the pot", "", "", "",
         f"{race.ours_s:.4f}", f"{race.theirs_s:.1f}", _ratio(race.theirs_s, race.ours_s)],
    ]
    from bench.common import table as md_table

    summary = (f"pot {POT}, {BEHIND} behind, fcpa = our river sizes "
               f"{RIVER_SIZES[0]!r} / {RIVER_SIZES[1]!r}")
    return [
        "## OpenSpiel's universal_poker beside the engine (river)",
        "",
        f"Both spots: {summary}; values in chips for player 0 (out of position), net of its "
        "contribution since the spot began, the convention of both. *handReaches*: board "
        f"{HAND_REACH_BOARD}, PioSOLVER's 3betpotFAST ranges ({hr_tree.num_hands(0)} / "
        f"{hr_tree.num_hands(1)} combos) as OpenSpiel's `handReaches`. *Reduced deck*: board "
        f"{REDUCED_BOARD}, the {4 * num_ranks} cards of the ranks 2-{RANKS[num_ranks - 1]}, "
        f"every combo off the board for both ({rd_tree.num_hands(0)} each), OpenSpiel's "
        f"ordinary deal. {len(hr_table) + len(rd_table):,} OpenSpiel information states "
        "matched to (node, hand), action by action.",
        "",
        md_table(["spot", "quantity", "ours", "OpenSpiel", "difference", "ours s",
                  "OpenSpiel s", "ratio"], rows),
        "",
        "CFR+ in both (alternating updates, linear averaging, uniform start), each checked "
        f"every 10 iterations until its exploitability ((BR_0 + BR_1) / 2, ours and "
        f"`pyspiel.exploitability`) is at most {target_pct}% of the pot. Two such "
        "profiles' values differ from the game's value, and so from each other, by at most "
        f"2 x (sum of their exploitabilities) = {bound:.3f} chips here. The iterates are not "
        "identical: at an information state the opponent reaches with probability exactly 0, "
        "OpenSpiel's regret increments are exactly 0 and ours rounding noise (~1e-14), which "
        "regret matching turns into a different strategy there. Seconds are the iterations "
        "only (ours: the compiled sweep, after compiling; OpenSpiel: "
        "`evaluate_and_update_policy`, over the "
        f"{race.theirs_run} iterations it ran); OpenSpiel's solver set-up took "
        f"{race.theirs_init_s:.1f} s more and each `pyspiel.exploitability` check the "
        "seconds in its row. The fixed-profile seconds are one evaluation each (ours: "
        "`game_value` with every node locked, best of 3; OpenSpiel: `expected_returns`, "
        "which lists the 1,624,350-pair chance node of the handReaches spot and skips the "
        "zero-probability pairs).",
        "",
        "OpenSpiel cannot solve the handReaches spot: its subgame mode lists all 1,624,350 "
        "hand pairs at one chance node, the pairs holding a board card included (probability "
        "0), and its CFR solvers apply every outcome, aborting on the first such pair "
        "(`CHECK_TRUE(deck_.ContainsCards(card))` in universal_poker.cc, `CFRPlusSolver` "
        "and `UniformRandomPolicy` alike). Only `expected_returns`, which skips "
        "zero-probability outcomes, runs there. Timings are on a 2-core machine shared with "
        "other work.",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=float, default=0.3,
                        help="exploitability target in %% of the pot (default 0.3)")
    parser.add_argument("--ranks", type=int, default=REDUCED_RANKS,
                        help="ranks of the reduced deck (default 5: 2 to 6)")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    lines = openspiel_river_section(args.target, args.ranks)
    text = "\n".join(["# OpenSpiel's universal_poker and the range solver on river spots", "",
                      "Written by `python bench/subgame_openspiel.py`.", "", *lines])
    print(text)
    write_atomically(args.out, text + "\n", what="results file")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
