"""Deterministic dialogue policies: the 'LLM' of the embedded cascade agent, one per domain.

A policy sees only the text its ASR produced, so what it hears is what it acts on: a misheard confirmation
code fails authentication, a misheard flight number books the wrong flight. It doubles as the reference
path for scenarios, so a clean run is a meaningful baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.policy import POLICIES, DialoguePolicy, PolicyReply, ok
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains import get_domain
from evalkit.plugins import UnknownPluginError

__all__ = ["DialoguePolicy", "PolicyReply", "make_policy", "ok"]  # PolicyReply and ok: their old import path


def make_policy(
    domain: str, tools: ToolBox, current_date_time: str, workflows: Mapping[str, Any] | None = None
) -> DialoguePolicy:
    """The domain's policy: the one registered for it in ``POLICIES`` (a plug-in's hand-written one), else the
    workflow engine on the domain's workflows (or on the ``workflows`` given, e.g. a test domain's)."""
    today = date.fromisoformat(current_date_time[:10])
    now = current_date_time[:16]  # "YYYY-MM-DD HH:MM": ``$now`` in a workflow
    if workflows is not None:
        return WorkflowPolicy(tools, today, workflows, now=now)
    if domain in POLICIES:
        return POLICIES.get(domain)(tools, current_date_time)
    try:
        found = get_domain(domain)
    except UnknownPluginError as exc:
        raise ValueError(f"the local agent has no dialogue policy for domain {domain!r}: {exc}") from None
    if found.workflows is None:
        raise ValueError(
            f"the local agent has no dialogue policy for domain {domain!r}: it declares no workflows and no policy "
            f"is registered for it (registered: {', '.join(POLICIES.names()) or 'none'})"
        )
    greeting = {"greeting": found.greeting} if found.greeting else {}
    return WorkflowPolicy(tools, today, found.workflows, **greeting, now=now)
