"""RLCard's state dicts and action ids from pokerzoo states, and pokerzoo states back from them.

Each RLCard poker env has a matching pokerzoo game (``game_for``; ``env_of`` goes back):

===================  ====================================================================
RLCard env           pokerzoo game
===================  ====================================================================
``leduc-holdem``     ``load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"])``: the same
                     rules (replay-checked against RLCard's game)
``limit-holdem``     ``load_game("limit_holdem", small_blind=1, big_blind=2)``, heads-up;
                     RLCard lets the player after the one who closed a street open the next
                     one and allows four raises after the big blind, pokerzoo plays standard
                     heads-up rules (the big blind opens after the flop; four bets a street)
``no-limit-holdem``  ``load_game("no_limit_holdem", small_blind=1, big_blind=2, stacks=100)``,
                     heads-up; action ids agree (0 fold, 1 check/call, 2 half pot, 3 pot,
                     4 all-in) but RLCard sizes its raises and orders its streets otherwise
===================  ====================================================================

``to_rlcard_state(state)`` gives what RLCard's env hands the player to act: ``obs`` (RLCard's
vector), ``legal_actions`` (ids, in RLCard's order), ``raw_obs`` (RLCard's dict: cards as
``"SA"``, chips, legal action names, ...), ``raw_legal_actions`` and ``action_record``. The
legal actions are pokerzoo's, plus fold where checking is free in hold'em (RLCard offers fold
at every decision; ``pokerzoo_action`` plays such a fold as the check, as RLCard's env decodes
an illegal action). One departure from RLCard on purpose: RLCard's limit env builds a hand's
first state before it resets its raise counts, so its first decision shows the previous
hand's ``raise_nums``; here they are the hand's own (zeros).
RLCard player ids are seats rotated by ``small_blind`` (RLCard draws its small blind each
hand; pokerzoo's seat 0 is always the small blind). Amounts are in the game's chips.

``from_rlcard_state(rl_state, game)`` rebuilds a pokerzoo state in which the player to act has
the information RLCard's player has (Leduc only: hold'em's rules differ in who acts when, so
no pokerzoo hold'em history matches RLCard's in general). The opponent's hidden card is
unknown to the player, so the rebuilt state holds a stand-in card there: state policies must
read only the acting player's information, as pokerzoo's do.

>>> from pokerzoo import load_game
>>> game = game_for("leduc-holdem")
>>> state = game.new_initial_state()
>>> for a in (0, 4, 1):  # deal J of spades, K of spades; the small blind calls
...     state.apply_action(a)
>>> rl = to_rlcard_state(state)
>>> rl["raw_obs"]["hand"], rl["raw_obs"]["all_chips"], rl["raw_legal_actions"]
('SK', [2, 2], ['raise', 'fold', 'check'])
>>> from_rlcard_state(rl, game).information_state_key() == state.information_state_key()
True
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, cast

import numpy as np
from rlcard.games.nolimitholdem.game import Stage
from rlcard.games.nolimitholdem.round import Action

from pokerzoo.errors import ConfigError, IllegalActionError
from pokerzoo.games.base import CHANCE, Game, State
from pokerzoo.games.holdem.cards import CARD_STRINGS, string_to_card
from pokerzoo.games.holdem.game import LimitHoldem, NoLimitHoldem
from pokerzoo.games.leduc import CALL, FOLD, LEDUC_VARIANTS, LeducConfig, LeducHoldem
from pokerzoo.games.registry import load_game

ENVS = ("leduc-holdem", "limit-holdem", "no-limit-holdem")
"""The RLCard envs with a matching pokerzoo game."""
_RLCARD_ENV_OF = {
    "leduc_holdem": "leduc-holdem", "limit_holdem": "limit-holdem",
    "no_limit_holdem": "no-limit-holdem",
}
"""pokerzoo game name -> the RLCard env whose rules it shares (``env_of`` checks parameters)."""

NAMES = ("call", "raise", "fold", "check")
"""RLCard's Leduc and limit action names; an action's id is its index here."""
_NAME_ID = {name: i for i, name in enumerate(NAMES)}
_LEDUC_RANKS = "JQK"
_LEDUC_SUITS = "SH"  # pokerzoo's Leduc card c is rank c // 2 and suit c % 2 (spades first)
_RL_RANKS = "A23456789TJQK"  # RLCard's order in card2index.json
_RL_SUITS = "SHDC"
_RLCARD_LEDUC = LeducConfig(**LEDUC_VARIANTS["rlcard"])
_NO_LIMIT_FRACTIONS = (0.5, 1.0)  # RLCard's raise actions: half pot, pot
_MAX_LIMIT_RAISES = 4  # RLCard's limit observation holds 0..4 raises per street


def game_for(env_id: str) -> Game:
    """The pokerzoo game matching RLCard's env ``env_id`` (see the module table).

    Raises:
        ConfigError: an env id without a pokerzoo game.
    """
    if env_id == "leduc-holdem":
        return load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"])
    if env_id == "limit-holdem":
        return load_game("limit_holdem", small_blind=1, big_blind=2)
    if env_id == "no-limit-holdem":
        return load_game("no_limit_holdem", small_blind=1, big_blind=2, stacks=100)
    raise ConfigError(f"no pokerzoo game matches RLCard env {env_id!r}; supported: {list(ENVS)}")


def env_of(game: Game) -> str:
    """The RLCard env whose states and actions ``game``'s map to.

    Raises:
        ConfigError: a game no RLCard env matches, saying what would.
    """
    family = _family(game)
    if family == "leduc-holdem":
        if game.config != _RLCARD_LEDUC:
            raise ConfigError(
                f"RLCard's Leduc is the 'rlcard' variant; {game!r} is another Leduc: pass "
                "load_game('leduc_holdem', **LEDUC_VARIANTS['rlcard'])"
            )
        return "leduc-holdem"
    if family is not None and game.num_players != 2:
        raise ConfigError(
            f"RLCard's hold'em agents play heads-up; {game!r} has {game.num_players} seats"
        )
    if family == "limit-holdem":
        game = cast(LimitHoldem, game)
        if game.raise_cap > _MAX_LIMIT_RAISES:
            raise ConfigError(
                f"RLCard's limit observation counts at most {_MAX_LIMIT_RAISES} "
                f"raises a street; {game!r} has raise_cap {game.raise_cap}"
            )
        return "limit-holdem"
    if family == "no-limit-holdem":
        game = cast(NoLimitHoldem, game)
        if game.bet_fractions != _NO_LIMIT_FRACTIONS:
            raise ConfigError(
                f"RLCard's no-limit actions are half pot and pot raises; {game!r} "
                f"needs bet_fractions={_NO_LIMIT_FRACTIONS}"
            )
        return "no-limit-holdem"
    raise ConfigError(
        f"no RLCard env matches {game!r}; RLCard's poker envs are {list(ENVS)} "
        "(pokerzoo games: leduc_holdem 'rlcard' variant, limit_holdem, "
        "no_limit_holdem, heads-up)"
    )


def _family(game: Game) -> str | None:
    """The RLCard env whose rules ``game`` shares (by its registered name), or ``None``."""
    return _RLCARD_ENV_OF.get(game.name) if isinstance(game, Game) else None


def _is_leduc(game: Game) -> bool:
    return _family(game) == "leduc-holdem"


# Cards -------------------------------------------------------------------------------------------


def rlcard_card(game: Game, card: int) -> str:
    """RLCard's name of a pokerzoo card: suit letter then rank (``"SK"``, ``"HT"``)."""
    if _is_leduc(game):
        return _LEDUC_SUITS[card % 2] + _LEDUC_RANKS[card // 2]
    name = CARD_STRINGS[card]  # e.g. "Ts"
    return name[1].upper() + name[0]


def pokerzoo_card(game: Game, name: str) -> int:
    """The pokerzoo card of RLCard's card name (inverse of ``rlcard_card``)."""
    if _is_leduc(game):
        if len(name) != 2 or name[0] not in _LEDUC_SUITS or name[1] not in _LEDUC_RANKS:
            raise ConfigError(f"not an RLCard Leduc card: {name!r} (e.g. 'SJ', 'HK')")
        return _LEDUC_RANKS.index(name[1]) * 2 + _LEDUC_SUITS.index(name[0])
    return string_to_card(name[1:] + name[:1].lower())


def _card_index(game: Game, name: str) -> int:
    """The card's slot in RLCard's observation vector (RLCard's ``card2index.json``)."""
    if _is_leduc(game):
        return _LEDUC_RANKS.index(name[1])
    return _RL_SUITS.index(name[0]) * 13 + _RL_RANKS.index(name[1])


# Actions -----------------------------------------------------------------------------------------


def _facing(state: State, player: int) -> bool:
    """Whether ``player`` (to act) faces a bet: calling would add chips."""
    if not _is_leduc(state.game):  # hold'em states know what calling costs
        return state.amount_to_call() > 0  # type: ignore[attr-defined]
    contributions = state.public_state()["contributions"]
    return bool(contributions[player] < max(contributions))


def rlcard_action(state: State, action: int) -> int:
    """RLCard's id of pokerzoo ``action`` for the player to act in ``state``."""
    if _family(state.game) == "no-limit-holdem":
        return action  # the ids agree (env_of checks the bet sizes)
    # Leduc and hold'em share 0 fold, 1 check/call, 2 (and up) bet/raise.
    if action == CALL:
        return _NAME_ID["call"] if _facing(state, state.current_player()) else _NAME_ID["check"]
    return _NAME_ID["fold"] if action == FOLD else _NAME_ID["raise"]


def _rlcard_name(state: State, action: int) -> Any:
    """RLCard's raw action (a name, or no-limit's ``Action``) of pokerzoo ``action``."""
    rl_id = rlcard_action(state, action)
    return Action(rl_id) if _family(state.game) == "no-limit-holdem" else NAMES[rl_id]


def pokerzoo_action(state: State, action: Any) -> int:
    """The pokerzoo action of RLCard's ``action`` (an id, a raw name or an ``Action``) for the
    player to act in ``state``, decoded as RLCard's env decodes ids: an action that is not
    legal is played as check where checking is free (RLCard offers fold there; pokerzoo's
    hold'em does not), so a fold of a free check checks.

    Raises:
        IllegalActionError: any other action that is not legal, naming RLCard's legal ones.
    """
    legal = {rlcard_action(state, a): a for a in state.legal_actions()}
    if isinstance(action, Action):
        rl_id = action.value
    elif isinstance(action, str) and action in _NAME_ID:
        rl_id = _NAME_ID[action]
    elif isinstance(action, int | np.integer) and not isinstance(action, bool):
        rl_id = int(action)
    else:
        rl_id = -1
    if rl_id in legal:
        return legal[rl_id]
    no_limit = _family(state.game) == "no-limit-holdem"
    free_check = 1 if no_limit else _NAME_ID["check"]
    fold = Action.FOLD.value if no_limit else _NAME_ID["fold"]
    if rl_id == fold and free_check in legal and not _facing(state, state.current_player()):
        return legal[free_check]
    raise IllegalActionError(action, sorted(legal), f"RLCard's {env_of(state.game)}")


# States ------------------------------------------------------------------------------------------


def _betting(state: State) -> list[tuple[int, int, int]]:
    """``(seat, RLCard id, betting round)`` of every betting action so far, in order (the
    history replayed, so whether each action faced a bet is known)."""
    replay = state.game.new_initial_state()
    out = []
    for a in state.history():
        if not replay.is_chance_node():
            rnd = replay.public_state()["round"]
            out.append((replay.current_player(), rlcard_action(replay, a), rnd))
        replay.apply_action(a)
    return out


def to_rlcard_state(state: State, small_blind: int = 0) -> dict[str, Any]:
    """What RLCard's env hands the player to act in ``state`` (see the module docstring).

    Args:
        state: a decision node of a game ``env_of`` accepts.
        small_blind: RLCard's player id of the small blind (seat 0); seat ``s`` is player
            ``(s + small_blind) % 2``.

    Raises:
        ConfigError: a game without an RLCard env, a state that is not a decision node, or a
            small blind that is not 0 or 1.
    """
    if not isinstance(state, State):
        raise ConfigError(f"to_rlcard_state needs a pokerzoo State, got {state!r}")
    game = state.game
    env_id = env_of(game)
    p = state.current_player()
    if p < 0:
        raise ConfigError(
            "RLCard's state dict is of the player to act; this state is a "
            f"{'chance node' if p == CHANCE else 'terminal state'}"
        )
    if small_blind not in (0, 1):
        raise ConfigError(f"small_blind must be RLCard's player 0 or 1, got {small_blind!r}")
    n = game.num_players

    def pid(seat: int) -> int:
        return (seat + small_blind) % n

    public = state.public_state()
    by_pid = [0] * n
    for seat, chips in enumerate(public["contributions"]):
        by_pid[pid(seat)] = int(chips)
    hand = [rlcard_card(game, c) for c in state.private_cards()[p]]
    board = [rlcard_card(game, c) for c in public["public_cards"]]
    legal_ids = sorted(rlcard_action(state, a) for a in state.legal_actions())
    fold_id = Action.FOLD.value if env_id == "no-limit-holdem" else _NAME_ID["fold"]
    if fold_id not in legal_ids:
        # RLCard offers fold at every decision; pokerzoo's hold'em not where checking is free
        # (pokerzoo_action plays such a fold as the check).
        legal_ids = sorted([*legal_ids, fold_id])
    betting = _betting(state)
    if env_id == "no-limit-holdem":
        raw_legal: list[Any] = [Action(i) for i in legal_ids]
        record: list[tuple[int, Any]] = [(pid(s), Action(i)) for s, i, _ in betting]
    else:
        raw_legal = [NAMES[i] for i in legal_ids]
        record = [(pid(s), NAMES[i]) for s, i, _ in betting]
    raw: dict[str, Any] = {"hand": hand[0] if env_id == "leduc-holdem" else hand}
    if env_id == "leduc-holdem":
        raw["public_card"] = board[0] if board else None
    else:
        raw["public_cards"] = board
    raw.update(all_chips=by_pid, my_chips=by_pid[pid(p)], legal_actions=list(raw_legal))
    if env_id == "leduc-holdem":
        obs = np.zeros(36)
        obs[_card_index(game, raw["hand"])] = 1
        if board:
            obs[3 + _card_index(game, board[0])] = 1
        obs[6 + raw["my_chips"]] = 1
        obs[21 + sum(by_pid) - raw["my_chips"]] = 1
        raw["current_player"] = pid(p)
    elif env_id == "limit-holdem":
        raises = [0] * 4  # RLCard's raise_nums: raises per street (blinds are not raises)
        for _, rl_id, rnd in betting:
            raises[rnd] += rl_id == _NAME_ID["raise"]
        raw["raise_nums"] = raises
        obs = np.zeros(72)
        obs[[_card_index(game, c) for c in board + hand]] = 1
        for rnd, count in enumerate(raises):
            obs[52 + 5 * rnd + count] = 1
    else:
        stacks = [0] * n
        for seat, chips in enumerate(public["stacks"]):
            stacks[pid(seat)] = int(chips)
        raw.update(
            stakes=stacks, current_player=pid(p), pot=sum(by_pid), stage=Stage(public["round"])
        )
        obs = np.zeros(54)
        obs[[_card_index(game, c) for c in board + hand]] = 1
        obs[52], obs[53] = raw["my_chips"], max(by_pid)
    return {
        "legal_actions": OrderedDict((i, None) for i in legal_ids),
        "obs": obs,
        "raw_obs": raw,
        "raw_legal_actions": list(raw_legal),
        "action_record": record,
    }


def from_rlcard_state(rl_state: dict[str, Any], game: Game) -> State:
    """A pokerzoo state of ``game`` (RLCard's Leduc) in which the player to act sees what
    RLCard's state dict shows: its card, the public card and every action so far (from
    ``action_record``). The opponent's card is a stand-in (see the module docstring).

    Raises:
        ConfigError: a game other than RLCard's Leduc, or a state dict that is not one of
            RLCard's Leduc or does not match the rebuilt state (chips, legal actions, player).
    """
    env_id = env_of(game)
    if env_id != "leduc-holdem":
        raise ConfigError(
            f"pokerzoo states are rebuilt from RLCard's Leduc states only; RLCard's {env_id} "
            "lets players act in an order (and, no-limit, raise amounts) pokerzoo's hold'em "
            "rules do not have, so no pokerzoo history matches its states in general"
        )
    try:
        raw = rl_state["raw_obs"]
        record = list(rl_state["action_record"])
        me = int(raw["current_player"])
        hand = pokerzoo_card(game, raw["hand"])
        board = None if raw["public_card"] is None else pokerzoo_card(game, raw["public_card"])
        chips = list(raw["all_chips"])
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ConfigError(f"not a state dict of RLCard's leduc-holdem env: {exc!r}") from None
    # RLCard's small blind acts first, so it is the first actor of the record (or the player
    # to act when no one has acted yet).
    small_blind = int(record[0][0]) if record else me
    seat_of_me = (me - small_blind) % 2
    taken = {hand, board}
    deck_size = cast(LeducHoldem, game).config.deck_size  # env_of accepted it as RLCard's Leduc
    stand_in = next(c for c in range(deck_size) if c not in taken)
    state = game.new_initial_state()
    for seat in range(2):
        state.apply_action(hand if seat == seat_of_me else stand_in)
    for player, name in record:
        if state.is_chance_node():
            if board is None:
                raise ConfigError(
                    "the action record runs into round two but the state dict has no public card"
                )
            state.apply_action(board)
        if (int(player) - small_blind) % 2 != state.current_player():
            raise ConfigError(
                f"action {name!r} of RLCard player {player} is out of turn "
                "under RLCard's Leduc rules"
            )
        state.apply_action(pokerzoo_action(state, name))
    if state.is_chance_node() and board is not None:
        state.apply_action(board)
    mine = to_rlcard_state(state, small_blind) if state.current_player() == seat_of_me else None
    if (
        mine is None
        or mine["raw_obs"]["all_chips"] != chips
        or (mine["raw_legal_actions"] != list(rl_state["raw_legal_actions"]))
    ):
        raise ConfigError(
            "the RLCard state dict does not match its own action record under RLCard's Leduc "
            f"rules (chips {chips}, legal {rl_state.get('raw_legal_actions')}); rebuilt: "
            f"{None if mine is None else (mine['raw_obs']['all_chips'], mine['raw_legal_actions'])}"
        )
    return state
