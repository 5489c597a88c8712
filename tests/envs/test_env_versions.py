"""Each env version's fingerprint is pinned: a change in rewards, dynamics or observations
fails here until the version number moves (see ``pokerzoo.envs.versions``)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.envs.registry import registered_envs
from pokerzoo.envs.versions import fingerprint
from pokerzoo.games.leduc import LeducState

PINNED = {
    "kuhn_poker_v0": "bb42304a0a7e0fcebc43d7917ae276b4d9fd8547e1e24c397afed3d97d056ddf",
    "leduc_holdem_v0": "86c5e965cfefc9002e5b60e644a49acf087d03bf99fc1273765e5187867d3358",
    "limit_holdem_v0": "7ba0dc89181f7ba6c5b410ccc463c991117b44c249d97dd7b137200ef7ad1ca0",
    "no_limit_holdem_v0": "407f383c8382271ab7e6d95c32de59679b49d3a6704c3af09a797575799ea6bb",
    "unknown_kuhn_poker_v0": "d27b6665b6e62c5c9efb74a2adf8858900c659fe32deeb3f1fc0b6aeb31b9c5c",
    "unknown_leduc_holdem_v0":
        "88a021ef5618d7c419c1ee2ef8a82f22b7b24800c2a1de6c5b0d80f5aaf1cf63",
    "classic_leduc_holdem_v4":
        "1e8206b0902b6f505e3fa95e69f885c04d4217bbf1e0e15afcbf5d92bd6e4aea",
    "classic_texas_holdem_v4":
        "f166c77fd53cfd06f0853a6f6cfcdfef59915a9f9b7c8453d604469a288b91fd",
    "classic_texas_holdem_no_limit_v6":
        "6b602d88ff78f8dba318457e02b82229d60ba995db8351a66c5da15c1556fae1",
}
"""Env name -> ``fingerprint(name)``. A new env adds its pin; a changed env gets a new
``_vN`` name, a ``HISTORY`` line and a new pin, never a new pin under the old name."""


@pytest.mark.parametrize("name", registered_envs())
def test_every_version_keeps_its_fingerprint(name: str) -> None:
    assert name in PINNED, f"pin {name!r}: {fingerprint(name)!r}"
    assert fingerprint(name) == PINNED[name], (
        f"{name}'s rewards, dynamics or observations changed: register a new version (a new "
        "_vN name, its line in pokerzoo/envs/versions.py HISTORY, its pin here) and run "
        "python -m pokerzoo.envs.docs (only an env not yet released is re-pinned in place); "
        f"now {fingerprint(name)!r}"
    )


def test_the_fingerprint_sees_rewards_and_observations(monkeypatch: pytest.MonkeyPatch) -> None:
    base = fingerprint("leduc_holdem_v0", hands=5)
    assert fingerprint("leduc_holdem_v0", hands=5) == base
    returns = LeducState.returns
    monkeypatch.setattr(LeducState, "returns", lambda self: [2 * r for r in returns(self)])
    assert fingerprint("leduc_holdem_v0", hands=5) != base
    monkeypatch.undo()
    tensor = LeducState.information_state_tensor

    def shifted(self, player=None):
        out = np.array(tensor(self, player))
        out[-1] = 0.5
        return out

    monkeypatch.setattr(LeducState, "information_state_tensor", shifted)
    assert fingerprint("leduc_holdem_v0", hands=5) != base
