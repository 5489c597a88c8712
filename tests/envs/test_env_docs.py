"""The env pages in docs/envs are what ``python -m pokerzoo.envs.docs`` writes now."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerzoo.envs import docs, versions
from pokerzoo.envs.registry import registered_envs
from pokerzoo.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_committed_pages_equal_the_generator() -> None:
    expected = docs.pages()
    assert set(expected) == {f"{name}.md" for name in registered_envs()} | {"index.md"}
    stale = [
        name for name, text in expected.items()
        if not (docs.DOCS_DIR / name).exists() or (docs.DOCS_DIR / name).read_text() != text
    ]
    assert not stale, f"regenerate with `python -m pokerzoo.envs.docs`: {stale}"
    extra = {p.name for p in docs.DOCS_DIR.glob("*.md")} - set(expected)
    assert not extra, f"pages of envs no longer registered: {sorted(extra)}"


def test_pages_follow_pettingzoos_form_from_the_declared_layout() -> None:
    text = docs.page("leduc_holdem_v0")
    for heading in ("### Arguments", "### Observation Space", "### Action Space",
                    "### Rewards", "### Version History"):
        assert heading in text
    assert "| Import             | `from pokerzoo.envs import leduc_holdem_v0` |" in text
    assert "| Observation Shape  | (60,) |" in text
    assert "| 22 - 23 | `contributions` |" in text  # a field of the layout, at its offsets
    assert "`raise_sizes` (default `(2, 4)`): Raise amount" in text  # a config field's doc
    assert "`illegal_reward` (default `-1.0`): reward of an agent" in text  # an env option
    assert "| 2 | Raise |" in text
    nolimit = docs.page("no_limit_holdem_v0")
    assert "`small_blind` (default `50`): Small blind" in nolimit  # base-config fields too
    assert "| 4 | All-in |" in nolimit and "is 100 chips" in nolimit
    assert "hidden reward model d*" in docs.page("unknown_kuhn_poker_v0")
    assert docs.page("leduc_holdem") == text  # unversioned: the latest version's page


def test_the_generator_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert docs.main(["--out", str(tmp_path), "--check"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert docs.main(["--out", str(tmp_path)]) == 0
    assert (tmp_path / "kuhn_poker_v0.md").read_text() == docs.page("kuhn_poker_v0")
    assert docs.main(["--out", str(tmp_path), "--check"]) == 0
    assert "[`kuhn_poker_v0`](kuhn_poker_v0.md)" in (tmp_path / "index.md").read_text()


def test_an_env_version_without_history_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(versions.HISTORY, "kuhn_poker", {})
    with pytest.raises(ConfigError, match="no line for 'kuhn_poker_v0'"):
        docs.page("kuhn_poker_v0")
    with pytest.raises(ConfigError, match="no _vN"):
        versions.split_name("kuhn_poker")


def test_readme_links_the_pages() -> None:
    assert "docs/envs/index.md" in (ROOT / "README.md").read_text()
