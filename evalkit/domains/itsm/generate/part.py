"""``Part``: what one workflow adds to a scenario, and the ``Builder`` signature of the per-workflow builders."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Part:
    """What one workflow adds to a scenario: the caller's answers, request and goal, and the entities."""

    workflow: str
    request: str
    goal: str
    must_have: list[str]
    rules: list[str]
    answers: dict[str, str] = field(default_factory=dict)
    key_entities: dict[str, str] = field(default_factory=dict)
    flow: str = ""
    push_back: str | None = None

    def outcome(self, adv: bool, *, done: str, refused: str, push_back: str) -> Part:
        """The part with the flow the scenario expects: ``done`` when the request goes through; for an adversarial
        one (``adv``) the policy's refusal ``refused`` and the caller's ``push_back`` against it."""
        if adv:
            self.push_back = push_back
            self.flow = refused
        else:
            self.flow = done
        return self


Builder = Callable[[random.Random, dict[str, Any], dict[str, Any], bool, int], Part]
