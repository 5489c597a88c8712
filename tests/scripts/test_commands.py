"""The four commands started three ways: the root script (``python train.py``), the console
script ``pyproject.toml`` declares (``pokerzoo-train``, its ``"module:function"`` called as
pip's wrapper calls it) and ``python -m pokerzoo train``. Each gives the same output and exit
code for ``--help`` and for one bad input (the program's name aside, which argparse prints);
``python -m pokerzoo`` without a command, or with one it does not know, is one line."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pokerzoo.runs.commands import COMMANDS
from pokerzoo.version import __version__

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]

BAD_INPUT = {
    "train": ["--agent", "cfrplus"],
    "evaluate": ["no_such_run"],
    "play": ["no_such_run"],
    "solve": ["no_such_spot.toml"],
}
"""One argument list per command that is bad input: one line on stderr and exit code 2."""


def _env() -> dict[str, str]:
    # The checkout's pokerzoo, whichever pokerzoo the interpreter has installed; a fixed width
    # so that argparse wraps the help alike.
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=600)


def _three_ways(command: str, args: list[str], cwd: Path) -> dict[str, tuple[int, str, str]]:
    """``(exit code, stdout, stderr)`` of the root script, the console script and
    ``python -m pokerzoo``, each with its program's name where argparse prints it replaced by
    ``PROG`` and its spaces collapsed (argparse indents the usage by the name's length)."""
    module, function = SCRIPTS[f"pokerzoo-{command}"].split(":")
    console = (f"import sys; sys.argv[0] = 'pokerzoo-{command}'; "
               f"from {module} import {function}; sys.exit({function}())")
    ways = {
        f"{command}.py": [sys.executable, str(ROOT / f"{command}.py"), *args],
        f"pokerzoo-{command}": [sys.executable, "-c", console, *args],
        f"python -m pokerzoo {command}": [sys.executable, "-m", "pokerzoo", command, *args],
    }
    def plain(text: str, prog: str) -> str:
        text = text.replace(f"usage: {prog} ", "usage: PROG ").replace(f"{prog}: error",
                                                                        "PROG: error")
        return " ".join(text.split())

    seen = {}
    for prog, argv in ways.items():
        result = _run(argv, cwd)
        seen[prog] = (result.returncode, plain(result.stdout, prog), plain(result.stderr, prog))
    return seen


def test_the_console_scripts_are_the_four_commands() -> None:
    assert SCRIPTS == {f"pokerzoo-{name}": f"pokerzoo.runs.commands:{name}"
                       for name in ("train", "evaluate", "play", "solve")}
    assert set(COMMANDS) == set(BAD_INPUT)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(BAD_INPUT))
def test_three_ways_to_start_a_command_give_the_same_help_and_errors(
        command: str, tmp_path: Path) -> None:
    helps = _three_ways(command, ["--help"], tmp_path)
    assert len(set(helps.values())) == 1, helps
    code, out, err = next(iter(helps.values()))
    assert code == 0 and out.startswith("usage: PROG") and not err

    errors = _three_ways(command, BAD_INPUT[command], tmp_path)
    assert len(set(errors.values())) == 1, errors
    result = _run([sys.executable, "-m", "pokerzoo", command, *BAD_INPUT[command]], tmp_path)
    assert result.returncode == 2 and not result.stdout
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("error: ")


@pytest.mark.parametrize("args, said", [
    ([], "no command given"),
    (["trian", "--help"], "unknown command 'trian'"),
])
def test_python_m_pokerzoo_without_a_known_command_is_one_line(
        args: list[str], said: str, tmp_path: Path) -> None:
    result = _run([sys.executable, "-m", "pokerzoo", *args], tmp_path)
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.splitlines() == [
        f"error: {said}; python -m pokerzoo {{train,evaluate,play,solve}} [ARGS ...] "
        "(COMMAND --help for its flags)"]


def test_python_m_pokerzoo_help_and_version(tmp_path: Path) -> None:
    result = _run([sys.executable, "-m", "pokerzoo", "--help"], tmp_path)
    assert result.returncode == 0 and not result.stderr
    assert result.stdout.startswith("usage: python -m pokerzoo {train,evaluate,play,solve}")
    result = _run([sys.executable, "-m", "pokerzoo", "--version"], tmp_path)
    assert (result.returncode, result.stdout) == (0, f"pokerzoo {__version__}\n")
