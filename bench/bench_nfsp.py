"""NFSP on Leduc over a wall-clock budget: ours (batched env, batched inference) next to
OpenSpiel's PyTorch NFSP with the defaults of its ``nfsp_leduc_pytorch.py`` example, both
measured in this run.

Reports hands (episodes) per second of training (evaluation excluded) and the NashConv of the
average policy at the end of the budget (and along the way for ours).

    python bench/bench_nfsp.py                      # 8 minutes per agent, the default
    python bench/bench_nfsp.py --seconds 120 --agents nfsp,nfsp-plt

OpenSpiel's NFSP needs ``dm-tree`` (``pip install dm-tree``); without it its row is skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import table

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import nash_conv

# Our settings for a minutes-long run (the paper's SGD schedule is tuned for millions of hands):
# Adam, one update per 64 transitions of a seat on batches of 256. Pass --params '{}' for the
# paper's defaults.
BENCH_PARAMS = {
    "optimizer": "adam",
    "rl_learning_rate": 0.01,
    "sl_learning_rate": 0.01,
    "learn_every": 64,
    "batch_size": 256,
    "num_envs": 256,
}


def run_ours(preset: str, seconds: float, seed: int, params: dict, evals: int) -> dict:
    """Train ``preset`` on Leduc for ``seconds`` of training time; NashConv ``evals`` times."""
    game = load_game("leduc_holdem")
    agent = make_agent(preset, game, seed=seed, **params)
    tree = agent.tree
    agent.average_policy()  # builds and caches the infoset tensors outside the clock
    train, cpu, curve, chunk = 0.0, 0.0, [], 2_000
    next_eval = seconds / evals
    while train < seconds:
        start, start_cpu = time.perf_counter(), time.process_time()
        agent.iterate(chunk)
        train += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        if train >= next_eval or train >= seconds:
            next_eval += seconds / evals
            curve.append((agent.iteration, round(train, 1),
                          round(nash_conv(tree, agent.average_policy()), 3)))
    return {"agent": preset, "episodes": agent.iteration, "seconds": train,
            "eps_per_s": agent.iteration / train, "eps_per_cpu_s": agent.iteration / cpu,
            "nash_conv": curve[-1][2], "curve": curve}


def run_openspiel(seconds: float, seed: int) -> dict | None:
    """OpenSpiel's PyTorch NFSP with the ``nfsp_leduc_pytorch.py`` defaults."""
    try:
        import torch
        from open_spiel.python import policy as os_policy
        from open_spiel.python import rl_environment
        from open_spiel.python.algorithms import exploitability
        from open_spiel.python.pytorch import nfsp
    except ImportError as exc:
        print(f"OpenSpiel NFSP unavailable ({exc}); skipping its row", file=sys.stderr)
        return None
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # same footing as ours (and faster for networks this small)
    env = rl_environment.Environment("leduc_poker", players=2)
    env.seed(seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    example = {  # open_spiel/python/examples/nfsp_leduc_pytorch.py flags
        "replay_buffer_capacity": int(2e5), "reservoir_buffer_capacity": int(2e6),
        "min_buffer_size_to_learn": 1000, "anticipatory_param": 0.1, "batch_size": 128,
        "learn_every": 64, "rl_learning_rate": 0.01, "sl_learning_rate": 0.01,
        "optimizer_str": "sgd", "loss_str": "mse", "update_target_network_every": 19200,
        "discount_factor": 1.0, "epsilon_decay_duration": int(20e6), "epsilon_start": 0.06,
        "epsilon_end": 0.001,
    }
    agents = [nfsp.NFSP(p, size, actions, [128], **example) for p in range(2)]

    class AveragePolicies(os_policy.Policy):
        """Both seats' average networks as one OpenSpiel policy."""

        def __init__(self) -> None:
            super().__init__(env.game, [0, 1])

        def action_probabilities(self, state, player_id=None):
            p = state.current_player()
            legal = state.legal_actions(p)
            obs = {"info_state": [None, None], "legal_actions": [None, None],
                   "current_player": p}
            obs["info_state"][p] = state.information_state_tensor(p)
            obs["legal_actions"][p] = legal
            step = rl_environment.TimeStep(obs, None, None, None)
            with agents[p].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                probs = agents[p].step(step, is_evaluation=True).probs
            return {a: probs[a] for a in legal}

    episodes, start, start_cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        step = env.reset()
        while not step.last():
            out = agents[step.observations["current_player"]].step(step)
            step = env.step([out.action])
        for agent in agents:
            agent.step(step)
        episodes += 1
    train, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    value = exploitability.nash_conv(env.game, AveragePolicies())
    return {"agent": "OpenSpiel NFSP (PyTorch)", "episodes": episodes, "seconds": train,
            "eps_per_s": episodes / train, "eps_per_cpu_s": episodes / cpu,
            "nash_conv": round(value, 3), "curve": []}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=480.0,
                        help="training time per agent (default 8 minutes)")
    parser.add_argument("--agents", default="nfsp-plt",
                        help="comma-separated presets: nfsp, nfsp-per, nfsp-plt")
    parser.add_argument("--params", default=json.dumps(BENCH_PARAMS),
                        help="JSON of NFSP parameters for our agents: flat names as on the "
                             "command line (per_eps), dotted (prioritized.eps) or nested")
    parser.add_argument("--evals", type=int, default=8, help="NashConv points per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args(argv)
    params = json.loads(args.params)
    rows = []
    for preset in args.agents.split(","):
        result = run_ours(preset.strip(), args.seconds, args.seed, params, args.evals)
        print(f"{preset}: {result['curve']}", flush=True)
        rows.append(result)
    if not args.no_openspiel:
        result = run_openspiel(args.seconds, args.seed)
        if result is not None:
            rows.append(result)
    print(f"\nLeduc hold'em, {args.seconds:.0f} s of training per agent, seed {args.seed}; "
          f"ours with {params}")
    # Episodes per CPU-second is the steadier number on a shared machine (all runs use one
    # thread: ours sets torch to one; OpenSpiel's is pinned to one below).
    print(table(["agent", "episodes", "episodes/s", "episodes/CPU-s", "NashConv"],
                [[r["agent"], r["episodes"], r["eps_per_s"], r["eps_per_cpu_s"], r["nash_conv"]]
                 for r in rows]))


if __name__ == "__main__":
    main()
