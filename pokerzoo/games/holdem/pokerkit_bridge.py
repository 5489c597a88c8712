"""Replay pokerzoo hold'em hands in PokerKit (https://github.com/uoftcprg/pokerkit).

Two uses share this mapping: the cross-check tests (``tests/games/test_holdem_pokerkit.py``),
which replay random hands in a PokerKit state built with exactly our streets and raise caps and
compare every decision and payoff, and the hand histories
(``pokerzoo.evaluation.hand_history``), which replay a finished hand in PokerKit's own
``NoLimitTexasHoldem`` / ``FixedLimitTexasHoldem`` so that PokerKit writes it in the PHH format.

Seats: PokerKit orders players from the small blind with the button last, which is our order
for three or more players; heads-up it seats the big blind first and the button (small blind)
second, the reverse of ours (``pokerkit_index``).

PokerKit is an optional dependency (the ``test`` extra installs it); importing this module
without it raises ``ConfigError`` saying how to install it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pokerzoo.errors import ConfigError, PokerzooError
from pokerzoo.games.holdem.cards import card_to_string

try:
    import pokerkit
    from pokerkit import Automation, BettingStructure, Mode, Opening, Street
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    if exc.name != "pokerkit":
        raise
    raise ConfigError(
        "replaying hold'em in PokerKit (PHH hand histories) needs the pokerkit package: "
        "pip install \"pokerzoo[phh]\" (or pip install pokerkit)"
    ) from None

if TYPE_CHECKING:
    from pokerzoo.games.holdem.game import HoldemGame
    from pokerzoo.games.holdem.state import HoldemState

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
"""Everything but the players' decisions and the dealing is automatic: the replays give
PokerKit the cards and the decisions, and PokerKit shows, mucks and pays by its own rules."""

_GAME_AUTOMATIONS = AUTOMATIONS + (Automation.RUNOUT_COUNT_SELECTION,)
# In cash-game mode PokerKit asks all-in players how many runouts to deal: one, as we deal.

PHH_MAX_LIMIT_BETS = 4
"""Bets and raises per street of PokerKit's fixed-limit hold'em (PHH variant ``FT``)."""


def pokerkit_index(game: HoldemGame, seat: int) -> int:
    """PokerKit's player index of our ``seat`` (and, the map being its own inverse, our seat of
    a PokerKit player index): the same seat for three or more players, swapped heads-up."""
    return 1 - seat if game.num_players == 2 else seat


def _stacks_in_pokerkit_order(game: HoldemGame) -> tuple[int, ...]:
    stacks = [0] * game.num_players
    for seat, s in enumerate(game.starting_stacks):
        stacks[pokerkit_index(game, seat)] = s
    return tuple(stacks)


def pokerkit_state(game: HoldemGame) -> pokerkit.State:
    """A PokerKit state of ``game`` with exactly our streets and raise caps, for cross-checks.

    Our limit raise cap counts the big blind as the first pre-flop bet and PokerKit's does not,
    so the pre-flop cap given to PokerKit is one less.
    """
    cfg = game.config
    bb = cfg.big_blind
    if game.is_limit:
        caps: tuple[int | None, ...] = (
            game.raise_cap - 1, game.raise_cap, game.raise_cap, game.raise_cap,
        )  # fmt: skip
        sizes = game.bet_sizes
        structure = BettingStructure.FIXED_LIMIT
    else:
        caps = (None,) * 4
        sizes = (bb,) * 4
        structure = BettingStructure.NO_LIMIT
    streets = tuple(
        Street(False, (False, False) if r == 0 else (), (0, 3, 1, 1)[r], False,
               Opening.POSITION, sizes[r], caps[r])
        for r in range(4)
    )  # fmt: skip
    return pokerkit.State(
        AUTOMATIONS, pokerkit.Deck.STANDARD, (pokerkit.StandardHighHand,), streets, structure,
        True, cfg.ante, (cfg.small_blind, bb), 0, _stacks_in_pokerkit_order(game),
        game.num_players,
    )  # fmt: skip


def pokerkit_game(game: HoldemGame) -> pokerkit.Poker:
    """PokerKit's standard game of ``game`` (``NoLimitTexasHoldem`` or
    ``FixedLimitTexasHoldem``, cash-game mode): what PHH hand histories name as variants
    ``NT`` and ``FT``.

    Every hand of ours is a legal hand of it with the same payoffs; the one rule that differs
    is PokerKit's fixed-limit cap of four bets per street not counting the big blind, so its
    pre-flop cap is one raise looser than our default ``raise_cap=4``.

    Raises:
        ConfigError: for a limit game whose ``raise_cap`` exceeds PokerKit's four bets (its
            hands could hold raises PokerKit's fixed-limit game refuses).
    """
    cfg = game.config
    blinds = (cfg.small_blind, cfg.big_blind) + (0,) * (game.num_players - 2)
    if game.is_limit:
        if game.raise_cap > PHH_MAX_LIMIT_BETS:
            raise ConfigError(
                f"{game!r} allows {game.raise_cap} bets per street but PokerKit's fixed-limit "
                f"hold'em (PHH variant FT) allows {PHH_MAX_LIMIT_BETS}: PHH hand histories "
                f"need raise_cap <= {PHH_MAX_LIMIT_BETS} (the plain-text hand log takes any)"
            )
        return pokerkit.FixedLimitTexasHoldem(
            _GAME_AUTOMATIONS, False, cfg.ante, blinds, game.bet_sizes[0], game.bet_sizes[2],
            mode=Mode.CASH_GAME,
        )  # fmt: skip
    return pokerkit.NoLimitTexasHoldem(
        _GAME_AUTOMATIONS, False, cfg.ante, blinds, cfg.big_blind, mode=Mode.CASH_GAME
    )


def pokerkit_game_state(pk_game: pokerkit.Poker, game: HoldemGame) -> pokerkit.State:
    """A new hand of ``pk_game`` (from ``pokerkit_game(game)``) on ``game``'s stacks."""
    return pk_game(_stacks_in_pokerkit_order(game), game.num_players)


