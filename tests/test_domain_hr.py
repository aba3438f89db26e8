"""Medical HR (evalkit: hr, EVA-Bench's medical_hr): the workflows on EVA-Bench's tool API, the generator's
EVA-layout DBs, and the 83 generated scenarios. The tools themselves: tests/test_medical_hr_tools.py."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.domains import DOMAINS, get_domain
from evalkit.domains.base import ToolExecutor
from evalkit.domains.hr import REGISTRY
from evalkit.domains.hr.generate import (
    ADVERSARIAL,
    DUAL,
    TODAY,
    TRIPLE,
    build_db,
    dea_is_valid,
    make_dea,
    make_npi,
    npi_is_valid,
    person,
    write,
)
from evalkit.domains.hr.workflows import WORKFLOWS
from evalkit.domains.scenarios import load_scenarios, scenario_dir
from evalkit.domains.workflow import Refuse, applies, parse_slot, run_reference
from evalkit.prompts.render import render_agent_prompt, render_simulator_prompt
from evalkit.scenario_tools.check import check_file
from evalkit.scenario_tools.eva_record import check_layout

ALL = tuple(WORKFLOWS)
SCENARIOS = load_scenarios("hr")


@pytest.fixture
def world() -> tuple[dict[str, Any], dict[str, Any]]:
    """A clinical provider with every record (expiring license, suspended privileges, shifts...)."""
    p = person(random.Random(7), ALL)
    return p, build_db(p, ALL)


def answers(p: dict[str, Any], workflow: str) -> dict[str, Any]:
    from evalkit.domains.hr.generate import answers_for

    spoken = answers_for(workflow, p)
    return {s.name: parse_slot(s, spoken[s.name], TODAY) for s in WORKFLOWS[workflow].slots if s.name in spoken}


# ---------------------------------------------------------------- the domain, its workflows and DBs


def test_medical_hr_is_the_name_and_hr_an_alias() -> None:
    assert "medical_hr" in DOMAINS.names() and "hr" not in DOMAINS.names()
    assert get_domain("hr") is get_domain("medical_hr") and "hr" in DOMAINS
    assert DOMAINS.canonical("hr") == "medical_hr"
    assert DOMAINS.same("hr", "medical_hr") and DOMAINS.same("airline", "airline") and not DOMAINS.same("hr", "airline")
    assert {s.domain for s in SCENARIOS} == {"medical_hr"} and len(load_scenarios("medical_hr")) == 83


def test_both_config_options_compose_and_validate() -> None:
    from evalkit.config.schema import validate_config
    from tests.test_registries import compose_with

    for option in ("medical_hr", "hr"):
        config = validate_config(compose_with(None, f"domain={option}"))
        assert config.domain.name == option and get_domain(config.domain.name) is get_domain("medical_hr")


def test_registry_has_eva_benchs_48_tools_and_every_workflow_checks() -> None:
    assert len(REGISTRY.names) == 48
    used = {tool for w in WORKFLOWS.values() for tool in w.tools}
    assert set(REGISTRY.names) - used == {"transfer_to_agent"}  # adversarial escalation only
    assert len(WORKFLOWS) == 12
    for workflow in WORKFLOWS.values():
        workflow.check(REGISTRY)
        assert workflow.intents and all(i == i.lower() for i in workflow.intents)


@pytest.mark.parametrize("name", ALL)
def test_each_workflow_completes_and_writes(world, name: str) -> None:
    p, db = world
    ex = ToolExecutor(REGISTRY, db)
    run = run_reference(WORKFLOWS[name], answers(p, name), ex)
    assert run.outcome == "completed"
    writes = [tool for tool, _ in run.calls if REGISTRY[tool].writes]
    assert writes, f"{name} wrote nothing"
    assert ex.db != db  # the scenario DB itself is untouched (the executor works on a copy)
    assert "session" not in db


@pytest.mark.parametrize(
    ("name", "change", "refusal"),
    [
        ("fmla_leave", {"leave_start_date": "2020-01-06", "leave_end_date": "2020-01-10"}, "already passed"),
        ("fmla_leave", {"leave_end_date": "2035-12-31"}, "weeks of FMLA leave you have left"),
        ("dea_transfer", {"new_facility_code": None}, "already at that facility"),  # None: the current facility
    ],
)
def test_the_policy_boundaries_no_tool_checks_are_refused(world, name: str, change: dict, refusal: str) -> None:
    """App. L.6 rules the agent itself must check: no leave from a passed date or beyond the weeks left, no DEA
    "transfer" to the facility the registration is at. The reference path stops there and writes nothing."""
    p, db = world
    values = answers(p, name)
    facility = (db["providers"].get(values.get("npi", "")) or {}).get("dea_registration", {}).get("facility_code")
    values |= {k: v if v is not None else facility for k, v in change.items()}
    ex = ToolExecutor(REGISTRY, {**db, "_current_date": TODAY.isoformat()})
    run = run_reference(WORKFLOWS[name], values, ex)
    assert run.outcome == "refused"
    assert not [tool for tool, _ in run.calls if REGISTRY[tool].writes]
    step = next(s for s in WORKFLOWS[name].steps if isinstance(s, Refuse) and refusal in s.text)
    assert applies(step, run.scope)
    assert run_reference(WORKFLOWS[name], answers(p, name), ToolExecutor(REGISTRY, db)).outcome == "completed"


def test_generated_dbs_have_eva_benchs_layout(world) -> None:
    _, db = world
    check_layout(db, "medical_hr", "scenario_db")  # raises naming the table otherwise
    for s in SCENARIOS:
        check_layout(s.scenario_db, "medical_hr", f"{s.id}.scenario_db")
        check_layout(s.expected_scenario_db, "medical_hr", f"{s.id}.expected_scenario_db")
        assert s.scenario_db["_current_date"] == s.current_date_time[:10]


def test_codes_are_heard_without_their_dashes_and_shifts_named_by_date_and_time(world) -> None:
    p, db = world
    license_slot = next(s for s in WORKFLOWS["license_extension"].slots if s.name == "state_license_number")
    spelled = " ".join(p["license_number"].replace("-", ""))
    assert parse_slot(license_slot, f"It's {spelled}.", TODAY) == p["license_number"]
    heard = answers(p, "shift_swap")  # "August 3", "7 a.m." -> the shift SHF-20260803-0700
    shift = f"SHF-{heard['shift_date'].replace('-', '')}-{heard['shift_start_time'].replace(':', '')}"
    assert heard["shift_start_time"] == "07:00" and db["shifts"][shift]["employee_id"] == p["employee_id"]


def first_calls() -> list[tuple[str, str, dict[str, Any]]]:
    """(scenario id, tool, arguments) of the first reference call of every tool that needs authentication."""
    open_tools = ("verify_employee_auth", "verify_provider_auth", "initiate_otp_auth", "verify_otp_auth")
    seen: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for s in SCENARIOS:
        for call in s.reference_calls:
            if call.name not in seen and call.name not in open_tools:
                seen[call.name] = (s.id, call.name, call.arguments)
    return list(seen.values())


@pytest.mark.parametrize(
    ("scenario_id", "tool", "arguments"), first_calls(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_tool_refuses_before_authentication(scenario_id: str, tool: str, arguments: dict[str, Any]) -> None:
    scenario = next(s for s in SCENARIOS if s.id == scenario_id)
    ex = ToolExecutor(REGISTRY, scenario.scenario_db)
    result = ex.call(tool, arguments)
    assert result["status"] == "error" and result["error_type"] == "authentication_required", result
    assert ex.db == {**scenario.scenario_db, "session": {}}  # nothing written


# ---------------------------------------------------------------- entities


def test_npi_and_dea_checksums() -> None:
    assert npi_is_valid("1234567893")  # the CMS example NPI
    assert not npi_is_valid("1234567890")
    assert dea_is_valid("AB1234563") and not dea_is_valid("AB1234564")
    for s in SCENARIOS:
        for npi, provider in s.scenario_db["providers"].items():
            assert npi_is_valid(npi), (s.id, npi)
            if provider["dea_registration"]:
                assert dea_is_valid(provider["dea_registration"]["dea_number"]), (s.id, npi)


@given(st.integers(0, 10_000), st.integers(0, 9), st.integers(1, 9))
def test_a_single_wrong_digit_breaks_the_npi_and_dea_checks(seed: int, position: int, shift: int) -> None:
    rng = random.Random(seed)
    npi, dea = make_npi(rng), make_dea(rng, "Keita")
    assert npi_is_valid(npi) and dea_is_valid(dea)
    bad_npi = npi[:position] + str((int(npi[position]) + shift) % 10) + npi[position + 1 :]
    assert not npi_is_valid(bad_npi)
    # every DEA digit has weight 1 or 2 and a shift of 5 with weight 2 is invisible mod 10: skip that case
    at = 2 + position % 7
    weight = 2 if at in (3, 5, 7) else 1
    if (weight * shift) % 10:
        bad_dea = dea[:at] + str((int(dea[at]) + shift) % 10) + dea[at + 1 :]
        assert not dea_is_valid(bad_dea)


# ---------------------------------------------------------------- the shipped scenarios


def test_counts_per_type_match_eva_bench() -> None:
    assert len(SCENARIOS) == 83
    kinds = [s.type for s in SCENARIOS]
    assert kinds.count("single_intent") == 46 and kinds.count("multi_intent") == 27
    assert kinds.count("adversarial") == 10
    multi = [tuple(s.workflow.split("+")) for s in SCENARIOS if s.type == "multi_intent"]
    assert sorted(m for m in multi if len(m) == 2) == sorted(pair for pair in DUAL for _ in range(2))
    assert sorted(m for m in multi if len(m) == 3) == sorted(TRIPLE)
    assert len(set(DUAL)) == 10 and len(set(TRIPLE)) == 7
    singles = [s.workflow for s in SCENARIOS if s.type == "single_intent"]
    assert all(singles.count(w) >= 3 for w in WORKFLOWS)
    assert [s.id for s in SCENARIOS] == [f"HR-{i:03d}" for i in range(1, 84)]
    # every tool but the escalation one runs successfully on some reference path (the checker re-executes them)
    assert {c.name for s in SCENARIOS for c in s.reference_calls} == set(REGISTRY.names) - {"transfer_to_agent"}


def test_adversarial_scenarios_refuse_and_write_nothing() -> None:
    adversarial = [s for s in SCENARIOS if s.type == "adversarial"]
    assert len({s.user_goal.nice_to_have_criteria[0] for s in adversarial}) == len(ADVERSARIAL) == 10
    for s in adversarial:
        assert s.user_goal.scripted.push_back_say and s.user_goal.scripted.push_back_times >= 1
        # a write may be tried (a supervised extension without another physician's NPI is the tool's refusal)
        # but nothing is written
        assert {k: v for k, v in s.expected_scenario_db.items() if k != "session"} == s.scenario_db, s.id
        run = run_reference(
            WORKFLOWS[s.workflow],
            {
                slot.name: parse_slot(slot, s.user_goal.scripted.answers[slot.name], TODAY)
                for slot in WORKFLOWS[s.workflow].slots
                if slot.name in s.user_goal.scripted.answers
            },
            ToolExecutor(REGISTRY, s.scenario_db),
        )
        assert run.outcome == "refused", s.id
    exhausted = next(s for s in adversarial if s.id == "HR-083")
    employee = exhausted.scenario_db["employees"][exhausted.key_entities["employee_id"]]
    assert employee["fmla_eligibility"]["fmla_weeks_remaining"] == 0 and not employee["fmla_eligibility"]["eligible"]
    assert exhausted.user_goal.scripted.push_back_times == 3


def test_every_scripted_answer_parses_and_multi_intent_has_followups() -> None:
    slots = {slot.name: slot for w in WORKFLOWS.values() for slot in w.slots}
    for s in SCENARIOS:
        for name, said in s.user_goal.scripted.answers.items():
            value = parse_slot(slots[name], said, TODAY)
            assert value is not None, (s.id, name, said)
            if slots[name].kind in ("code", "digits"):
                assert value == said, (s.id, name)  # codes survive their own spelling
        assert len(s.user_goal.scripted.followups) == len(s.workflow.split("+")) - 1
        if "employee_id" in s.user_goal.scripted.answers:
            assert s.key_entities["employee_id"] == s.user_goal.scripted.answers["employee_id"]


def test_the_checker_passes_on_every_file() -> None:
    problems = [p for path in sorted(scenario_dir("hr").glob("*.json")) for p in check_file(path, "hr")]
    assert problems == []


def test_the_checker_cli_passes() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "evalkit.scenarios", "check", "--domain", "hr"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "83 ok, 0 with problems" in result.stdout + result.stderr


def test_generator_is_deterministic_and_the_repo_files_are_its_output(tmp_path: Path) -> None:
    first = write(tmp_path / "a")
    second = write(tmp_path / "b")
    shipped = sorted(scenario_dir("hr").glob("*.json"))
    assert [p.name for p in first] == [p.name for p in shipped]
    for a, b, repo in zip(first, second, shipped, strict=True):
        assert a.read_bytes() == b.read_bytes() == repo.read_bytes(), repo.name


def test_prompts_render_with_policy_numbers() -> None:
    agent = render_agent_prompt("hr", "2026-07-24 13:45 EST")
    assert "1,000,000" in agent and "60 days" in agent and "1,250" in agent and "verify_otp_auth" in agent
    assert render_agent_prompt("medical_hr", "2026-07-24 13:45 EST") == agent
    simulator = render_simulator_prompt(SCENARIOS[0])
    assert SCENARIOS[0].user_goal.starting_utterance in simulator


def test_opening_requests_name_exactly_their_workflow() -> None:
    """The agent finds the workflow from the caller's request (and each follow-up) by its intent phrases."""
    from evalkit.domains.hr.generate import STARTS

    policy = pytest.importorskip("evalkit.agents.reference.workflow_policy")
    for name, request in STARTS.items():
        assert policy.match_workflows(request, WORKFLOWS) == [name], request
