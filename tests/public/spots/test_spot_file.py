"""The spot file reader refuses every crafted file in one ConfigError line (no hang, no crash)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.holdem_spot import HoldemSpot
from pokerzoo.public.spots.spot_file import MAX_SPOT_FILE_BYTES, read_spot_file

ROOT = Path(__file__).resolve().parents[3]
RIVER = (ROOT / "configs" / "spots" / "nlh_limped_river.toml").read_text()


def _with_key(line: str) -> str:
    """The river spot with a top-level ``line`` (before its ``[river_sizes]`` table)."""
    head, tail = RIVER.split("[river_sizes]")
    return f"{head}{line}\n[river_sizes]{tail}"


def _refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as err:
        HoldemSpot.from_toml(path)
    message = str(err.value)
    assert "\n" not in message
    return message


def test_the_shipped_spots_read_as_before() -> None:
    for path in sorted((ROOT / "configs" / "spots").glob("*.toml")):
        assert isinstance(HoldemSpot.from_toml(path), HoldemSpot)


def test_binary_and_non_utf8_files(tmp_path: Path) -> None:
    path = tmp_path / "spot.toml"
    path.write_bytes(b'board = "Qs\xff\xfe"\n')
    assert "is not UTF-8 text (byte 11 is 0xff)" in _refusal(path)
    path.write_bytes(bytes(range(256)) * 4)
    assert "not UTF-8 text" in _refusal(path)


def test_deep_nesting_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "spot.toml"
    path.write_text("board = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nests arrays or tables too deep to read" in _refusal(path)


def test_wrongly_typed_keys_name_key_type_and_allowed(tmp_path: Path) -> None:
    path = tmp_path / "spot.toml"
    path.write_text(RIVER.replace('oop = ["50%,100%,a", "a"]', "oop = 5"))
    message = _refusal(path)
    assert message.startswith("river_sizes.oop must be a [bets, raises] pair of strings")
    assert "got integer 5" in message
    cases = {
        "starting_pot = 200": ('starting_pot = "200"', "spot field starting_pot must be an "
                                                        "integer, got string '200'"),
        'board = "QsJh2h7c3d"': ("board = 7", "spot field board must be a string, got integer"),
    }
    for old, (new, fragment) in cases.items():
        path.write_text(RIVER.replace(old, new))
        assert fragment in _refusal(path)
    path.write_text(_with_key("suit_isomorphism = 1"))
    assert "suit_isomorphism must be true or false, got integer 1" in _refusal(path)
    path.write_text(_with_key("street_chips = [1, 2.5]"))
    assert "street_chips must be an array of two integers" in _refusal(path)
    path.write_text(RIVER + "extra = 1\n")
    assert "river_sizes as a table takes exactly the keys 'oop' and 'ip'" in _refusal(path)
    path.write_text(_with_key("street_chips = [1, 2.5]"))
    assert "street_chips must be an array of two integers" in _refusal(path)
    path.write_text('spot = "x"\n')
    assert "'spot' must be a table of fields, got string" in _refusal(path)


def test_large_files_and_non_files(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (MAX_SPOT_FILE_BYTES + 1))
    assert f"a spot file may hold at most {MAX_SPOT_FILE_BYTES:,}" in _refusal(big)
    assert "is not a regular file" in _refusal(tmp_path)
    assert "No such file" in _refusal(tmp_path / "missing.toml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "spot.toml"
    os.mkfifo(fifo)
    code = ("import sys\nfrom pokerzoo.public.spots.spot_file import read_spot_file\n"
            "try:\n    read_spot_file(sys.argv[1])\nexcept Exception as e:\n    print(e)\n")
    # Opening a FIFO for reading blocks until a writer comes: a hang here is the bug.
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0
    assert "is not a regular file (a FIFO, device or folder)" in done.stdout


def test_read_spot_file_returns_the_spot_table(tmp_path: Path) -> None:
    path = tmp_path / "spot.toml"
    path.write_text("[spot]\n" + RIVER.split("[river_sizes]")[0])
    assert read_spot_file(path)["starting_pot"] == 200
