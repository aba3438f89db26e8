"""Typed value objects passed between layers: the only currency of a cell.

config -> cell plan -> conversations -> per-conversation records -> cell aggregates -> MLflow run.
Audio never lives inside a record: records name artifact files, the cell writes the audio.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "assistant"]


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    ok: bool
    t_ms: float = Field(description="virtual-clock time the call was issued")
    # The tool's declared flags, copied from the domain's ToolSpec when the call is recorded, so metrics read them
    # from the record; None: not known (records written before the flags existed, or a tool the domain lacks).
    writes: bool | None = Field(default=None, description="the tool writes to the DB")
    irreversible: bool | None = Field(default=None, description="a high-risk write the caller must confirm first")


class AppliedEffect(BaseModel):
    """One entry of the conversation's effect timeline (docs/architecture.md, decision 3)."""

    type: str
    participant: Role = "user"
    turn: int
    start_ms: float
    end_ms: float
    params: dict[str, Any] = Field(default_factory=dict)


class Turn(BaseModel):
    index: int
    role: Role
    intended_text: str = Field(description="what the speaker meant to say (TTS input)")
    heard_text: str | None = Field(
        default=None, description="what the listener's ASR made of it (user turns: the agent's STT)"
    )
    text_source: Literal["caller_asr"] | None = Field(
        default=None,
        description="assistant turns: 'caller_asr' when intended_text is the caller's transcript of the agent's "
        "audio (a wire agent that sent no transcript); None: the speaker's own text",
    )
    start_ms: float
    end_ms: float
    compute_ms: float = 0.0
    # Assistant turns: the stages of compute_ms the agent reports (None: no such stage, or not measured). stt_ms: its
    # speech-to-text of the caller's turn; llm_ms: its language model (every request of its tool loop); tts_ms: its
    # speech synthesis. Tool execution and the rest are compute_ms minus these.
    stt_ms: float | None = None
    llm_ms: float | None = None
    tts_ms: float | None = None
    http_retries: int = Field(default=0, ge=0, description="agent requests retried in this turn (HTTP 429/5xx)")
    tool_calls: list[ToolCall] = Field(default_factory=list)
    effects: list[AppliedEffect] = Field(default_factory=list)
    seed: int | None = None
    variation: dict[str, float] = Field(
        default_factory=dict,
        description="user turns: what this trial drew for the utterance (reaction_ms, rate_wpm, pitch; issue 17)",
    )
    audio: dict[str, str] = Field(default_factory=dict, description="artifact name per audio kind")
    audio_sha256: dict[str, str] = Field(
        default_factory=dict,
        description="per audio kind, SHA-256 (16 hex) of the clip's samples: what was said and heard, comparable "
        "across runs and launchers (the WAV tracks lay clips on the measured timeline, so their bytes are not)",
    )


EndReason = Literal["user_end_call", "agent_end_call", "max_turns", "agent_no_response", "error"]


class SimulationValidation(BaseModel):
    """The simulation-validation verdict (EVA-Bench App. D.1) on a kept conversation and the attempts before it.

    ``valid`` False means every attempt failed a gate and the last one was kept: metrics and the analysis can
    exclude or count it. ``flags`` holds one list per attempt of {gate, reason, infrastructure}.
    """

    valid: bool
    attempt: int = Field(ge=0, description="the kept attempt (0 = the first run, with the conversation's seeds)")
    attempts: int = Field(ge=1)
    flags: list[list[dict[str, Any]]] = Field(default_factory=list)
    skipped: dict[str, str] = Field(
        default_factory=dict,
        description="gates not judged on the kept attempt, with why (no judge configured, the judgment failed): "
        "neither passed nor failed",
    )


class InterruptionTally(BaseModel):
    """What an interruption condition (``+interrupt=<type>``) did in one call."""

    kind: str = Field(description="the IHBench interruption type")
    planned: int = Field(ge=0, description="cuts planned (drawn on an eligible agent turn), made or not")
    dropped: int = Field(
        ge=0, description="cuts planned on a live stream and never made: the agent's turn ended before the onset"
    )
    delivered: int = Field(ge=0, description="cuts made: the caller talked over the agent (interruption effects)")


def no_interruption_reason(tally: InterruptionTally | None) -> str:
    """Why a call has no interruption to score (metrics, judges): no condition, or what the condition did."""
    if tally is None:
        return "no interruption of this kind: the caller never cut in (no +interrupt, no eligible turn)"
    if tally.delivered > 0:
        return f"no interruption of the kind scored here: the call's {tally.delivered} are +interrupt={tally.kind}"
    if tally.planned == 0:
        why = (
            "no agent turn was eligible or drawn (a cut needs a sentence before the last: in the text, or, for an "
            "agent that sends audio only, a pause of 250 ms or more ending a sentence-equivalent before more audio)"
        )
    else:
        why = f"{tally.planned} planned, {tally.dropped} dropped (the agent's turn ended before the onset)"
    return f"+interrupt={tally.kind} delivered no interruption in this call: {why}"


