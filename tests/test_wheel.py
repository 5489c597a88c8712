"""The release as a user gets it: ``python -m build`` makes a wheel and an sdist that ``twine
check`` accepts; the wheel, installed into a fresh virtual environment and run far from the
checkout, holds the version, the console commands and the shipped files (configs, spots, env
pages), and solves a small game and a shipped spot by name.

The build runs on a copy of the checkout's files (``git ls-files``), so it leaves nothing in
the checkout. The virtual environment sees this environment's packages (numpy, numba, ...)
through a ``.pth`` file written after the wheel is installed with ``--no-deps``, so nothing
is downloaded; the checkout is never on its ``sys.path``: every command runs from an empty
folder without ``PYTHONPATH``, and the test checks that ``pokerzoo`` is the installed copy.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from pokerzoo.version import __version__

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _checkout_copy(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: int = 900) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{argv}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build")
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    _checkout_copy(source)
    # --no-isolation: the build uses this environment's setuptools instead of downloading one,
    # where it is recent enough for pyproject.toml's build-system.
    setuptools = tuple(int(p) for p in metadata.version("setuptools").split(".")[:1])
    isolation = ["--no-isolation"] if setuptools >= (77,) else []
    _run([sys.executable, "-m", "build", *isolation, "--outdir", str(out)], source)
    return out


def test_the_wheel_and_sdist_pass_twine_check_and_hold_the_shipped_files(dist: Path) -> None:
    wheel = dist / f"pokerzoo-{__version__}-py3-none-any.whl"
    sdist = dist / f"pokerzoo-{__version__}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    pytest.importorskip("twine")
    _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)], dist)
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = [f"pokerzoo/data/{p.relative_to(ROOT).as_posix()}" for pattern in (
        "configs/*.toml", "configs/spots/*.toml", "docs/envs/*.md") for p in ROOT.glob(pattern)]
    assert shipped and not set(shipped) - names, sorted(set(shipped) - names)
    assert {"pokerzoo/py.typed", "pokerzoo/__main__.py"} <= names
    entry_points = zipfile.ZipFile(wheel).read(
        f"pokerzoo-{__version__}.dist-info/entry_points.txt").decode()
    for command in ("train", "evaluate", "play", "solve"):
        assert f"pokerzoo-{command} = pokerzoo.runs.commands:{command}" in entry_points
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_the_installed_wheel_runs_without_the_checkout(dist: Path, tmp_path: Path) -> None:
    venv, work = tmp_path / "venv", tmp_path / "work"
    work.mkdir()
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python, bin_dir = venv / "bin" / "python", venv / "bin"
    wheel = dist / f"pokerzoo-{__version__}-py3-none-any.whl"
    _run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
          "--disable-pip-version-check", str(wheel)], work)
    # This environment's packages, behind the venv's own (which hold the wheel's pokerzoo).
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"], work).stdout.strip())
    ours = {*site.getsitepackages(), sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"]}
    (purelib / "outside_packages.pth").write_text(
        "".join(f"{p}\n" for p in sorted(ours) if Path(p).resolve() != ROOT))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"

    probe = _run([str(python), "-c", (
        "import importlib.metadata as m, sys, pokerzoo\n"
        "from pokerzoo.runs.shipped import shipped_root, shipped_names\n"
        "print(pokerzoo.__file__); print(pokerzoo.__version__, m.version('pokerzoo'))\n"
        "print(shipped_root()); print(','.join(shipped_names()))\n"
        "print(any(p and __import__('os').path.samefile(p, sys.argv[1]) "
        "for p in sys.path if __import__('os').path.isdir(p)))"), str(ROOT)], work, env)
    file, versions, root, spots, checkout_on_path = probe.stdout.splitlines()
    assert Path(file).resolve().is_relative_to(venv.resolve()), file
    assert versions == f"{__version__} {__version__}"
    assert Path(root).resolve().is_relative_to(venv.resolve()), root
    assert "nlh_limped_river" in spots.split(",")
    assert checkout_on_path == "False"

    kuhn = _run([str(bin_dir / "pokerzoo-solve"), "--game", "kuhn_poker", "--iterations", "50",
                 "--quiet"], work, env)
    assert kuhn.stdout.startswith("kuhn_poker: game value per player"), kuhn.stdout
    train_help = _run([str(bin_dir / "pokerzoo-train"), "--help"], work, env)
    assert train_help.stdout.startswith("usage: pokerzoo-train")
    version = _run([str(python), "-m", "pokerzoo", "--version"], work, env)
    assert version.stdout == f"pokerzoo {__version__}\n"
    # A shipped spot by name, from the wheel's own copy: no such file in the working folder.
    river = _run([str(bin_dir / "pokerzoo-solve"), "nlh_limped_river", "--iterations", "2",
                  "--check-every", "1", "--threads", "1", "--quiet"], work, env)
    assert "exploitability" in river.stdout, river.stdout
    assert list(work.iterdir()) == []
