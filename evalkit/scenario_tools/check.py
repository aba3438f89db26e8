"""Static checks of scenario files, run by ``python -m evalkit.scenarios check`` (and by the test suite).

A scenario is usable when (EVA-Bench §3 / App. C: jointly consistent goal, decision tree, DB and end state):
1. it parses against the schema and its id/domain match its file and folder;
2. every reference call names a tool of the domain and its arguments validate;
3. executing the reference path on the initial DB succeeds call by call and yields exactly the stored
   expected DB (so the expected state is reachable and was never typed by hand); scenarios imported from
   EVA-Bench's published records carry its ground-truth DB and tool path, which ``replay`` checks, so this skips them;
4. every key entity occurs in the initial or the expected DB (an entity the agent must hear is something the
   backend knows: a code, a name, a flight, a date), compared case-insensitively;
5. the scripted decision tree answers every piece of information the goal says the user can be asked for
   (``information_required`` keys ⊆ ``scripted.answers`` keys), and each decision-rule id is unique.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.domains.scenarios import same_domain
from evalkit.metrics.task_completion import canonical_hash, db_diff
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios.file import FILE_SUFFIXES, file_problems
from evalkit.scenarios.schema import Scenario
from evalkit.scenarios.store import ScenarioError, duplicate_ids, load_path, load_scenario, scenario_paths


@dataclass(frozen=True)
class Problem:
    path: Path
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: [{self.check}] {self.message}"


def _strings(node: Any) -> set[str]:
    """Every key and scalar value of a JSON tree, lower-cased (numbers as their JSON text)."""
    if isinstance(node, dict):
        return {str(k).lower() for k in node} | {s for v in node.values() for s in _strings(v)}
    if isinstance(node, list):
        return {s for v in node for s in _strings(v)}
    if node is None or isinstance(node, bool):
        return set()
    return {str(node).lower()}


def check_reference_path(scenario: Scenario, registry: ToolRegistry) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if scenario.source == "eva_import":
        # EVA-Bench ships its ground truth; whether its tool path reproduces it through evalkit's tools is what
        # `python -m evalkit.scenarios replay` reports (issue 15 point 4), not a fault of the file.
        return problems
    if not scenario.reference_calls:
        return [("reference_path", "no reference_calls: the expected DB must be executed, never typed by hand")]
    executor = ToolExecutor(registry, scenario.scenario_db)
    for i, call in enumerate(scenario.reference_calls):
        if call.name not in registry:
            problems.append(("reference_path", f"reference_calls[{i}]: unknown tool {call.name!r}"))
            return problems
        result = executor.call(call.name, call.arguments)
        outcome = result.get("error_type") if result.get("status") == "error" else None
        # An adversarial path may end in the tool's refusal (EVA-Bench's eligibility checks answer "no" with an
        # error): its last call may fail, and the expected DB below says nothing was written.
        refusal = scenario.type == "adversarial" and i == len(scenario.reference_calls) - 1 and outcome is not None
        if outcome != call.error_type and not (refusal and call.error_type is None):
            wanted = f"error {call.error_type}" if call.error_type else "success"
            problems.append(("reference_path", f"reference_calls[{i}] {call.name}: {result} (expected {wanted})"))
            return problems
    if canonical_hash(executor.db) != canonical_hash(scenario.expected_scenario_db):
        diff = db_diff(scenario.expected_scenario_db, executor.db)[:5]
        problems.append(("expected_db", f"executing the reference path does not give expected_scenario_db: {diff}"))
    return problems


def check_entities(scenario: Scenario) -> list[tuple[str, str]]:
    known = _strings(scenario.scenario_db) | _strings(scenario.expected_scenario_db)
    return [
        ("key_entities", f"key entity {name}={value!r} occurs nowhere in the scenario or expected DB")
        for name, value in scenario.key_entities.items()
        if str(value).lower() not in known
    ]


def check_decision_tree(scenario: Scenario) -> list[tuple[str, str]]:
    goal = scenario.user_goal
    problems = [
        ("decision_tree", f"information_required[{field!r}] has no scripted answer")
        for field in goal.information_required
        if field not in goal.scripted.answers
    ]
    ids = [rule.id for rule in goal.decision_tree]
    if len(ids) != len(set(ids)):
        problems.append(("decision_tree", f"decision-rule ids are not unique: {ids}"))
    if not goal.decision_tree:
        problems.append(("decision_tree", "the decision tree is empty"))
    return problems


def check_file(path: Path, domain: str | None = None) -> list[Problem]:
    """All problems of one scenario file (empty list: the file is usable)."""
    if path.suffix in FILE_SUFFIXES:  # a scenario file for anyone's agent: its own checks, one line per problem
        return [Problem(path, "file", line.removeprefix(f"{path}: ")) for line in scenario_file_problems(path)]
    try:
        scenario = load_scenario(path)
    except ScenarioError as exc:
        return [Problem(path, "schema", str(exc).removeprefix(f"{path}: "))]
    found: list[tuple[str, str]] = []
    if scenario.id != path.stem:
        found.append(("identity", f"id {scenario.id!r} does not match the file name {path.name!r}"))
    if domain is not None and not same_domain(scenario.domain, domain):
        found.append(("identity", f"domain {scenario.domain!r} but the file is in the {domain!r} folder"))
    try:
        registry = tool_registry(scenario.domain)
    except ValueError as exc:
        found.append(("domain", str(exc)))
    else:
        found += check_reference_path(scenario, registry)
    found += check_entities(scenario)
    found += check_decision_tree(scenario)
    return [Problem(path, check, message) for check, message in found]


def scenario_files(folder: Path) -> list[Path]:
    return scenario_paths(folder)


def summarise(results: dict[Path, list[Problem]]) -> str:
    bad = {p: probs for p, probs in results.items() if probs}
    lines = [str(problem) for probs in bad.values() for problem in probs]
    lines.append(f"{len(results)} scenario files checked: {len(results) - len(bad)} ok, {len(bad)} with problems")
    return "\n".join(lines)


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


# -- scenario files for anyone's agent (YAML, JSONL) -------------------------------------------------------------


def tool_call_problems(where: str, scenario: Scenario) -> list[str]:
    """A required or forbidden call naming a tool the scenario's domain does not have (never matched: a typo)."""
    if scenario.success is None or scenario.success.tool_calls is None:
        return []
    names = set(tool_registry(scenario.domain).names)
    criteria = scenario.success.tool_calls
    return [
        f"{where}: success.tool_calls.{kind}[{i}].name: domain {scenario.domain!r} has no tool {rule.name!r}"
        + (f" (tools: {', '.join(sorted(names)[:8])}, ...)" if names else " (it has no harness tools)")
        for kind in ("required", "forbidden")
        for i, rule in enumerate(getattr(criteria, kind))
        if rule.name not in names
    ]


