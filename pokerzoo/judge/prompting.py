"""The chat prompt an LLM player is asked, and the reading of its ``Final Answer:`` line.

The prompt follows Kaggle Game Arena's poker harness: a system message saying the model plays
poker and must end its reply with one line ``Final Answer: <action>``, and a user message with
the state (``Decision.text``), the legal actions on one line beginning ``Legal actions:`` and the
answer instruction. The answer is the last line beginning ``Final Answer:``.

>>> from pokerzoo import load_game
>>> from pokerzoo.judge.decision import describe
>>> state = load_game("kuhn_poker").new_initial_state()
>>> state.apply_action(0); state.apply_action(1)
>>> decision = describe(state)
>>> read_final_answer("I hold the jack.\\n**Final Answer:** Bet 1", decision)
1
>>> read_final_answer("Final Answer: raise 5", decision)  # bet/raise synonym, size clamped
1
>>> read_final_answer("Final Answer: raise 5", decision, soft=False)
Traceback (most recent call last):
...
pokerzoo.judge.protocol.BadAnswer: 'raise 5' is not a legal action here; legal actions: check, bet 1
"""

from __future__ import annotations

import re
from typing import Any

from pokerzoo.judge.decision import Decision, LegalAction
from pokerzoo.judge.protocol import BadAnswer

__all__ = ["ALL_IN_WORDS", "ANSWER_INSTRUCTION", "SYSTEM_PROMPT", "chat_messages",
           "final_answer_line", "read_final_answer", "reask_messages", "user_message"]

SYSTEM_PROMPT = (
    "You are playing poker. Think briefly about the decision, then end your reply with one "
    "line of the form 'Final Answer: <action>' naming exactly one of the legal actions, "
    "written as it is listed (for example 'Final Answer: call' or 'Final Answer: raise 4')."
)
"""The system message of every decision."""

ANSWER_INSTRUCTION = (
    "Choose one of the legal actions. The last line of your reply must be "
    "'Final Answer: <action>'."
)
"""The line that ends the user message, after the ``Legal actions:`` line."""

ALL_IN_WORDS = ("all in", "all-in", "allin", "shove")
"""Answers read (soft) as the largest legal bet or raise."""

_FINAL = re.compile(r"^final\s+answer\s*:\s*(.*)$", re.IGNORECASE)
_ACTION = re.compile(
    r"^(?P<kind>fold|check|call|bet|raise)(?:\s+(?:to\s+)?\$?(?P<amount>\d+(?:\.\d+)?))?"
    r"(?P<rest>.*)$"
)
# What may follow an action in a soft reading: a unit and a remark in brackets, then a stop.
_TRAILER = re.compile(r"^\s*(?:chips?)?\s*(?:\([^()]*\))?\s*[.!]*$")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"


def user_message(decision: Decision) -> str:
    """The user message: the state, the ``Legal actions:`` line and the answer instruction."""
    return f"{decision.text}\n{decision.legal_line()}\n{ANSWER_INSTRUCTION}"


def chat_messages(decision: Decision, system: str = SYSTEM_PROMPT) -> list[dict[str, str]]:
    """The chat-completions ``messages`` asking ``decision``: a system and a user message.

    Any renderer's ``decision.text`` (Kuhn, Leduc, a hold'em hand history) goes in unchanged,
    followed by ``decision.legal_line()`` and ``ANSWER_INSTRUCTION``.

    >>> from pokerzoo import load_game
    >>> from pokerzoo.judge.decision import describe
    >>> state = load_game("kuhn_poker").new_initial_state()
    >>> state.apply_action(2); state.apply_action(0)
    >>> messages = chat_messages(describe(state))
    >>> [m["role"] for m in messages]
    ['system', 'user']
    >>> messages[1]["content"].splitlines()[-2]
    'Legal actions: check, bet 1'
    """
    return [{"role": "system", "content": system},
            {"role": "user", "content": user_message(decision)}]


