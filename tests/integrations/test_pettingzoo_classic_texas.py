"""The PettingZoo-classic compatible hold'em envs: with ``rules="rlcard"`` the same deals,
observations, masks, rewards, turn order and terminations as PettingZoo's ``texas_holdem_v4``
and ``texas_holdem_no_limit_v6`` on the same seeds and actions; with pokerzoo's rules (the
default) the same wherever the rules agree, and every difference one the docs list."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.classic import texas_holdem_no_limit_v6 as pz_nolimit
from pettingzoo.classic import texas_holdem_v4 as pz_limit
from pettingzoo.test import api_test, seed_test

import pokerzoo
from pokerzoo.errors import ConfigError, IllegalActionError
from pokerzoo.integrations.pettingzoo_classic import texas_holdem_no_limit_v6, texas_holdem_v4
from pokerzoo.integrations.pettingzoo_classic._holdem import OBS_INDEX
from pokerzoo.integrations.pettingzoo_classic.testing import (
    assert_same_view,
    differences,
    replay,
)

pytestmark = pytest.mark.filterwarnings("ignore:.*precision lowered by casting to float32")
ENVS = {"limit": (pz_limit, texas_holdem_v4), "no_limit": (pz_nolimit, texas_holdem_no_limit_v6)}


def rlcard_cards(env) -> tuple[list[list[int]], list[int]]:
    """Each agent's hole cards and the board in PettingZoo's env, as RLCard's card indices."""
    game = env.unwrapped.env.game
    index = env.unwrapped.env.card2index
    hands = [sorted(index[c.get_index()] for c in p.hand) for p in game.players]
    return hands, [index[c.get_index()] for c in game.public_cards]


def our_cards(env) -> tuple[list[list[int]], list[int]]:
    hand = env.unwrapped.hand
    return [sorted(OBS_INDEX[h].tolist()) for h in hand.hands], OBS_INDEX[hand.board].tolist()


