"""Output schemas of the judge prompts (EVA-Bench App. M), as pydantic models: every judge answer is validated.

Two deliberate departures from App. M, both forced by JSON mode (`response_format: json_object` only admits a
top-level object): the per-turn lists of Conciseness (M.5) and Speakability (M.8) and the Transcription Accuracy
list (M.9) are wrapped as ``{"turns": [...]}``. Field names and value ranges are otherwise the paper's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

Rating3 = Literal[1, 2, 3]
Binary = Literal[0, 1]


class DimensionVerdict(BaseModel):
    evidence: str
    flagged: bool
    rating: Rating3


class FaithfulnessDimensions(BaseModel):
    fabricating_tool_parameters: DimensionVerdict
    misrepresenting_tool_result: DimensionVerdict
    violating_policies: DimensionVerdict
    failing_to_disambiguate: DimensionVerdict
    hallucination: DimensionVerdict


class FaithfulnessOutput(BaseModel):
    """M.2: five disjoint dimensions rated 1-3; the overall rating is their minimum."""

    dimensions: FaithfulnessDimensions
    rating: Rating3


class ProgressionDimensions(BaseModel):
    unnecessary_tool_calls: DimensionVerdict
    information_loss: DimensionVerdict
    redundant_statements: DimensionVerdict
    question_quality: DimensionVerdict


class ProgressionOutput(BaseModel):
    """M.4: four dimensions rated 1-3; overall by the severity-and-count rule."""

    dimensions: ProgressionDimensions
    rating: Rating3


class SpeechFidelityTurn(BaseModel):
    turn_id: int
    transcript: str = ""
    explanation: str
    rating: Binary


class SpeechFidelityOutput(BaseModel):
    """M.3: one binary rating per assistant turn."""

    turns: list[SpeechFidelityTurn]


class UserSpeechFidelityTurn(BaseModel):
    turn_id: int
    transcript: str = ""
    explanation: str
    rating: Rating3


class UserSpeechFidelityOutput(BaseModel):
    """M.6 (App. D.1.3): a 1-3 rating per user turn; a turn rated 1 makes the conversation rerun."""

    turns: list[UserSpeechFidelityTurn]


ConcisenessFailureMode = Literal[
    "verbosity_or_filler",
    "excess_information_density",
    "over_enumeration_or_list_exhaustion",
    "contextually_disproportionate_detail",
]
CONCISENESS_FAILURE_MODES: tuple[str, ...] = ConcisenessFailureMode.__args__  # type: ignore[attr-defined]


class ConcisenessTurn(BaseModel):
    turn_id: int
    explanation: str = ""
    failure_modes: list[ConcisenessFailureMode] = Field(default_factory=list)
    rating: Rating3 | None

    @model_validator(mode="after")
    def _modes_only_when_penalised(self) -> ConcisenessTurn:
        if self.rating in (3, None) and self.failure_modes:
            raise ValueError(f"turn {self.turn_id}: failure_modes must be empty when rating is {self.rating}")
        return self


class ConcisenessOutput(BaseModel):
    """M.5: per turn 1-3 (null for turns without assistant speech) with the failure modes that applied."""

    turns: list[ConcisenessTurn]


class SpeakabilityTurn(BaseModel):
    turn_id: int
    explanation: str
    rating: Binary


class SpeakabilityOutput(BaseModel):
    """M.8: per assistant turn, 0 when any unspeakable formatting is present."""

    turns: list[SpeakabilityTurn]


class EntityCheck(BaseModel):
    type: str
    value: str
    transcribed_value: str | None = None
    analysis: str = ""
    correct: bool
    skipped: bool = False


class TranscriptionTurn(BaseModel):
    turn_id: int
    entities: list[EntityCheck]
    summary: str = ""


class TranscriptionOutput(BaseModel):
    """M.9: per user turn, the key entities of the intended text and whether the transcript kept each one."""

    turns: list[TranscriptionTurn]


class CorruptionCheck(BaseModel):
    analysis: str
    detected: bool


class CorruptionAnalysis(BaseModel):
    extra_modifications: CorruptionCheck
    premature_ending: CorruptionCheck
    missing_information: CorruptionCheck
    duplicate_modifications: CorruptionCheck
    decision_tree_violation: CorruptionCheck


class BehavioralFidelityOutput(BaseModel):
    """M.7: did the simulated user corrupt the evaluation? 1 = clean, 0 = corrupted."""

    corruption_analysis: CorruptionAnalysis
    rating: Binary


class RecoveryQualityEntry(BaseModel):
    interruption_id: int
    criteria: dict[str, bool]
    explanation: str = ""


class RecoveryQualityOutput(BaseModel):
    """IHBench Recovery Quality: each type-specific criterion met or not, per interruption."""

    interruptions: list[RecoveryQualityEntry]


class SuccessCriterionVerdict(BaseModel):
    criterion_id: int
    reason: str
    passed: bool


class SuccessJudgeOutput(BaseModel):
    """A scenario file's judged success criteria: each one passed or not, with the reason."""

    criteria: list[SuccessCriterionVerdict]