class PokerkitMismatch(PokerzooError):
    """PokerKit disagrees with our rules on a hand (whose turn, or a legal action)."""


REOPENING_RULE = (
    "pokerzoo follows the TDA rule that short all-ins adding up to a full raise reopen the "
    "betting, while PokerKit counts only the short all-ins since the betting last reopened"
)
"""Why PokerKit can refuse a raise of a legal hand of ours (rare: an audit met one in 10,000
random 6-max no-limit hands): such a hand has no PHH form."""


def _cards(cards: Sequence[int]) -> str:
    return "".join(card_to_string(c) for c in cards)


def replay_into(
    pk: pokerkit.State, game: HoldemGame, history: Sequence[int], *, check: bool = True
) -> tuple[HoldemState, int]:
    """Replay our ``history`` (chance outcomes included) of ``game`` into the fresh PokerKit
    state ``pk``, dealing our cards and making our decisions.

    With ``check``, every decision is compared: PokerKit's actor is our player, our fold is
    legal exactly when PokerKit's is, and every raise we offer is one PokerKit accepts.

    Returns:
        Our state after ``history``, and the number of decisions where PokerKit allows a raise
        that we do not (the corner cases of the incomplete all-in raise rule documented in
        ``holdem/state.py``).

    Raises:
        PokerkitMismatch: when a check fails or PokerKit refuses one of our actions (a
            disagreement between the rule sets, e.g. ``REOPENING_RULE``), naming the action.
    """
    n = game.num_players
    state = game.new_initial_state()
    looser = 0
    for a in history[: 2 * n]:
        state.apply_action(a)
    hole = state.private_cards()
    for pk_player in range(n):
        seat = pokerkit_index(game, pk_player)
        if check and pk.hole_dealee_index != pk_player:
            raise PokerkitMismatch(f"PokerKit deals to player {pk.hole_dealee_index} first")
        pk.deal_hole(_cards(hole[seat]))
    i = 2 * n
    while i < len(history):
        if state.is_chance_node():
            k = 3 if not state.public_state()["public_cards"] else 1
            cards = history[i : i + k]
            for c in cards:
                state.apply_action(c)
            if pk.can_burn_card():
                # PokerKit's standard games burn a card before each board card; we deal none,
                # so it is an unknown card (as PokerKit itself replays hand histories).
                pk.burn_card("??")
            pk.deal_board(_cards(cards))
            i += k
            continue
        p = state.current_player()
        a = history[i]
        if check:
            where = f"{game!r} at history {list(history[:i])}"
            if pk.actor_index != pokerkit_index(game, p):
                raise PokerkitMismatch(
                    f"{where}: seat {p} acts here but PokerKit's actor is {pk.actor_index}"
                )
            legal = state.legal_actions()
            if (0 in legal) != pk.can_fold():
                raise PokerkitMismatch(f"{where}: fold legality differs from PokerKit's")
            raises = {state.raise_to_amount(b) for b in legal if b >= 2}
            for amount in raises:
                if not pk.can_complete_bet_or_raise_to(amount):
                    raise PokerkitMismatch(f"{where}: PokerKit refuses a raise to {amount}")
            if not raises and pk.can_complete_bet_or_raise_to():
                looser += 1
        try:
            if a == 0:
                pk.fold()
            elif a == 1:
                pk.check_or_call()
            else:
                pk.complete_bet_or_raise_to(state.raise_to_amount(a))
        except ValueError as exc:  # PokerKit's refusal of an action
            move = (f"raise to {state.raise_to_amount(a)}" if a >= 2
                    else state.action_to_string(a))
            why = f"; {REOPENING_RULE}" if a >= 2 else ""
            raise PokerkitMismatch(
                f"{game!r} at history {list(history[:i])}: PokerKit refuses seat {p}'s {move} "
                f"({exc}){why}"
            ) from None
        state.apply_action(a)
        i += 1
    return state, looser


def payoffs_in_our_order(game: HoldemGame, pk: pokerkit.State) -> list[int]:
    """PokerKit's payoffs of a finished hand, seat by seat in our order."""
    return [int(pk.payoffs[pokerkit_index(game, seat)]) for seat in range(game.num_players)]


def replay_in_pokerkit(game: HoldemGame, history: Sequence[int]) -> tuple[list[int] | None, int]:
    """Replay ``history`` in a PokerKit state with our exact rules (``pokerkit_state``),
    checking every decision (see ``replay_into``).

    Returns:
        PokerKit's payoffs in our seat order (``None`` for an unfinished hand) and the number
        of decisions where PokerKit allows a raise that we do not.
    """
    pk = pokerkit_state(game)
    state, looser = replay_into(pk, game, history)
    if not state.is_terminal():
        return None, looser
    if pk.status:
        raise PokerkitMismatch(f"{game!r}: our hand {list(history)} is over but PokerKit's is not")
    return payoffs_in_our_order(game, pk), looser
