"""The one build step ``pyproject.toml`` cannot declare: the repository's example configs and
env pages enter the wheel as package data, under ``pokerzoo/data/`` with the repository's own
layout (``pokerzoo/data/configs/spots/nlh_limped_river.toml``,
``pokerzoo/data/docs/envs/kuhn_poker_v0.md``), so an installed pokerzoo finds them with no
checkout (``pokerzoo.runs.shipped``). They stay where the scripts, docs and tests name them;
MANIFEST.in puts them in the sdist, which the wheel is built from. An editable install reads
them from the checkout and copies nothing."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("configs/*.toml", "configs/spots/*.toml", "docs/envs/*.md", "docs/spot_format.md")
"""The files shipped, as globs relative to the repository root (and to ``pokerzoo/data``)."""


class BuildWithData(build_py):
    """``build_py``, then the shipped files copied into ``pokerzoo/data``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        for pattern in SHIPPED:
            files = sorted(root.glob(pattern))
            if not files:
                raise SystemExit(f"setup.py: nothing matches {pattern}: is this a checkout?")
            for source in files:
                target = Path(self.build_lib, "pokerzoo", "data", source.relative_to(root))
                self.mkpath(str(target.parent))
                self.copy_file(str(source), str(target))


setup(cmdclass={"build_py": BuildWithData})
