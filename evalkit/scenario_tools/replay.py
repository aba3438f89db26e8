"""Replay: does a record's ground-truth tool path, run through evalkit's tools, reproduce its expected final DB?

For every record (an EVA-Bench checkout or data folder, imported on the fly; or a folder of scenario files), its
reference calls — EVA-Bench's ``ground_truth.expected_trace`` tool calls, or a generated scenario's reference path —
run in order on its initial DB through the domain's ``ToolExecutor``; the end state is compared with the expected DB
by task completion's rule (``session`` keys of the expected DB must be in the actual one, the rest equal by canonical
hash). Each record is:

- ``equal``: the expected DB is reproduced;
- ``differ``: it is not; the first difference is reported (the first call whose outcome is not the one EVA-Bench
  recorded, when there is one: usually the cause; then the first DB path that differs);
- ``error``: the record cannot be replayed (it does not import, or a call names a tool the domain does not have).

This is the equivalence check of issue 15 point 4: a tool API identical to EVA-Bench's makes every record ``equal``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.metrics.task_completion import canonical_hash, db_diff, session_superset
from evalkit.scenario_tools.eva_import import DEFAULT_OPTIONS, ImportOptions
from evalkit.scenario_tools.eva_record import ground_truth_calls
from evalkit.scenario_tools.walk import walk
from evalkit.scenarios.schema import Scenario

OUTCOMES = ("equal", "differ", "error")


@dataclass(frozen=True)
class Replayed:
    record_id: str
    outcome: str  # one of OUTCOMES
    detail: str = ""


@dataclass
class DomainReplay:
    domain: str
    records: list[Replayed] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(r.outcome == outcome for r in self.records)

    def summary(self) -> str:
        counts = ", ".join(f"{o} {self.count(o)}" for o in OUTCOMES)
        lines = [f"{self.domain}: replayed {len(self.records)}: {counts}"]
        return "\n".join(lines + [f"  {r.record_id}: {r.outcome}: {r.detail}" for r in self.records if r.detail])


def _short(value: Any, limit: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else f"{text[:limit]}..."


def first_db_difference(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> str | None:
    """Task completion's rule: None when ``actual`` passes, else its first difference from ``expected``."""
    expected, actual = dict(expected), dict(actual)
    expected_session, actual_session = expected.pop("session", {}) or {}, actual.pop("session", {}) or {}
    missing = session_superset(expected_session, actual_session)
    if missing:
        key = missing[0]
        return f"session.{key}: expected {_short(expected_session[key])}, got {_short(actual_session.get(key))}"
    if canonical_hash(expected) == canonical_hash(actual):
        return None
    change = db_diff(expected, actual)[0]
    shown = {k: _short(v) for k, v in change.items() if k in ("expected", "actual")}
    return f"{change['path']}: {change['change']} " + ", ".join(f"{k} {v}" for k, v in shown.items())


def issued_values(recorded: Mapping[str, Any] | None, actual: Mapping[str, Any]) -> dict[str, str]:
    """Recorded -> actual text of the top-level fields both responses have and that differ: the identifiers the
    tools issued (a ticket number, a request id). EVA-Bench's traces keep identifiers from before its tools derived
    them from content, so a later call quoting one must quote the one this replay's tools issued instead."""
    if not isinstance(recorded, Mapping):
        return {}
    return {
        old: new
        for key, old in recorded.items()
        if isinstance(old, str) and isinstance(new := actual.get(key), str) and old != new and key != "message"
    }


def _substituted(value: Any, issued: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return issued.get(value, value)
    if isinstance(value, list):
        return [_substituted(v, issued) for v in value]
    if isinstance(value, Mapping):
        return {k: _substituted(v, issued) for k, v in value.items()}
    return value


def replay_scenario(
    scenario: Scenario,
    registry: ToolRegistry,
    recorded: list[str | None] | None = None,
    responses: list[Mapping[str, Any] | None] | None = None,
) -> Replayed:
    """``recorded``: the status EVA-Bench's trace gives each call's response (None: unknown); ``responses``: the
    recorded responses, whose issued identifiers later arguments quote (see ``issued_values``)."""
    executor = ToolExecutor(registry, scenario.scenario_db)
    first_call = ""
    issued: dict[str, str] = {}
    if responses is None:  # an imported scenario file keeps its recorded responses with its calls
        responses = [c.response for c in scenario.reference_calls]
    for i, call in enumerate(scenario.reference_calls):
        if call.name not in registry:
            return Replayed(
                scenario.id, "error", f"call {i + 1}: unknown tool {call.name!r} in domain {scenario.domain}"
            )
        result = executor.call(call.name, _substituted(call.arguments, issued))
        if responses and i < len(responses):
            issued.update(issued_values(responses[i], result))
        wanted = recorded[i] if recorded and i < len(recorded) and recorded[i] else "success"
        if not first_call and result.get("status") != wanted:
            why = f"{result.get('error_type')}: {result.get('message')}" if result.get("status") == "error" else ""
            first_call = f"call {i + 1} {call.name}: {result.get('status')} ({_short(why, 110)}), recorded {wanted}"
    difference = first_db_difference(scenario.expected_scenario_db, executor.db)
    if difference is None:
        return Replayed(scenario.id, "equal")
    return Replayed(scenario.id, "differ", f"{difference}" + (f"; first: {first_call}" if first_call else ""))


def replay(path: Path, options: ImportOptions = DEFAULT_OPTIONS) -> list[DomainReplay]:
    """An EVA-Bench checkout / data folder / dataset file, or a folder of scenario files
    (``evalkit.scenario_tools.walk``). A record is replayed along its recorded trace (with the outcomes EVA-Bench
    recorded), a scenario file along its reference path."""
    by_domain: dict[str, DomainReplay] = {}
    for entry in walk(path, options):
        report = by_domain.setdefault(entry.domain, DomainReplay(entry.domain))
        if entry.scenario is None:
            report.records.append(Replayed(entry.id, "error", entry.error))
            continue
        try:
            registry = tool_registry(entry.scenario.domain)
        except ValueError as exc:
            report.records.append(Replayed(entry.id, "error", str(exc)))
            continue
        if entry.record is None:
            report.records.append(replay_scenario(entry.scenario, registry))
            continue
        calls = ground_truth_calls(entry.record, None)
        statuses, responses = [c["status"] for c in calls], [c["response"] for c in calls]
        report.records.append(replay_scenario(entry.scenario, registry, statuses, responses))
    return [by_domain[d] for d in sorted(by_domain)]


def render(reports: Iterable[DomainReplay]) -> str:
    return "\n".join(r.summary() for r in reports)
