"""Random-play speed of our hold'em games next to rlcard's and PokerKit's, and LBR speed.

All engines play uniformly random legal actions from fresh hands, measured in the same run on
the same core, in interleaved rounds (best round per engine, so load from other processes hits
all engines alike). rlcard is timed on its game object (the rules, without the env's
observation encoding) and on its env; its random hands are a little shorter than ours since
rlcard offers fold even when checking is free. PokerKit runs a ``State`` with automatic
dealing, choosing among fold, check/call, a min-raise, a pot raise and all-in. LBR
(``pokerzoo.evaluation.lbr``) is timed against a uniform random policy.

Run: ``python bench/bench_holdem.py`` (about a minute; ``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from pokerzoo.evaluation.lbr import local_best_response
from pokerzoo.games import load_game
from pokerzoo.policy import UniformRandomPolicy


def timed(play: Callable[[], None], seconds: float) -> float:
    """Hands per second of ``play`` (one hand per call) over about ``seconds``."""
    play()  # warm-up
    hands, start = 0, time.perf_counter()
    while True:
        for _ in range(20):
            play()
        hands += 20
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return hands / elapsed


def ours(name: str, n: int, seed: int) -> Callable[[], None]:
    game = load_game(name, num_players=n)
    rng = np.random.default_rng(seed)

    def play() -> None:
        state = game.new_initial_state()
        u = rng.random(256)  # one batch of uniforms per hand: cheaper than a call per action
        i = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(u[i] * len(legal))])
                i += 1

    return play


def rlcard_game(name: str, n: int, seed: int) -> Callable[[], None]:
    if name == "no_limit_holdem":
        from rlcard.games.nolimitholdem.game import NolimitholdemGame as Game
    else:
        from rlcard.games.limitholdem.game import LimitHoldemGame as Game
    game = Game(num_players=n)
    game.np_random = np.random.RandomState(seed)
    rng = np.random.default_rng(seed)

    def play() -> None:
        game.init_game()
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[int(rng.random() * len(legal))])
        game.get_payoffs()

    return play


def rlcard_env(name: str, n: int, seed: int) -> Callable[[], None]:
    import rlcard

    env_id = "no-limit-holdem" if name == "no_limit_holdem" else "limit-holdem"
    env = rlcard.make(env_id, config={"game_num_players": n, "seed": seed})
    rng = np.random.default_rng(seed)

    def play() -> None:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.random() * len(legal))])
        env.get_payoffs()

    return play


def pokerkit_play(name: str, n: int, seed: int) -> Callable[[], None]:
    import pokerkit
    from pokerkit import Automation

    automations = tuple(Automation)  # every chore automatic: dealing, collection, showdown
    rng = np.random.default_rng(seed)
    if name == "no_limit_holdem":

        def create() -> pokerkit.State:
            return pokerkit.NoLimitTexasHoldem.create_state(
                automations, True, 0, (50, 100), 100, 10_000, n
            )
    else:

        def create() -> pokerkit.State:
            return pokerkit.FixedLimitTexasHoldem.create_state(
                automations, True, 0, (50, 100), 100, 200, 10_000, n
            )

    def play() -> None:
        state = create()
        while state.status:
            options = []
            if state.can_fold():
                options.append(state.fold)
            if state.can_check_or_call():
                options.append(state.check_or_call)
            if state.can_complete_bet_or_raise_to():
                lo = state.min_completion_betting_or_raising_to_amount
                hi = state.max_completion_betting_or_raising_to_amount
                pot = state.pot_completion_betting_or_raising_to_amount
                for amount in {lo, hi, min(max(pot, lo), hi)}:
                    options.append(lambda a=amount: state.complete_bet_or_raise_to(a))
            options[int(rng.random() * len(options))]()

    return play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timing per cell")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    parser.add_argument("--lbr-deals", type=int, default=25, help="LBR deals per game")
    parser.add_argument("--quick", action="store_true", help="0.3 s per cell, 3 LBR deals")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.lbr_deals = 0.3, 3

    engines = {
        "pokerzoo": ours,
        "rlcard game": rlcard_game,
        "rlcard env": rlcard_env,
        "pokerkit": pokerkit_play,
    }
    rows = []
    for name in ("no_limit_holdem", "limit_holdem"):
        for n in (2, 6):
            plays = {e: make(name, n, 0) for e, make in engines.items()}
            # Interleaved rounds, best of each: other load on the machine hits all engines alike.
            speeds = dict.fromkeys(engines, 0.0)
            for _ in range(args.rounds):
                for e, play in plays.items():
                    speeds[e] = max(speeds[e], timed(play, args.seconds / args.rounds))
            rows.append((name, n, speeds))
    header = f"{'game':<16} {'players':>7} " + " ".join(f"{e:>12}" for e in engines)
    print("Random play, hands/s (higher is better)")
    print(header + f" {'x rlcard game':>14}")
    print("-" * (len(header) + 15))
    for name, n, speeds in rows:
        cells = " ".join(f"{speeds[e]:>12,.0f}" for e in engines)
        ratio = speeds["pokerzoo"] / speeds["rlcard game"]
        print(f"{name:<16} {n:>7} {cells} {ratio:>13.1f}x")

    print()
    print("Local best response vs uniform random (heads-up), hands/s")
    for name in ("no_limit_holdem", "limit_holdem"):
        game = load_game(name)
        start = time.perf_counter()
        r = local_best_response(game, UniformRandomPolicy(), args.lbr_deals, seed=0)
        rate = r.num_hands / (time.perf_counter() - start)
        print(f"{name:<16} {rate:>8.1f} hands/s   ({r.summary()})")


if __name__ == "__main__":
    main()
