"""Build the 83 HRSD scenario files (EVA-Bench's size): 46 single-intent (every workflow at least three times),
20 dual-intent (10 pairings x 2), 7 triple-intent groups and 10 adversarial policy-boundary cases.

Run ``python -m evalkit.domains.hr.generate [out_dir]``. Each scenario draws its people and entities from
``random.Random(SEED + index)``, so the same command always writes byte-identical files. The initial DB holds the
caller's complete HR footprint (employee, provider credentials, shifts, timesheets, balances, ...) plus colleagues;
the expected DB and the reference calls come from ``run_reference`` over the scenario's workflows in call order on
one executor, never typed by hand. Scripted answers are what the caller says; ``parse_slot`` of each must give the
value the reference run used, which ``build`` asserts (so generator and agent agree by construction).

The package: ``tables`` (fixed tables), ``entities`` (IDs with checksums, spoken forms), ``people`` (one caller's
draws), ``db`` (the initial DB), ``answers`` (what the caller says); this module assembles and writes the scenarios.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from evalkit.domains.base import ToolExecutor
from evalkit.domains.hr.generate.answers import KEY_SLOTS, answers_for
from evalkit.domains.hr.generate.db import build_db
from evalkit.domains.hr.generate.entities import dea_is_valid, make_dea, make_npi, npi_is_valid
from evalkit.domains.hr.generate.people import person
from evalkit.domains.hr.generate.tables import (
    ADVERSARIAL,
    DEFAULT_PERSONA_TEXT,
    DUAL,
    GOALS,
    NO_TRANSFER,
    NOW,
    SEED,
    STARTS,
    TODAY,
    TRIPLE,
)
from evalkit.domains.hr.tools import REGISTRY
from evalkit.domains.hr.workflows import WORKFLOWS
from evalkit.domains.workflow import parse_slot, run_reference
from evalkit.scenarios.schema import Scenario

__all__ = [
    "ADVERSARIAL",
    "DUAL",
    "OUT_DIR",
    "STARTS",
    "TODAY",
    "TRIPLE",
    "answers_for",
    "build",
    "build_db",
    "dea_is_valid",
    "generate",
    "main",
    "make_dea",
    "make_npi",
    "npi_is_valid",
    "person",
    "plan",
    "write",
]

OUT_DIR = Path(__file__).resolve().parent.parent / "scenarios"


def _db_strings(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {str(k).lower() for k in node} | {s for v in node.values() for s in _db_strings(v)}
    if isinstance(node, list):
        return {s for v in node for s in _db_strings(v)}
    return set() if node is None or isinstance(node, bool) else {str(node).lower()}


# ---------------------------------------------------------------- assembling a scenario


def build(index: int, kind: str, workflows: tuple[str, ...], case: tuple[Any, ...] | None = None) -> Scenario:
    """One scenario: draw the caller, run the reference path, and check it ends as its type says it must."""
    rng = random.Random(SEED + index)
    p = person(rng, workflows, case[0] if case else None)
    db = build_db(p, workflows)
    executor = ToolExecutor(REGISTRY, db)
    answers: dict[str, str] = {}
    calls: list[dict[str, Any]] = []
    memo: dict[str, Any] = {}  # the caller is verified once per call, whatever the number of tasks (App. L.6)
    for name in workflows:
        spoken = answers_for(name, p)
        workflow = WORKFLOWS[name]
        values = {}
        for slot in workflow.slots:
            if slot.name not in spoken:
                continue
            value = parse_slot(slot, spoken[slot.name], TODAY)
            if value is None or (slot.kind in ("code", "digits") and value != spoken[slot.name].upper()):
                raise ValueError(f"HR-{index:03d} {name}: parse_slot({slot.name}, {spoken[slot.name]!r}) is None")
            values[slot.name] = value
        run = run_reference(workflow, values, executor, memo=memo)
        want = "refused" if kind == "adversarial" else "completed"
        if run.outcome != want:
            raise ValueError(f"HR-{index:03d} {name}: reference run {run.outcome}, expected {want}: {run.scope}")
        asked = {s.name for s in workflow.slots if s.name in run.scope}
        answers.update({k: v for k, v in spoken.items() if k in asked})
        # a call answered with an error on the reference path (a verification tried once more) says which error
        calls += [
            {"name": tool, "arguments": args} | ({"error_type": error} if error and i < len(run.calls) - 1 else {})
            for i, ((tool, args), error) in enumerate(zip(run.calls, run.errors, strict=True))
        ]
    strings = _db_strings(db) | _db_strings(executor.db)
    key_entities = {k: answers[k] for k in KEY_SLOTS if k in answers and answers[k].lower() in strings}
    key_entities["date_of_birth"] = p["date_of_birth"]
    full_name = f"{p['first_name']} {p['last_name']}"
    scripted: dict[str, Any] = {"answers": answers, "followups": [STARTS[w] for w in workflows[1:]]}
    if case:
        scripted.update(push_back_say=case[3], push_back_times=case[4])
    goal_text = (
        case[2]
        if case
        else "You want to " + "; then ".join(GOALS[w] for w in workflows) + ", in that order, in one call."
    )
    rules = [
        "Start with your first request only; bring up each further request when the agent asks if there is "
        "anything else.",
        "Verify your identity with exactly the details listed when asked; read codes character by character.",
        "Give the other details only when asked, exactly as listed; confirm a read-back only if it matches, "
        "otherwise correct the specific mismatch.",
        "When the agent asks you to confirm an action that matches your request, say yes.",
        "When offered appointment times, choose the one listed in your information if it is offered.",
    ]
    if case:
        rules.append(f"If the agent refuses, push back up to {case[4]} times: '{case[3]}' Then accept the refusal.")
    return Scenario.model_validate(
        {
            "id": f"HR-{index:03d}",
            "domain": "medical_hr",
            "workflow": "+".join(workflows),
            "type": kind,
            "current_date_time": NOW,
            "persona": {"id": "default", "name": full_name, "gender": p["gender"], "text": DEFAULT_PERSONA_TEXT},
            "user_goal": {
                "high_level_user_goal": goal_text,
                "must_have_criteria": [] if case else [f"{GOALS[w]} is done" for w in workflows],
                "nice_to_have_criteria": [f"the request goes through despite policy ({case[0]})"] if case else [],
                "starting_utterance": STARTS[workflows[0]],
                "information_required": dict(answers),
                "decision_tree": [{"id": i + 1, "text": t} for i, t in enumerate(rules)],
                "resolution_condition": (
                    "The agent clearly refuses under policy and nothing is filed."
                    if case
                    else "The agent confirms every request with its reference number and notifications."
                ),
                "failure_condition": "The agent makes no progress for 3 consecutive turns: say goodbye and end.",
                "escalation_behavior": NO_TRANSFER,
                "edge_cases": [
                    "If asked whether there is anything else after your last request, say no and end the call.",
                    "Never invent new goals, requests or information beyond what is listed.",
                ],
                "scripted": scripted,
            },
            "key_entities": key_entities,
            "scenario_db": db,
            "reference_calls": calls,
            "expected_scenario_db": executor.db,
            "expected_flow": " -> ".join(c["name"] for c in calls)
            + (" (refused at the policy boundary: nothing written)" if case else ""),
        }
    )


def plan() -> list[tuple[str, tuple[str, ...], tuple[Any, ...] | None]]:
    """The 83 scenarios in id order: single, dual, triple, adversarial."""
    names = list(WORKFLOWS)
    single = [("single_intent", (names[i % len(names)],), None) for i in range(46)]
    dual = [("multi_intent", pair, None) for pair in DUAL for _ in range(2)]
    triple = [("multi_intent", group, None) for group in TRIPLE]
    adversarial = [("adversarial", (case[1],), case) for case in ADVERSARIAL]
    return single + dual + triple + adversarial


def generate() -> list[Scenario]:
    return [build(i + 1, kind, workflows, case) for i, (kind, workflows, case) in enumerate(plan())]


def write(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for scenario in generate():
        path = out_dir / f"{scenario.id}.json"
        path.write_text(json.dumps(scenario.model_dump(mode="json"), indent=1, sort_keys=False) + "\n")
        paths.append(path)
    return paths


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_DIR
    print(f"wrote {len(write(out))} scenarios to {out}")
