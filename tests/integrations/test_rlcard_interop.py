"""RLCard interop both ways: state mapping replayed against RLCard's envs, pokerzoo's CFR in
``rlcard.utils.tournament``, RLCard's CFR model and rule agents in pokerzoo's matches,
tournaments and ``SingleAgentEnv``, RLCard's tournament reproduced to the bit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import rlcard
from rlcard.agents import RandomAgent
from rlcard.utils import tournament

from pokerzoo import load_game
from pokerzoo.agents.cfr import CFR
from pokerzoo.errors import ConfigError, IllegalActionError
from pokerzoo.evaluation import head_to_head
from pokerzoo.evaluation.tournament import Entrant, run_tournament
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.integrations.rlcard_agents import (
    PolicyAgent,
    RLCardPolicy,
    load_rlcard_model,
    rlcard_policy,
    rlcard_tournament,
)
from pokerzoo.integrations.rlcard_states import (
    from_rlcard_state,
    game_for,
    pokerzoo_action,
    pokerzoo_card,
    to_rlcard_state,
)
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.tree import build
from pokerzoo.wrappers import SingleAgentEnv

LEDUC = game_for("leduc-holdem")


@pytest.fixture(scope="module")
def solver() -> CFR:
    """A short CFR run on RLCard's Leduc (pokerzoo's full-width solver)."""
    cfr = CFR(LEDUC)
    cfr.iterate(40)
    return cfr


@pytest.fixture(scope="module")
def rl_cfr():
    return load_rlcard_model("leduc-holdem-cfr")


def assert_same_view(ours: dict, theirs: dict, *, legal: bool = True) -> None:
    """What RLCard's agent sees in RLCard's env (``theirs``) and what pokerzoo hands it."""
    np.testing.assert_array_equal(ours["obs"], theirs["obs"])
    assert ours["action_record"] == list(theirs["action_record"])
    mine, want = dict(ours["raw_obs"]), dict(theirs["raw_obs"])
    if not legal:
        del mine["legal_actions"], want["legal_actions"]
    assert mine == want
    if legal:
        assert list(ours["legal_actions"]) == list(theirs["legal_actions"])
        assert ours["raw_legal_actions"] == theirs["raw_legal_actions"]


def dealt(env, game, order: list[int]) -> tuple[object, int]:
    """A pokerzoo state with RLCard's hole cards by seat (seat 0 is RLCard's small blind
    ``order[0]``)."""
    state = game.new_initial_state()
    for player in order:
        hand = env.game.players[player].hand
        for card in hand if isinstance(hand, list) else [hand]:
            state.apply_action(pokerzoo_card(game, card.get_index()))
    return state, order[0]


def pick(rng: np.random.Generator, rl_state: dict) -> int:
    """A random legal action id, folding seldom so that most hands reach later streets."""
    ids = list(rl_state["legal_actions"])
    weights = np.array([0.3 if n == "fold" else 1.0 for n in rl_state["raw_legal_actions"]])
    return int(rng.choice(ids, p=weights / weights.sum()))


def by_seat(payoffs, small_blind: int) -> list[float]:
    """RLCard's payoffs (by player id) in pokerzoo's seat order (seat 0: the small blind)."""
    return [float(payoffs[small_blind]), float(payoffs[1 - small_blind])]


def board_card(env, game, state) -> int:
    """The next board card: the one RLCard dealt when the same betting round ended."""
    shown = len(state.public_state()["public_cards"])
    board = getattr(env.game, "public_cards", None)
    card = env.game.public_card if board is None else board[shown]
    return pokerzoo_card(game, card.get_index())


def test_leduc_states_match_rlcard_on_replayed_hands():
    """Random hands in RLCard's Leduc and in pokerzoo's, the same deals and actions: at every
    decision the agent sees the same dict, the rebuilt pokerzoo state has the same
    information state, and the payoffs agree."""
    env = rlcard.make("leduc-holdem", config={"seed": 11})
    rng = np.random.default_rng(0)
    decisions = rebuilt_rounds = 0
    for _ in range(150):
        theirs, player = env.reset()
        small_blind = env.game.game_pointer
        state, _ = dealt(env, LEDUC, [small_blind, 1 - small_blind])
        while not env.is_over():
            if state.is_chance_node():
                state.apply_action(board_card(env, LEDUC, state))
            assert (state.current_player() + small_blind) % 2 == player
            ours = to_rlcard_state(state, small_blind)
            assert_same_view(ours, theirs)
            rebuilt = from_rlcard_state(theirs, LEDUC)
            assert rebuilt.information_state_key() == state.information_state_key()
            rebuilt_rounds += rebuilt.public_state()["round"]
            action = pick(rng, theirs)
            theirs, player = env.step(action)
            state.apply_action(pokerzoo_action(state, action))
            decisions += 1
        assert state.is_terminal()
        assert by_seat(env.get_payoffs(), small_blind) == [r / 2 for r in state.returns()]
    assert decisions > 400 and rebuilt_rounds > 50


def test_limit_states_match_rlcard_while_the_rules_agree():
    """Limit hold'em: the same dicts at every decision until RLCard's street order leaves the
    standard one (RLCard lets the player after the closer open a street)."""
    game = game_for("limit-holdem")
    env = rlcard.make("limit-holdem", config={"seed": 3})
    rng = np.random.default_rng(1)
    compared = postflop = 0
    for _ in range(150):
        theirs, player = env.reset()
        small_blind = player  # heads-up, RLCard's small blind acts first
        state, _ = dealt(env, game, [small_blind, 1 - small_blind])
        while not env.is_over():
            if state.is_chance_node():
                state.apply_action(board_card(env, game, state))
                continue
            if (state.current_player() + small_blind) % 2 != player:
                break  # RLCard's order departs from heads-up rules: the hands differ from here
            ours = to_rlcard_state(state, small_blind)
            # RLCard allows a fourth raise before the flop; pokerzoo caps at four bets.
            capped = (
                "raise" in theirs["raw_legal_actions"] and "raise" not in ours["raw_legal_actions"]
            )
            if not theirs["action_record"]:
                # RLCard builds a hand's first state before it resets the raise counts, so
                # its first decision shows the previous hand's; pokerzoo's shows none.
                assert ours["raw_obs"]["raise_nums"] == [0, 0, 0, 0]
                theirs = {
                    **theirs,
                    "obs": np.concatenate([theirs["obs"][:52], ours["obs"][52:]]),
                    "raw_obs": {**theirs["raw_obs"], "raise_nums": [0, 0, 0, 0]},
                }
            assert_same_view(ours, theirs, legal=not capped)
            compared += 1
            postflop += bool(ours["raw_obs"]["public_cards"])
            action = pick(rng, ours)
            theirs, player = env.step(action)
            state.apply_action(pokerzoo_action(state, action))
        if env.is_over() and state.is_terminal():
            assert by_seat(env.get_payoffs(), small_blind) == [r / 2 for r in state.returns()]
    assert compared > 300 and postflop > 50


def test_no_limit_states_match_rlcard_before_the_flop():
    """No-limit: cards, chips, stacks, pot and ids agree before the flop while nobody raises
    (RLCard sizes raises otherwise and lets the small blind open later streets)."""
    game = game_for("no-limit-holdem")
    env = rlcard.make("no-limit-holdem", config={"seed": 5})
    rng = np.random.default_rng(2)
    compared = 0
    for _ in range(60):
        theirs, player = env.reset()
        small_blind = player
        state, _ = dealt(env, game, [small_blind, 1 - small_blind])
        while not env.is_over() and not state.is_chance_node():
            ours = to_rlcard_state(state, small_blind)
            assert_same_view(ours, theirs, legal=False)
            assert {0, 1} <= set(ours["legal_actions"]) and {0, 1} <= set(theirs["legal_actions"])
            compared += 1
            action = int(rng.choice([0, 1], p=[0.2, 0.8]))
            theirs, player = env.step(action)
            state.apply_action(pokerzoo_action(state, action))
    assert compared > 80


def test_pokerzoo_cfr_plays_rlcard_tournament(solver, rl_cfr):
    """pokerzoo's CFR policy as an RLCard agent in ``rlcard.utils.tournament``: it beats
    RLCard's random and rule agents, and ``info['probs']`` is its average policy."""
    env = rlcard.make("leduc-holdem", config={"seed": 0})
    agent = PolicyAgent(solver, env, seed=1)
    opponents = {
        "random": RandomAgent(env.num_actions),
        "rule-v1": load_rlcard_model("leduc-holdem-rule-v1"),
        "rule-v2": load_rlcard_model("leduc-holdem-rule-v2"),
        "cfr": rl_cfr,
    }
    results = {}
    for name, opponent in opponents.items():
        np.random.seed(0)  # noqa: NPY002  (RLCard's agents draw from the global state)
        env.set_agents([agent, opponent])
        results[name] = tournament(env, 600)[0]
    assert results["random"] > 0.3 and results["rule-v1"] > 0.1 and results["rule-v2"] > 0.2
    assert results["cfr"] > -0.3  # a 40-iteration CFR against RLCard's model: near even
    state, player = env.reset()
    action, info = agent.eval_step(state)
    ours = from_rlcard_state(state, LEDUC)
    want = solver.average_policy().action_probabilities(ours)
    assert set(info["probs"]) == set(state["raw_legal_actions"])
    for a, p in want.items():
        name = state["raw_legal_actions"][list(state["legal_actions"]).index(to_rlcard_id(ours, a))]
        assert info["probs"][name] == pytest.approx(p)
    assert action in state["legal_actions"]


