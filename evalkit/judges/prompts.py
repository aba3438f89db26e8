"""Judge prompts with the structure and output schemas of EVA-Bench App. M, in our own words.

Each prompt is a `JudgePrompt`: a version string, a system message (role, rubric, rating scale, answer format), a
user-message template filled from a `Conversation` (+ a `JudgeContext` for what the record does not hold, e.g. the
agent's instructions), the pydantic output schema, and the rule that turns a validated answer into a score. The
texts (version, system, template, shared fragments) live in ``prompts.yaml`` beside this module; the code here
builds the inputs and scores the answers.
Sections mirror the paper (inputs -> disclaimers -> interruption-tag glossary -> dimensions with "is / is not a
flag" -> rating scale -> JSON format); the wording is ours. Bump ``version`` whenever a text or rule changes: the
prompt hash (and so the cache key) changes with it.

Which trace rows the judge sees follows App. E.1 Table 12: for cascade pipelines the user rows are the agent's STT
(what it acted on); for hybrid and S2S they are the user's intended text. Assistant rows are the intended text,
except for S2S where only a transcript of the agent's audio exists.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from evalkit.judges.cache import canonical_json
from evalkit.judges.client import InvalidOutput
from evalkit.judges.interruptions import interruption_blocks, recovery_rows
from evalkit.judges.schemas import (
    CONCISENESS_FAILURE_MODES,
    BehavioralFidelityOutput,
    ConcisenessOutput,
    FaithfulnessOutput,
    ProgressionOutput,
    RecoveryQualityOutput,
    SpeakabilityOutput,
    SpeechFidelityOutput,
    SuccessJudgeOutput,
    TranscriptionOutput,
    UserSpeechFidelityOutput,
)
from evalkit.records import Conversation, Turn, no_interruption_reason

Architecture = Literal["cascade", "hybrid", "s2s"]


class JudgeContext(BaseModel):
    """What a judge needs beyond the conversation record: the agent's configuration and pipeline type.

    The metric layer fills it from the domain (instructions, tool schemas) and the agent config (architecture).
    ``assistant_transcripts`` holds an ASR transcript of the agent's audio per assistant turn index (S2S trace rows
    and the transcript-based speech-fidelity judge use it).
    """

    model_config = ConfigDict(extra="forbid")

    architecture: Architecture = "cascade"
    agent_role: str | None = None
    agent_instructions: str | None = None
    available_tools: list[dict[str, Any]] | None = None
    current_date_time: str | None = None
    user_simulator_instructions: str | None = None
    modification_tools: list[str] | None = None
    assistant_transcripts: dict[int, str] = Field(default_factory=dict)
    # An ASR transcript of the caller's clean synthesized audio per user turn index (the user speech fidelity gate)
    user_transcripts: dict[int, str] = Field(default_factory=dict)


class NotApplicable(Exception):
    """The conversation lacks what this judge needs (e.g. no assistant turn has an audio transcript)."""


# --- Texts (prompts.yaml beside this module) --------------------------------------------------------------------

TEXTS_FILE = Path(__file__).with_name("prompts.yaml")


def _load_texts(path: Path = TEXTS_FILE) -> dict[str, Any]:
    """The prompt texts live in a data file so that the wording can be read and reviewed apart from the code."""
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


_TEXTS = _load_texts()

# Shared fragments (App. M.1), filled into several prompts by the input builders.
INTERRUPTION_TAGS: str = _TEXTS["fragments"]["interruption_tags"]
USER_DISCLAIMER: dict[str, str] = _TEXTS["fragments"]["user_disclaimer"]
ASSISTANT_DISCLAIMER: dict[str, str] = _TEXTS["fragments"]["assistant_disclaimer"]
DISAMBIGUATION_CONTEXT: dict[str, str] = _TEXTS["fragments"]["disambiguation_context"]
S2S_TOKEN_NOTE: str = _TEXTS["fragments"]["s2s_token_note"]
END_REASONS: dict[str, str] = _TEXTS["end_reasons"]


def _audio_input(architecture: Architecture) -> bool:
    return architecture in ("hybrid", "s2s")


# --- Rendering a Conversation ----------------------------------------------------------------------------------


def _tool_rows(turn: Turn) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for call in turn.tool_calls:
        rows.append(("tool_call", f"{call.name} {canonical_json(call.arguments)}"))
        rows.append(("tool_response", f"{call.name} {canonical_json(call.result)}"))
    return rows


def user_text_for_judge(turn: Turn, architecture: Architecture) -> str:
    """Cascade: what the agent's STT produced; audio-native: what the user meant to say (Table 12)."""
    if _audio_input(architecture):
        return turn.intended_text
    if turn.heard_text is None:
        return f"{turn.intended_text} [not heard by the assistant]"
    return turn.heard_text