class Conversation(BaseModel):
    scenario_id: str
    domain: str
    trial: int
    seed: int
    turns: list[Turn]
    end_reason: EndReason
    initial_db: dict[str, Any]
    final_db: dict[str, Any]
    expected_db: dict[str, Any]
    final_db_missing: str | None = Field(
        default=None,
        description="why final_db is not the conversation's end state (tools ran on the agent's side and it posted "
        "no final DB back): task completion is then unscored with this reason; None: final_db is the end state",
    )
    # Left out of the record when None, so records of agents that report no tool-call log are unchanged.
    agent_tool_calls: list[ToolCall] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="the tool-call log the agent reported for tools it ran on its own side (evalkit.tool_log); "
        "success_tool_calls checks it with the harness's records; None: no log reported",
    )
    tool_calls_unseen: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="why the harness's tool-call records are not all the agent's calls (its tools ran on its side "
        "and it reported no log): success_tool_calls is then unscored with this reason",
    )
    key_entities: dict[str, str] = Field(default_factory=dict)
    success: dict[str, Any] | None = Field(
        default=None,
        description="the scenario's success criteria (db, tool_calls, transcript, judge), facts already substituted: "
        "the success_* metrics score them from the record alone; None: the scenario declares none",
    )
    error: str | None = None
    validation: SimulationValidation | None = Field(default=None, description="None: validation was off")
    infra_failures: list[str] = Field(
        default_factory=list,
        description="every try of this conversation that failed for infrastructure reasons, why (each was re-run "
        "with the same seeds while retries were left; the last one is this record when end_reason is 'error')",
    )
    infra_retries: int = Field(default=0, ge=0, description="re-runs after an infrastructure failure (same seeds)")
    interruptions: InterruptionTally | None = Field(
        default=None, description="what the +interrupt condition did in this call; None: no interruption condition"
    )
    simulator_seed: int | None = Field(
        default=None,
        description="the seed an LLM simulator sent with every request of this conversation, derived from (cell seed, "
        "scenario, trial, attempt); None: a simulator without one (scripted)",
    )

    @property
    def user_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.role == "user"]

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for t in self.turns for c in t.tool_calls]

    @property
    def effects(self) -> list[AppliedEffect]:
        return [e for t in self.turns for e in t.effects]


class AudioClip(BaseModel):
    """An in-memory mono clip on its way to an artifact file."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    samples: np.ndarray
    sample_rate: int

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate

    def sha256(self) -> str:
        import hashlib

        data = np.ascontiguousarray(self.samples, dtype=np.float32).tobytes()
        return hashlib.sha256(data + self.sample_rate.to_bytes(4, "little")).hexdigest()[:16]


class MetricValue(BaseModel):
    """A metric's verdict on one conversation. ``score=None`` means unscored (infrastructure failure), never 0."""

    name: str
    score: float | None
    passed: bool | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    version: int | None = None  # the metric's version (Metric.version) that scored it; None: scored before versions


class ConversationUsage(BaseModel):
    """What a conversation used (evalkit.usage, evalkit.pricing; docs/cost.md): per (component, base URL, model)
    the requests, tokens, audio seconds and characters metered, each row with its ``cost_usd`` (null and
    ``unpriced`` when the pricing table cannot price it); the call's own audio both ways; the conversation's total
    (null when anything is unpriced: never 0 on a guess). Judgments and validation reruns are included; answers
    served from a cache are not (no request was sent), so a rerun's usage may differ while its conversation is
    the same."""

    providers: list[dict[str, Any]] = Field(default_factory=list)
    audio_s_sent: float = Field(default=0.0, description="the caller's audio the agent was sent (user turns)")
    audio_s_received: float = Field(default=0.0, description="the agent's audio the caller received")
    cost_usd: float | None = None
    unpriced: list[str] = Field(default_factory=list)


class ConversationRecord(BaseModel):
    """What a finished conversation leaves behind: the transcript and its scores (and, since issue 30, what it
    used: ``usage``; None in records written before)."""

    conversation: Conversation
    metrics: dict[str, MetricValue]
    usage: ConversationUsage | None = None


class CellResult(BaseModel):
    cell_key: str
    run_id: str | None
    reused: bool
    aggregates: dict[str, float]
    n_conversations: int
    # why the cell's run ended FAILED ("<run name>: infrastructure: ..."), None when it finished: the command's
    # exit status and closing line count it (evalkit.cli.outcome)
    failure: str | None = None