def to_rlcard_id(state, action: int) -> int:
    from pokerzoo.integrations.rlcard_states import rlcard_action

    return rlcard_action(state, action)


@pytest.mark.parametrize("pairing", ["cfr-random", "rule-cfr", "pokerzoo-cfr"])
def test_rlcard_tournament_reproduced_to_the_bit(pairing, solver, rl_cfr):
    """RLCard's tournament and pokerzoo's engine under RLCard's protocol: the same seeds give
    the same averages exactly (the same deals, the agents' own choices)."""

    def agents():
        if pairing == "cfr-random":
            return [rl_cfr, RandomAgent(4)]
        if pairing == "rule-cfr":
            return [load_rlcard_model("leduc-holdem-rule-v2"), rl_cfr]
        return [PolicyAgent(solver, "leduc-holdem", seed=4), rl_cfr]

    np.random.seed(3)  # noqa: NPY002  (RLCard's agents draw from the global state)
    env = rlcard.make("leduc-holdem", config={"seed": 5})
    env.set_agents(agents())
    theirs = tournament(env, 400)
    np.random.seed(3)  # noqa: NPY002  (RLCard's agents draw from the global state)
    ours = rlcard_tournament(agents(), 400, seed=5)
    assert ours == [float(x) for x in theirs]


def test_rlcard_cfr_model_replayed_hands_give_identical_payoffs(rl_cfr):
    """RLCard's CFR model in RLCard's env and as a pokerzoo policy on the same deals and
    actions: the same probabilities at every decision and the same payoffs."""
    env = rlcard.make("leduc-holdem", config={"seed": 21})
    policy = rlcard_policy("leduc-holdem-cfr")
    np.random.seed(0)  # noqa: NPY002  (RLCard's agents draw from the global state)
    for _ in range(100):
        theirs, player = env.reset()
        small_blind = player
        state, _ = dealt(env, LEDUC, [small_blind, 1 - small_blind])
        while not env.is_over():
            if state.is_chance_node():
                state.apply_action(board_card(env, LEDUC, state))
            action, info = rl_cfr.eval_step(theirs)
            ours = policy.action_probabilities(state)
            assert ours == {
                pokerzoo_action(state, k): pytest.approx(v) for k, v in info["probs"].items()
            }
            theirs, player = env.step(action)
            state.apply_action(pokerzoo_action(state, int(action)))
        assert by_seat(env.get_payoffs(), small_blind) == [r / 2 for r in state.returns()]


