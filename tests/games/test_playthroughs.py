"""Each shipped game's playthrough (``tests/playthroughs/<game>.txt``) is what a fresh
fixed-seed walk prints, so a change of the rules, chance probabilities, legal actions,
information-state keys or tensors shows as a diff of those files. After a deliberate change,
regenerate them with ``python -m pokerzoo.games.playthrough --write`` and commit the diff."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from pokerzoo.games.playthrough import FOLDER, main, own_games, playthrough

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "python -m pokerzoo.games.playthrough --write"


def test_the_folder_is_the_checkouts_and_holds_one_file_per_game() -> None:
    assert FOLDER == ROOT / "tests" / "playthroughs"
    assert sorted(p.stem for p in FOLDER.glob("*.txt")) == own_games(), (
        f"playthroughs missing or left over: run {REGENERATE}")


@pytest.mark.parametrize("name", own_games())
def test_the_playthrough_is_unchanged(name: str) -> None:
    kept = (FOLDER / f"{name}.txt").read_text(encoding="utf-8")
    fresh = playthrough(name)
    diff = "".join(difflib.unified_diff(kept.splitlines(True), fresh.splitlines(True),
                                        f"kept/{name}.txt", f"fresh/{name}.txt"))
    assert not diff, f"{name} plays differently (if meant, run {REGENERATE}):\n{diff[:4000]}"


def test_write_puts_the_walks_in_the_folder_given(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--write", "--out", str(tmp_path), "kuhn_poker", "leduc_holdem"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kuhn_poker.txt", "leduc_holdem.txt"]
    assert (tmp_path / "kuhn_poker.txt").read_text() == playthrough("kuhn_poker")
    assert main(["kuhn_poker"]) == 0
    assert capsys.readouterr().out.endswith(playthrough("kuhn_poker"))
