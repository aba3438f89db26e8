"""The agent's turn as the call loop receives it: its speech chunks on the call clock (``AgentTurn``), the checks
its audio must pass before anything downstream hears it, and the records of its tool calls. Kept apart from the
loop, which only sequences turns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.call.channel import text_duration_ms
from evalkit.call.events import AgentSpeech, ToolCallTuple
from evalkit.call.live import PlannedCut
from evalkit.domains.base import ToolRegistry
from evalkit.records import AudioClip, ToolCall

MAX_AGENT_PEAK = 8.0  # float audio is nominally within [-1, 1]; beyond 18 dB over full scale it is not a signal


class AgentSilence(RuntimeError):
    """The agent's turn came with audio that holds nothing (no samples, or digital zero): infrastructure."""


class AgentGarbageAudio(RuntimeError):
    """The agent's audio is not a signal (NaN, inf, absurd amplitudes): infrastructure, before it reaches any
    listener, mixer or file writer downstream."""


def check_agent_audio(turn: AgentTurn) -> None:
    """Raise when the agent's turn carries unusable audio. A turn without any audio (a text channel) passes."""
    clips = [s.audio for s in turn.speech if s.audio is not None]
    if not clips:
        return
    samples = np.concatenate([np.asarray(c.samples, dtype=np.float64).ravel() for c in clips])
    finite = np.isfinite(samples)
    if not finite.all():
        raise AgentGarbageAudio(f"{int((~finite).sum())} of {samples.size} agent audio samples are NaN or inf")
    peak = float(np.abs(samples).max()) if samples.size else 0.0
    if peak > MAX_AGENT_PEAK:
        raise AgentGarbageAudio(f"agent audio peaks at {peak:.3g} (limit {MAX_AGENT_PEAK:g} full scale)")
    if peak == 0.0:
        what = "no samples" if samples.size == 0 else f"{samples.size} samples of digital silence"
        raise AgentSilence(f"the agent's turn ({turn.text[:40]!r}) came with {what}")


def tool_call_records(calls: list[ToolCallTuple], t_ms: float, registry: ToolRegistry | None = None) -> list[ToolCall]:
    """Records of an agent turn's tool calls; ``registry`` (the executor's) adds each tool's declared flags."""
    return [
        ToolCall(name=n, arguments=a, result=r, ok=r.get("status") == "success", t_ms=t_ms, **_flags(registry, n))
        for n, a, r in calls
    ]


def _flags(registry: ToolRegistry | None, name: str) -> dict[str, bool]:
    if registry is None or name not in registry:  # an unknown tool name: the executor refused it, flags unknown
        return {}
    spec = registry[name]
    return {"writes": spec.writes, "irreversible": spec.irreversible}


@dataclass
class AgentTurn:
    """The agent's turn as received: its speech chunks with their arrival times on the call clock. ``planned``: a
    live turn handed back at the planned onset of the caller's interjection, the agent still talking."""

    chunks: list[tuple[float, AgentSpeech]]
    end_call: bool
    interrupted: bool
    ended_at_ms: float
    planned: PlannedCut | None = None

    @property
    def speech(self) -> list[AgentSpeech]:
        return [s for _, s in self.chunks]

    @property
    def start_ms(self) -> float:
        return self.chunks[0][0] if self.chunks else self.ended_at_ms

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.speech if s.text)

    @property
    def clip(self) -> AudioClip | None:
        clips = [s.audio for s in self.speech if s.audio is not None]
        if len(clips) <= 1:
            return clips[0] if clips else None
        return AudioClip(samples=np.concatenate([c.samples for c in clips]), sample_rate=clips[0].sample_rate)

    @property
    def end_ms(self) -> float:
        """When the listener has heard it all: chunks play back to back, a late chunk from when it arrives. In a
        turn with audio, a chunk of text only (a transcript apart from the audio) takes no time."""
        end = self.start_ms
        voiced = any(s.audio is not None for s in self.speech)
        for at, chunk in self.chunks:
            if chunk.audio is None and voiced:
                continue
            duration = chunk.audio.duration_s * 1000.0 if chunk.audio is not None else text_duration_ms(chunk.text)
            end = max(at, end) + duration
        return end


def stage_ms(speech: list[AgentSpeech], stage: str) -> float | None:
    """A stage's time over a turn's chunks; None when no chunk reports it."""
    values = [v for v in (getattr(s, stage) for s in speech) if v is not None]
    return sum(values) if values else None


def answering(caller: Any, speech: list[AgentSpeech]) -> Callable[[str], Any]:
    """The caller's ``respond``, once the dialogue acts the agent attached to its turn are handed to a caller that
    takes them (``hear_acts``; optional on both sides: the loop knows neither the acts nor what the caller does)."""
    hear = getattr(caller, "hear_acts", None)
    acts = [act for chunk in speech for act in chunk.acts]
    if hear is not None and acts:
        hear(acts)
    return caller.respond
