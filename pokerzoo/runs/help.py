"""``train.py --help``'s agent section: every agent's hyperparameters with their docs and the
default budget in its units, read from the registry and the config dataclasses.

A config field's doc is the string literal under it in the class body (an attribute
docstring, read from the source with ``ast``); a preset's value of a field (``cfr+`` sets
``regret_matching_plus=True``) comes from the family module's presets table, a module-level
dict from preset name to config instance.
"""

from __future__ import annotations

import dataclasses
import importlib
import textwrap
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pokerzoo.agents.registry import AgentSpec, registered_agents
from pokerzoo.config import field_docs
from pokerzoo.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One hyperparameter as ``--agent-param`` takes it."""

    name: str
    default: Any
    doc: str
    alias: str | None = None
    """A shorter name the config also accepts (NFSP's flat names)."""
    when: str | None = None
    """The choice under which it applies (``best_response=uct``)."""


def config_parameters(cls: type, prefix: str = "") -> list[Parameter]:
    """The parameters of config dataclass ``cls``; fields holding config dataclasses are
    listed by dotted name (``replay.batch_size``), each member of a union of them in turn."""
    module = importlib.import_module(cls.__module__)
    flat = {f"{g}.{n}": alias for alias, (g, n) in getattr(module, "FLAT_NAMES", {}).items()}
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    out: list[Parameter] = []
    for f in dataclasses.fields(cls):
        name = prefix + f.name
        nested = _config_members(hints.get(f.name))
        default = _default(f)
        if nested:
            kinds = [getattr(m, "kind", None) for m in nested]
            chosen = all(kinds) and len(kinds) > 1  # a choice among kinds: name=kind
            doc = docs.get(f.name, "")
            if chosen:
                doc += f" One of: {', '.join(kinds)}."  # type: ignore[arg-type]
            out.append(Parameter(name, _short(default), doc))
            for member, kind in zip(nested, kinds):
                when = f"{name}={kind}" if chosen else None
                for p in config_parameters(member, prefix=f"{name}."):
                    alias = flat.get(p.name) if p.name.count(".") == 1 else None
                    out.append(dataclasses.replace(p, alias=alias, when=when))
        else:
            out.append(Parameter(name, default, docs.get(f.name, "")))
    return out


def _config_members(hint: Any) -> list[type]:
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(
        hint) is typing.Union else (hint,)
    return [a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)]


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def _short(value: Any) -> Any:
    """A nested config shown by its kind (``dqn``) or class name (its fields are listed below
    it)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return getattr(value, "kind", type(value).__name__)
    return value


def preset_config(spec: AgentSpec) -> Any:
    """The config instance agent ``spec`` builds with no parameters (its preset's entry in the
    family's presets table), or ``None`` when the family has no such table."""
    cls = spec.config_class
    if cls is None or spec.preset is None:
        return None
    module = importlib.import_module(spec.module)
    for value in vars(module).values():
        if not isinstance(value, dict):
            continue
        entry = value.get(spec.preset)
        if isinstance(entry, cls):
            return entry
        # A table of parameters (NFSP's presets) built as the factory builds it.
        if isinstance(entry, Mapping) and hasattr(cls, "from_params"):
            return cls.from_params(**entry)
    return None


def _value_of(config: Any, dotted: str) -> Any:
    value = config
    for part in dotted.split("."):
        if value is None or not hasattr(value, part):
            return _MISSING
        value = getattr(value, part)
    return _short(value)



_MISSING = object()


def _families(names: Sequence[str] | None = None) -> list[list[AgentSpec]]:
    """Registered agents grouped by family (agents sharing a config class), in registry
    order; only ``names`` when given."""
    families: dict[str, list[AgentSpec]] = {}
    for spec in registered_agents().values():
        if names is None or spec.name in names:
            families.setdefault(spec.config or spec.name, []).append(spec)
    return list(families.values())


def _family_title(specs: list[AgentSpec], default_budget: Callable[[str], int]) -> str:
    """``cfr, cfr+ (default budget 20,000 iterations, set with --iterations or --seconds``."""
    first = specs[0]
    names = ", ".join(s.name for s in specs)
    units = first.units
    budgets = {s.name: default_budget(s.name) for s in specs}
    if len(set(budgets.values())) == 1:
        budget = f"default budget {budgets[first.name]:,} {units}"
    else:
        each = ", ".join(f"{name} {value:,}" for name, value in budgets.items())
        budget = f"default budget in {units}: {each}"
    flag = "--episodes" if units in ("episodes", "rounds") else "--iterations"
    return f"{names} ({budget}, set with {flag} or --seconds"


def _family_parameters(specs: list[AgentSpec]) -> list[tuple[Parameter, list[str]]]:
    """Each parameter of the family's config with the presets that change its default, as
    ``"name: value"`` strings."""
    cls = specs[0].config_class
    if cls is None:
        return []
    presets = {s.name: preset_config(s) for s in specs}
    out = []
    for p in config_parameters(cls):
        changes = [
            f"{name}: {value!r}" for name, config in presets.items()
            if config is not None
            and (value := _value_of(config, p.name)) is not _MISSING and value != p.default
        ]
        out.append((p, changes))
    return out


def agents_help(default_budget: Callable[[str], int], width: int = 100) -> str:
    """The agent section of ``train.py --help``: per family (agents sharing a config class),
    the budget units and each agent's ``default_budget(name)``, then each parameter with its
    default, the presets that change it, and its doc."""
    lines = ["agents and their hyperparameters (--agent-param NAME=VALUE, or [agent_params] in "
             "a --config file):"]
    for specs in _families():
        cls = specs[0].config_class
        title = _family_title(specs, default_budget)
        lines.append("")
        lines.append(title + (f"; config {cls.__name__})" if cls else ")"))
        for p, changes in _family_parameters(specs):
            head = f"  {p.name}" + (f" (or {p.alias})" if p.alias else "")
            if p.when:
                head += f" (with {p.when})"
            head += f" = {p.default!r}" + (f" [{'; '.join(changes)}]" if changes else "")
            lines.append(head)
            if p.doc:
                lines.extend(textwrap.wrap(p.doc, width=width, initial_indent="      ",
                                           subsequent_indent="      "))
    return "\n".join(lines)


def parameters_markdown(names: Sequence[str], default_budget: Callable[[str], int]) -> str:
    """The parameters of agents ``names`` as Markdown tables, one per family, the form the
    documentation's agent pages show (the same rows as ``train.py --help``)."""
    unknown = sorted(set(names) - set(registered_agents()))
    if unknown:
        raise ConfigError(f"unknown agents {unknown}; registered: {sorted(registered_agents())}")
    blocks = []
    for specs in _families(names):
        cls = specs[0].config_class
        title = _family_title(specs, default_budget) + (f"; config `{cls.__name__}`)"
                                                         if cls else ")")
        rows = ["| parameter | default | presets | meaning |", "| --- | --- | --- | --- |"]
        for p, changes in _family_parameters(specs):
            name = f"`{p.name}`" + (f" (or `{p.alias}`)" if p.alias else "")
            if p.when:
                name += f" (with `{p.when}`)"
            cells = [name, f"`{p.default!r}`", "; ".join(changes) or "-", p.doc or "-"]
            # Docstrings quote code RST-style (``x``); Markdown quotes it once.
            rows.append("| " + " | ".join(
                c.replace("``", "`").replace("|", "\\|").replace("\n", " ") for c in cells
            ) + " |")
        blocks.append(f"**{title}**\n\n" + ("\n".join(rows) if len(rows) > 2
                                             else "No parameters."))
    return "\n\n".join(blocks) + "\n"
