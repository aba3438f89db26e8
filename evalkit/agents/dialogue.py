"""Deterministic dialogue policies: the 'LLM' of the embedded cascade agent, one per domain.

A policy sees only the text its ASR produced, so what it hears is what it acts on: a misheard confirmation
code fails authentication, a misheard flight number books the wrong flight. It doubles as the reference
path for scenarios, so a clean run is a meaningful baseline.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from evalkit.agents.base import ToolBox


@dataclass
class PolicyReply:
    text: str
    end_call: bool = False


class DialoguePolicy(Protocol):
    def greet(self) -> PolicyReply: ...

    def step(self, heard: str) -> PolicyReply: ...


def make_policy(
    domain: str, tools: ToolBox, current_date_time: str, workflows: Mapping[str, Any] | None = None
) -> DialoguePolicy:
    """The domain's policy: airline keeps its hand-written one; any domain with a ``workflows`` module (or the
    ``workflows`` given, e.g. a test domain) runs on the workflow engine."""
    today = date.fromisoformat(current_date_time[:10])
    if domain == "airline" and workflows is None:
        from evalkit.agents.airline_policy import AirlinePolicy

        return AirlinePolicy(tools, today, current_date_time[11:16])
    from evalkit.agents.workflow_policy import WorkflowPolicy

    if workflows is not None:
        return WorkflowPolicy(tools, today, workflows)
    try:
        module = importlib.import_module(f"evalkit.domains.{domain}.workflows")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"evalkit.domains.{domain}", f"evalkit.domains.{domain}.workflows"):
            raise  # the module exists but is broken: show the real error
        raise ValueError(
            f"the local agent has no dialogue policy for domain {domain!r}: no evalkit.domains.{domain}.workflows"
        ) from exc
    greeting = getattr(module, "GREETING", None)
    return WorkflowPolicy(tools, today, module.WORKFLOWS, **({"greeting": greeting} if greeting else {}))


def ok(result: dict[str, Any]) -> bool:
    return result.get("status") == "success"