def assistant_text_for_judge(turn: Turn, context: JudgeContext) -> str:
    if context.architecture == "s2s":
        return context.assistant_transcripts.get(turn.index) or turn.heard_text or turn.intended_text
    return turn.intended_text


def _turn_rows(
    turn: Turn, context: JudgeContext, *, user_view: Literal["pipeline", "intended"]
) -> list[tuple[str, str]]:
    """Rows of one turn in time order: the agent calls its tools before it speaks."""
    if turn.role == "user":
        text = turn.intended_text if user_view == "intended" else user_text_for_judge(turn, context.architecture)
        return [("user", text)]
    rows = _tool_rows(turn)
    text = assistant_text_for_judge(turn, context)
    if text:
        rows.append(("assistant", text))
    return rows


def conversation_trace(
    conversation: Conversation, context: JudgeContext, *, user_view: Literal["pipeline", "intended"] = "pipeline"
) -> str:
    """Linear trace, one row per utterance or tool event, each prefixed with its turn id."""
    return "\n".join(
        f"[turn {turn.index}] {kind}: {text}"
        for turn in conversation.turns
        for kind, text in _turn_rows(turn, context, user_view=user_view)
    )


def conversation_turns(conversation: Conversation, context: JudgeContext) -> str:
    """Trace grouped by turn id (the Conciseness layout): all assistant entries of a turn are rated together."""
    blocks = []
    for turn in conversation.turns:
        rows = _turn_rows(turn, context, user_view="pipeline")
        blocks.append(f"turn_id {turn.index}:\n" + "\n".join(f"  {kind}: {text}" for kind, text in rows))
    return "\n".join(blocks)


def _assistant_turns(conversation: Conversation) -> list[Turn]:
    return [t for t in conversation.turns if t.role == "assistant" and t.intended_text.strip()]


# --- The prompt object -----------------------------------------------------------------------------------------

ScoreFn = Callable[[Any, dict[str, Any]], tuple[float | None, dict[str, Any]]]
InputsFn = Callable[[Conversation, JudgeContext], dict[str, Any]]

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


