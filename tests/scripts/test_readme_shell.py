"""The README's command-line examples run in order, as written, from a fresh folder.

Convention: a fenced ``bash`` block right after a ``<!-- runnable -->`` line is runnable. The
blocks run in document order, each as one bash script (``set -euo pipefail``), in one
temporary folder holding links to the repository's scripts (``*.py`` at the top level) and
``configs/``, with no input on stdin. Install, test and benchmark lines are not marked (they
change the environment or take long); the Python snippets are run by
``tests/envs/test_docs_snippets.py``.

Every ``bash`` block, marked or not, is also read statically in document order: each run
folder or file a command reads (``evaluate.py RUN...``, ``play.py RUN``, ``--agent-param
blueprint=RUN``, ``--config``/``--spot``/``--policy`` files, ``head FILE``) must be made by an
earlier command (``train.py``'s run folder: ``--out``, the config's ``out`` or the default
``runs/<agent>_<game>...``; ``solve.py --json/--save/--chart``; ``evaluate.py
--plot/--heatmap/--strategy-chart/--hand-history``; ``play.py --hand-history``; ``> FILE``) or
be a file of the repository. The scripts' own parsers read the flags, so a flag the scripts do
not have fails here too. A block marked ``<!-- runnable quick -->`` finishes in seconds and is
run by the quick suite as well.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from tests.manual import manual_text

ROOT = Path(__file__).resolve().parents[2]
README = manual_text()  # README.md, then the site's pages in nav order
MARK = "<!-- runnable -->"
QUICK_MARK = "<!-- runnable quick -->"
BLOCKS = re.findall(r"<!-- runnable(?: quick)? -->\s*\n```bash\n(.*?)```", README, flags=re.S)
QUICK_BLOCKS = re.findall(re.escape(QUICK_MARK) + r"\s*\n```bash\n(.*?)```", README,
                          flags=re.S)
SCRIPTS = ("train.py", "evaluate.py", "play.py", "solve.py")
SEPARATORS = frozenset({"&&", "||", "|", ";"})


def fresh_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder a user would run the README from, and an environment whose ``python`` is
    this interpreter (the one pokerzoo is installed in)."""
    work = tmp_path / "checkout"
    work.mkdir()
    for script in ROOT.glob("*.py"):
        (work / script.name).symlink_to(script)
    (work / "configs").symlink_to(ROOT / "configs")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # A script, not a symlink: a venv's python finds its environment from the path it was
    # started by (its pyvenv.cfg beside it), so a link elsewhere would run the base
    # interpreter outside the venv.
    launcher = bin_dir / "python"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    launcher.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    return work, env


def test_readme_marks_its_command_line_examples_runnable() -> None:
    assert len(BLOCKS) >= 1
    commands = [line for block in BLOCKS for line in block.splitlines() if line.strip()]
    assert any(line.startswith("python train.py") for line in commands)
    assert any(line.startswith("python evaluate.py") for line in commands)
    # Nothing that installs or changes the environment is marked runnable.
    assert not [line for line in commands if re.match(r"\s*(pip|sudo|apt|conda)\b", line)]


def run_blocks_in_order(blocks: list[str], tmp_path: Path) -> Path:
    """Run README shell blocks one after another in one fresh folder; return that folder."""
    work, env = fresh_folder(tmp_path)
    for index, block in enumerate(blocks):
        result = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + block], cwd=work, env=env,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900,
        )
        assert result.returncode == 0, (
            f"README shell block {index} failed (exit {result.returncode}):\n{block}\n"
            f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
        )
        assert "Traceback" not in result.stderr, result.stderr[-4000:]
    return work


@pytest.mark.slow
def test_readme_shell_examples_run_in_order_from_a_fresh_folder(tmp_path: Path) -> None:
    work = run_blocks_in_order(BLOCKS, tmp_path)
    # Every run folder an evaluate.py or play.py line reads was made, with its config.
    for example in readme_examples():
        if example.runnable:
            for command in example.commands:
                for folder in reads_and_writes(command)[0]:
                    if folder.startswith("runs/") and "*" not in folder:
                        assert (work / folder).exists(), folder


