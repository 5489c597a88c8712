"""The judge: outside players (a Python callable, a program on stdin/stdout, an OpenSpiel or
RLCard agent, an LLM behind an OpenAI-compatible endpoint) asked every decision of a game and
scored by exact numbers: NashConv and exploitability on Kuhn and the Leduc family, EV loss on
solved hold'em spots, and chips in duplicate matches against pokerzoo's agents.

The judge stands above evaluation, agents and integrations: it measures with the first, plays
against the second's reference agents and reaches OpenSpiel and RLCard through the third.

Its names are imported on first use, so ``import pokerzoo.judge.decision`` (or any one
module of the judge) loads no other.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "CallablePlayer": "pokerzoo.judge.callables",
    "load_callable": "pokerzoo.judge.callables",
    "Decision": "pokerzoo.judge.decision",
    "LegalAction": "pokerzoo.judge.decision",
    "describe": "pokerzoo.judge.decision",
    "JudgeReport": "pokerzoo.judge.exact",
    "StateRow": "pokerzoo.judge.exact",
    "VersusResult": "pokerzoo.judge.exact",
    "judge_game": "pokerzoo.judge.exact",
    "queries_per_game": "pokerzoo.judge.exact",
    "OpenSpielPlayer": "pokerzoo.judge.foreign_players",
    "RLCardPlayer": "pokerzoo.judge.foreign_players",
    "HoldemMatchReport": "pokerzoo.judge.holdem",
    "holdem_match": "pokerzoo.judge.holdem",
    "ChatPlayer": "pokerzoo.judge.llm",
    "ChatServer": "pokerzoo.judge.loopback",
    "policy_responder": "pokerzoo.judge.loopback",
    "ProgramPlayer": "pokerzoo.judge.programs",
    "chat_messages": "pokerzoo.judge.prompting",
    "read_final_answer": "pokerzoo.judge.prompting",
    "FALLBACKS": "pokerzoo.judge.protocol",
    "OutsidePlayer": "pokerzoo.judge.protocol",
    "Reply": "pokerzoo.judge.protocol",
    "ask": "pokerzoo.judge.protocol",
    "ask_many": "pokerzoo.judge.protocol",
    "SPEC_FORMS": "pokerzoo.judge.specs",
    "SPEC_KINDS": "pokerzoo.judge.specs",
    "player_from_spec": "pokerzoo.judge.specs",
    "spec_kind": "pokerzoo.judge.specs",
    "EquilibriumPlayer": "pokerzoo.judge.spots",
    "SpotJudgeReport": "pokerzoo.judge.spots",
    "SuiteReport": "pokerzoo.judge.spots",
    "judge_spot": "pokerzoo.judge.spots",
    "judge_suite": "pokerzoo.judge.spots",
    "load_suite": "pokerzoo.judge.spots",
    "resolve_suite": "pokerzoo.judge.spots",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pokerzoo.judge' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [*_LAZY]
