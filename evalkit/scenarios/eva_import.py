"""Import EVA-Bench's published records (ServiceNow/eva ``data/<domain>_dataset.jsonl`` + ``<domain>_scenarios/
<id>.json``) into our Scenario schema, so they run, check and score like generated ones.

The published layout (App. J) is one JSON record per scenario:
``{id, current_date_time, user_goal: {high_level_user_goal, decision_tree: {must_have_criteria,
nice_to_have_criteria, negotiation_behavior, resolution_condition, failure_condition, escalation_behavior,
edge_cases}, information_required, starting_utterance}, user_config: {name, gender, user_persona_id,
user_persona}, expected_flow, ground_truth: {expected_scenario_db}, starting_utterances: {en: ...},
culture_overrides: {en: {first_name, ...}}, romanized_culture_overrides: {...}}``; the initial DB is a separate
file named after the id. Placeholders like ``<FIRST_NAME>`` are filled from the English culture overrides
(romanized ones for ``<..._ROMANIZED>``), in the record and both DBs.

What the record lacks and we derive (documented, deterministic): the scripted plan's answers (from
``information_required``, with EVA's prose field names mapped to our field names where one matches), key
entities (confirmation-code-like values and names from the answers), and no reference path (the expected DB
is EVA's ground truth; the checker skips reachability for ``source: eva_import``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.scenarios.schema import Scenario
from evalkit.scenarios.store import ScenarioError

# Substrings of EVA's prose field names -> our answer field names (first match wins).
FIELD_ALIASES = (
    ("confirmation", "confirmation_number"),
    ("last name", "last_name"),
    ("first name", "first_name"),
    ("employee id", "employee_id"),
    ("date of birth", "date_of_birth"),
    ("seat_preference", "seat_preference"),
)
CODE_LIKE = re.compile(r"^(?=.*\d)(?=.*[A-Z])[A-Z0-9]{5,10}$")  # e.g. ZK3FFW, 6VORJU
PLACEHOLDER = re.compile(r"<([A-Z_]+)>")
GENDERS = {"woman": "female", "female": "female", "man": "male", "male": "male"}


def _require(record: Mapping[str, Any], dotted: str) -> Any:
    node: Any = record
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def _fill(node: Any, values: Mapping[str, str]) -> Any:
    """Replace ``<NAME>`` placeholders everywhere (unknown placeholders are left as they are)."""
    if isinstance(node, str):
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), node)
    if isinstance(node, list):
        return [_fill(v, values) for v in node]
    if isinstance(node, dict):
        return {k: _fill(v, values) for k, v in node.items()}
    return node


def _placeholder_values(record: Mapping[str, Any]) -> dict[str, str]:
    values = {k.upper(): str(v) for k, v in (record.get("culture_overrides") or {}).get("en", {}).items()}
    romanized = (record.get("romanized_culture_overrides") or {}).get("en", {})
    values |= {f"{k.upper()}_ROMANIZED": str(v) for k, v in romanized.items()}
    return values


def _field_name(label: str) -> str:
    lowered = label.lower().replace("_", " ")
    for fragment, name in FIELD_ALIASES:
        if fragment.replace("_", " ") in lowered:
            return name
    return re.sub(r"[^a-z0-9]+", "_", lowered).strip("_")


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _key_entities(answers: Mapping[str, str]) -> dict[str, str]:
    entities = {k: v for k, v in answers.items() if CODE_LIKE.match(v)}
    entities |= {k: answers[k] for k in ("last_name", "first_name") if k in answers}
    return entities


def convert_record(record: Mapping[str, Any], scenario_db: Mapping[str, Any], domain: str) -> dict[str, Any]:
    """One EVA record + its initial DB -> a dict in our Scenario layout (validate with ``Scenario``)."""
    values = _placeholder_values(record)
    record = _fill(dict(record), values)
    goal, tree, user = record["user_goal"], record["user_goal"]["decision_tree"], record["user_config"]
    information = {label: _as_text(v) for label, v in goal["information_required"].items()}
    answers = {_field_name(label): text for label, text in information.items()}
    starting = goal.get("starting_utterance") or (record.get("starting_utterances") or {}).get("en")
    scenario_id = str(record["id"])
    return {
        "id": scenario_id,
        "domain": domain,
        "workflow": record.get("workflow") or f"eva_{'.'.join(scenario_id.split('.')[:2])}",
        "type": record.get("type", "single_intent"),
        "current_date_time": record["current_date_time"],
        "persona": {
            "id": str(user.get("user_persona_id", "default")),
            "name": user["name"],
            "gender": GENDERS.get(str(user["gender"]).lower(), user["gender"]),
            "text": user["user_persona"],
        },
        "user_goal": {
            "high_level_user_goal": goal["high_level_user_goal"],
            "must_have_criteria": tree["must_have_criteria"],
            "nice_to_have_criteria": tree.get("nice_to_have_criteria", []),
            "starting_utterance": starting,
            "information_required": answers,
            "decision_tree": [{"id": i + 1, "text": t} for i, t in enumerate(tree["negotiation_behavior"])],
            "resolution_condition": tree["resolution_condition"],
            "failure_condition": tree["failure_condition"],
            "escalation_behavior": tree["escalation_behavior"],
            "edge_cases": tree.get("edge_cases", []),
            "scripted": {"answers": answers},
        },
        "key_entities": _key_entities(answers),
        "scenario_db": _fill(dict(scenario_db), values),
        "expected_scenario_db": record["ground_truth"]["expected_scenario_db"],
        "expected_flow": record.get("expected_flow", ""),
        "source": "eva_import",
    }


REQUIRED = (
    "id",
    "current_date_time",
    "user_goal.high_level_user_goal",
    "user_goal.decision_tree.must_have_criteria",
    "user_goal.decision_tree.negotiation_behavior",
    "user_goal.decision_tree.resolution_condition",
    "user_goal.decision_tree.failure_condition",
    "user_goal.decision_tree.escalation_behavior",
    "user_goal.information_required",
    "user_config.name",
    "user_config.gender",
    "user_config.user_persona",
    "ground_truth.expected_scenario_db",
)


def import_record(record: Any, scenario_db: Any, domain: str, where: str) -> Scenario:
    """Validate and convert; ScenarioError names ``where`` (file and line), the field and the reason."""
    if not isinstance(record, Mapping):
        raise ScenarioError(f"{where}: an EVA record must be a JSON object, got {type(record).__name__}")
    for dotted in REQUIRED:
        try:
            _require(record, dotted)
        except KeyError:
            raise ScenarioError(f"{where}: field {dotted}: missing from the EVA record") from None
    if not isinstance(scenario_db, Mapping):
        raise ScenarioError(f"{where}: the initial scenario DB must be a JSON object")
    try:
        return Scenario.model_validate(convert_record(record, scenario_db, domain))
    except ValidationError as exc:
        problems = "; ".join(f"field {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise ScenarioError(f"{where}: {problems}") from None


def import_dataset(dataset: Path, db_dir: Path, domain: str) -> list[Scenario]:
    """Every record of an EVA ``*_dataset.jsonl`` (or ``.json`` list) with its ``<db_dir>/<id>.json`` DB."""
    text = dataset.read_text()
    if dataset.suffix == ".jsonl":
        lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
        try:
            records = [(f"{dataset}:{n}", json.loads(line)) for n, line in lines]
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{dataset}: invalid JSON line: {exc}") from exc
    else:
        records = [(f"{dataset}[{i}]", r) for i, r in enumerate(json.loads(text))]
    scenarios = []
    for where, record in records:
        record_id = record.get("id") if isinstance(record, Mapping) else None
        db_path = db_dir / f"{record_id}.json"
        if not db_path.is_file():
            raise ScenarioError(f"{where}: no initial scenario DB {db_path} for record {record_id!r}")
        scenarios.append(import_record(record, json.loads(db_path.read_text()), domain, where))
    return scenarios
