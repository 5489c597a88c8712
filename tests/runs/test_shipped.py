"""``pokerzoo.runs.shipped``: the shipped configs, spots and env pages found from any folder,
by their repository path or their name, and ``setup.py`` ships what the scripts and docs
name (the wheel's contents are checked in ``tests/test_wheel.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pokerzoo.runs.shipped import resolve_shipped, shipped_names, shipped_root
from pokerzoo.runs.solve import build_parser

ROOT = Path(__file__).resolve().parents[2]
RIVER = ROOT / "configs" / "spots" / "nlh_limped_river.toml"


def test_a_checkout_finds_its_own_files() -> None:
    assert shipped_root() == ROOT
    assert shipped_names() == sorted(p.stem for p in (ROOT / "configs/spots").glob("*.toml"))
    assert "preflop_100bb" in shipped_names("configs")


@pytest.mark.parametrize("given", [
    "configs/spots/nlh_limped_river.toml", "./configs/spots/nlh_limped_river.toml",
    "spots/nlh_limped_river.toml", "nlh_limped_river", "nlh_limped_river.toml",
])
def test_a_shipped_spot_by_its_path_or_name_from_another_folder(
        given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Path(resolve_shipped(given)) == RIVER


def test_a_config_by_name_and_a_file_on_disk_first(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Path(resolve_shipped("preflop_100bb")) == ROOT / "configs" / "preflop_100bb.toml"
    mine = tmp_path / "configs" / "spots" / "nlh_limped_river.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text("[spot]\n")
    assert resolve_shipped("configs/spots/nlh_limped_river.toml") == (
        "configs/spots/nlh_limped_river.toml")  # the user's own file, as given


@pytest.mark.parametrize("given", ["no_such_spot", "no_such_spot.toml", "pyproject.toml",
                                   "pokerzoo/version.py", "/no/such/spot.toml"])
def test_anything_else_is_left_as_given(given: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_shipped(given) == given


def test_solve_help_says_how_to_name_a_shipped_spot() -> None:
    text = " ".join(build_parser().format_help().split())
    assert "names a file shipped with pokerzoo" in text
    assert all(name in text for name in shipped_names())


def test_setup_ships_every_config_the_scripts_and_docs_name() -> None:
    shipped = re.search(r"SHIPPED = \(([^)]*)\)", (ROOT / "setup.py").read_text())
    assert shipped is not None
    globs = re.findall(r'"([^"]+)"', shipped.group(1))
    files = {p.relative_to(ROOT).as_posix() for g in globs for p in ROOT.glob(g)}
    named = set()
    for path in [*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("pokerzoo/runs/**/*.py")]:
        named |= set(re.findall(r"\bconfigs/(?:spots/)?[\w.]+\.toml\b", path.read_text()))
    named = {n for n in named if (ROOT / n).exists()}
    assert named and named <= files, sorted(named - files)
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert all(g in manifest for g in globs)


def test_evaluate_and_train_take_shipped_files_by_name(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import pokerzoo.runs.commands.evaluate as evaluate
    import pokerzoo.runs.commands.train as train
    import pokerzoo.runs.spot_reports as spot_reports

    monkeypatch.chdir(tmp_path)
    seen: list[object] = []
    monkeypatch.setattr(evaluate, "is_foreign_folder", lambda folder: False)
    monkeypatch.setattr(evaluate.SavedRun, "open", staticmethod(lambda folder: folder))
    def decision_report(runs: object, spot: object, *args: object,
                        **kwargs: object) -> dict[str, object]:
        seen.append(spot)
        return {}

    monkeypatch.setattr(spot_reports, "decision_report", decision_report)
    assert evaluate.main(["run", "--spot", "nlh_limped_river", "--spot-decision", "check",
                          "--json"]) == 0
    assert [Path(str(s)) for s in seen] == [RIVER]

    configs: list[str] = []

    def from_toml(cls: type, path: str, **flags: object) -> None:
        configs.append(path)
        raise LookupError("stop here")

    monkeypatch.setattr(train.RunConfig, "from_toml", classmethod(from_toml))
    with pytest.raises(LookupError):
        train.main(["--config", "leduc_cfr_plus"])
    assert [Path(c) for c in configs] == [ROOT / "configs" / "leduc_cfr_plus.toml"]
