"""Portable torch arithmetic (``pokerzoo.torch_arithmetic``): asked for before torch computes,
it pins both switches in this process; asked for after, or against a conflicting switch, one
line; a run trained so records it, and loading it asks for it again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.config import RunConfig

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (torch picks its code paths once per process)."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("MKL_CBWR", "ATEN_CPU_CAPABILITY")}
    clean.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean, cwd=ROOT, timeout=300)


def test_asked_before_torch_computes_it_is_in_use() -> None:
    done = _python(
        "import torch\n"  # imported, not yet computed: still in time
        "from pokerzoo.torch_arithmetic import arithmetic_in_use, use_portable_arithmetic\n"
        "use_portable_arithmetic()\n"
        "x = torch.randn(8, 8) @ torch.randn(8, 8)\n"
        "print(arithmetic_in_use())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "portable"


def test_without_it_torch_runs_native() -> None:
    done = _python("from pokerzoo.torch_arithmetic import arithmetic_in_use\n"
                   "print(arithmetic_in_use())\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("native (ATen ")


def test_asked_after_torch_computed_is_one_line() -> None:
    done = _python(
        "import torch\n"
        "torch.randn(8, 8) @ torch.randn(8, 8)\n"
        "from pokerzoo.errors import ConfigError\n"
        "from pokerzoo.torch_arithmetic import use_portable_arithmetic\n"
        "try:\n"
        "    use_portable_arithmetic('the test run')\n"
        "except ConfigError as err:\n"
        "    print(err)\n"
    )
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert "\n" not in line
    assert line.startswith("the test run asks for portable torch arithmetic, but this process "
                           "runs native")
    assert "torch computed before it was asked" in line
    assert "MKL_CBWR=COMPATIBLE ATEN_CPU_CAPABILITY=default" in line


def test_a_conflicting_switch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from pokerzoo.torch_arithmetic import use_portable_arithmetic

    monkeypatch.setenv("MKL_CBWR", "AVX2")
    with pytest.raises(ConfigError, match="MKL_CBWR=AVX2 is set; unset it or set "
                                          "MKL_CBWR=COMPATIBLE"):
        use_portable_arithmetic()


def test_the_run_config_takes_only_a_boolean() -> None:
    assert RunConfig.from_dict({"portable_arithmetic": True}).portable_arithmetic is True
    with pytest.raises(ConfigError, match="portable_arithmetic"):
        RunConfig.from_dict({"portable_arithmetic": "yes"})


def _train_and_load(out: Path, **env: str) -> dict:
    """Train Deep CFR on Kuhn for 2 iterations with portable arithmetic (a new process), then
    load it in another and return its build record and the policy's probabilities."""
    train = _python(
        "from pokerzoo.runs.commands.train import main\n"
        f"main(['--agent', 'deep-cfr', '--game', 'kuhn_poker', '--iterations', '2',\n"
        f"      '--agent-param', 'traversals=40', '--agent-param', 'advantage_steps=20',\n"
        f"      '--agent-param', 'policy_steps=20', '--no-progress', '--no-tensorboard',\n"
        f"      '--portable-arithmetic', '--out', {str(out)!r}])\n", **env)
    assert train.returncode == 0, train.stderr
    load = _python(
        "import json\n"
        "from pokerzoo.checkpoint import find_run_checkpoint, read_header\n"
        "from pokerzoo.runs.load import load_agent\n"
        "from pokerzoo.torch_arithmetic import arithmetic_in_use\n"
        f"build = read_header(find_run_checkpoint({str(out)!r}))['meta']['build']\n"
        f"policy = load_agent({str(out)!r}).policy()\n"
        "probs = policy.probs.tolist()\n"
        "print(json.dumps({'build': build, 'in_use': arithmetic_in_use(), 'probs': probs}))\n",
        **env)
    assert load.returncode == 0, load.stderr
    return json.loads(load.stdout)


@pytest.mark.slow
def test_a_portable_run_records_it_and_loads_so(tmp_path: Path) -> None:
    import torch

    first = _train_and_load(tmp_path / "a")
    assert first["build"]["portable_arithmetic"] is True
    assert first["build"]["torch"] == str(torch.__version__)
    assert first["in_use"] == "portable"  # load_agent asked for it before torch computed
    # MKL told to use no more than SSE4.2 (as an older processor would): the same bits.
    second = _train_and_load(tmp_path / "b", MKL_ENABLE_INSTRUCTIONS="SSE4_2")
    assert second["probs"] == first["probs"]


@pytest.mark.slow
def test_loading_a_portable_run_after_torch_computed_is_one_line(tmp_path: Path) -> None:
    _train_and_load(tmp_path / "a")
    done = _python(
        "import torch\n"
        "torch.randn(8, 8) @ torch.randn(8, 8)\n"
        "from pokerzoo.errors import ConfigError\n"
        "from pokerzoo.runs.load import load_agent\n"
        "try:\n"
        f"    load_agent({str(tmp_path / 'a')!r})\n"
        "except ConfigError as err:\n"
        "    print(err)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "asks for portable torch arithmetic, but this process runs native" in done.stdout


def test_a_torch_without_mkl_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import pokerzoo.torch_arithmetic as arithmetic

    for name in arithmetic.PORTABLE_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)  # restored after the test
    monkeypatch.setattr(arithmetic, "_mkl_branch", lambda: None)
    with pytest.raises(ConfigError, match=r"MKL branch None\)") as err:
        arithmetic.use_portable_arithmetic("the test run")
    assert "\n" not in str(err.value)