@dataclass(frozen=True)
class JudgePrompt:
    metric: str
    version: str
    paper_section: str
    system: str
    template: str
    output_model: type[BaseModel]
    build_inputs: InputsFn
    score: ScoreFn
    required_context: tuple[str, ...] = ()

    @property
    def prompt_hash(self) -> str:
        """sha256 over everything that shapes the judge's answer: name, version, texts and output schema."""
        material = {
            "metric": self.metric,
            "version": self.version,
            "system": self.system,
            "template": self.template,
            "schema": self.output_model.model_json_schema(),
        }
        return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()

    def missing_context(self, context: JudgeContext) -> list[str]:
        return [name for name in self.required_context if getattr(context, name) in (None, "", [], {})]

    def render(self, inputs: dict[str, Any]) -> list[dict[str, Any]]:
        """Both messages are `string.Template`s: pipeline-specific notes go into the rubric, record data below it."""
        text_inputs = {k: v for k, v in inputs.items() if isinstance(v, str)}
        return [
            {"role": "system", "content": Template(self.system).substitute(text_inputs)},
            {"role": "user", "content": Template(self.template).substitute(text_inputs)},
        ]

    def parse(self, text: str, inputs: dict[str, Any]) -> tuple[BaseModel, float | None, dict[str, Any]]:
        """Text -> validated output -> (output, score, details). Any mismatch raises InvalidOutput with the reason."""
        match = _FENCE.match(text)  # some servers wrap JSON in a code fence even in JSON mode
        body = match.group(1) if match else text
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise InvalidOutput(f"answer is not JSON ({exc.msg} at char {exc.pos}): {text[:120]!r}") from exc
        try:
            output = self.output_model.model_validate(data)
        except ValueError as exc:
            raise InvalidOutput(f"answer does not match the {self.metric} schema: {_short(exc)}") from exc
        score, details = self.score(output, inputs)
        return output, score, details


def _short(exc: Exception, limit: int = 400) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _by_turn(turns: list[Any], expected: list[int], allowed: list[int] | None = None) -> dict[int, Any]:
    """Index per-turn answers by turn id; every expected turn must be answered once, unknown ids are rejected."""
    allowed_set = set(allowed if allowed is not None else expected)
    seen: dict[int, Any] = {}
    for entry in turns:
        if entry.turn_id in seen:
            raise InvalidOutput(f"turn_id {entry.turn_id} answered twice")
        if entry.turn_id not in allowed_set:
            raise InvalidOutput(f"turn_id {entry.turn_id} is not a turn of this conversation to rate")
        seen[entry.turn_id] = entry
    missing = [t for t in expected if t not in seen]
    if missing:
        raise InvalidOutput(f"no rating for turn_id(s) {missing}")
    return seen


def _dimension_details(dimensions: BaseModel) -> dict[str, dict[str, Any]]:
    return {name: verdict.model_dump() for name, verdict in dimensions}


# --- Faithfulness (App. E.4.2 / M.2) ---------------------------------------------------------------------------


def faithfulness_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    audio = _audio_input(context.architecture)
    return {
        "agent_role": context.agent_role or "customer-service voice assistant",
        "agent_instructions": context.agent_instructions or "",
        "available_tools": canonical_json(context.available_tools or []),
        "current_date_time": context.current_date_time or "not provided",
        "user_turns_disclaimer": USER_DISCLAIMER["audio" if audio else "cascade"],
        "assistant_turns_disclaimer": ASSISTANT_DISCLAIMER["s2s" if context.architecture == "s2s" else "text"],
        "misrepresentation_note": S2S_TOKEN_NOTE if context.architecture == "s2s" else "",
        "disambiguation_context": DISAMBIGUATION_CONTEXT["audio" if audio else "cascade"],
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_trace": conversation_trace(conversation, context),
    }


