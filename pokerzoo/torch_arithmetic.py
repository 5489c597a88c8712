"""Portable torch arithmetic: a torch agent trained on any x86-64 processor, the same bits.

torch's CPU kernels pick their code path by the processor: ATen's vectorised kernels by its
instruction set (AVX512, AVX2 or the default build), Intel MKL's matrix products by vendor and
instruction set. The paths round differently, and a Deep CFR run compounds the difference: the
heads-up no-limit blueprint of ``configs/hunl_blueprint.toml``, built on an Intel Xeon and on an
AMD EPYC, ended 393 bb/100 apart against the random player. Two switches pin both to code that
does not depend on the processor:

* ``MKL_CBWR=COMPATIBLE``: MKL's conditional numerical reproducibility, its code path that
  gives the same results on every Intel and Intel-compatible processor;
* ``ATEN_CPU_CAPABILITY=default``: ATen's kernels as compiled for any x86-64.

Both are read when torch first computes (its first tensor operation), not when it is imported,
so :func:`use_portable_arithmetic` works until then. They cost speed (the blueprint builds in
3 min 14 s on one core, against 1 min 59 s), so they are chosen per run
(``portable_arithmetic = true`` in a run config); a checkpoint records the choice and loading
it asks for the same. The bits are the same for the same torch build (torch's version is
recorded beside); another torch version may round otherwise.

>>> sorted(PORTABLE_ENVIRONMENT)
['ATEN_CPU_CAPABILITY', 'MKL_CBWR']
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from pokerzoo.errors import ConfigError

PORTABLE_ENVIRONMENT = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}
"""The environment that pins torch's CPU code paths (read by torch's first operation)."""

_MKL_CBWR_BRANCH = 1  # mkl_cbwr.h: ask for the branch in use
_MKL_CBWR_COMPATIBLE = 3

__all__ = ["PORTABLE_ENVIRONMENT", "arithmetic_in_use", "use_portable_arithmetic"]


def _mkl_branch() -> int | None:
    """MKL's reproducibility branch in this process (None where torch was built without MKL:
    then no switch pins its BLAS)."""
    import torch

    folder = Path(torch.__file__).parent / "lib"
    # Linux, macOS and Windows name torch's CPU library differently; MKL is linked into it.
    for name in ("libtorch_cpu.so", "libtorch_cpu.dylib", "torch_cpu.dll"):
        try:
            getter = ctypes.CDLL(str(folder / name)).mkl_serv_cbwr_get
            break
        except (OSError, AttributeError):
            continue
    else:
        return None
    getter.restype = ctypes.c_int
    getter.argtypes = [ctypes.c_int]
    return int(getter(_MKL_CBWR_BRANCH))


def arithmetic_in_use() -> str:
    """``"portable"`` if this process's torch runs the processor-independent code paths, else
    ``"native"`` with what it runs (asking fixes torch's choice for the process)."""
    import torch

    capability = torch.backends.cpu.get_cpu_capability()
    branch = _mkl_branch()
    if capability == "DEFAULT" and branch == _MKL_CBWR_COMPATIBLE:
        return "portable"
    return f"native (ATen {capability}, MKL branch {branch})"


def use_portable_arithmetic(what: str = "this run") -> None:
    """Pin torch's CPU arithmetic to the processor-independent code paths for this process.

    Raises:
        ConfigError: torch has computed already with its native paths (then the switches must
            be in the environment before the process starts), or it has no MKL.
    """
    for name, value in PORTABLE_ENVIRONMENT.items():
        current = os.environ.get(name)
        if current is not None and current.lower() != value.lower():
            raise ConfigError(f"{what} asks for portable torch arithmetic, but {name}={current} "
                              f"is set; unset it or set {name}={value}")
    computed = "torch" in sys.modules  # the switches may still be read: checked below
    os.environ.update(PORTABLE_ENVIRONMENT)
    in_use = arithmetic_in_use()
    if in_use != "portable":
        switches = " ".join(f"{k}={v}" for k, v in PORTABLE_ENVIRONMENT.items())
        reason = ("torch computed before it was asked" if computed
                  else "this torch build cannot pin them")
        raise ConfigError(f"{what} asks for portable torch arithmetic, but this process runs "
                          f"{in_use} ({reason}); start it with {switches}")


def torch_version() -> str:
    """The torch build whose bits a portable run's are (recorded beside the choice)."""
    import torch

    return str(torch.__version__)
