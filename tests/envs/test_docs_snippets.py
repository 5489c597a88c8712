"""Every Python snippet of the manual (README.md and the documentation site) runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.manual import manual_text

SNIPPETS = re.findall(r"```python\n(.*?)```", manual_text(), flags=re.S)


def test_doc_has_the_three_uses() -> None:
    text = manual_text()
    for heading in ("A PettingZoo loop", "gymnasium.make and MaskablePPO", "Tianshou"):
        assert f"### {heading}" in text
    assert len(SNIPPETS) >= 4


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs(index: int, capsys: pytest.CaptureFixture, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    # In a fresh folder, as a user would run it: a snippet that writes a file writes it there.
    monkeypatch.chdir(tmp_path)
    if "ray.rllib" in SNIPPETS[index]:
        # RLlib lives in .ci/run's second environment; test_rllib_recipe.py runs it there.
        pytest.importorskip("ray.rllib")
    exec(compile(SNIPPETS[index], f"manual[{index}]", "exec"), {"__name__": "__doc__"})
