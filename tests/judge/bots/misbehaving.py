"""A line-protocol bot that misbehaves as its argument says, for the judge's error tests.

``exit``: reads a decision, says why on stderr and exits with code 3. ``garbage``: answers
bytes that are not UTF-8. ``empty``: answers an empty line. ``hang``: never answers.
``illegal``: answers ``raise 99`` every time. ``twice``: answers ``check`` twice, in one write.
``second-try``: answers ``raise 99``, and the first legal action when the request carries an
``error`` (the judge's re-ask).
"""

import json
import os
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    if mode == "exit":
        print("giving up: no model file", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe call\n")
        sys.stdout.flush()
    elif mode == "twice":
        os.write(1, b"check\ncheck\n")  # one write, so both lines arrive together
    elif mode == "empty":
        print("", flush=True)
    elif mode == "hang":
        print("thinking...", file=sys.stderr, flush=True)
        time.sleep(60)
    elif mode == "second-try" and "error" in request:
        print(request["legal_actions"][0]["label"], flush=True)
    else:
        print("raise 99", flush=True)
