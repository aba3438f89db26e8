"""Deterministic dialogue policies: the 'LLM' of the embedded cascade agent, one per domain.

A policy sees only the text its ASR produced, so what it hears is what it acts on: a misheard confirmation
code fails authentication, a misheard flight number books the wrong flight. It doubles as the reference
path for scenarios, so a clean run is a meaningful baseline.
"""

from __future__ import annotations

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


def make_policy(domain: str, tools: ToolBox, current_date_time: str) -> DialoguePolicy:
    today = date.fromisoformat(current_date_time[:10])
    if domain == "airline":
        from evalkit.agents.airline_policy import AirlinePolicy

        return AirlinePolicy(tools, today)
    raise ValueError(f"the local agent has no dialogue policy for domain {domain!r}; known: ['airline']")


def ok(result: dict[str, Any]) -> bool:
    return result.get("status") == "success"
