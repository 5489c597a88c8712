"""Measure policies: exact best response and exploitability on trees, matches for big games."""

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

__all__ = [
    "BestResponse",
    "best_response",
    "best_response_values",
    "expected_values",
    "exploitability",
    "nash_conv",
    "policy_array",
    "reach_probabilities",
    "tabularize",
    "to_milli_big_blinds",
]
