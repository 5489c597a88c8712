"""A run folder from anywhere runs no code: train.py resume and evaluate.py refuse a malicious one.

The old code pickled agents to ``checkpoint.pt`` and unpickled it to resume or evaluate, so a
shared run folder could carry a payload. Each folder here holds one that writes a marker file
when unpickled; both scripts must stop with a ``CheckpointError`` message and leave no marker.
"""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.checkpoint import CHECKPOINT_FILE, LEGACY_CHECKPOINT_FILE

ROOT = Path(__file__).resolve().parents[2]


class _Payload:
    """Unpickling this writes the marker file (a stand-in for any code an attacker likes)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def _old_pickle(marker: Path) -> bytes:
    """What the old ``Agent.save`` wrote, with the payload in place of the state."""
    return pickle.dumps({"format": "pokerzoo-agent-v1", "agent": "cfr", "state": _Payload(marker)})


def _zip_with_evil_tensors(folder: Path, marker: Path) -> bytes:
    """A well-formed new checkpoint whose tensors.pt hides the payload."""
    torch = pytest.importorskip("torch")
    good = folder / "good.tmp.pzc"
    make_agent("cfr", load_game("kuhn_poker")).save(good)
    buffer = io.BytesIO()
    torch.save({"t0": _Payload(marker)}, buffer)
    out = io.BytesIO()
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(out, "w") as zout:
        header = json.loads(zin.read("format.json"))
        header["tensors"] = ["t0"]
        for name in zin.namelist():
            data = json.dumps(header).encode() if name == "format.json" else zin.read(name)
            zout.writestr(name, data)
        zout.writestr("tensors.pt", buffer.getvalue())
    good.unlink()
    # The payload is real: a loader without weights_only would run it.
    probe = folder.parent / "probe_marker"
    probe_buffer = io.BytesIO()
    torch.save({"t0": _Payload(probe)}, probe_buffer)
    probe_buffer.seek(0)
    torch.load(probe_buffer, weights_only=False)
    assert probe.read_text() == "ran"
    return out.getvalue()


@pytest.fixture(params=["legacy_pickle_pt", "pickle_named_pzc", "evil_tensors_pzc"])
def malicious_folder(request, tmp_path) -> tuple[Path, Path, Path, str]:
    """(run folder, checkpoint path, marker path, expected message) for one kind of attack."""
    folder = tmp_path / "downloaded_run"
    folder.mkdir()
    marker = tmp_path / "payload_ran"
    # What train.py writes, as far as resuming and evaluating read it.
    config = {"agent": "cfr", "game": "kuhn_poker", "game_params": {}, "agent_params": {},
              "seed": 0, "out": str(folder), "tensorboard": False}
    (folder / "config.json").write_text(json.dumps(config))
    if request.param == "legacy_pickle_pt":
        path, data, expected = folder / LEGACY_CHECKPOINT_FILE, _old_pickle(marker), "old pickle"
    elif request.param == "pickle_named_pzc":
        path, data, expected = folder / CHECKPOINT_FILE, _old_pickle(marker), "old pickle"
    else:
        path = folder / CHECKPOINT_FILE
        data, expected = _zip_with_evil_tensors(folder, marker), "holds more than plain tensors"
    path.write_bytes(data)
    if request.param != "evil_tensors_pzc":
        # The payload is real: the old loader (pickle.load) would have run it.
        probe = tmp_path / "probe_marker"
        pickle.loads(_old_pickle(probe))
        assert probe.read_text() == "ran"
    return folder, path, marker, expected


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_train_resume_refuses_and_runs_nothing(malicious_folder):
    folder, path, marker, expected = malicious_folder
    before = path.read_bytes()
    result = _run("train.py", "--agent", "cfr", "--game", "kuhn_poker", "--iterations", "5",
                  "--out", str(folder), "--no-progress", "--no-tensorboard")
    assert result.returncode == 2, result.stdout + result.stderr
    assert expected in result.stderr and str(path) in result.stderr
    assert "Traceback" not in result.stderr
    assert not marker.exists()
    assert path.read_bytes() == before  # not overwritten by a fresh run either
    assert not (folder / "summary.json").exists()


@pytest.mark.slow
def test_evaluate_refuses_and_runs_nothing(malicious_folder):
    folder, path, marker, expected = malicious_folder
    result = _run("evaluate.py", str(folder), "--hands", "10")
    assert result.returncode == 2, result.stdout + result.stderr
    assert expected in result.stderr and str(path) in result.stderr
    assert "Traceback" not in result.stderr
    assert not marker.exists()
