"""The scenario record. Field names follow EVA-Bench's runtime variables (App. K, Table 54)."""

from __future__ import annotations

from datetime import date, time
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from evalkit.safe_paths import SAFE_NAME_RULE, is_safe_name


def usable_id(value: str) -> str:
    """A scenario id as given, or ValueError: the id names the cell's record and audio files, and '../../x' would
    write outside the run folder."""
    if not is_safe_name(value):
        raise ValueError(f"id {value[:80]!r} is not usable: ids are {SAFE_NAME_RULE}")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Persona(_Strict):
    id: str = "default"
    name: str
    gender: Literal["female", "male"]
    text: str = Field(description="the {user_persona} prompt slot: speaking style, patience, personality")


class DecisionRule(_Strict):
    """One numbered if/then rule of the user's decision tree (the {negotiation_behavior} slot)."""

    id: int
    text: str


class ScriptedPlan(_Strict):
    """The decision tree in machine-readable form, for the offline scripted simulator.

    An LLM simulator reads the prose rules; the scripted one reads this. Both describe the same behaviour.
    """

    answers: dict[str, str] = Field(
        description="what to say when the agent asks for a field (confirmation_number, last_name, new_date, ...)"
    )
    accept_option: str | None = Field(
        default=None, description="flight number the user accepts when the agent offers it"
    )
    accept_say: str | None = None
    reject_say: str | None = Field(default=None, description="restating the must-haves when rejecting an offer")
    reject_limit: int = Field(
        default=1, ge=0, description="offers rejected with reject_say before giving up (keeping the original flight)"
    )
    max_fee: float | None = Field(default=None, description="decline to confirm when the quoted fee exceeds this")
    push_back_say: str | None = Field(default=None, description="adversarial: said when the agent refuses")
    push_back_times: int = 0
    closing: str = "No, that's all. Thank you, goodbye."
    followups: list[str] = Field(
        default_factory=list,
        description="multi-intent: the request for each further task, said in order when asked 'anything else'",
    )
    request: str | None = Field(
        default=None,
        description="the first task in plain words, said when the agent asks again what the caller needs (an "
        "opening line may name no task)",
    )

    @model_serializer(mode="wrap")
    def _without_unset_request(self, handler: Any) -> Any:
        # Only imported records carry a request: other scenario files stay as they were written.
        data = handler(self)
        if isinstance(data, dict) and data.get("request") is None:
            data.pop("request", None)
        return data


class UserGoal(_Strict):
    high_level_user_goal: str
    must_have_criteria: list[str]
    nice_to_have_criteria: list[str] = Field(default_factory=list)
    starting_utterance: str
    information_required: dict[str, str]
    decision_tree: list[DecisionRule]
    resolution_condition: str
    failure_condition: str
    escalation_behavior: str
    edge_cases: list[str] = Field(default_factory=list)
    scripted: ScriptedPlan

    @field_validator("starting_utterance")
    @classmethod
    def _says_something(cls, value: str) -> str:
        # The caller's first turn: a blank one would open every call with silence the agent must wait out.
        if not value.strip():
            raise ValueError("starting_utterance is empty: the caller's first words are needed")
        return value


class Fact(_Strict):
    """One thing the caller knows (a booking reference, a name, a date): what it is, how it is said aloud, and the
    other names an agent may ask for it by. Written in a file as ``name: value`` or ``name: {value, spoken, aliases}``.
    """

    value: str = Field(description="the value as the back end stores it, e.g. ZK3FFW")
    spoken: str | None = Field(
        default=None, description="how the caller says it aloud, e.g. 'Z K 3 F F W'; None: the value as written"
    )
    aliases: list[str] = Field(
        default_factory=list,
        description="other names an agent may use when asking for it, e.g. 'confirmation code', 'record locator'",
    )

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        # `last_name: Rivera` is the common case: a bare scalar is the value with no spoken form or aliases.
        if isinstance(data, str | int | float) and not isinstance(data, bool):
            return {"value": str(data)}
        return data

    @field_validator("value")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a fact's value is empty")
        return value

    @property
    def said(self) -> str:
        """What the caller says for it."""
        return self.spoken or self.value


SUCCESS_KINDS = ("db", "tool_calls", "transcript", "judge")


class ToolCallRule(_Strict):
    """A tool call matched by name and a subset of its arguments (values compared as text, case-insensitively)."""

    name: str
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="argument subset the call must carry; {} matches any call of the tool"
    )


class ToolCallCriteria(_Strict):
    required: list[ToolCallRule] = Field(default_factory=list, description="each must match at least one call")
    forbidden: list[ToolCallRule] = Field(default_factory=list, description="none may match any call")


class TranscriptCriteria(_Strict):
    """Regular expressions (Python syntax, case-insensitive) over everything the agent said in the call."""

    must_say: list[str] = Field(default_factory=list, description="each must match somewhere in the agent's words")
    must_not_say: list[str] = Field(default_factory=list, description="none may match anywhere")