def test_quick_readme_examples_run_in_order_from_a_fresh_folder(tmp_path: Path) -> None:
    assert QUICK_BLOCKS, f"no block marked {QUICK_MARK}"
    work = run_blocks_in_order(QUICK_BLOCKS, tmp_path)
    for example in readme_examples():
        if example.block in QUICK_BLOCKS:
            for command in example.commands:
                for path in reads_and_writes(command)[1]:
                    assert (work / path).exists(), f"{shlex.join(command)} made no {path}"


@dataclass
class Example:
    """One ``bash`` block of the README: its first line and its commands as argument lists."""

    line: int
    block: str
    runnable: bool
    commands: list[list[str]] = field(default_factory=list)


def readme_examples(text: str = README) -> list[Example]:
    """Every ``bash`` block of ``text`` in order, split into commands (comments dropped,
    backslash continuations joined, pipelines and ``&&`` lists split)."""
    examples = []
    for match in re.finditer(r"^```bash\n(.*?)^```", text, flags=re.S | re.M):
        line_before = text[:match.start()].rstrip().rsplit("\n", 1)[-1]
        example = Example(line=text.count("\n", 0, match.start()) + 1, block=match.group(1),
                          runnable=line_before.startswith("<!-- runnable"))
        # One line at a time (shlex would drop the newlines), each ending a command.
        words: list[str] = []
        for line in match.group(1).replace("\\\n", " ").splitlines():
            words.extend([*shlex.split(line, comments=True), ";"])
        command: list[str] = []
        for word in words:
            if word in SEPARATORS:
                if command:
                    example.commands.append(command)
                command = []
            else:
                command.append(word)
        examples.append(example)
    return examples