def scenario_file_problems(path: Path) -> list[str]:
    """Every problem of a YAML / JSONL scenario file, one line each naming the file and the field."""
    lines = file_problems(path)
    if lines:
        return lines
    try:
        scenarios = load_path(path)
    except ScenarioError as exc:
        return [str(exc)]
    for scenario in scenarios:
        where = f"{path} ({scenario.id})" if path.suffix == ".jsonl" else str(path)
        try:
            tool_registry(scenario.domain)
        except (UnknownPluginError, ValueError) as exc:
            lines.append(f"{where}: domain: {str(exc).splitlines()[0]}")
            continue
        lines += tool_call_problems(where, scenario)
    return lines


def check_folder(folder: Path) -> tuple[int, list[str]]:
    """(files checked, one line per problem) of a folder of scenario files of any kind; ids unique across it."""
    files = scenario_paths(folder)
    lines: list[str] = []
    owners: list[Path] = []
    scenarios: list[Scenario] = []
    for path in files:
        found = scenario_file_problems(path) if path.suffix in FILE_SUFFIXES else [str(p) for p in check_file(path)]
        # (scenario files' lines name their file and field themselves: no "[check]" tag)
        lines += found
        if not found:
            read = load_path(path)
            owners += [path] * len(read)
            scenarios += read
    return len(files), lines + duplicate_ids(owners, scenarios)
