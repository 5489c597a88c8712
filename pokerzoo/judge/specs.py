"""Outside players named by one string, as ``evaluate.py --policy SPEC`` takes them.

=============================  =====================================================
``module:function``            a Python callable (``path/to/bot.py:function`` too)
``openai:MODEL``               an LLM behind an OpenAI-compatible endpoint
``cmd:PROGRAM ARGS``           a program speaking the line protocol on stdin/stdout
``openspiel:module:object``    an ``open_spiel.python.policy.Policy`` (or a factory)
``rlcard:MODEL_ID``            an RLCard agent: a model of its zoo or ``module:object``
=============================  =====================================================

>>> spec_kind("openai:gpt-4o-mini"), spec_kind("cmd:./bot --fast"), spec_kind("bots:fold")
('openai', 'cmd', 'callable')
"""

from __future__ import annotations

from typing import Any

from pokerzoo.errors import ConfigError

SPEC_KINDS = ("openai", "cmd", "openspiel", "rlcard")
"""The prefixes a ``SPEC`` may start with; anything else of the form ``module:function`` is a
callable."""

SPEC_FORMS = ("module:function (or path/to/file.py:function)", "openai:MODEL",
              'cmd:"PROGRAM ARGS"', "openspiel:module:object", "rlcard:MODEL_ID or "
              "rlcard:module:object")
"""What ``SPEC`` may be, as the errors list it."""


def spec_kind(spec: str) -> str:
    """The kind of player ``spec`` names: one of ``SPEC_KINDS`` or ``"callable"``.

    Raises:
        ConfigError: ``spec`` has no ``kind:`` or ``module:`` part (the forms are listed).
    """
    if not isinstance(spec, str) or ":" not in spec or spec.startswith(":") or \
            spec.endswith(":"):
        raise ConfigError(f"cannot read the player {spec!r}; a player is one of: "
                          + "; ".join(SPEC_FORMS))
    head = spec.split(":", 1)[0]
    return head if head in SPEC_KINDS else "callable"


def player_from_spec(spec: str, *, base_url: str | None = None,
                     api_key_env: str | None = "OPENAI_API_KEY", timeout: float = 60.0,
                     **llm_options: Any) -> Any:
    """The outside player ``spec`` names (see the module), ready for ``judge_game``.

    Args:
        spec: the player (see the table above).
        base_url: the endpoint of an ``openai:`` player (default ``https://api.openai.com/v1``
            where none is given; any OpenAI-compatible server, e.g. a local one).
        api_key_env: the environment variable holding an ``openai:`` player's key (``None``
            for a server that needs no key).
        timeout: seconds a program or an endpoint may take for one answer.
        llm_options: the ``openai:`` player's other options (``temperature``, ``seed``,
            ``max_tokens``, ``votes``, ``concurrency``, ``retries``, ``cache_dir``,
            ``transcript``): see ``pokerzoo.judge.llm.ChatPlayer``.

    Raises:
        ConfigError: an unreadable ``spec``, options given to a kind that takes none, a module
            or object that is not there, a missing key variable.
    """
    kind = spec_kind(spec)
    rest = spec.split(":", 1)[1] if kind != "callable" else spec
    if kind != "openai" and llm_options:
        raise ConfigError(f"{', '.join(sorted(llm_options))} apply to an openai:MODEL player "
                          f"only, not to {spec!r}")
    if kind == "openai":
        from pokerzoo.judge.llm import ChatPlayer

        return ChatPlayer(base_url=base_url or "https://api.openai.com/v1", model=rest,
                          api_key_env=api_key_env, timeout=timeout, **llm_options)
    from pokerzoo.judge.adapters import ADAPTER_SPECS

    if kind == "cmd":
        return ADAPTER_SPECS["cmd"](rest, timeout=timeout)
    return ADAPTER_SPECS[kind](rest)
