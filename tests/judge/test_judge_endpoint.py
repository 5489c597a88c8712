"""The whole judge through HTTP: a chat-completions server on 127.0.0.1 answers from a known
policy, and the judge recovers that policy's exact NashConv (pokerzoo's and OpenSpiel's)."""

from __future__ import annotations

import zlib

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.evaluation import nash_conv
from pokerzoo.judge import judge_game
from pokerzoo.judge.decision import describe
from pokerzoo.judge.llm import ChatPlayer
from pokerzoo.judge.loopback import ChatServer, policy_responder
from pokerzoo.tree import TabularPolicy, build

from .test_exact import openspiel_policy


def decisions_of(game):
    tree = build(game)
    return tree, [describe(tree.infoset_state(i)) for i in range(tree.num_infosets)]


def deterministic_table(decisions):
    """Each state's label chosen by a hash of its key: a policy with no pattern."""
    return {d.text: {d.legal[zlib.crc32(d.key.encode()) % len(d.legal)].label: 1.0}
            for d in decisions}


def player_for(server, **options):
    return ChatPlayer(base_url=server.base_url, model="known-policy", api_key_env=None,
                      concurrency=4, seed=11, **options)


@pytest.mark.parametrize(("name", "os_name"), [("kuhn_poker", "kuhn_poker"),
                                               ("leduc_holdem", "leduc_poker")])
def test_a_deterministic_endpoint_gets_its_policys_exact_nash_conv(name, os_name):
    game = load_game(name)
    tree, decisions = decisions_of(game)
    table = deterministic_table(decisions)
    truth = np.zeros(tree.infoset_mask.shape)
    for i, d in enumerate(decisions):
        (label,) = table[d.text]
        truth[i, d.action_of(label).action] = 1.0
    with ChatServer(policy_responder(table)) as server:
        report = judge_game(game, player_for(server), hands=0, progress=False)
        assert server.requests == tree.num_infosets
    expected = nash_conv(tree, TabularPolicy.from_tree(tree, truth))
    assert report.nash_conv == pytest.approx(expected, abs=1e-12)
    os_game = pyspiel.load_game(os_name)
    theirs = os_exploitability.nash_conv(os_game, openspiel_policy(os_game, game,
                                                                   report.policy))
    assert report.nash_conv == pytest.approx(theirs, abs=1e-12)
    assert report.requests == tree.num_infosets and report.illegal_answers == 0
    assert report.prompt_tokens > 0 and report.completion_tokens > 0


def test_a_sampled_endpoint_lies_within_its_interval_and_a_rerun_costs_nothing(tmp_path):
    game = load_game("kuhn_poker")
    tree, decisions = decisions_of(game)
    rng = np.random.default_rng(5)
    weights = {}
    truth = np.zeros(tree.infoset_mask.shape)
    for i, d in enumerate(decisions):
        p = rng.dirichlet(np.ones(len(d.legal)))
        weights[d.text] = {a.label: float(q) for a, q in zip(d.legal, p, strict=True)}
        truth[i, list(d.actions)] = p
    exact = nash_conv(tree, TabularPolicy.from_tree(tree, truth))
    with ChatServer(policy_responder(weights)) as server:
        first = judge_game(game, player_for(server, cache_dir=tmp_path, temperature=1.0),
                           samples=40, hands=0, progress=False)
        sent = server.requests
        second = judge_game(game, player_for(server, cache_dir=tmp_path, temperature=1.0),
                            samples=40, hands=0, progress=False)
        assert server.requests == sent == 12 * 40  # the rerun sent nothing
    low, high = first.nash_conv_ci
    assert low <= exact <= high and high > low
    assert second.nash_conv == first.nash_conv and second.cache_hits == 12 * 40
    assert second.requests == 0
