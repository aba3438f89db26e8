"""Scenario files for anyone's agent: one YAML file per scenario (``*.yaml``/``*.yml``) or many in a JSONL file.

The file says what a team knows about its use case — the caller's goal in prose, the facts the caller knows, its
persona and opening line, the call's limits and what counts as success — and nothing of evalkit's internals.
:func:`to_scenario` turns it into the runtime :class:`~evalkit.scenarios.schema.Scenario` every cell runs (EVA-Bench's
field names); :func:`from_scenario` writes an existing scenario (evalkit's own, an EVA-Bench import) as such a file.

Facts are quoted in success criteria as ``{facts.<name>}``. They are substituted when the file is read: in a
transcript regex by either the value or its spoken form (escaped; spelled out or not, ``form_pattern``), elsewhere
by the value. A quoted fact that is not
defined, a regex that does not compile (after substitution), an empty goal and an unknown success kind are problems
:func:`file_problems` lists, one line each, naming the file and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from evalkit.safe_paths import SAFE_NAME_RULE
from evalkit.scenarios.schema import (
    DecisionRule,
    Fact,
    Limits,
    Persona,
    Scenario,
    ScriptedPlan,
    Success,
    UserGoal,
    _Strict,
    usable_id,
)

FILE_SUFFIXES = (".yaml", ".yml", ".jsonl")
CUSTOM_DOMAIN = "custom"
DEFAULT_DATE_TIME = "2026-01-05 10:00"
EXAMPLE_DIR = Path(__file__).with_name("example")  # the commented example `new` writes (the custom domain's folder)
FACT_REF = re.compile(r"\{facts\.([A-Za-z0-9_]+)\}")


class FilePersona(_Strict):
    name: str = "Alex Morgan"
    gender: Literal["female", "male"] = Field(default="female", description="picks the caller voice's speaker")
    text: str = Field(default="You are polite and brief.", description="speaking style, patience, personality")


class ScenarioFile(_Strict):
    """One scenario as a team writes it (docs/scenarios.md, "Your own scenarios"; JSON Schema:
    docs/scenario.schema.json)."""

    id: str = Field(description=f"unique in its folder; {SAFE_NAME_RULE}")
    title: str = Field(default="", description="one line for reports")
    domain: str = Field(
        default=CUSTOM_DOMAIN,
        description="whose tools and DB the harness runs: 'custom' (none; the agent brings its own) or a registered "
        "domain (airline, medical_hr, itsm), whose tools the agent then calls through the harness",
    )
    first_speaker: Literal["agent", "caller", "auto"] | None = Field(
        default=None, description="who opens the call (applies when the agent option's first_speaker is auto)"
    )
    persona: FilePersona | str = Field(
        default_factory=FilePersona, description="the caller: {name, gender, text}, or just the text"
    )
    goal: str = Field(description="the caller's instructions in prose: what it wants and how it decides")
    facts: dict[str, Fact] = Field(
        default_factory=dict, description="what the caller knows: name -> value, or {value, spoken, aliases}"
    )
    opening: str = Field(description="the caller's first line")
    limits: Limits = Field(default_factory=Limits)
    current_date_time: str = Field(default=DEFAULT_DATE_TIME, description="the call's 'today', e.g. 2026-06-18 10:50")
    db: dict[str, Any] = Field(default_factory=dict, description="the harness DB the domain's tools start from")
    success: Success
    # For a registered domain's own workflows (a converted evalkit scenario): the scripted caller's script.
    workflow: str = Field(default="custom", description="a registered domain's workflow the scripted caller plays")
    scripted: ScriptedPlan | None = Field(
        default=None, description="the scripted caller's plan for a built-in workflow (answers default to the facts)"
    )

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        return usable_id(value)

    @field_validator("goal", "opening")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        # An empty goal gives the caller nothing to pursue (and a judge nothing to hold the agent to).
        if not value.strip():
            raise ValueError("is empty")
        return value


# -- facts in criteria ------------------------------------------------------------------------------------------


def fact_references(success: Success) -> list[tuple[str, str]]:
    """(field path, fact name) of every ``{facts.<name>}`` in the criteria."""
    return [(where, name) for where, text in _criteria_strings(success) for name in FACT_REF.findall(text)]


def _criteria_strings(success: Success) -> Iterator[tuple[str, str]]:
    def walk(node: Any, where: str) -> Iterator[tuple[str, str]]:
        if isinstance(node, str):
            yield where, node
        elif isinstance(node, dict):
            for key, item in node.items():
                yield from walk(item, f"{where}.{key}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                yield from walk(item, f"{where}[{i}]")

    yield from walk(success.criteria(), "success")


def _substitute(node: Any, replace: Callable[[str], str]) -> Any:
    if isinstance(node, str):
        return replace(node)
    if isinstance(node, dict):
        return {key: _substitute(item, replace) for key, item in node.items()}
    if isinstance(node, list):
        return [_substitute(item, replace) for item in node]
    return node


SEPARATORS = r"[\s.,-]"


def form_pattern(form: str) -> str:
    """A fact's value or spoken form as a regex that also matches it spelled out: a one-word form (a code, a name)
    with any separators between its characters ("WK2EXB" also matches "W K 2 E X B", "W-K-2-E-X-B"), a longer one with
    any separators between its words."""
    words = form.split()
    if len(words) == 1:  # its own separators are optional too: "12-34" is also said "1 2 3 4"
        return (SEPARATORS + "*").join(re.escape(c) for c in form if not re.fullmatch(SEPARATORS, c))
    return (SEPARATORS + "+").join(re.escape(w) for w in words)


def resolve_facts(success: Success, facts: dict[str, Fact]) -> Success:
    """The criteria with every defined ``{facts.<name>}`` replaced (undefined ones are left for the checks to name)."""

    def plain(text: str) -> str:
        return FACT_REF.sub(lambda m: facts[m[1]].value if m[1] in facts else m[0], text)

    def pattern(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            fact = facts.get(m[1])
            if fact is None:
                return m[0]
            forms = dict.fromkeys([fact.value, *([fact.spoken] if fact.spoken else [])])
            return "(?:" + "|".join(form_pattern(f) for f in forms) + ")"

        return FACT_REF.sub(one, text)

    data = success.criteria()
    if "transcript" in data:
        data["transcript"] = _substitute(data["transcript"], pattern)
    for kind in ("db", "tool_calls", "judge"):
        if kind in data:
            data[kind] = _substitute(data[kind], plain)
    return Success.model_validate(data)


def criteria_problems(success: Success, facts: dict[str, Fact]) -> list[tuple[str, str]]:
    """(field, problem) of criteria that cannot be scored: an undefined fact, a regex that does not compile."""
    problems = [
        (where, f"fact {name!r} is not defined (facts: {', '.join(facts) or 'none'})")
        for where, name in fact_references(success)
        if name not in facts
    ]
    if success.transcript is not None:
        resolved = resolve_facts(success, facts).transcript
        assert resolved is not None
        for kind in ("must_say", "must_not_say"):
            for i, text in enumerate(getattr(resolved, kind)):
                try:
                    re.compile(text, re.IGNORECASE)
                except re.error as exc:
                    problems.append((f"success.transcript.{kind}[{i}]", f"regex does not compile: {exc}"))
    return problems


# -- reading ----------------------------------------------------------------------------------------------------


class FileError(ValueError):
    """One problem of a scenario file, already worded ``<file>: <field>: <reason>``."""


def _location(loc: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "<root>"


def validation_lines(where: str, exc: ValidationError) -> list[str]:
    """One line per schema error: ``<where>: <field>: <reason>``."""
    lines = []
    for error in exc.errors():
        loc = tuple(p for p in error["loc"] if p not in ("str", "FilePersona", "function-after[_shorthand(), Fact]"))
        message = str(error["msg"]).removeprefix("Value error, ").replace("\n", " ")
        lines.append(f"{where}: {_location(loc)}: {message}")
    return lines


def raw_entries(path: Path) -> list[tuple[str, Any]]:
    """(where, parsed data) of each scenario in a file: one for YAML, one per non-blank line for JSONL."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from None
    if path.suffix == ".jsonl":
        entries = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append((f"{path}:{n}", json.loads(line)))
            except (ValueError, RecursionError) as exc:
                raise FileError(f"{path}:{n}: not a JSON object: {str(exc).splitlines()[0]}") from None
        return entries
    try:
        return [(str(path), yaml.safe_load(text))]
    except (yaml.YAMLError, RecursionError) as exc:
        raise FileError(f"{path}: cannot read YAML: {' '.join(str(exc).split())[:200]}") from None


