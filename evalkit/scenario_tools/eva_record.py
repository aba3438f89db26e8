"""The shape of an EVA-Bench record and of its scenario DBs, checked before anything is mapped, so a bad record is
one line naming the record's own field (``user_goal.decision_tree.must_have_criteria: ...``), never a traceback or a
half-imported scenario.

The DB layout is EVA-Bench's: the top-level tables every published initial DB of the domain has (the 213 initial DBs
of ServiceNow/eva ``data/<domain>_scenarios/``), each of its JSON type; ``session`` is left out (the tool executor
creates it). A DB without them belongs to another domain or another layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.scenarios.store import ScenarioError

# EVA-Bench domain -> {table: JSON type} of its scenario DB.
DB_LAYOUTS: dict[str, dict[str, type]] = {
    "airline": {
        "_current_date": str,
        "reservations": dict,
        "journeys": dict,
        "disruptions": dict,
        "refunds": dict,
        "travel_credits": dict,
        "meal_vouchers": dict,
    },
    "itsm": {
        "_current_date": str,
        **dict.fromkeys(
            [
                "employees",
                "access_groups",
                "active_outages",
                "asset_recoveries",
                "assets",
                "calendar_events",
                "cases",
                "cost_centers",
                "facilities",
                "field_dispatch_availability",
                "interactions",
                "known_errors",
                "permission_templates",
                "requests",
                "security_cases",
                "software_catalog",
                "tickets",
                "troubleshooting_guides",
                "waitlists",
            ],
            dict,
        ),
    },
    "medical_hr": {
        "_current_date": str,
        "employees": dict,
        "providers": dict,
        "shifts": dict,
        "appointment_availability": dict,
        "department_blackout_dates": dict,
        "unit_cert_requirements": dict,
        "notifications": list,
        "org_holidays": list,
    },
}

TEXT, TEXTS, OBJECT = "text", "list of texts", "object"
# dotted field -> (kind, required). Lists of texts accept an empty list.
SHAPE: tuple[tuple[str, str, bool], ...] = (
    ("current_date_time", TEXT, True),
    ("user_goal", OBJECT, True),
    ("user_goal.high_level_user_goal", TEXT, True),
    ("user_goal.decision_tree", OBJECT, True),
    ("user_goal.decision_tree.must_have_criteria", TEXTS, True),
    ("user_goal.decision_tree.nice_to_have_criteria", TEXTS, False),
    ("user_goal.decision_tree.negotiation_behavior", TEXTS, True),
    ("user_goal.decision_tree.resolution_condition", TEXT, True),
    ("user_goal.decision_tree.failure_condition", TEXT, True),
    ("user_goal.decision_tree.escalation_behavior", TEXT, True),
    ("user_goal.decision_tree.edge_cases", TEXTS, False),
    ("user_goal.information_required", OBJECT, True),
    ("user_config", OBJECT, True),
    ("user_config.name", TEXT, True),
    ("user_config.gender", TEXT, True),
    ("user_config.user_persona", TEXT, True),
    ("ground_truth", OBJECT, True),
    ("ground_truth.expected_scenario_db", OBJECT, True),
    ("ground_truth.expected_trace", OBJECT, False),
    ("scenario_context", OBJECT, False),
    ("starting_utterances", OBJECT, False),
    ("culture_overrides", OBJECT, False),
    ("romanized_culture_overrides", OBJECT, False),
)
GENDERS = {"woman": "female", "female": "female", "man": "male", "male": "male"}


def get(record: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path, or None when a part is missing."""
    node: Any = record
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _is(kind: str, value: Any) -> bool:
    if kind == TEXT:
        return isinstance(value, str) and bool(value.strip())
    if kind == TEXTS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, Mapping)


def check_shape(record: Any) -> None:
    """ScenarioError naming the first field of ``record`` that is missing or of the wrong kind."""
    if not isinstance(record, Mapping):
        raise ScenarioError(f"the record must be a JSON object, got {type(record).__name__}")
    if not isinstance(record.get("id"), str | int) or isinstance(record.get("id"), bool) or record.get("id") == "":
        raise ScenarioError("field id: missing or not a text/number")
    for dotted, kind, required in SHAPE:
        value = get(record, dotted)
        if value is None:
            if required:
                raise ScenarioError(f"field {dotted}: missing")
            continue
        if not _is(kind, value):
            raise ScenarioError(
                f"field {dotted}: expected {'a non-empty text' if kind == TEXT else kind}, got {_short(value)}"
            )
    gender = str(get(record, "user_config.gender")).lower()
    if gender not in GENDERS:
        raise ScenarioError(f"field user_config.gender: {gender!r} is not one of {', '.join(sorted(GENDERS))}")


def check_layout(db: Any, eva_domain: str, field: str, source: str = "") -> None:
    """ScenarioError naming the first table ``db`` lacks (or holds with the wrong JSON type) for ``eva_domain``;
    ``source`` (a file) is named after the field."""
    at = f" ({source})" if source else ""
    if not isinstance(db, Mapping):
        raise ScenarioError(f"field {field}{at}: the scenario DB must be a JSON object, got {type(db).__name__}")
    for table, kind in DB_LAYOUTS.get(eva_domain, {}).items():
        if table not in db:
            raise ScenarioError(f"field {field}.{table}{at}: missing (EVA-Bench's {eva_domain} DB layout has it)")
        if not isinstance(db[table], kind):
            raise ScenarioError(
                f"field {field}.{table}{at}: expected a JSON {_json_type(kind)} in EVA-Bench's {eva_domain} layout, "
                f"got {_short(db[table])}"
            )


def ground_truth_calls(record: Mapping[str, Any], tools: Any) -> list[dict[str, Any]]:
    """The ``tool_call`` events of ``ground_truth.expected_trace.trace`` as ``{name, arguments, status, response}``
    (status and response: the recorded response's, or None); ``tools`` (a container of tool names, or None: no
    check) names the known tools."""
    trace = get(record, "ground_truth.expected_trace.trace")
    if trace is None:
        return []
    where = "ground_truth.expected_trace.trace"
    if not isinstance(trace, list):
        raise ScenarioError(f"field {where}: expected a list of events, got {_short(trace)}")
    calls: list[dict[str, Any]] = []
    for i, event in enumerate(trace):
        if not isinstance(event, Mapping):
            raise ScenarioError(f"field {where}[{i}]: an event must be an object, got {_short(event)}")
        if event.get("event_type") == "tool_response" and calls and calls[-1]["name"] == event.get("tool_name"):
            calls[-1]["status"] = event.get("status")
            calls[-1]["response"] = event.get("response")
        if event.get("event_type") != "tool_call":
            continue
        name, params = event.get("tool_name"), event.get("params", {})
        if not isinstance(name, str) or not name:
            raise ScenarioError(f"field {where}[{i}].tool_name: missing")
        if tools is not None and name not in tools:
            raise ScenarioError(f"field {where}[{i}].tool_name: unknown tool {name!r} (not a tool of the domain)")
        if not isinstance(params, Mapping):
            raise ScenarioError(f"field {where}[{i}].params: expected an object, got {_short(params)}")
        calls.append({"name": name, "arguments": dict(params), "status": None, "response": None})
    return calls


def _json_type(kind: type) -> str:
    return {dict: "object", list: "array", str: "string"}[kind]


def _short(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"
