"""The in-process agent interface: a turn-based agent that the call loop drives through
``evalkit.call.TurnBasedSession``. Agents that stream (wire protocols) implement ``evalkit.call.AgentSession``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from evalkit.dialogue_acts import DialogueAct
from evalkit.domains.base import ToolExecutor
from evalkit.records import AudioClip
from evalkit.tool_log import parse_log


@dataclass
class ToolBox:
    """The agent's only door to the domain: calls go through the deterministic executor and are recorded."""

    executor: ToolExecutor
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self.executor.call(name, arguments)
        self.calls.append((name, arguments, result))
        return result

    def call_json(self, name: str, arguments: Any) -> dict[str, Any]:
        """A call as a wire agent sends it: ``arguments`` as JSON text or already decoded (an object, or whatever
        the agent sent). Malformed arguments are the agent's mistake: the executor answers an ``invalid_arguments``
        error and the call is recorded with the raw arguments under ``_raw``, so tool-call metrics score it."""
        result = self.executor.call(name, arguments)
        self.calls.append((name, _recorded_arguments(arguments), result))
        return result

    def report(self, calls: list[dict[str, Any]]) -> None:
        """An in-process agent with tools of its own reports the calls it made there (``{name, arguments, result}``
        each; evalkit.tool_log), so ``success.tool_calls`` can check them; may be called any number of times.
        A malformed entry raises ``ToolLogError`` (the agent's bug, shown as its crash)."""
        entries = parse_log(calls)
        self.executor.agent_log = [*(self.executor.agent_log or []), *entries]

    def drain(self) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        calls, self.calls = self.calls, []
        return calls


def _recorded_arguments(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            decoded = None
        return decoded if isinstance(decoded, dict) else {"_raw": arguments}
    return dict(arguments) if isinstance(arguments, dict) else {"_raw": arguments}


@dataclass
class AgentContext:
    domain: str
    current_date_time: str
    tools: ToolBox
    scenario_id: str = ""  # issue 13: a wire agent's call carries it (Twilio customParameters)
    seed: int | None = None  # issue 17: the call's agent seed (cell seed, scenario, trial): for an agent that samples


@dataclass
class AgentReply:
    text: str
    audio: AudioClip | None  # None on a text channel
    heard_text: str | None = None
    tool_calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    end_call: bool = False
    asr_ms: float = 0.0
    compute_ms: float = 0.0  # the whole turn's wall time: the call's clock moves on by it before the agent speaks
    # the stages of compute_ms, where the agent has them (None: no such stage, or not measured); see records.Turn
    stt_ms: float | None = None
    llm_ms: float | None = None
    tts_ms: float | None = None
    http_retries: int = 0  # requests of this turn the agent retried (HTTP 429/5xx, timeouts)
    # what the turn does, for a caller that wants exactness (ask(field), confirm(field, value), done, transfer);
    # optional: the harness passes them to the caller untouched (evalkit.dialogue_acts)
    acts: list[DialogueAct] = field(default_factory=list)


class Agent(Protocol):
    def start(self, context: AgentContext) -> AgentReply:
        """Begin a conversation (the agent speaks first, EVA-Bench §2.1) and return the greeting."""
        ...

    def respond(self, user_audio: AudioClip) -> AgentReply:
        """Hear one whole user turn and answer it (on a text channel the turn arrives as a ``str``)."""
        ...


class HearsOverlap(Protocol):
    """Optional for an ``Agent``: ``hear_overlap(clip, at_ms)`` hears speech over its own utterance (a caller
    behaviour, ``+behavior=``: a backchannel or side speech), ``at_ms`` into the utterance; True: it keeps talking,
    False: it yields there (the loop cuts its turn where the overlapping speech ends). An agent without it keeps
    talking (a turn-based agent cannot hear while it speaks)."""

    def hear_overlap(self, clip: AudioClip, at_ms: float) -> bool: ...
