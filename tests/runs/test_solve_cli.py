"""solve.py's spot form: one line and exit status 2 for bad input, no hang on a FIFO, a full
disk refused with the target unchanged, the threads default, compile time reported apart."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.solve import CompileClock, build_parser, main, solver_params

ROOT = Path(__file__).resolve().parents[2]
RIVER = ROOT / "configs" / "spots" / "nlh_limped_river.toml"


def _one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert run_cli(main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    return err[0]


def test_crafted_spot_files_end_in_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    spot = tmp_path / "spot.toml"
    spot.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert "is not UTF-8 text" in _one_error_line([str(spot), "--quiet"], capsys)
    spot.write_text("a = " + "[" * 100_000 + "]" * 100_000)
    assert "nests arrays or tables too deep" in _one_error_line([str(spot)], capsys)
    spot.write_text(RIVER.read_text().replace('oop = ["50%,100%,a", "a"]', "oop = 5"))
    line = _one_error_line([str(spot)], capsys)
    assert "river_sizes.oop must be a [bets, raises] pair of strings" in line
    assert "got integer 5" in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_spot_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "spot.toml"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "solve.py", str(fifo), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not a regular file (a FIFO, device or folder)" in lines[0]


def test_save_onto_a_full_disk_is_one_line_and_keeps_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "solved.ckpt"
    target.write_bytes(b"the earlier solve")

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    assert run_cli(main, [str(RIVER), "--iterations", "2", "--quiet", "--threads", "1",
                          "--save", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("writing the solved spot (") and "--storage compressed" in err[0]
    assert len(err) == 2 and err[1].startswith(f"error: cannot write the checkpoint to "
                                               f"{str(target)!r}: No space left on device")
    assert target.read_bytes() == b"the earlier solve"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solved.ckpt"]  # no temporary left


def test_json_reports_build_compile_and_solve_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    save = tmp_path / "solved.ckpt"
    assert main([str(RIVER), "--iterations", "3", "--check-every", "1", "--json", str(out),
                 "--save", str(save), "--storage", "compressed"]) == 0
    report = json.loads(out.read_text())
    for key in ("build_seconds", "compile_seconds", "solve_seconds", "wall_seconds"):
        assert report[key] >= 0
    assert report["seconds"] == report["solve_seconds"]
    assert report["wall_seconds"] >= report["build_seconds"] + report["solve_seconds"]
    assert report["saved_bytes"] > 0
    err = capsys.readouterr().err
    assert "building the tree" in err and "public nodes on" in err
    assert err.index("building the tree") < err.index("solving:")
    size = f"writing the solved spot ({report['saved_bytes'] / 1e3:.2f} KB) to {save}"
    assert size in err and "--storage compressed stores" not in err


def test_compile_clock_notes_the_first_compile_once() -> None:
    notes: list[str] = []
    clock = CompileClock(lambda: notes.append("compiling"))

    @numba.njit
    def inner(x: int) -> int:
        return x + 1

    @numba.njit
    def outer(x: int) -> int:
        return inner(x) * 2

    with clock.installed():
        assert outer(3) == 8
        assert outer(4.5) == 11.0  # a second signature: a second top-level compile
    assert notes == ["compiling"] and clock.compiles == 2 and clock.seconds > 0
    outer(5)  # compiled already, and the clock is no longer installed
    assert clock.compiles == 2


def test_threads_default_to_the_cores_and_one_opts_out() -> None:
    cores = len(os.sched_getaffinity(0))
    assert solver_params(build_parser().parse_args([str(RIVER)]))["threads"] == cores
    assert solver_params(build_parser().parse_args([str(RIVER), "--threads", "1"]))[
        "threads"] == 1


def test_spot_decision_without_spot_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from evaluate import main as evaluate_main

    assert run_cli(evaluate_main, [str(tmp_path / "no_such_run"), "--spot-decision",
                                   "bet 5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--spot-decision scores a decision of a spot: give the spot too" in err[0]


def test_spot_decision_solves_on_all_the_cores(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import pokerzoo.runs.commands.evaluate as evaluate
    import pokerzoo.runs.spot_reports as spot_decision

    seen: dict[str, object] = {}

    def fake_report(*args: object, **kwargs: object) -> dict[str, object]:
        seen.update(kwargs)
        return {}

    monkeypatch.setattr(evaluate, "is_foreign_folder", lambda folder: False)
    monkeypatch.setattr(evaluate.SavedRun, "open", staticmethod(lambda folder: folder))
    monkeypatch.setattr(spot_decision, "decision_report", fake_report)
    assert evaluate.main([str(tmp_path), "--spot", str(RIVER), "--spot-decision", "check",
                          "--json"]) == 0
    assert seen["threads"] == len(os.sched_getaffinity(0))


def test_the_torch_backend_solves_a_spot_as_numba_does(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from pokerzoo.public.engine.results import load_solver

    reports = {}
    for backend in ("numba", "torch"):
        out, save = tmp_path / f"{backend}.json", tmp_path / f"{backend}.ckpt"
        assert main([str(RIVER), "--iterations", "3", "--check-every", "1", "--quiet",
                     "--backend", backend, "--device", "cpu", "--json", str(out),
                     "--save", str(save)]) == 0
        reports[backend] = json.loads(out.read_text())
    ours, theirs = reports["numba"], reports["torch"]
    assert theirs["iterations"] == ours["iterations"] == 3
    assert theirs["exploitability_pct_pot"] == pytest.approx(ours["exploitability_pct_pot"],
                                                             rel=1e-6)
    assert theirs["root_ev"] == pytest.approx(ours["root_ev"], rel=1e-6)
    loaded = load_solver(tmp_path / "torch.ckpt")  # the saved storage is the live one
    assert loaded.config.backend == "torch" and loaded.iterations == 3
    assert loaded.exploitability_pct() == pytest.approx(ours["exploitability_pct_pot"],
                                                        rel=1e-6)


def test_torch_runs_one_solver_thread_by_default() -> None:
    params = solver_params(build_parser().parse_args([str(RIVER), "--backend", "torch"]))
    assert params["threads"] == 1 and params["backend"] == "torch"
    assert params["device"] == "cpu"


def test_saving_a_gpu_solve_is_one_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_error_line([str(RIVER), "--backend", "torch", "--device", "cuda",
                            "--save", str(tmp_path / "solved.ckpt")], capsys)
    assert "save a --device cpu solve" in line