class Success(_Strict):
    """What counts as success, in up to four kinds; each is scored on its own, and all given must pass overall.

    Strings may quote a fact as ``{facts.<name>}``; it is replaced when the scenario is read (in a regex: either
    its value or its spoken form, escaped)."""

    db: dict[str, Any] | None = Field(
        default=None,
        description="expected end state of the harness's DB, as a subset: every value named must be in the final DB",
    )
    tool_calls: ToolCallCriteria | None = None
    transcript: TranscriptCriteria | None = None
    judge: list[str] | None = Field(
        default=None, description="natural-language criteria a judge decides from the transcript, each pass/fail"
    )

    @model_validator(mode="before")
    @classmethod
    def _known_kinds(cls, data: Any) -> Any:
        # A misspelt kind ('transcipt') would otherwise be a generic "extra inputs" error, or worse, never scored.
        if isinstance(data, dict):
            unknown = [k for k in data if k not in SUCCESS_KINDS]
            if unknown:
                raise ValueError(f"unknown success kind {unknown[0]!r} (kinds: {', '.join(SUCCESS_KINDS)})")
            if not any(data.get(k) not in (None, [], {}) for k in SUCCESS_KINDS):
                raise ValueError(f"no criteria: give at least one of {', '.join(SUCCESS_KINDS)}")
        return data

    def criteria(self) -> dict[str, Any]:
        """The kinds given, as JSON data (a DB's nulls kept: only absent kinds are left out)."""
        data = self.model_dump(mode="json")
        return {k: data[k] for k in self.kinds}

    @property
    def kinds(self) -> list[str]:
        """The kinds this scenario scores, in the fixed order."""
        return [k for k in SUCCESS_KINDS if getattr(self, k) not in (None, [], {})]


class Limits(_Strict):
    """Per-scenario call limits; the run's own limits (simulator.max_user_turns, max_duration_s) still apply."""

    turns: int | None = Field(default=None, ge=1, description="caller turns at most")
    seconds: float | None = Field(default=None, gt=0, description="call duration at most")


class ReferenceCall(_Strict):
    name: str
    arguments: dict[str, Any]
    # The error the call answers with on the reference path (a policy refusal the tools give, e.g. ITSM's MFA
    # reset "in_person_required"); None: it succeeds.
    error_type: str | None = None
    # An imported record's recorded response (EVA-Bench's trace): the identifiers it issued, which later calls quote
    # and a replay maps to the ones its own tools issue. None for a generated scenario.
    response: dict[str, Any] | None = None

    @model_serializer(mode="wrap")
    def _without_default(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Unset optional fields are not written, so existing scenario files stay the same."""
        data = handler(self)
        for key in ("error_type", "response"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class Scenario(_Strict):
    id: str
    domain: str
    workflow: str
    type: Literal["single_intent", "multi_intent", "adversarial"]
    current_date_time: str
    persona: Persona
    user_goal: UserGoal
    key_entities: dict[str, str] = Field(
        description="entities the agent must hear right (an extension: EVA-Bench extracts them with a judge)"
    )
    scenario_db: dict[str, Any]
    reference_calls: list[ReferenceCall] = Field(
        default_factory=list,
        description="the reference resolution path; expected_scenario_db is the result of executing it",
    )
    expected_scenario_db: dict[str, Any]
    expected_flow: str = ""
    source: Literal["generated", "eva_import"] = Field(
        default="generated",
        description="generated: expected DB executed from reference_calls; eva_import: EVA-Bench's ground truth",
    )
    first_speaker: Literal["agent", "caller", "auto"] | None = Field(
        default=None,
        description="who opens the call in this story (agent: its greeting; caller: its first line); applies when "
        "the agent option's first_speaker is auto. None: as the agent option says",
    )
    facts: dict[str, Fact] = Field(
        default_factory=dict,
        description="what the caller knows, name -> fact (value, spoken form, aliases); a scenario file's `facts`",
    )
    title: str | None = Field(default=None, description="a scenario file's one-line title")
    success: Success | None = Field(
        default=None, description="a scenario file's success criteria (scored by the success_* metrics)"
    )
    limits: Limits | None = Field(default=None, description="a scenario file's call limits")

    @model_serializer(mode="wrap")
    def _without_unset_first_speaker(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Unset optional fields (first_speaker, facts, title, success, limits) are not written: existing scenario
        files stay the same."""
        data = handler(self)
        if isinstance(data, dict):
            if data.get("first_speaker") is None:
                data.pop("first_speaker", None)
            for key in ("facts", "title", "success", "limits"):
                if not data.get(key):
                    data.pop(key, None)
        return data

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        return usable_id(value)

    @field_validator("current_date_time")
    @classmethod
    def _is_a_date_time(cls, value: str) -> str:
        # Agents and simulators read the date as value[:10] and the clock as value[11:16]; a value they cannot
        # parse used to pass `scenarios check` and crash in the middle of a cell.
        try:
            date.fromisoformat(value[:10])
            if len(value) > 10:
                if value[10] not in " T":
                    raise ValueError(value)
                time.fromisoformat(value[11:16])
        except ValueError:
            raise ValueError(
                f"current_date_time {value!r} is not a date and time like '2026-06-18 10:50 PDT'"
            ) from None
        return value