def faithfulness_score(output: FaithfulnessOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Overall = min over dimensions (recomputed; the judge's own overall is kept for audit); score = (r-1)/2."""
    rating = min(verdict.rating for _, verdict in output.dimensions)
    return (rating - 1) / 2, {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "dimensions": _dimension_details(output.dimensions),
    }


# --- Conversation progression (App. E.5.1 / M.4) ---------------------------------------------------------------


def progression_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    audio = _audio_input(context.architecture)
    return {
        "user_turns_disclaimer": USER_DISCLAIMER["audio" if audio else "cascade"],
        "assistant_turns_disclaimer": ASSISTANT_DISCLAIMER["s2s" if context.architecture == "s2s" else "text"],
        "information_loss_note": S2S_TOKEN_NOTE if context.architecture == "s2s" else "",
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_trace": conversation_trace(conversation, context),
    }


def progression_rating(output: ProgressionOutput) -> int:
    """M.4's overall rule: any 1 or >= 3 flagged dimensions -> 1; some flagged (all at 2) -> 2; none -> 3."""
    verdicts = [verdict for _, verdict in output.dimensions]
    flagged = [v for v in verdicts if v.flagged or v.rating < 3]
    if any(v.rating == 1 for v in verdicts) or len(flagged) >= 3:
        return 1
    return 2 if flagged else 3


def progression_score(output: ProgressionOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    rating = progression_rating(output)
    return (rating - 1) / 2, {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "dimensions": _dimension_details(output.dimensions),
    }


# --- Conciseness (App. E.5.2 / M.5) ----------------------------------------------------------------------------


def conciseness_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    rated = [t.index for t in _assistant_turns(conversation)]
    if not rated:
        raise NotApplicable("the conversation has no assistant speech to rate")
    return {
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_turns": conversation_turns(conversation, context),
        "rated_turn_ids": rated,
        "all_turn_ids": [t.index for t in conversation.turns],
    }


def conciseness_score(output: ConcisenessOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Mean over assistant turns of (r-1)/2, plus the per-failure-mode rates the paper reports as sub-metrics."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"], inputs["all_turn_ids"])
    rated = [by_turn[t] for t in inputs["rated_turn_ids"]]
    unrated = [entry.turn_id for entry in rated if entry.rating is None]
    if unrated:
        raise InvalidOutput(f"assistant turn_id(s) {unrated} rated null")
    n = len(rated)
    rates = {mode: sum(mode in e.failure_modes for e in rated) / n for mode in CONCISENESS_FAILURE_MODES}
    per_turn = {e.turn_id: e.model_dump(exclude={"turn_id"}) for e in rated}
    score = sum((e.rating - 1) / 2 for e in rated) / n  # type: ignore[operator]
    return score, {"turns": per_turn, "failure_mode_rates": rates, "n_turns": n}


# --- Agent speech fidelity (App. E.4.3 / M.3), transcript variant -------------------------------------------------


def speech_fidelity_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    blocks, ids = [], []
    for turn in _assistant_turns(conversation):
        heard = context.assistant_transcripts.get(turn.index, turn.heard_text)
        if heard is None:
            continue
        ids.append(turn.index)
        blocks.append(f"turn_id {turn.index}:\n  intended: {turn.intended_text}\n  audio transcript: {heard}")
    if not ids:
        raise NotApplicable(
            "no assistant turn has a transcript of the agent's audio (set JudgeContext.assistant_transcripts)"
        )
    return {"interruption_tags": INTERRUPTION_TAGS, "intended_turns": "\n".join(blocks), "rated_turn_ids": ids}


def binary_turn_score(output: Any, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Mean of the per-turn 0/1 ratings over the turns we asked about."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"])
    per_turn = {t: by_turn[t].model_dump(exclude={"turn_id"}) for t in inputs["rated_turn_ids"]}
    ratings = [by_turn[t].rating for t in inputs["rated_turn_ids"]]
    return sum(ratings) / len(ratings), {"turns": per_turn, "n_turns": len(ratings)}


# --- Speakability (App. E.6 / M.8) -------------------------------------------------------------------------------


def speakability_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    turns = _assistant_turns(conversation)
    if not turns:
        raise NotApplicable("the conversation has no assistant text to check")
    return {
        "assistant_turns": "\n".join(f"turn_id {t.index}: {t.intended_text}" for t in turns),
        "rated_turn_ids": [t.index for t in turns],
    }


# --- Transcription accuracy of key entities (App. E.6 / M.9) -----------------------------------------------------


def transcription_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    turns = [t for t in conversation.user_turns if t.heard_text is not None]
    if not turns:
        raise NotApplicable("no user turn was heard by the agent")
    known = "\n".join(f"- {k}: {v}" for k, v in sorted(conversation.key_entities.items())) or "(none listed)"
    return {
        "interruption_tags": INTERRUPTION_TAGS,
        "known_entities": known,
        "user_turns": "\n".join(
            f"turn_id {t.index}:\n  expected: {t.intended_text}\n  transcribed: {t.heard_text}" for t in turns
        ),
        "rated_turn_ids": [t.index for t in turns],
    }


def transcription_score(output: TranscriptionOutput, inputs: dict[str, Any]) -> tuple[float | None, dict[str, Any]]:
    """Correct / non-skipped entities over the conversation; None (not 0) when there was nothing to check."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"])
    checked = [e for t in inputs["rated_turn_ids"] for e in by_turn[t].entities if not e.skipped]
    details = {
        "turns": {t: [e.model_dump() for e in by_turn[t].entities] for t in inputs["rated_turn_ids"]},
        "n_entities": len(checked),
        "n_skipped": sum(e.skipped for t in inputs["rated_turn_ids"] for e in by_turn[t].entities),
    }
    if not checked:
        return None, {**details, "reason": "no key entity to check"}
    return sum(e.correct for e in checked) / len(checked), details


# --- User behavioural fidelity (App. D.1 / M.7): a simulator-validation gate ---------------------------------------


def behavioral_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    return {
        "conversation_evidence": conversation_trace(conversation, context, user_view="intended"),
        "conversation_end": END_REASONS.get(conversation.end_reason, conversation.end_reason),
        "user_simulator_instructions": context.user_simulator_instructions or "",
        "modification_tools": ", ".join(context.modification_tools or []),
    }


def behavioral_score(output: BehavioralFidelityOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """1 unless a corruption type was detected (recomputed from the analysis; the stated rating is kept)."""
    detected = [name for name, check in output.corruption_analysis if check.detected]
    rating = 0 if detected else 1
    return float(rating), {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "detected": detected,
        "corruption_analysis": {n: c.model_dump() for n, c in output.corruption_analysis},
    }


# --- User speech fidelity (App. D.1.3 / M.6), transcript variant: a simulator-validation gate -----------------------


def user_speech_fidelity_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    """The caller's turns with a transcript of their clean TTS audio: the gate asks whether the caller's voice said
    what it meant, not what the (perturbed) channel let the agent hear."""
    blocks, ids = [], []
    for turn in conversation.user_turns:
        heard = context.user_transcripts.get(turn.index)
        if heard is None:
            continue
        ids.append(turn.index)
        blocks.append(f"turn_id {turn.index}:\n  intended: {turn.intended_text}\n  audio transcript: {heard}")
    if not ids:
        raise NotApplicable("no user turn has a transcript of the caller's audio (set JudgeContext.user_transcripts)")
    return {"interruption_tags": INTERRUPTION_TAGS, "intended_turns": "\n".join(blocks), "rated_turn_ids": ids}


def user_speech_fidelity_score(
    output: UserSpeechFidelityOutput, inputs: dict[str, Any]
) -> tuple[float, dict[str, Any]]:
    """Mean of (r - 1) / 2 over the turns (Table 9: 1-3 -> [0, 1]); ``low_turns``: the turns rated 1 (rerun)."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"])
    ratings = {t: by_turn[t].rating for t in inputs["rated_turn_ids"]}
    return sum((r - 1) / 2 for r in ratings.values()) / len(ratings), {
        "turns": {t: by_turn[t].model_dump(exclude={"turn_id"}) for t in ratings},
        "low_turns": [t for t, r in ratings.items() if r == 1],
        "n_turns": len(ratings),
    }


