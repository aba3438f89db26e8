"""The embedded agent's dialogue policy without ASR and TTS: the agent of a text channel (text mode, the
perfect-ear reference and MM-τ-p²'s text modality). Same policy, same tools as ``CascadeLocalAgent``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from evalkit.agents.base import AgentContext, AgentReply
from evalkit.agents.reference.barge_in import CutOff, recovery
from evalkit.agents.reference.dialogue import DialoguePolicy, PolicyReply, make_policy


class LocalTextAgent:
    def __init__(self, workflows: Mapping[str, Any] | None = None) -> None:
        self.workflows = workflows  # a test domain's workflows; None: the domain's own
        self._policy: DialoguePolicy | None = None
        self._context: AgentContext | None = None
        self._cut: CutOff | None = None  # the caller cut into the last utterance (IHBench interruptions)

    def interrupted(self, delivered: str, undelivered: str, full: str) -> None:
        self._cut = CutOff(delivered, undelivered, full)

    def _reply(self, reply: PolicyReply, heard: str | None, started: float) -> AgentReply:
        assert self._context is not None
        return AgentReply(
            text=reply.text,
            audio=None,  # a text channel carries no audio
            heard_text=heard,
            tool_calls=self._context.tools.drain(),
            end_call=reply.end_call,
            acts=list(reply.acts),
            compute_ms=(time.perf_counter() - started) * 1000.0,
        )

    def start(self, context: AgentContext) -> AgentReply:
        started = time.perf_counter()
        self._context = context
        self._policy = make_policy(context.domain, context.tools, context.current_date_time, self.workflows)
        return self._reply(self._policy.greet(), None, started)

    def respond(self, heard: str) -> AgentReply:
        assert self._policy is not None, "start() must be called first"
        started = time.perf_counter()
        if self._cut is not None:  # an interjection: recover (evalkit.agents.reference.barge_in), the policy waits
            cut, self._cut = self._cut, None
            return self._reply(PolicyReply(text=recovery(cut, heard)), heard, started)
        return self._reply(self._policy.step(heard), heard, started)
