"""medical_hr's clean audio baseline, round 3 (issue 17.2): what a listener who knows the domain does with a misheard
answer — a name heard against the domain's fixed vocabulary, a misheard teen said again with its digits, a date of
birth's year an employee can have, an expiry read back with its year, codes matched against the record the agent
looked up — and how the caller says what it says (codes in free text spelled, "none" said as "No blackout dates").
The garbled transcripts are what tiny.en wrote for eSpeak's caller in clean medical_hr cells."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.hearing import expected_form
from evalkit.agents.reference.slot_hearing import hear_slot, read_back_text
from evalkit.agents.reference.workflow_policy import Run, WorkflowPolicy
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.domains.hr.workflows import WORKFLOWS
from evalkit.domains.hr.workflows.checklist import finished_on_checklist
from evalkit.domains.hr.workflows.steps import PRIVILEGE_FORM, codes_on_record, dates_or_none, full_date
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.workflow import Ask, Slot, parse_slot
from evalkit.metrics.task_completion import task_completion
from evalkit.scenarios import Scenario
from evalkit.simulator.scripted.read_back import restated_number, same_date
from evalkit.text_dialogue import run_text_dialogue, transcript

TODAY = date(2026, 7, 20)


def _hr(scenario_id: str) -> Scenario:
    return next(s for s in load_scenarios("medical_hr") if s.id == scenario_id)


def _slot(workflow: str, name: str) -> tuple[Slot, int]:
    steps = WORKFLOWS[workflow].steps
    index = next(i for i, s in enumerate(steps) if isinstance(s, Ask) and s.slot.name == name)
    step = steps[index]
    assert isinstance(step, Ask)
    return step.slot, index


def _policy_at(workflow: str, slot_name: str) -> WorkflowPolicy:
    _, index = _slot(workflow, slot_name)
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("medical_hr"), {})), TODAY, WORKFLOWS)
    policy.run, policy.pending = Run(WORKFLOWS[workflow], index, scope={}), "slot"
    return policy


def _garble_once(said: Callable[[str], bool], heard: str) -> tuple[dict[str, int], Callable[[str], str]]:
    state = {"garbled": 0}

    def ear(text: str) -> str:
        if said(text) and not state["garbled"]:
            state["garbled"] += 1
            return heard
        return text

    return state, ear


# -- the domain's fixed vocabulary -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("workflow", "slot", "heard", "value"),
    [
        ("dea_transfer", "new_state_code", "Massachuses.", "Massachusetts"),
        ("visa_dependent", "dependent_country_of_birth", "Vietnamese.", "Vietnam"),
        ("i9_verification", "document_type_code", "Employment organization document.", "employment authorization"),
        ("privilege_reactivation", "access_change_type", "Let's do this trick to access.", "restricted access"),
    ],
)
def test_an_answer_from_the_domain_vocabulary_is_heard_as_its_nearest_name(
    workflow: str, slot: str, heard: str, value: str
) -> None:
    policy = _policy_at(workflow, slot)
    fits = expected_form(policy)
    assert fits is not None and fits(heard) and not fits("Thank you very much.")
    assert policy.run is not None
    policy.run.scope.update(npi="1922636612", reactivated={"case_id": "CASE-1"})  # what the later calls name
    policy.step(heard)
    assert policy.known[slot] == value


def test_words_near_no_name_of_the_vocabulary_are_asked_again() -> None:
    policy = _policy_at("visa_dependent", "dependent_country_of_birth")
    policy.step("Me at home.")  # "Vietnam", as tiny.en wrote it once: near no country
    assert policy.last_text.startswith("Sorry, I didn't catch that."), policy.last_text


# -- numbers ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("No, it's not the one million.", 1_000_000),  # eSpeak's "$1,000,000" as tiny.en writes it
        ("$1 million", 1_000_000),
        ("1.5 million dollars", 1_500_000),
        ("$750,000", 750_000),
        ("2 0 0 0 0 0 0", 2_000_000),
        ("No, it's 1 4, 14.", 14),  # the caller's restatement: digits first, then the number
        ("No, it's 1-3, 13.", 13),
        ("12.5 hours", 12.5),
    ],
)
def test_a_number_is_heard_with_its_scale_and_its_digits(heard: str, value: float) -> None:
    hours = Slot("hours", "number", "How many hours?", label="hours")
    assert parse_slot(hours, heard, TODAY) == value


def test_a_decimal_figure_read_back_as_its_whole_part_is_not_restated_as_that_part() -> None:
    # HR-007 in audio: "12.5 hours" read back "12"; the caller said "No, it's 1 2, 12." nine times (its own value
    # cut to two digits) and the call was handed over; it now says its value as it is
    assert restated_number("12.5") is None and restated_number("12.5 hours") is None
    assert restated_number("12") == "No, it's 1 2, 12."


def test_a_teen_read_back_wrong_is_said_again_with_its_digits() -> None:
    """HR-031: "14 hours" was heard 40 every time the caller said "No, it's 14 hours."; said "No, it's 1 4, 14." the
    read-back is corrected and the payroll correction completes."""
    assert restated_number("14 hours") == "No, it's 1 4, 14."
    assert restated_number("12.0") == "No, it's 1 2, 12." and restated_number("$750,000") is None
    scenario = _hr("HR-031")
    state, ear = _garble_once(lambda text: "14 hours" in text, "It's 40 hours.")
    conversation = run_text_dialogue(scenario, ear=ear)
    lines = transcript(conversation)
    assert state["garbled"] == 1
    assert ("assistant", "I have 40. Is that right?") in lines and ("user", "No, it's 1 4, 14.") in lines, lines
    assert task_completion(conversation).passed, lines


# -- dates --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("June 4, 1989", "1989-06-04"),
        ("1989-06-04", "1989-06-04"),
        ("Thank you very much.", None),  # no date: asked again
    ],
)
def test_a_date_of_birth_is_the_date_said(heard: str, value: str | None) -> None:
    # issue 28.3: the "last year an employee can have" rule for tiny.en's doubled years is retired (12 of 12 dates
    # of birth heard exactly with the Piper voice); a date heard wrong is caught by the read-back and the tools
    assert full_date(heard) == value


def test_an_expiry_is_read_back_with_its_year_and_a_restated_one_is_taken() -> None:
    """HR-010: "March 27, 2030" heard "March 27, 2013" is read back with its year; the caller's "No, it's March 27,
    2030." is the value read back next, and the I-9 is submitted with 2030."""
    expiry, _ = _slot("i9_verification", "document_expiration_date")
    assert read_back_text(expiry, "2013-03-27") == "March 27, 2013"
    assert same_date("I have March 27, 2030. Is that right?", "2030-03-27")
    assert not same_date("I have March 27, 2013. Is that right?", "2030-03-27")
    scenario = _hr("HR-010")
    state, ear = _garble_once(lambda text: "March 27, 2030" in text, "March 27, 2013.")
    conversation = run_text_dialogue(scenario, ear=ear)
    lines = transcript(conversation)
    assert ("assistant", "I have March 27, 2013. Is that right?") in lines, lines
    assert ("assistant", "I have March 27, 2030. Is that right?") in lines, lines
    assert state["garbled"] == 1 and task_completion(conversation).passed, lines


