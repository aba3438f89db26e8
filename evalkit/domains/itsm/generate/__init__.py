"""Build the ITSM scenario files (EVA-Bench sizes: 29 single, 14 double, 14 triple, 14 quadruple-intent and 9
adversarial = 80).

Run ``python -m evalkit.domains.itsm.generate [OUT_DIR]`` to rewrite ``scenarios/*.json``. Each scenario draws its
entities from ``random.Random(SEED + index)``; each workflow part adds the records it needs to one initial DB (in
EVA-Bench's ITSM layout, run by EVA-Bench's ITSM tool API: ``evalkit.domains.itsm.api``) and returns what the caller
says. The typed slot values are ``parse_slot`` of those answers (what a perfect-hearing
agent extracts), the reference path is ``run_reference`` of each workflow in call order on one executor, and the
expected DB is what that path leaves behind: never typed by hand.

The package: ``tables`` (fixed tables), ``entities`` (entity draws), ``base_db`` (the DB every scenario starts from),
``part`` (what one workflow adds) and the part builders by category (``incidents``, ``equipment``, ``software``,
``accounts``); this module plans, assembles and writes the scenarios.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

from evalkit.domains.base import ToolExecutor
from evalkit.domains.itsm.api import REGISTRY
from evalkit.domains.itsm.generate.accounts import (
    access_removal,
    group_membership,
    new_employee_provisioning,
    permission_change,
)
from evalkit.domains.itsm.generate.base_db import base_db
from evalkit.domains.itsm.generate.equipment import (
    conference_room,
    desk_request,
    ergonomic_equipment,
    laptop_replacement,
    monitor_bundle,
    parking_request,
)
from evalkit.domains.itsm.generate.incidents import (
    hardware_malfunction,
    login_issue,
    mfa_reset,
    network_vpn_issue,
    security_incident,
    service_outage,
)
from evalkit.domains.itsm.generate.part import Builder, Part
from evalkit.domains.itsm.generate.software import (
    application_access,
    license_renewal,
    request_status_escalation,
    software_license,
)
from evalkit.domains.itsm.generate.tables import (
    ADVERSARIAL_ORDER,
    COUNTS,
    NOW,
    PERSONA_TEXT,
    SEED,
    SINGLE_ORDER,
    SLOTS,
    TODAY,
)
from evalkit.domains.itsm.workflows import WORKFLOWS
from evalkit.domains.workflow import parse_slot, run_reference
from evalkit.scenarios.schema import Scenario

__all__ = [
    "BUILDERS",
    "OUT_DIR",
    "SEED",
    "SLOTS",
    "TODAY",
    "Part",
    "build",
    "build_all",
    "main",
    "plan",
    "typed_answers",
    "write",
]

OUT_DIR = Path(__file__).resolve().parent.parent / "scenarios"


BUILDERS: dict[str, Builder] = {
    fn.__name__: fn
    for fn in (
        login_issue, service_outage, hardware_malfunction, network_vpn_issue, laptop_replacement, monitor_bundle,
        application_access, software_license, license_renewal, desk_request, parking_request, ergonomic_equipment,
        conference_room, new_employee_provisioning, group_membership, permission_change, access_removal,
        security_incident, mfa_reset, request_status_escalation,
    )
}  # fmt: skip


# --------------------------------------------------------------------------------------------------- scenarios


def plan() -> list[tuple[str, str, list[str], int]]:
    """(id, type, workflows, variant) for all 80 scenarios, in id order."""
    out: list[tuple[str, str, list[str], int]] = []
    for kind, size, count in COUNTS:
        for i in range(count):
            index = len(out)
            if size == 1:
                names, variant = [SINGLE_ORDER[i % len(SINGLE_ORDER)]], i // len(SINGLE_ORDER)
            else:
                rng = random.Random(SEED + 1000 + index)
                names, variant = rng.sample(sorted(WORKFLOWS), size), rng.randrange(6)
            out.append((f"IT-{index + 1:03d}", kind, names, variant))
    for name in ADVERSARIAL_ORDER:
        out.append((f"IT-{len(out) + 1:03d}", "adversarial", [name], 0))
    return out


def typed_answers(answers: dict[str, str]) -> dict[str, Any]:
    """What a perfect-hearing agent extracts from each answer (the shared parser, so generator and agent agree)."""
    typed = {}
    for name, text in answers.items():
        value = parse_slot(SLOTS[name], text, TODAY)
        if value is None:
            raise ValueError(f"answer {text!r} for slot {name} does not parse")
        typed[name] = value
    return typed


def build(scenario_id: str, kind: str, names: list[str], variant: int) -> Scenario:
    rng = random.Random(SEED + int(scenario_id[3:]))
    db, caller = base_db(rng)
    adversarial = kind == "adversarial"
    parts = [BUILDERS[name](rng, db, caller, adversarial, variant + i) for i, name in enumerate(names)]
    employee = db["employees"][caller["employee_id"]]
    answers = {"employee_id": caller["employee_id"], "phone_last_four": employee["phone_last_four"]}
    if any(n in ("application_access", "group_membership", "permission_change", "new_employee_provisioning",
                 "access_removal") for n in names):  # fmt: skip
        answers["otp_code"] = employee["otp_code"]
    for part in parts:
        answers |= part.answers
    initial = copy.deepcopy(db)
    executor = ToolExecutor(REGISTRY, initial)
    typed = typed_answers(answers)
    calls: list[dict[str, Any]] = []
    memo: dict[str, Any] = {}  # verification happens once per call, at the highest level needed (App. L.5)
    for name in names:
        run = run_reference(WORKFLOWS[name], typed, executor, memo=memo)
        calls += [
            {"name": tool, "arguments": args} | ({"error_type": error} if error else {})
            for (tool, args), error in zip(run.calls, run.errors, strict=True)
        ]
        want = "refused" if adversarial else "completed"
        if run.outcome != want:
            raise RuntimeError(f"{scenario_id}: {name} ended {run.outcome}, expected {want}")
    key_entities = {"employee_id": caller["employee_id"], "phone_last_four": employee["phone_last_four"]}
    if "otp_code" in answers:
        key_entities["otp_code"] = answers["otp_code"]
    for part in parts:
        key_entities |= part.key_entities
    name = f"{employee['first_name']} {employee['last_name']}"
    auth_rule = (
        f"Give your employee ID {caller['employee_id']} and phone last four {employee['phone_last_four']} only "
        "when asked; read the passcode from your text message if one is sent."
    )
    rules = [auth_rule]
    for i, part in enumerate(parts):
        label = f"Request {i + 1} ({part.workflow.replace('_', ' ')}): " if len(parts) > 1 else ""
        rules += [label + r for r in part.rules]
    if adversarial:
        rules.append("If the agent refuses, push back once; if refused again, accept it and end the call.")
    rules += [
        "If the agent reads back an identifier, confirm it if it matches; otherwise correct only the wrong part.",
        "When everything is addressed and the agent asks if there is anything else, say no and end the call.",
    ]
    goal = "; ".join(p.goal for p in parts)
    must_have = [m for p in parts for m in p.must_have]
    push_back = parts[0].push_back if adversarial else None
    starting = parts[0].request if len(parts) == 1 else f"Hi, I've got a few IT things. First: {parts[0].request}"
    user_goal = {
        "high_level_user_goal": f"You call the IT service desk to {goal}."
        + (f" Your other requests, in order: {' | '.join(p.request for p in parts[1:])}" if len(parts) > 1 else ""),
        "must_have_criteria": must_have,
        "nice_to_have_criteria": [],
        "starting_utterance": starting,
        "information_required": dict(answers),
        "decision_tree": [{"id": i + 1, "text": t} for i, t in enumerate(rules)],
        "resolution_condition": "Every request is resolved, or refused under policy, and you have the reference "
        "numbers; end the call."
        if not adversarial
        else "The agent refuses under policy after your push-back; end the call.",
        "failure_condition": "No progress for 3 consecutive turns: say goodbye and end the call.",
        "escalation_behavior": "Do not ask for a supervisor or a live agent. If told to visit IT security or HR "
        "in person, accept that.",
        "edge_cases": ["Never invent new requests or details.", "Do not end the call while an action is pending."],
        "scripted": {
            "answers": answers,
            "push_back_say": push_back,
            "push_back_times": 1 if adversarial else 0,
            "followups": [p.request for p in parts[1:]],
        },
    }
    return Scenario.model_validate(
        {
            "id": scenario_id,
            "domain": "itsm",
            "workflow": "+".join(names),
            "type": kind,
            "current_date_time": NOW,
            "persona": {"id": "default", "name": name, "gender": caller["gender"], "text": PERSONA_TEXT},
            "user_goal": user_goal,
            "key_entities": key_entities,
            "scenario_db": db,
            "reference_calls": calls,
            "expected_scenario_db": executor.db,
            "expected_flow": " ".join(p.flow for p in parts),
        }
    )


def build_all() -> list[Scenario]:
    return [build(*spec) for spec in plan()]


def write(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for scenario in build_all():
        path = out_dir / f"{scenario.id}.json"
        path.write_text(json.dumps(scenario.model_dump(mode="json"), indent=1) + "\n")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    paths = write(Path(args[0]) if args else OUT_DIR)
    print(f"wrote {len(paths)} ITSM scenarios to {paths[0].parent}")
