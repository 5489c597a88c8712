"""The line-protocol bot of ``pokerzoo.judge.programs``' docstring, as a file the tests run."""

import json
import sys

for line in sys.stdin:  # one decision per line, one answer per line back
    decision = json.loads(line)
    labels = [action["label"] for action in decision["legal_actions"]]
    if "Your card: K" in decision["text"]:  # bet, raise or call with a king
        answer = next(label for label in labels if label.startswith(("bet", "raise", "call")))
    else:  # check where it is free, else fold or call, half and half
        answer = "check" if "check" in labels else json.dumps({"fold": 0.5, "call": 0.5})
    print(answer, flush=True)
