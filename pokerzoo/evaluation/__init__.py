"""Measure policies: exact best response and exploitability on trees, matches for big games.

The names below are evaluation's face: the scripts (``evaluate.py``, ``play.py``) import what
they print and the opponents they offer from here, never from the modules behind it.
"""

from pokerzoo.evaluation.aec_opponents import AEC_OPPONENTS
from pokerzoo.evaluation.aivat import (
    AIVATResult,
    HandScore,
    ProfileValues,
    TreeValues,
    ValueFunction,
    aivat_head_to_head,
    exact_match_values,
    known_probabilities,
    score_hand,
    tree_values,
)
from pokerzoo.evaluation.exact import (
    BestResponse,
    best_response,
    best_response_values,
    expected_values,
    exploitability,
    nash_conv,
    policy_array,
    reach_probabilities,
    tabularize,
    to_milli_big_blinds,
)
from pokerzoo.evaluation.hand_history import HandRecorder, record_pairings, recording
from pokerzoo.evaluation.head_to_head import MatchResult, head_to_head
from pokerzoo.evaluation.lbr import LBRResult, LocalBestResponse, local_best_response
from pokerzoo.evaluation.matches import versus_random
from pokerzoo.evaluation.opponents import OPPONENTS, opponent_names, parse_opponents
from pokerzoo.evaluation.perfect import (
    PayoffTable,
    TotalExploitability,
    force_first_action,
    forced_deviation_values,
    total_exploitability,
)
from pokerzoo.evaluation.scores import ExactScores
from pokerzoo.evaluation.tournament import Tournament, run_tournament, score_entrants
from pokerzoo.evaluation.unknown import (
    InteractionRunner,
    environment_of,
    evaluation_tree,
    exploitability_in_model,
    exploitability_in_true_model,
    nash_conv_in_model,
    nash_conv_in_true_model,
    true_model_of,
    true_model_tree,
)

__all__ = [
    "AEC_OPPONENTS",
    "AIVATResult",
    "HandScore",
    "OPPONENTS",
    "ProfileValues",
    "TreeValues",
    "ValueFunction",
    "aivat_head_to_head",
    "exact_match_values",
    "known_probabilities",
    "score_hand",
    "tree_values",
    "BestResponse",
    "ExactScores",
    "HandRecorder",
    "InteractionRunner",
    "LBRResult",
    "LocalBestResponse",
    "MatchResult",
    "PayoffTable",
    "TotalExploitability",
    "Tournament",
    "force_first_action",
    "forced_deviation_values",
    "head_to_head",
    "total_exploitability",
    "versus_random",
    "best_response",
    "best_response_values",
    "expected_values",
    "exploitability",
    "environment_of",
    "evaluation_tree",
    "exploitability_in_model",
    "exploitability_in_true_model",
    "local_best_response",
    "nash_conv_in_model",
    "nash_conv_in_true_model",
    "nash_conv",
    "opponent_names",
    "parse_opponents",
    "policy_array",
    "reach_probabilities",
    "record_pairings",
    "recording",
    "run_tournament",
    "score_entrants",
    "tabularize",
    "to_milli_big_blinds",
    "true_model_of",
    "true_model_tree",
]
