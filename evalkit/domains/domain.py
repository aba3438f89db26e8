"""A domain is one object: its tools (with read/write/irreversible flags), its workflows, the texts agents and
simulators are prompted with, and its scenario folder, found by one registry look-up (``get_domain(name)``).

Each built-in domain package registers its :class:`Domain` in its ``__init__``; a third-party package registers one
through the entry-point group ``evalkit.domains``. Nothing outside a domain's own package names a domain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from evalkit.domains.base import ToolRegistry
from evalkit.domains.workflow import Workflow
from evalkit.plugins import Registry


@dataclass(frozen=True)
class DomainTexts:
    """What agent and simulator prompts say about a domain (EVA-Bench App. L agent prompt, App. K simulator)."""

    agent_personality: str
    agent_instructions: str
    simulator_role: str
    simulator_domain_notes: str

    @classmethod
    def from_module(cls, module: ModuleType) -> DomainTexts:
        """A domain's ``prompt`` module keeps its texts as upper-case constants beside the fee tables they quote."""
        return cls(
            agent_personality=module.AGENT_PERSONALITY,
            agent_instructions=module.AGENT_INSTRUCTIONS,
            simulator_role=module.SIMULATOR_ROLE,
            simulator_domain_notes=module.SIMULATOR_DOMAIN_NOTES,
        )


@dataclass(frozen=True)
class Domain:
    """``workflows`` None: the domain has no declarative workflows (the local agent then needs a policy registered
    for it, and the scripted simulator answers from its script and its reading of unseen agents). ``greeting``
    None: the agent's default."""

    name: str
    tools: ToolRegistry
    texts: DomainTexts
    scenario_dir: Path
    workflows: Mapping[str, Workflow] | None = None
    greeting: str | None = None
    # An imported record (EVA-Bench's) -> (its tasks as workflow names, the caller's slot answers), read from its
    # fields and ground truth, so the scripted caller plays it in workflow mode; None (or returning None): the
    # field fallback (evalkit.simulator.scripted.field_answers) answers it.
    record_plan: Callable[[Any], tuple[list[str], dict[str, str]] | None] | None = None

    @property
    def irreversible_tools(self) -> frozenset[str]:
        return frozenset(self.tools.irreversible_tools)


BUILTIN_DOMAINS = ("evalkit.domains.airline", "evalkit.domains.custom", "evalkit.domains.hr", "evalkit.domains.itsm")
DOMAINS: Registry[Domain] = Registry("domain", "evalkit.domains", builtin_modules=BUILTIN_DOMAINS)


def register_domain(domain: Domain, origin: str) -> Domain:
    """Register ``domain`` under its name; ``origin`` (the registering module's ``__name__``) names it in the
    duplicate-name error, since a Domain instance carries no module of its own."""
    return DOMAINS.add(domain.name, domain, origin=origin)


def register_package(
    package: str, init_file: str, name: str, tools: ToolRegistry, prompt: ModuleType, **fields: Any
) -> Domain:
    """A domain package's registration from its ``__init__`` (``package`` its ``__name__``, ``init_file`` its
    ``__file__``): the texts of its ``prompt`` module and the ``scenarios`` folder beside it; ``fields``, the other
    :class:`Domain` fields (workflows, record_plan, ...)."""
    texts = DomainTexts.from_module(prompt)
    return register_domain(Domain(name, tools, texts, Path(init_file).parent / "scenarios", **fields), package)


def get_domain(name: str) -> Domain:
    """The registered domain, or ``UnknownPluginError`` (a ValueError) listing the registered ones."""
    return DOMAINS.get(name)
