"""``python -m pokerzoo train|evaluate|play|solve ARGS``: the root scripts' commands, from an
installed pokerzoo (``pokerzoo.runs.commands``)."""

import sys

from pokerzoo.runs.commands import main

if __name__ == "__main__":
    sys.exit(main())
