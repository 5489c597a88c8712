"""``python -m pokerzoo.games.playthrough [--write] [GAME ...]``."""

import sys

from pokerzoo.games.playthrough import main

if __name__ == "__main__":
    sys.exit(main())