def recovery_quality_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    blocks, kinds = interruption_blocks(conversation)
    if not blocks:
        raise NotApplicable(no_interruption_reason(conversation.interruptions))
    return {"interruptions": "\n\n".join(blocks), "kinds": kinds}


def recovery_quality_score(output: RecoveryQualityOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """IHBench RQ: PASS iff every criterion of the type is met (enforced here, not taken from the judge); the score
    is the share of interruptions that pass."""
    try:
        rows = recovery_rows(inputs["kinds"], {e.interruption_id: e.criteria for e in output.interruptions})
    except ValueError as exc:
        raise InvalidOutput(str(exc)) from None
    return sum(r["pass"] for r in rows.values()) / len(rows), {"interruptions": rows}


def success_judge_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    """A scenario file's judged criteria (carried by the record, facts substituted) and the call's trace."""
    criteria = (conversation.success or {}).get("judge") or []
    if not criteria:
        raise NotApplicable("the scenario declares no judged success criteria")
    key = "audio" if _audio_input(context.architecture) else "cascade"
    return {
        "criteria": "\n".join(f"{i}. {text}" for i, text in enumerate(criteria, start=1)),
        "criteria_list": list(criteria),
        "trace": conversation_trace(conversation, context),
        "user_disclaimer": USER_DISCLAIMER[key],
    }


def success_judge_score(output: SuccessJudgeOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """One verdict per criterion, each with its reason; the score is the share passed (all must pass)."""
    wanted = list(range(1, len(inputs["criteria_list"]) + 1))
    by_id: dict[int, Any] = {}
    for verdict in output.criteria:
        if verdict.criterion_id in by_id or verdict.criterion_id not in wanted:
            raise InvalidOutput(f"criterion_id {verdict.criterion_id} is answered twice or is not one listed")
        by_id[verdict.criterion_id] = verdict
    missing = [i for i in wanted if i not in by_id]
    if missing:
        raise InvalidOutput(f"no verdict for criterion_id(s) {missing}")
    rows = [
        {"criterion": text, "passed": by_id[i].passed, "reason": by_id[i].reason}
        for i, text in zip(wanted, inputs["criteria_list"], strict=True)
    ]
    return sum(r["passed"] for r in rows) / len(rows), {"criteria": rows}


# --- Registry ----------------------------------------------------------------------------------------------------


def _prompt(
    metric: str,
    output_model: type[BaseModel],
    build_inputs: InputsFn,
    score: ScoreFn,
    required_context: tuple[str, ...] = (),
) -> JudgePrompt:
    """Join the texts of prompts.yaml (version, paper section, system, template) with the code of one metric."""
    text = _TEXTS["prompts"][metric]
    return JudgePrompt(
        metric,
        text["version"],
        text["paper_section"],
        text["system"],
        text["template"],
        output_model,
        build_inputs,
        score,
        required_context=required_context,
    )


PROMPTS: dict[str, JudgePrompt] = {
    p.metric: p
    for p in (
        _prompt(
            "faithfulness",
            FaithfulnessOutput,
            faithfulness_inputs,
            faithfulness_score,
            required_context=("agent_instructions", "available_tools"),
        ),
        _prompt("agent_speech_fidelity", SpeechFidelityOutput, speech_fidelity_inputs, binary_turn_score),
        _prompt("conversation_progression", ProgressionOutput, progression_inputs, progression_score),
        _prompt("conciseness", ConcisenessOutput, conciseness_inputs, conciseness_score),
        _prompt("speakability", SpeakabilityOutput, speakability_inputs, binary_turn_score),
        _prompt("transcription_accuracy_key_entities", TranscriptionOutput, transcription_inputs, transcription_score),
        _prompt(
            "user_behavioral_fidelity",
            BehavioralFidelityOutput,
            behavioral_inputs,
            behavioral_score,
            required_context=("user_simulator_instructions", "modification_tools"),
        ),
        _prompt(
            "user_speech_fidelity", UserSpeechFidelityOutput, user_speech_fidelity_inputs, user_speech_fidelity_score
        ),
        _prompt(
            "interruption_recovery_quality", RecoveryQualityOutput, recovery_quality_inputs, recovery_quality_score
        ),
        _prompt("success_judge", SuccessJudgeOutput, success_judge_inputs, success_judge_score),
    )
}