def test_rlcard_cfr_model_in_head_to_head_and_tournaments(solver):
    """RLCard's model as a pokerzoo policy: a match is reproducible by seed and agrees with
    the exact tournament on the compiled tree."""
    model = rlcard_policy("leduc-holdem-cfr")
    first = head_to_head(LEDUC, [model, UniformRandomPolicy()], 300, seed=0)
    # A copy as distributed workers get it (pickled) plays the same hands.
    shipped = pickle.loads(pickle.dumps(model))
    again = head_to_head(LEDUC, [shipped, UniformRandomPolicy()], 300, seed=0)
    assert np.array_equal(first.mean_chips, again.mean_chips)
    field = [
        Entrant("rlcard-cfr", model),
        Entrant("random", UniformRandomPolicy()),
        Entrant("rule-v1", rlcard_policy("leduc-holdem-rule-v1")),
        Entrant("pokerzoo-cfr", solver),
    ]
    exact = run_tournament(LEDUC, field, tree=build(LEDUC))
    value = exact.mean_mbb[0, 1]
    low, high = first.interval(0, "mbb/g")
    assert low <= value <= high and value > 300
    assert exact.mean_mbb[3, 0] > 0  # pokerzoo's CFR beats RLCard's
    assert exact.scores[0].exploitability_mbb > exact.scores[3].exploitability_mbb


