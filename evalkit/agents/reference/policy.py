"""What every local dialogue policy shares: the reply type, the policy protocol, and the registry of hand-written
policies by domain name.

Its own module so the policies and ``dialogue.make_policy`` (which picks one) import it and not each other. Every
built-in domain declares workflows and needs no entry here: ``make_policy`` runs the workflow engine on them. A
domain whose tasks do not fit workflows registers a policy factory under its name, from the agents' side (domains
know nothing of agents): ``@POLICIES.register("my_domain")`` in a module named by the entry-point group
``evalkit.local_policies``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from evalkit.agents.base import ToolBox
from evalkit.dialogue_acts import DialogueAct
from evalkit.plugins import Registry


@dataclass
class PolicyReply:
    text: str
    end_call: bool = False
    acts: list[DialogueAct] = field(default_factory=list)  # what the turn does, for a caller that wants exactness


class DialoguePolicy(Protocol):
    def greet(self) -> PolicyReply: ...

    def step(self, heard: str) -> PolicyReply: ...


# (tools, current date-time "YYYY-MM-DDTHH:MM...") -> a fresh policy for one conversation
PolicyFactory = Callable[[ToolBox, str], DialoguePolicy]

POLICIES: Registry[PolicyFactory] = Registry("local dialogue policy", "evalkit.local_policies")


def ok(result: dict[str, Any]) -> bool:
    return result.get("status") == "success"