def parse_entry(where: str, data: Any) -> tuple[ScenarioFile | None, list[str]]:
    """The scenario file and the problems found (lines naming ``where`` and the field); None when it does not parse."""
    if not isinstance(data, dict):
        return None, [f"{where}: <root>: a scenario is a mapping of fields, got {type(data).__name__}"]
    try:
        parsed = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        return None, validation_lines(where, exc)
    return parsed, [
        f"{where}: {field}: {problem}" for field, problem in criteria_problems(parsed.success, parsed.facts)
    ]


def read_file(path: Path) -> list[ScenarioFile]:
    """Every scenario of a file; the first problem raises :class:`FileError` (all of them: ``file_problems``)."""
    out = []
    for where, data in raw_entries(path):
        parsed, problems = parse_entry(where, data)
        if problems:
            raise FileError(problems[0])
        assert parsed is not None
        out.append(parsed)
    return out


def file_problems(path: Path) -> list[str]:
    """Every problem of a scenario file, one line each naming the file and the field."""
    try:
        entries = raw_entries(path)
    except FileError as exc:
        return [str(exc)]
    return [line for where, data in entries for line in parse_entry(where, data)[1]]


# -- conversion -------------------------------------------------------------------------------------------------


def _merged(base: Any, change: Any) -> Any:
    """``change`` laid over ``base`` (dicts merge key by key; anything else is replaced)."""
    if isinstance(base, dict) and isinstance(change, dict):
        return {**base, **{k: _merged(base.get(k), v) for k, v in change.items()}}
    return change