def test_blackout_dates_are_dates_or_a_none_and_nothing_else() -> None:
    assert dates_or_none("August 7.") == "August 7."
    assert dates_or_none("No blackout dates.") == "No blackout dates."
    assert dates_or_none("August salmon.") is None  # "August 7" misheard: asked again, not registered as none


def test_the_caller_says_none_as_no_blackout_dates() -> None:
    scenario = _hr("HR-033")
    assert scenario.user_goal.scripted.answers["blackout_dates"] == "none"
    conversation = run_text_dialogue(scenario)
    assert any(text == "No blackout dates." for role, text in transcript(conversation) if role == "user")
    assert task_completion(conversation).passed


# -- codes in free text ---------------------------------------------------------------------------------------------
SUSPENDED = [
    {"code": "PRV-ONC-009", "status": "suspended"},
    {"code": "PRV-ONC-006", "status": "suspended"},
    {"code": "PRV-ONC-004", "status": "active"},
]


@pytest.mark.parametrize(
    ("heard", "codes"),
    [
        ("PRV-ONC-009 and PRV-ONC-006.", ["PRV-ONC-009", "PRV-ONC-006"]),
        ("The army on, zero, zero, nine, and the army on zero zero six.", ["PRV-ONC-009", "PRV-ONC-006"]),
        ("We are Mihiro Niro Niro 6.", ["PRV-ONC-006"]),
        ("The army on zero zero four.", None),  # not a suspended one
        ("The Army on Kneuro Mero Bion and the Army on Kneuro Mero 6.", None),  # one part names none: asked again
    ],
)
def test_privilege_codes_are_matched_by_their_number_on_the_record(heard: str, codes: list[str] | None) -> None:
    assert codes_on_record(heard, SUSPENDED, PRIVILEGE_FORM) == codes


CHECKLIST = {
    "onboarding_checklist": {
        "tasks": {
            "HIPAA_TRAIN": {"status": "pending", "completion_code": "X966"},
            "DRUG_SCREEN": {"status": "pending", "completion_code": "3D46"},
            "TB_TEST": {"status": "completed", "completion_code": "DXX3"},
        }
    }
}


@pytest.mark.parametrize(
    ("heard", "tasks"),
    [
        ("HIPAA training with code X, 9, 6, 6.", ["HIPAA_TRAIN"]),  # spelled with pauses: one code
        ("Hip-hop training with code 9, 6, 6.", ["HIPAA_TRAIN"]),  # three of four characters of one pending code
        ("Run screen with code 3, B, 4, 6.", ["DRUG_SCREEN"]),
        ("TV test with code Bx3.", []),  # two of four, and not a pending task
        ("The LS car does not upload with code, real to.", []),
    ],
)
def test_completion_codes_are_matched_on_the_checklist(heard: str, tasks: list[str]) -> None:
    assert [t["task_code"] for t in finished_on_checklist(heard, CHECKLIST)] == tasks


def test_the_caller_spells_a_code_in_free_text() -> None:
    scenario = _hr("HR-004")
    assert scenario.user_goal.scripted.answers["completion_codes"] == "BLS card upload with code 3L2U"
    conversation = run_text_dialogue(scenario)
    said = [text for role, text in transcript(conversation) if role == "user"]
    assert "BLS card upload with code 3, L, 2, U." in said, said
    assert task_completion(conversation).passed


def test_hearing_keeps_every_domain_complete_in_text_mode() -> None:
    """The vocabulary, the read-backs and the caller's spelling change nothing for a perfect ear."""
    for scenario in load_scenarios("medical_hr")[::7]:
        conversation = run_text_dialogue(scenario)
        assert task_completion(conversation).passed, scenario.id
    assert re.fullmatch(
        r"\d{4}-\d{2}-\d{2}",
        str(hear_slot(_slot("i9_verification", "document_expiration_date")[0], "May 7, 2032", TODAY)),
    )