@pytest.mark.parametrize("game", ["limit", "no_limit"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rlcard_rules_replay_pettingzoo_step_by_step(game: str, num_players: int) -> None:
    pz, ours = ENVS[game]
    rng = np.random.default_rng(num_players)
    ends = []
    for seed in range(60):
        theirs = pz.env(num_players=num_players)
        mine = ours.env(num_players=num_players, rules="rlcard")
        ends += replay(theirs, mine, seed, rng, hands=3)
        assert our_cards(mine) == rlcard_cards(theirs)
    rewards = {r for end in ends for r in end.values()}
    assert len(ends) == 180 and min(rewards) < -5 and max(rewards) > 5


class CountingRandomState(np.random.RandomState):
    """RLCard's generator, counting the odd chips it hands out (``choice``)."""

    choices = 0

    def choice(self, *args, **kwargs):
        CountingRandomState.choices += 1
        return super().choice(*args, **kwargs)


def test_rlcard_rules_cover_all_ins_side_pots_and_odd_chips() -> None:
    # Aggressive play (raises and all-ins first) with four players reaches RLCard's corners:
    # players all-in keep their turns, side pots go back, odd chips are drawn from the deal's
    # generator (which then moves the next unseeded deal: hands 2 and 3 of each seed).
    rng = np.random.default_rng(0)
    CountingRandomState.choices = 0
    for seed in range(120):
        theirs = pz_nolimit.env(num_players=4)
        mine = texas_holdem_no_limit_v6.env(num_players=4, rules="rlcard")
        for hand in range(3):
            if hand == 1:  # the same generator, counting from now on
                counting = CountingRandomState()
                counting.set_state(mine.unwrapped._rng.get_state())
                mine.unwrapped._rng = counting
            theirs.reset(seed=seed if hand == 0 else None)
            mine.reset(seed=seed if hand == 0 else None)
            while theirs.agents:
                assert_same_view(theirs, mine)
                obs, _, done, _, _ = theirs.last()
                legal = np.flatnonzero(obs["action_mask"])
                raises = legal[legal >= 2]
                pick = raises if len(raises) and rng.random() < 0.7 else legal
                action = None if done else int(rng.choice(pick))
                theirs.step(action)
                mine.step(action)
    assert CountingRandomState.choices > 0  # pots that split unevenly (RLCard's odd chip)


def test_rlcard_hand_ranking_agrees_with_ours() -> None:
    from rlcard.games.limitholdem.utils import compare_hands

    from pokerzoo.games.holdem.cards import hand_rank
    from pokerzoo.integrations.pettingzoo_classic._holdem import RLCARD_DECK

    names = [s + r for s in "SHDC" for r in "A23456789TJQK"]  # RLCard's deck order
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(2, 5))
        idx = rng.permutation(52)[: 2 * n + 5]
        hands = [list(idx[5 + 2 * k : 7 + 2 * k]) + list(idx[:5]) for k in range(n)]
        ranks = [hand_rank([RLCARD_DECK[i] for i in h]) for h in hands]
        ours = [int(r == min(ranks)) for r in ranks]
        assert list(compare_hands([[names[i] for i in h] for h in hands])) == ours


# pokerzoo's rules against PettingZoo's: every divergence is a documented difference ------------


def _board_size(env, agent) -> int:
    return int(env.observe(agent)["observation"][:52].sum()) - 2


def explain(theirs, ours, game: str, before: int) -> str | None:
    """Which documented difference explains how the envs differ now (``None``: they agree);
    fail if none does. ``before``: the board size before the last action."""
    found = differences(theirs, ours)
    if not found:
        return None
    mask_t = theirs.observe(theirs.agent_selection)["action_mask"]
    if found == ["action_mask"]:
        mask_o = ours.observe(ours.agent_selection)["action_mask"]
        extra, missing = set(np.flatnonzero(mask_t > mask_o)), set(np.flatnonzero(mask_o > mask_t))
        assert not missing or game == "no_limit", "pokerzoo offers an action RLCard does not"
        fold, check = (2, 3) if game == "limit" else (0, None)
        if check is not None and extra == {fold} and mask_o[check]:
            return "fold offered when checking is free"
        if game == "limit" and extra == {1}:
            return "four raises before the flop"
        obs = theirs.observe(theirs.agent_selection)["observation"]
        if game == "no_limit" and extra | missing <= {0, 2, 3, 4}:
            if extra == {0} and obs[52] == obs[53]:
                return "fold offered when checking is free"
            return "raise sizes"
    board_t = _board_size(theirs, theirs.agent_selection)
    board_o = _board_size(ours, ours.agent_selection)
    if "agent_selection" in found and board_o > before:
        return "first to act after the flop"
    if game == "limit" and ours.num_agents > 2 and board_o > board_t:
        return "a round ends after a check or call by every player at the table"
    if found == ["observation"] and all(ours.terminations.values()) and board_t > board_o:
        return "the board dealt after a fold to an all-in"
    raise AssertionError(f"undocumented difference in {found}")


@pytest.mark.parametrize("game", ["limit", "no_limit"])
@pytest.mark.parametrize("num_players", [2, 3])
def test_pokerzoo_rules_agree_with_pettingzoo_wherever_the_rules_agree(
    game: str, num_players: int
) -> None:
    # Both envs get the same actions (chosen among those legal in both; no-limit half-pot and
    # pot raises only when not facing a bet, where RLCard sizes them as pokerzoo does) and are
    # compared at every step; at the first difference a hand stops, and the difference must be
    # one the module docs list (for no-limit at equal stacks, 100 chips).
    pz, ours = ENVS[game]
    kwargs = {"stack": 100} if game == "no_limit" else {}
    rng = np.random.default_rng(num_players)
    seen: dict[str | None, int] = {}
    decisions = 0
    for seed in range(200):
        theirs, mine = pz.env(num_players=num_players), ours.env(num_players=num_players, **kwargs)
        theirs.reset(seed=seed)
        mine.reset(seed=seed)
        before, why = 0, None
        while theirs.agents:
            why = explain(theirs, mine, game, before)
            if why not in (None, "fold offered when checking is free", "raise sizes",
                           "four raises before the flop"):
                break
            obs, _, done, _, _ = theirs.last()
            both = obs["action_mask"] & mine.observe(mine.agent_selection)["action_mask"]
            if game == "no_limit" and obs["observation"][52] < obs["observation"][53]:
                both[2:4] = 0  # facing a bet, RLCard's and pokerzoo's sizes part
            action = None if done else int(rng.choice(np.flatnonzero(both)))
            before = _board_size(mine, mine.agent_selection)
            theirs.step(action)
            mine.step(action)
            decisions += not done
        seen[why] = seen.get(why, 0) + 1
    assert sum(n for w, n in seen.items() if w is None or "fold" in w or "raise" in w) >= 40
    if num_players == 2:  # heads-up RLCard lets the small blind act first after the flop
        assert "first to act after the flop" in seen
    assert decisions > 300


def test_pokerzoo_rules_heads_up_order_min_raise_and_stacks() -> None:
    env = texas_holdem_no_limit_v6.raw_env()
    env.reset(seed=1)
    small_blind = env.agent_selection
    big_blind = next(a for a in env.agents if a != small_blind)
    env.step(1)  # the small blind calls
    env.step(1)  # the big blind checks: the flop
    assert env.agent_selection == big_blind  # the big blind acts first after the flop
    assert env.observe(big_blind)["action_mask"].tolist() == [0, 1, 1, 1, 1]  # no fold to check
    env.step(2)  # half pot: 2 into a pot of 4
    assert env.observe(small_blind)["observation"][53] == 4
    env.step(2)  # a half-pot raise: call 2, then half of the pot of 8 more
    assert env.observe(small_blind)["observation"][52] == 8
    env.step(4)  # all-in: 100 big blinds (200 chips) by default
    assert env.observe(big_blind)["observation"][53] == 200
    assert env.unwrapped.stack == 200


# API, spaces, arguments ---------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["pokerzoo", "rlcard"])
@pytest.mark.parametrize("module", [texas_holdem_v4, texas_holdem_no_limit_v6])
def test_pettingzoo_api_and_seed_tests(module, rules: str) -> None:
    api_test(module.env(rules=rules), num_cycles=300)
    api_test(module.raw_env(num_players=3, rules=rules), num_cycles=300)
    seed_test(lambda: module.env(num_players=3, rules=rules), num_cycles=100)


@pytest.mark.parametrize("game", ["limit", "no_limit"])
def test_spaces_and_arguments_match_pettingzoo(game: str) -> None:
    pz, ours = ENVS[game]
    for n in (2, 4):
        theirs = pz.raw_env(num_players=n)
        mine = ours.raw_env(n, "rgb_array", 800, rules="rlcard")
        assert mine.possible_agents == theirs.possible_agents
        assert {**mine.metadata, "render_modes": 0} == {**theirs.metadata, "render_modes": 0}
        assert set(mine.metadata["render_modes"]) == {*theirs.metadata["render_modes"], "ansi"}
        for agent in theirs.possible_agents:
            assert mine.observation_space(agent) == theirs.observation_space(agent)
            assert mine.action_space(agent) == theirs.action_space(agent)
        assert mine.screen_height == 800 and ours.raw_env().screen_height == 1000
    if game == "no_limit":  # 100 big blinds: chip entries up to 200
        assert ours.raw_env().observation_space("player_0")["observation"].high[-1] == 200
        assert ours.raw_env(stack=100).observation_space("player_0") == theirs.observation_space(
            "player_0"
        )
    for bad, match in [
        ({"num_players": 7}, "num_players must be an integer from 2 to 6"),
        ({"rules": "acpc"}, "rules must be one of"),
        ({"render_mode": "svg"}, "render_mode must be None or one of"),
    ]:
        with pytest.raises(ConfigError, match=match):
            ours.raw_env(**bad)
    with pytest.raises(ConfigError, match=r"unknown arguments \['foo'\]; the arguments are"):
        ours.env(foo=1)
    env = ours.env()
    env.reset(seed=0)
    with pytest.raises(ConfigError, match="unknown agent 'player_9'; the agents are"):
        env.observe("player_9")
    if game == "limit":
        with pytest.raises(ConfigError, match="takes no stack"):
            texas_holdem_v4.TexasHoldemV4(stack=100)
    else:
        with pytest.raises(ConfigError, match="stacks = 2 must exceed"):
            ours.raw_env(stack=2)


@pytest.mark.parametrize("rules", ["pokerzoo", "rlcard"])
def test_illegal_actions(rules: str) -> None:
    raw = texas_holdem_v4.raw_env(rules=rules)
    raw.reset(seed=0)
    assert raw.observe(raw.agent_selection)["action_mask"].tolist() == [1, 1, 1, 0]
    with pytest.raises(IllegalActionError, match=r"legal actions are \[0, 1, 2\]"):
        raw.step(3)  # check, facing the big blind
    with pytest.raises(IllegalActionError):
        raw.step("call")


@pytest.mark.parametrize("game", ["limit", "no_limit"])
def test_env_penalizes_illegal_actions_as_pettingzoos_wrappers(game: str) -> None:
    # Illegal moves mid-hand end it with -1 for the mover and the agents then step out as in
    # PettingZoo's wrapped env; actions out of range and calls out of order fail alike.
    pz, ours = ENVS[game]
    rng = np.random.default_rng(5)
    played = set()
    for seed in range(40):
        theirs, mine = pz.env(num_players=3), ours.env(num_players=3, rules="rlcard")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for env in (theirs, mine):
                env.reset(seed=seed)
            while theirs.agents:
                obs, _, done, _, _ = theirs.last()
                illegal = np.flatnonzero(obs["action_mask"] == 0)
                if done:
                    action = None
                elif len(illegal) and rng.random() < 0.2:
                    action = int(rng.choice(illegal))
                    played.add(action)
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                theirs.step(action)
                mine.step(action)
                assert_same_view(theirs, mine)
    assert len(played) >= 2
    for env in (pz.env(), ours.env()):
        with pytest.raises(AssertionError, match="reset"):
            env.step(0)
        env.reset(seed=0)
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(9)


def outcomes_out_of_order(env) -> list[str]:
    """What calls out of order do: before reset, a second agent_iter step without a step."""
    found = []
    before_reset = [env.last, lambda: env.agents, env.agent_iter, lambda: env.step(0)]
    for call in [*before_reset, lambda: env.observe("player_0")]:
        with pytest.raises((AttributeError, AssertionError)) as info:
            call()
        found.append(f"{info.type.__name__}: {info.value}")
    env.reset(seed=0)
    loop = iter(env.agent_iter())
    next(loop)
    with pytest.raises(AssertionError) as info:
        next(loop)
    return [*found, str(info.value)]


def test_calls_out_of_order_fail_as_in_pettingzoo() -> None:
    for pz, ours in ENVS.values():
        assert outcomes_out_of_order(ours.env()) == outcomes_out_of_order(pz.env())


@pytest.mark.parametrize("rules", ["pokerzoo", "rlcard"])
def test_human_mode_draws_after_reset_and_each_action(rules: str, capsys) -> None:
    env = texas_holdem_no_limit_v6.env(render_mode="human", rules=rules, num_players=3)
    env.reset(seed=0)
    assert capsys.readouterr().out.count("board:") == 1
    actions = 0
    for agent in env.agent_iter():  # calls down to the river
        done = env.terminations[agent]
        env.step(None if done else 1)
        actions += not done
    out = capsys.readouterr().out
    assert out.count("board:") == actions and "pot 6" in out  # dead steps draw nothing
    assert "??" not in out.split("no_limit_holdem")[-1]  # the last frame shows every hand


def test_render_modes() -> None:
    for rules in ("pokerzoo", "rlcard"):
        text = texas_holdem_v4.env(render_mode="ansi", rules=rules)
        text.reset(seed=0)
        assert "player_0" in text.render() and "??" in text.render()
        frame = texas_holdem_no_limit_v6.env(render_mode="rgb_array", rules=rules)
        frame.reset(seed=0)
        image = frame.render()
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_registered_in_pokerzoo_and_pettingzoo() -> None:
    for name, module in [
        ("classic_texas_holdem_v4", texas_holdem_v4),
        ("classic_texas_holdem_no_limit_v6", texas_holdem_no_limit_v6),
    ]:
        env = pokerzoo.make(name, rules="rlcard")
        assert type(env.unwrapped) is type(module.raw_env()) and env.unwrapped.rules == "rlcard"
    built = pettingzoo.make("aec", "pokerzoo/classic_texas_holdem_no_limit-v6", num_players=3)
    built.reset(seed=4)
    theirs = pz_nolimit.env(num_players=3)
    theirs.reset(seed=4)
    assert built.agent_selection == theirs.agent_selection
    assert pettingzoo.make("aec", "pokerzoo/classic_texas_holdem-v4").metadata["name"] == (
        "texas_holdem_v4"
    )


@pytest.mark.parametrize("rules", ["pokerzoo", "rlcard"])
def test_deepcopy_continues_the_hand_and_pickle_rebuilds_the_env(rules: str) -> None:
    env = texas_holdem_no_limit_v6.env(num_players=3, rules=rules, stack=300)
    env.reset(seed=5)
    clone = copy.deepcopy(env)
    for action in (1, 1, 4):  # call, call, all-in: the copy plays on alike
        env.step(action)
        clone.step(action)
        assert_same_view(env, clone)
    restored = pickle.loads(pickle.dumps(env))
    assert (restored.rules, restored.num_players, restored.stack) == (rules, 3, 300)
    assert restored.illegal_action == "penalize"
