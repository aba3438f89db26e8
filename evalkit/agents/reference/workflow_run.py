"""Where the workflow engine (``evalkit.agents.reference.workflow_policy``) is in one workflow of a call: the state
its step mixins (``workflow_calls``, ``workflow_slots``) share, in its own module so they need not import the
engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from evalkit.agents.reference.policy import PolicyReply
from evalkit.domains.workflow import Workflow


@dataclass
class Run:
    """Where the engine is in one workflow: the step index and the values gathered so far."""

    workflow: Workflow
    index: int = 0
    scope: dict[str, Any] = field(default_factory=dict)
    resume_at: int | None = None  # after re-asking a slot for a failed call, go back to that call
    retries: dict[int, int] = field(default_factory=dict)
    fresh_once: bool = False  # a ``once`` call was made afresh here, so the later ones are too (Call.once)
    # Slots whose value a call already accepted (a lookup found the NPI, a verification matched the ID): a later
    # call's failure is not theirs, so they are not asked again for it (the value it did not find is).
    accepted: set[str] = field(default_factory=set)


class EngineState:
    """What every step mixin of ``WorkflowPolicy`` (``WorkflowSlots``, ``WorkflowOffers``, ``WorkflowCalls``) relies on:
    the engine's state and dialogue methods, declared once here and defined by the engine."""

    run: Run | None
    today: date
    pending: str
    value: Any
    known: dict[str, Any]
    reasks: int
    refused: tuple[str, str] | None
    _ask: Callable[..., PolicyReply]
    _reask: Callable[[str, str, str], PolicyReply]
    _transfer: Callable[..., PolicyReply]
    _advance: Callable[..., PolicyReply]
    _anything_else: Callable[[str], PolicyReply]