def load_script(name: str) -> ModuleType:
    """A top-level script of the repository as a module (its parser, its helpers)."""
    spec = importlib.util.spec_from_file_location(f"readme_{name[:-3]}_script", ROOT / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_script_args(script: str, argv: list[str]) -> argparse.Namespace:
    """``argv`` read by the script's own parser (a flag it does not have fails the test)."""
    if script == "solve.py":
        from pokerzoo.runs.solve import build_parser

        parser = build_parser()
    else:
        parser = load_script(script).parser()
    try:
        return parser.parse_args(argv)
    except SystemExit as error:
        raise AssertionError(f"{script} refuses {shlex.join(argv)}") from error


def train_run_folder(args: argparse.Namespace) -> str | None:
    """The run folder a ``train.py`` command writes, as ``train.py`` names it."""
    from pokerzoo.runs.cli import parse_assignments

    if args.list:
        return None
    if args.out:
        return str(args.out)
    settings: dict[str, Any] = {}
    if args.config:
        settings = tomllib.loads((ROOT / args.config).read_text())
        if settings.get("out"):
            return str(settings["out"])
    config = SimpleNamespace(
        agent=args.agent or settings.get("agent", "cfr+"),
        game=args.env or args.game or settings.get("game", "leduc_holdem"),
        game_params={**settings.get("game_params", {}),
                     **parse_assignments(args.game_param, "--game-param")},
        agent_params={**settings.get("agent_params", {}),
                      **parse_assignments(args.agent_param, "--agent-param")},
        seed=args.seed if args.seed is not None else settings.get("seed", 0),
    )
    return str(load_script("train.py").default_out(config))


def reads_and_writes(command: list[str]) -> tuple[list[str], list[str]]:
    """The paths one README command reads and those it writes (``> FILE`` included)."""
    writes = [command[i + 1] for i, word in enumerate(command[:-1]) if word == ">"]
    argv = [word for i, word in enumerate(command) if word != ">" and
            (i == 0 or command[i - 1] != ">")]
    if argv[:1] == ["head"] or argv[:1] == ["cat"]:
        return [word for word in argv[1:] if not word.startswith("-") and
                not word.isdigit()], writes
    if len(argv) < 2 or argv[0] != "python" or argv[1] not in SCRIPTS:
        return [], writes
    script, args = argv[1], parse_script_args(argv[1], argv[2:])
    reads: list[str] = []
    if script == "train.py":
        reads += [args.config] if args.config else []
        reads += [value.split("=", 1)[1] for value in args.agent_param or []
                  if value.split("=", 1)[1].startswith("runs/")]
        folder = train_run_folder(args)
        writes += [folder] if folder else []
    elif script == "evaluate.py":
        reads += [*args.runs, *([args.spot] if args.spot else [])]
        writes += [path for path in (args.plot, args.heatmap, args.strategy_chart,
                                     args.hand_history) if path]
    elif script == "play.py":
        reads += [path for path in (args.run, args.policy) if path]
        writes += [args.hand_history] if args.hand_history else []
    else:
        reads += [args.spot] if args.spot else []
        writes += [path for path in (args.json, args.save, args.chart) if path]
    return reads, writes


def unmade_inputs(examples: list[Example]) -> list[str]:
    """``README.md:LINE: COMMAND reads PATH`` for each input no earlier command made."""
    made: set[str] = set()
    problems = []
    for example in examples:
        for command in example.commands:
            reads, writes = reads_and_writes(command)
            for path in reads:
                found = (any(fnmatch.fnmatch(done, path) for done in made) if "*" in path
                         else path in made or (ROOT / path).exists() and
                         not path.startswith("runs/"))
                if not found:
                    problems.append(f"README.md:{example.line}: {shlex.join(command)!r} reads "
                                    f"{path}, which no earlier example makes")
            made.update(path.rstrip("/") for path in writes)
    return problems


def test_every_readme_example_reads_only_what_an_earlier_example_made() -> None:
    examples = readme_examples()
    assert sum(len(example.commands) for example in examples) > 20
    problems = unmade_inputs(examples)
    assert not problems, "\n".join(problems)


def test_an_example_reading_a_run_no_earlier_example_made_is_named() -> None:
    text = ("```bash\npython evaluate.py runs/b --plot c.png\n```\n"
            "```bash\npython train.py --agent cfr --game kuhn_poker --out runs/b\n"
            "python train.py --game kuhn_poker   # runs/cfr+_kuhn_poker\n"
            "python evaluate.py runs/b runs/cfr+_kuhn_poker > out.txt && head -n 2 out.txt\n"
            "python play.py runs/missing\n```\n")
    problems = unmade_inputs(readme_examples(text))
    assert problems == [
        "README.md:1: 'python evaluate.py runs/b --plot c.png' reads runs/b, which no earlier "
        "example makes",
        "README.md:4: 'python play.py runs/missing' reads runs/missing, which no earlier "
        "example makes",
    ]


def test_a_flag_the_scripts_do_not_have_fails_the_walk() -> None:
    with pytest.raises(AssertionError, match="evaluate.py refuses --run runs/x"):
        reads_and_writes(["python", "evaluate.py", "--run", "runs/x"])


@pytest.mark.slow
def test_help_lists_agent_hyperparameters_and_budgets() -> None:
    result = subprocess.run([sys.executable, "train.py", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    # Each family, its default budget in its units, each field with its doc and presets.
    assert "cfr, cfr+, dcfr, lcfr, pcfr+ (default budget 20,000 iterations" in text
    assert "nfsp, nfsp-per, nfsp-plt (default budget 1,000,000 episodes" in text
    assert "mccfr-es 1,000,000" in text
    assert "regret_matching_plus = False [cfr+: True; pcfr+: True]" in text
    assert "Clip cumulative regrets at zero after every update" in text
    assert "prioritized.eps (or per_eps) = 1e-06" in text
    assert "(with best_response=uct)" in text
    # Every file the help names exists.
    for path in re.findall(r"\bconfigs/[\w.+-]+", text):
        assert (ROOT / path).exists(), path


def test_field_docs_are_read_for_every_config_field() -> None:
    import dataclasses

    from pokerzoo.agents.registry import registered_agents
    from pokerzoo.runs.help import field_docs

    for spec in registered_agents().values():
        cls = spec.config_class
        if cls is None:
            continue
        docs = field_docs(cls)
        missing = [f.name for f in dataclasses.fields(cls) if not docs.get(f.name)]
        assert not missing, f"{cls.__name__} fields without a doc: {missing}"


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.toml")))
def test_shipped_configs_are_valid_run_configs(path: Path) -> None:
    from pokerzoo.public.spots.preflop import PreflopSpot, is_preflop_file
    from pokerzoo.runs.config import RunConfig

    if is_preflop_file(path):  # a preflop tree for solve.py, not a run config for train.py
        assert PreflopSpot.from_toml(path).lines()
        return
    config = RunConfig.from_toml(path)
    assert config.agent and config.game