def to_scenario(file: ScenarioFile) -> Scenario:
    """The runtime scenario: the goal becomes EVA-Bench's user goal (the LLM caller's prompt slots), the facts its
    ``information_required`` and the scripted caller's answers (their spoken forms), the criteria resolved."""
    persona = file.persona if isinstance(file.persona, FilePersona) else FilePersona(text=file.persona)
    success = resolve_facts(file.success, file.facts)
    answers = {name: fact.said for name, fact in file.facts.items()}
    scripted = (file.scripted or ScriptedPlan(answers={})).model_copy(
        update={"answers": {**answers, **(file.scripted.answers if file.scripted else {})}}
    )
    goal = UserGoal(
        high_level_user_goal=file.goal,
        must_have_criteria=list(success.judge or []),
        starting_utterance=file.opening,
        information_required={name: fact.value for name, fact in file.facts.items()},
        decision_tree=[DecisionRule(id=1, text=file.goal)],
        resolution_condition="The goal is met.",
        failure_condition="The agent cannot meet the goal.",
        escalation_behavior="Accept a transfer to a person if the agent offers one.",
        scripted=scripted,
    )
    return Scenario(
        id=file.id,
        domain=file.domain,
        workflow=file.workflow,
        type="single_intent",
        current_date_time=file.current_date_time,
        persona=Persona(name=persona.name, gender=persona.gender, text=persona.text),
        user_goal=goal,
        key_entities={name: fact.value for name, fact in file.facts.items()},
        scenario_db=file.db,
        # task completion's exact comparison needs a whole DB: the initial one with the expected values laid over
        expected_scenario_db=_merged(file.db, success.db) if success.db else file.db,
        expected_flow=file.title,
        first_speaker=file.first_speaker,
        facts=file.facts,
        title=file.title or None,
        success=success,
        limits=file.limits if (file.limits.turns or file.limits.seconds) else None,
    )


def from_scenario(scenario: Scenario) -> dict[str, Any]:
    """An existing scenario (evalkit's own, an EVA-Bench import) as a scenario file's fields: its goal, facts (the
    information the caller gives, spoken as its scripted answers), persona, opening, DB and, as success, its
    expected DB (db) and reference path's write calls (tool_calls)."""
    goal = scenario.user_goal
    facts: dict[str, Any] = {}
    for name, value in goal.information_required.items():
        said = goal.scripted.answers.get(name)
        facts[name] = {"value": value, "spoken": said} if said and said != value else value
    writes = [c for c in scenario.reference_calls if c.error_type is None]
    success: dict[str, Any] = {"db": scenario.expected_scenario_db}
    if writes:
        success["tool_calls"] = {"required": [{"name": c.name, "arguments": c.arguments} for c in writes]}
    scripted = goal.scripted.model_dump()
    scripted["answers"] = {k: v for k, v in goal.scripted.answers.items() if k not in goal.information_required}
    out: dict[str, Any] = {
        "id": scenario.id,
        "title": scenario.title or scenario.expected_flow.split(".")[0],
        "domain": scenario.domain,
        "persona": scenario.persona.model_dump(exclude={"id"}),
        "goal": goal.high_level_user_goal,
        "facts": facts,
        "opening": goal.starting_utterance,
        "current_date_time": scenario.current_date_time,
        "db": scenario.scenario_db,
        "success": success,
        "workflow": scenario.workflow,
        "scripted": scripted,
    }
    if scenario.first_speaker is not None:
        out["first_speaker"] = scenario.first_speaker
    return out


def schema_json() -> str:
    """The JSON Schema of a scenario file (docs/scenario.schema.json; a test keeps it current)."""
    schema = ScenarioFile.model_json_schema()
    schema["title"] = "evalkit scenario file"
    # `name: value` is a fact too (Fact's shorthand, a before-validator the generated schema cannot see)
    schema["properties"]["facts"]["additionalProperties"] = {
        "anyOf": [{"$ref": "#/$defs/Fact"}, {"type": "string"}, {"type": "number"}]
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