@pytest.mark.parametrize(
    ("model", "env_name", "params"),
    [
        ("leduc-holdem-rule-v1", "leduc_holdem_v0", LEDUC_VARIANTS["rlcard"]),
        ("leduc-holdem-rule-v2", "leduc_holdem_v0", LEDUC_VARIANTS["rlcard"]),
        ("limit-holdem-rule-v1", "limit_holdem_v0", {"small_blind": 1, "big_blind": 2}),
    ],
)
def test_rule_agents_play_in_single_agent_env(model, env_name, params):
    """RLCard's rule agents as ``SingleAgentEnv`` opponents: every action they take is the one
    RLCard's rule gives on the dict pokerzoo hands them."""
    rule = load_rlcard_model(model)
    env = SingleAgentEnv(env_name, opponent=rlcard_policy(model), seat="random", **params)
    rng = np.random.default_rng(0)
    checked = 0
    for hand in range(40):
        _, info = env.reset(seed=hand)
        learner = info["seat"]
        over = False
        while not over:
            _, _, over, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        final = env.aec.unwrapped.game_state
        replay = final.game.new_initial_state()
        for a in final.history():
            if not replay.is_chance_node() and replay.current_player() != learner:
                assert a == pokerzoo_action(replay, rule.step(to_rlcard_state(replay)))
                checked += 1
            replay.apply_action(a)
    assert checked > 20


def test_bad_input_gives_pokerzoo_errors():
    with pytest.raises(
        ConfigError, match="unknown RLCard model 'leduc-holdem-nfsp'.*leduc-holdem-cfr"
    ):
        rlcard_policy("leduc-holdem-nfsp")
    with pytest.raises(ConfigError, match="plays leduc-holdem"):
        rlcard_policy("leduc-holdem-cfr", load_game("limit_holdem"))
    with pytest.raises(ConfigError, match="'rlcard' variant"):
        rlcard_policy("leduc-holdem-cfr", load_game("leduc_holdem"))
    with pytest.raises(ConfigError, match="heads-up"):
        rlcard_policy("limit-holdem-rule-v1", load_game("limit_holdem", num_players=3))
    with pytest.raises(ConfigError, match="bet_fractions"):
        rlcard_policy(RandomAgent(5), load_game("no_limit_holdem", bet_fractions=(0.5, 1.0, 2.0)))
    with pytest.raises(ConfigError, match="needs the game"):
        rlcard_policy(RandomAgent(4))
    with pytest.raises(ConfigError, match="use_raw and eval_step"):
        RLCardPolicy(object(), "leduc-holdem")
    with pytest.raises(ConfigError, match="no pokerzoo game matches RLCard env 'uno'"):
        game_for("uno")
    with pytest.raises(ConfigError, match="play RLCard's leduc-holdem"):
        PolicyAgent(UniformRandomPolicy(), "limit-holdem")
    with pytest.raises(ConfigError, match="cannot play a"):
        PolicyAgent(42)
    policy = rlcard_policy("leduc-holdem-rule-v1")
    other = load_game("leduc_holdem", **{**LEDUC_VARIANTS["rlcard"], "num_ranks": 4})
    state = other.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ConfigError, match="this state is of"):
        policy.action_probabilities(state)
    with pytest.raises(ConfigError, match="not a state dict"):
        from_rlcard_state({"obs": []}, LEDUC)
    state = LEDUC.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ConfigError, match="chance node"):
        to_rlcard_state(LEDUC.new_initial_state())
    with pytest.raises(IllegalActionError, match="legal actions are"):
        pokerzoo_action(state, "bet")
    with pytest.raises(ConfigError, match="num_hands"):
        rlcard_tournament([RandomAgent(4), RandomAgent(4)], 0, seed=0)


def test_any_rlcard_agent_plays_no_limit_holdem():
    """An RLCard agent object on heads-up no-limit hold'em: its fold of a free check is played
    as the check (RLCard offers fold at every decision, pokerzoo's hold'em does not)."""
    game = game_for("no-limit-holdem")
    policy = rlcard_policy(RandomAgent(5), "no-limit-holdem")
    state = game.new_initial_state()
    for card in (51, 47, 0, 5):
        state.apply_action(card)
    state.apply_action(1)  # the small blind calls; the big blind may check for free
    probs = policy.action_probabilities(state)
    assert 0 not in probs and set(probs) == set(state.legal_actions())
    assert probs[1] == pytest.approx(2 * probs[state.legal_actions()[-1]])  # fold + check
    result = head_to_head(game, [policy, UniformRandomPolicy()], 40, seed=1)
    assert np.isfinite(result.mean_chips).all() and result.num_hands == 80
