"""Every Python snippet of the README runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_doc_has_the_three_uses() -> None:
    text = DOC.read_text()
    for heading in ("A PettingZoo loop", "gymnasium.make and MaskablePPO", "Tianshou"):
        assert f"### {heading}" in text
    assert len(SNIPPETS) >= 4


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs(index: int, capsys: pytest.CaptureFixture) -> None:
    if "ray.rllib" in SNIPPETS[index]:
        # RLlib lives in .ci/run's second environment; test_rllib_recipe.py runs it there.
        pytest.importorskip("ray.rllib")
    exec(compile(SNIPPETS[index], f"{DOC.name}[{index}]", "exec"), {"__name__": "__doc__"})
