"""``python -m pokerzoo.integrations.acpc dealer|client ...`` (see ``cli``)."""

import sys

from pokerzoo.integrations.acpc.cli import main

sys.exit(main())
