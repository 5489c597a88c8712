"""Checkpoints: exact round trips for every agent, exact resume, and refusal of unsafe files."""

from __future__ import annotations

import io
import json
import math
import pickle
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.base import CheckpointError as CheckpointErrorFromBase
from pokerzoo.agents.registry import agent_spec, make_agent, registered_agents
from pokerzoo.checkpoint import FORMAT_VERSION, read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError
from pokerzoo.evaluation import exploitability
from pokerzoo.tree import build

KUHN = load_game("kuhn_poker")
KUHN_TREE = build(KUHN)
ROOT = Path(__file__).resolve().parents[2]


def assert_same_state(a: Any, b: Any, where: str = "state") -> None:
    """Equal structure, container types, leaf types and values (arrays bit for bit)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            assert_same_state(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_state(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), f"{where}: arrays differ"
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), where
    elif type(a).__module__.startswith("torch"):
        import torch

        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert torch.equal(a.cpu(), b.cpu()), f"{where}: tensors differ"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"
        if isinstance(a, float):
            assert math.copysign(1.0, a) == math.copysign(1.0, b), where


# The format --------------------------------------------------------------------------------


def test_every_kind_of_leaf_comes_back_exactly(tmp_path):
    state = {
        "ints": [0, -1, 2**64 + 1, -(2**100), True, False, None],
        "floats": [0.1, -0.0, 1e-310, 1.7976931348623157e308, math.inf, -math.inf, math.nan],
        "tuple": (1, (2.5, "x"), []),
        "int_keys": {0: "a", 7: {"b": 1}},
        "dollar_keys": {"$array": "not a reference", "$tuple": [1]},
        "arrays": {
            "f64": np.linspace(0, 1, 7),
            "view": np.arange(24, dtype=np.int16).reshape(4, 6)[:, ::2],
            "zero_d": np.array(3.5),
            "strings": np.array(["<f4", "kuhn"]),
            "bools": np.array([True, False]),
            "empty": np.zeros((0, 3), dtype=np.uint8),
        },
        "numpy_scalars": [np.int64(-3), np.float32(0.25), np.bool_(True)],
        "rng": np.random.default_rng(2**80).bit_generator.state,
        "empty": {},
        "text": "ünïcode \"quoted\"",
    }
    path = tmp_path / "all.pzc"
    write_checkpoint(path, agent_name="test", state=state, meta={"note": (1, 2)})
    header, loaded = read_checkpoint(path, agent_name="test")
    assert_same_state(state, loaded)
    assert header["agent"] == "test" and header["version"] == FORMAT_VERSION
    assert header["meta"] == {"note": (1, 2)}
    # A restored generator state draws the same numbers.
    a, b = np.random.default_rng(), np.random.default_rng()
    a.bit_generator.state, b.bit_generator.state = state["rng"], loaded["rng"]
    assert a.random() == b.random()
    # One file, no leftovers from the atomic write.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.pzc"]


def test_torch_tensors_come_back_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    net(torch.ones(4, 3)).sum().backward()
    opt.step()
    state = {"net": net.state_dict(), "opt": opt.state_dict(),
             "gen": torch.Generator().manual_seed(5).get_state()}
    write_checkpoint(tmp_path / "t.pzc", agent_name="t", state=state)
    _, loaded = read_checkpoint(tmp_path / "t.pzc")
    assert_same_state(dict(state["net"]), loaded["net"])
    assert_same_state(state["opt"], loaded["opt"])  # int keys, tuples (betas) and tensors
    assert_same_state(state["gen"], loaded["gen"])
    opt.load_state_dict(loaded["opt"])


@dataclass
class _Config:
    size: int = 1


@pytest.mark.parametrize(
    ("bad", "where", "hint"),
    [
        ({"a": {"rng": np.random.default_rng(0)}}, "state['a']['rng']", "bit_generator.state"),
        ({"config": _Config()}, "state['config']", "dataclasses.asdict"),
        ({"items": [1, {2, 3}]}, "state['items'][1]", "set"),
        ({"objects": np.array([None, 1], dtype=object)}, "state['objects']", "Python objects"),
        ({"keys": {1.5: 2}}, "state['keys']", "keys must be str or int"),
    ],
)
def test_anything_else_is_refused_at_save_time_naming_where(tmp_path, bad, where, hint):
    path = tmp_path / "x.pzc"
    with pytest.raises(CheckpointError) as info:
        write_checkpoint(path, agent_name="t", state=bad)
    assert where in str(info.value) and hint in str(info.value)
    assert not list(tmp_path.iterdir())  # nothing written, not even a temporary file


def test_tabular_checkpoints_never_import_torch(tmp_path):
    code = (
        "import sys\n"
        "from pokerzoo import load_game\n"
        "from pokerzoo.agents.registry import make_agent\n"
        "a = make_agent('mccfr-os', load_game('kuhn_poker'))\n"
        "a.iterate(5)\n"
        f"a.save({str(tmp_path / 'c.pzc')!r})\n"
        f"make_agent('mccfr-os', load_game('kuhn_poker')).load({str(tmp_path / 'c.pzc')!r})\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=300)


# Every registered agent ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(registered_agents()))
def test_round_trip_of_every_registered_agent(name, tmp_path):
    # Agents of unknown environments learn them by playing: they get unknown Kuhn.
    game = load_game("unknown_kuhn_poker", seed=0) if agent_spec(name).unknown_only else KUHN
    agent = make_agent(name, game, seed=1)
    agent.iterate(3)
    before = agent.state_dict()
    agent.save(tmp_path / "a.pzc")
    assert_same_state(before, agent.state_dict())  # saving changes nothing
    fresh = make_agent(name, game, seed=2)
    fresh.load(tmp_path / "a.pzc")
    assert fresh.iteration == agent.iteration >= 3
    assert_same_state(before, fresh.state_dict())
    # Reading changes nothing either: the file loads again into the same state.
    again = make_agent(name, game, seed=3)
    again.load(tmp_path / "a.pzc")
    assert_same_state(before, again.state_dict())


@pytest.mark.parametrize(
    "name",
    ["cfr", "cfr+", "lcfr", "dcfr", "mccfr-os", "mccfr-es", "xfp", "gxfp", "bufp-x", "bufp-ef",
     "nfsp", "nfsp-per", "nfsp-plt"],
)
def test_resume_is_exact(name, tmp_path):
    n = 300 if name.startswith("nfsp") else 7
    straight = make_agent(name, KUHN, seed=4)
    # A self-play learner ends each call with a whole batch of hands (it may overshoot n), so
    # its uninterrupted run makes the same two calls, as the training loop does.
    for chunk in [n, n] if name.startswith("nfsp") else [2 * n]:
        straight.iterate(chunk)
    first = make_agent(name, KUHN, seed=4)
    first.iterate(n)
    first.save(tmp_path / "half.pzc")
    # Another seed: a sampling solver must take its generator state from the checkpoint.
    resumed = make_agent(name, KUHN, seed=99)
    resumed.load(tmp_path / "half.pzc")
    resumed.iterate(n)
    assert resumed.iteration == straight.iteration >= 2 * n
    assert_same_state(straight.state_dict(), resumed.state_dict())
    assert exploitability(KUHN_TREE, resumed.policy()) == exploitability(
        KUHN_TREE, straight.policy()
    )


def test_nfsp_with_uct_best_response_resumes_exactly_from_a_file(tmp_path):
    params = {"best_response": "uct", "uct_simulations": 20, "uct_threshold": 10}
    straight, first = (make_agent("nfsp", KUHN, seed=1, **params) for _ in range(2))
    straight.iterate(2)
    straight.iterate(2)
    first.iterate(2)
    first.save(tmp_path / "uct.pzc")
    resumed = make_agent("nfsp", KUHN, seed=5, **params)
    resumed.load(tmp_path / "uct.pzc")
    assert_same_state(first.state_dict(), resumed.state_dict())
    resumed.iterate(2)
    assert_same_state(straight.state_dict(), resumed.state_dict())


# Files that are not usable checkpoints ----------------------------------------------------------


@pytest.fixture
def saved(tmp_path) -> Path:
    agent = make_agent("mccfr-os", KUHN, seed=0)
    agent.iterate(3)
    agent.save(tmp_path / "good.pzc")
    return tmp_path / "good.pzc"


def _rewrite(src: Path, dst: Path, change: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, change.get(name, zin.read(name)))
        for name in set(change) - set(zin.namelist()):
            zout.writestr(name, change[name])
    return dst


def _load_error(path: Path, name: str = "mccfr-os") -> str:
    with pytest.raises(CheckpointError) as info:
        make_agent(name, KUHN).load(path)
    return str(info.value)


def test_missing_empty_truncated_and_random_files(saved, tmp_path):
    assert "no checkpoint at" in _load_error(tmp_path / "nope.pzc")
    (tmp_path / "empty.pzc").write_bytes(b"")
    assert "empty" in _load_error(tmp_path / "empty.pzc")
    data = saved.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 30):
        (tmp_path / "cut.pzc").write_bytes(data[:cut])
        message = _load_error(tmp_path / "cut.pzc")
        assert "truncated or corrupt" in message and "intact copy" in message
    (tmp_path / "noise.pzc").write_bytes(np.random.default_rng(0).bytes(4096))
    assert "not a pokerzoo checkpoint" in _load_error(tmp_path / "noise.pzc")


def test_damaged_array_bytes_are_caught(saved, tmp_path):
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("arrays/a0.npy")
    # Flip the last byte of the first array's numbers (stored uncompressed, so in place): the
    # array still parses, only the member's CRC shows the damage.
    local = info.header_offset
    name_len, extra_len = np.frombuffer(bytes(data[local + 26: local + 30]), dtype="<u2")
    start = local + 30 + int(name_len) + int(extra_len)
    data[start + info.file_size - 1] ^= 0xFF
    (tmp_path / "flipped.pzc").write_bytes(bytes(data))
    assert "corrupt" in _load_error(tmp_path / "flipped.pzc")


def test_other_formats_agents_and_versions(saved, tmp_path):
    message = _load_error(saved, "cfr")
    assert "holds a 'mccfr-os' agent, not 'cfr'" in message
    future = json.loads(zipfile.ZipFile(saved).read("format.json"))
    future["version"] = FORMAT_VERSION + 1
    newer = _rewrite(saved, tmp_path / "newer.pzc", {"format.json": json.dumps(future).encode()})
    message = _load_error(newer)
    assert f"version {FORMAT_VERSION + 1}" in message and "upgrade pokerzoo" in message
    other = dict(future, format="someone-else")
    foreign = _rewrite(saved, tmp_path / "foreign.pzc", {"format.json": json.dumps(other).encode()})
    assert "not a pokerzoo checkpoint" in _load_error(foreign)
    with zipfile.ZipFile(tmp_path / "plain.zip", "w") as zf:
        zf.writestr("hello.txt", "hi")
    assert "not a pokerzoo checkpoint" in _load_error(tmp_path / "plain.zip")
    with zipfile.ZipFile(tmp_path / "deflated.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("format.json", zipfile.ZipFile(saved).read("format.json"))
    assert "compressed members" in _load_error(tmp_path / "deflated.zip")
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.ones(2)}, tmp_path / "model.pt")
    assert "is a torch.save file, not a pokerzoo checkpoint" in _load_error(tmp_path / "model.pt")
    leduc = make_agent("mccfr-os", load_game("leduc_holdem"))
    with pytest.raises(CheckpointErrorFromBase, match="does not fit"):
        leduc.load(saved)


class _Payload:
    """Unpickling this runs code: it writes the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def test_old_pickle_checkpoint_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "payload_ran"
    payload = {"format": "pokerzoo-agent-v1", "agent": "mccfr-os", "state": _Payload(marker)}
    path = tmp_path / "old.pt"
    path.write_bytes(pickle.dumps(payload, protocol=4))
    message = _load_error(path)
    assert "old pickle checkpoint" in message and "can run code" in message
    assert "retrain" in message
    assert not marker.exists()
    # The file is a real payload: the pickle loader of old versions would have run it.
    pickle.loads(path.read_bytes())
    assert marker.read_text() == "ran"


def test_tensor_member_with_code_is_refused_by_weights_only(saved, tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "payload_ran"
    buffer = io.BytesIO()
    torch.save({"t0": _Payload(marker)}, buffer)
    header = json.loads(zipfile.ZipFile(saved).read("format.json"))
    header["tensors"] = ["t0"]
    evil = _rewrite(saved, tmp_path / "evil.pzc", {
        "format.json": json.dumps(header).encode(), "tensors.pt": buffer.getvalue(),
    })
    message = _load_error(evil)
    assert "tensors.pt holds more than plain tensors" in message and "not executed" in message
    assert not marker.exists()
