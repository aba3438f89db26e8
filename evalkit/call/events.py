"""What travels on a call: the caller's frames to the agent, and the agent's events back.

The caller sends ``Frame``s (audio samples or text) and marks the end of its turn; the agent answers with
``AgentSpeech`` chunks (one per turn for turn-based agents, many for streaming ones) and an ``AgentTurnEnd``.
Every event is stamped with the call clock when the loop receives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalkit.dialogue_acts import DialogueAct
from evalkit.records import AudioClip

ToolCallTuple = tuple[str, dict[str, Any], dict[str, Any]]  # (name, arguments, result) as the ToolBox records them


@dataclass(frozen=True)
class Frame:
    """A piece of the caller's turn: audio (``samples`` at ``sample_rate``) or text (``text``). ``fill``: the open
    line between the caller's utterances (silence or the ambient bed), not speech (evalkit.call.line)."""

    samples: np.ndarray | None = None
    sample_rate: int = 0
    text: str | None = None
    fill: bool = False

    @property
    def duration_ms(self) -> float:
        return len(self.samples) / self.sample_rate * 1000.0 if self.samples is not None else 0.0


@dataclass
class AgentSpeech:
    """A chunk of the agent's speech: the text it means to say, its audio (None on a text channel), what it heard of
    the caller's last turn, the tool calls it made before speaking and its compute time. ``text_source``:
    ``"caller_asr"`` when the text is the caller's transcript of the agent's audio (the agent sent none)."""

    text: str
    audio: AudioClip | None = None
    heard_text: str | None = None
    tool_calls: list[ToolCallTuple] = field(default_factory=list)
    compute_ms: float = 0.0
    stt_ms: float | None = None  # the stages of compute_ms where the agent reports them (records.Turn)
    llm_ms: float | None = None
    tts_ms: float | None = None
    http_retries: int = 0
    text_source: str | None = None
    # the length of the whole utterance's audio when the agent announces it with its text (evalkit's reference
    # server; a Realtime session once the item's audio is in): where in the text a moment of its audio falls
    duration_ms: float | None = None
    acts: list[DialogueAct] = field(default_factory=list)  # the agent's dialogue acts for this turn (optional)


@dataclass(frozen=True)
class AgentTurnEnd:
    """The agent has finished its turn; ``end_call``: and hangs up. ``at_ms``: when the caller decided so, when that
    is a time the session scheduled (the end of a silence window, on the call clock) rather than the moment the event
    is received: a timer that fires late, or a loop busy with other calls, then does not delay the caller's reaction
    (None: when it is received)."""

    end_call: bool = False
    at_ms: float | None = None


AgentEvent = AgentSpeech | AgentTurnEnd
__all__ = ["AgentEvent", "AgentSpeech", "AgentTurnEnd", "DialogueAct", "Frame", "ToolCallTuple"]