def reask_messages(messages: list[dict[str, Any]], reply_text: str, error: str,
                   decision: Decision) -> list[dict[str, Any]]:
    """The conversation continued after a refused reply: the model's reply as the assistant
    message, then a user message quoting the error and the legal actions again."""
    correction = (f"Your answer could not be used: {error}.\n{decision.legal_line()}\n"
                  "Reply again, ending with one line 'Final Answer: <action>' naming exactly "
                  "one of the legal actions.")
    return [*messages, {"role": "assistant", "content": reply_text},
            {"role": "user", "content": correction}]


def final_answer_line(text: str | None) -> str:
    """The action named on the last line beginning ``Final Answer:`` (markdown, quotes, a final
    stop and brackets around it stripped; case kept).

    Raises:
        BadAnswer: an empty reply, or one without a ``Final Answer:`` line.
    """
    if text is None or not text.strip():
        raise BadAnswer("the reply is empty")
    found = None
    for line in text.splitlines():
        # Markdown emphasis (**Final Answer:** call), headings and quote marks are decoration.
        plain = line.replace("*", "").replace("`", "").strip().lstrip("#>-").strip()
        match = _FINAL.match(plain)
        if match:
            found = match.group(1)
    if found is None:
        raise BadAnswer("the reply has no line beginning 'Final Answer:'")
    answer = found.strip().strip(_QUOTES).strip().rstrip(".!").strip().strip(_QUOTES).strip()
    # The template's brackets copied around the action: "Final Answer: <call>" or "[call]".
    for opening, closing in ("<>", "[]"):
        if answer.startswith(opening) and answer.endswith(closing):
            answer = answer[1:-1].strip()
    return answer


def read_final_answer(text: str | None, decision: Decision, *, soft: bool = True) -> int:
    """The legal action id a model's reply names on its last ``Final Answer:`` line.

    Strict reading (``soft=False``): the answer must be one of the legal labels (case and
    spacing ignored). Soft reading (the default) also accepts:

    - ``bet N`` where only raises are legal and ``raise N`` where only bets are (synonyms);
    - an amount that is not a legal size: below the smallest size of that kind goes to the
      smallest, above the largest to the largest, between two sizes to the nearer (a tie to the
      smaller); no amount where one size is legal goes to it; ``raise to N``, ``$N`` and
      ``N chips`` read as ``raise N``;
    - ``all in`` / ``all-in`` / ``allin`` / ``shove``: the largest legal bet or raise;
    - ``call N``: the call (the amount is the total being matched);
    - a stop or a remark in brackets after the action (``call (pot odds).``).

    ``fold``, ``check`` and ``call`` are never read as one another: in these games a check and
    a call are never both legal, so an answer naming the wrong one is a misread state, refused
    like any illegal answer.

    Raises:
        BadAnswer: an empty reply, no ``Final Answer:`` line, or an action that is not legal
            (the reason names the legal actions).
    """
    answer = final_answer_line(text)
    if not answer:
        raise BadAnswer("the 'Final Answer:' line names no action")
    exact = decision.action_of(answer)
    if exact is not None:
        return exact.action
    if soft:
        action = _soft_action(" ".join(answer.lower().split()), decision)
        if action is not None:
            return action.action
    raise BadAnswer(f"{answer!r} is not a legal action here; " + decision.legal_line().lower())


def _sized(decision: Decision) -> list[LegalAction]:
    return [a for a in decision.legal if a.kind in ("bet", "raise") and a.amount is not None]


def _soft_action(answer: str, decision: Decision) -> LegalAction | None:
    sized = _sized(decision)
    if answer in ALL_IN_WORDS:
        return max(sized, key=lambda a: a.amount or 0) if sized else None
    match = _ACTION.match(answer)
    if match is None or not _TRAILER.match(match.group("rest")):
        return None
    kind, amount = match.group("kind"), match.group("amount")
    if kind in ("fold", "check", "call"):
        if amount is not None and kind != "call":
            return None
        return next((a for a in decision.legal if a.kind == kind), None)
    if not sized:
        return None
    # A bet and a raise are never both legal: the one that is stands for the other.
    if amount is None:
        return sized[0] if len(sized) == 1 else None
    wanted = float(amount)
    return min(sized, key=lambda a: (abs((a.amount or 0) - wanted), a.amount or 0))
