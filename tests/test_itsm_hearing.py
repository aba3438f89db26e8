"""How the workflow agent hears ITSM's entities (issue 17.2): an employee ID by its six digits (the tools' "EMP
followed by 6 digits" format), digit strings and choices with a format prompt, and a building by the names the tool
listed after a miss. On the domain's own scenarios and workflows; the ear garbles the caller the way tiny.en did in
the measured runs (the records' heard text)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.hearing import expected_form
from evalkit.agents.reference.workflow_hearing import closest_name
from evalkit.agents.reference.workflow_policy import Run, WorkflowPolicy, hear_slot, listed_names, named_in
from evalkit.domains import get_domain, tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.domains.itsm.workflows.steps import EMPLOYEE_ID
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.workflow import Ask
from evalkit.metrics.task_completion import task_completion
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.text_dialogue import run_text_dialogue, transcript

TODAY = date(2026, 6, 20)
BUILDINGS = ("Harbor Point", "Riverside Center", "Summit Tower", "Lakeview Annex")


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("It's C M B 5 9 5 5 3 4.", "EMP595534"),  # as tiny.en heard IT-002's "E M P 5 9 5 5 3 4"
        ("the D&M B-5-9-5-5-3-4.", "EMP595534"),
        ("It's E M P five nine 5 5 3 4", "EMP595534"),
        ("The CM-B5.5-534.", None),  # five digits: asked again, never padded
    ],
)
def test_an_employee_id_is_heard_by_its_six_digits_whatever_the_prefix_sounded_like(heard: str, value: str) -> None:
    assert hear_slot(EMPLOYEE_ID, heard, TODAY) == value


def test_the_id_form_check_wants_six_digits() -> None:
    workflows = get_domain("itsm").workflows
    assert workflows is not None
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("itsm"), {})), TODAY, workflows)
    policy.step("I need a new laptop, a laptop replacement.")  # -> the employee ID
    fits = expected_form(policy)
    assert fits is not None and fits("It's C M B 7 4 4 4 1 9.") and not fits("C-M-B-7, 4, 4, 1, 9.")
    policy.step("It's C M B 7 4 4 4 1 9.")
    assert policy.last_text == "I have E M P 7 4 4 4 1 9. Is that right?"  # the read-back says the whole ID


@pytest.mark.parametrize(
    ("heard", "name"),
    [
        ("hardware point", "Harbor Point"),
        ("Harder point", "Harbor Point"),
        ("reverse side center", "Riverside Center"),
        ("Remember, side-center", "Riverside Center"),
        ("That's Summit Tower, please.", "Summit Tower"),
        ("So, I'm going to tell you", None),  # nothing like any name: asked again
        ("Point", None),  # as close to no name as to another
    ],
)
def test_a_name_is_heard_against_the_list_a_tool_gave(heard: str, name: str | None) -> None:
    assert closest_name(heard, BUILDINGS) == name


def test_a_tool_error_that_lists_names_is_read_for_them() -> None:
    message = (
        "Building 'hardware point' not recognized. Provide a code or a known name. Known names: Harbor Point, "
        "Riverside Center, Summit Tower, Lakeview Annex."
    )
    assert listed_names(message) == BUILDINGS
    assert listed_names("Building 'x' not recognized. Known names: (none on file).") == ()
    assert named_in("hardware point", message) and not named_in("EMP032961", message)


def test_a_misheard_building_is_asked_again_against_the_tools_list_and_the_task_completes() -> None:
    """IT-006 as measured: "Harbor Point" was heard "hardware point" every time; the tool's refusal lists the known
    buildings, the agent asks for the building (not the employee ID, as before) and hears it against that list."""
    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-006")
    conversation = run_text_dialogue(scenario, ear=lambda text: text.replace("Harbor Point", "hardware point"))
    agent = [text for role, text in transcript(conversation) if role != "user"]
    asked_again = [t for t in agent if "couldn't find a match" in t]
    assert len(asked_again) == 1 and "building for the delivery" in asked_again[0]
    assert "The ones I have are Harbor Point, Riverside Center" in asked_again[0]
    assert task_completion(conversation).passed


def test_a_free_text_answer_is_heard_in_the_light_of_the_callers_request() -> None:
    """IT-008: among the n best, the hypothesis that repeats a word of the caller's request ("Visio") is taken over
    one that does not ("We see."): a listener who heard what the call is about."""
    workflows = get_domain("itsm").workflows
    assert workflows is not None
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("itsm"), {})), TODAY, workflows)
    policy.step("Hi, I need a license for Visio.")  # the request as heard; -> the employee ID
    policy.pending = "slot"
    policy.run = Run(workflows["software_license"], index=_ask_index(workflows["software_license"], "text"))
    fits = expected_form(policy)
    assert fits is not None and fits("Visio.") and not fits("We see.")


def test_a_caller_says_a_repeated_digit_double_and_pauses_when_asked_to_go_slowly() -> None:
    """IT-003: "9 9 8" was heard "9 8" (even with pauses); the caller says "double 9", and asked again "slowly, one
    at a time", pauses after each."""
    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-003")
    simulator = ScriptedSimulator(scenario)
    simulator.first_utterance()
    first = simulator.respond("Sure, I can help with that. Could I have your employee ID, please?").text
    slow = simulator.respond("Could I have your employee ID, please? Please say the digits slowly, one at a time.").text
    # a repeated digit as callers say it, spelled plainly the first time
    assert first.endswith("E M P double 9 8 7 5 1.")
    assert slow == "It's... E... M... P... double 9... 8... 7... 5... 1..."
    assert hear_slot(EMPLOYEE_ID, "It's CMP double 9 8 7 5 1", TODAY) == "EMP998751"  # as tiny.en heard it
    assert hear_slot(EMPLOYEE_ID, slow, TODAY) == "EMP998751"
    assert hear_slot(EMPLOYEE_ID, first, TODAY) == "EMP998751"


def _ask_index(workflow: Any, kind: str) -> int:
    return next(i for i, step in enumerate(workflow.steps) if isinstance(step, Ask) and step.slot.kind == kind)


def test_a_product_is_heard_against_the_callers_own_licenses() -> None:
    """IT-027 as measured: "Visio." was heard "Visible." and the renewal found no license of that name (and the agent
    asked for the employee ID again). The licenses are looked up first now, and the answer heard against them."""
    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-027")

    def ear(text: str) -> str:
        return text.replace("Visio", "Visible")

    conversation = run_text_dialogue(scenario, ear=ear)
    heard = [t.heard_text for t in conversation.turns if t.role == "user"]
    assert any(h and "Visible" in h for h in heard)  # the ear did garble it
    assert not any("couldn't find a match" in text for role, text in transcript(conversation) if role != "user")
    assert task_completion(conversation).passed


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("G R P F I N R P T.", "GRP-FINRPT"),
        ("D-R-B-F-I-N-R-P-T.", "GRP-FINRPT"),  # the prefix as tiny.en heard it: the format's GRP
        ("It's G R P - D S L A B.", "GRP-DSLAB"),
        ("The RPD slam.", None),  # as heard when the caller read it as a word: asked again
    ],
)
def test_a_group_code_is_spelled_with_the_formats_prefix(heard: str, value: str | None) -> None:
    workflows = get_domain("itsm").workflows
    assert workflows is not None
    slot = next(s for s in workflows["group_membership"].slots if s.name == "group_code")
    assert hear_slot(slot, heard, TODAY) == value


def test_a_group_code_is_read_back_and_corrected_a_character_at_a_time() -> None:
    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-035")
    code = scenario.user_goal.scripted.answers["group_code"]
    wrong = code[:5] + ("X" if code[5] != "X" else "Y") + code[6:]  # one letter misheard
    plain, misheard = code.replace("-", ""), wrong.replace("-", "")

    def ear(text: str) -> str:  # the code as spelled, with or without pauses (a long ID has them from the start)
        for sep in (" ", ", "):
            text = text.replace(sep.join(code), sep.join(wrong)).replace(sep.join(plain), sep.join(misheard))
        return text

    conversation = run_text_dialogue(scenario, ear=ear)
    said = [text for _, text in transcript(conversation)]
    assert f"I have {' '.join(wrong.replace('-', ''))}. Is that right?" in said
    assert task_completion(conversation).passed


def test_a_corrected_group_code_is_in_the_tools_form() -> None:
    """IT-015 as measured: "G R P B S L A B", corrected to "G R P D S L A B" and confirmed, went to the tool as
    "GRPDSLAB" (no dash: the tool refused it). A corrected code is put back in the pattern's written form."""
    workflows = get_domain("itsm").workflows
    assert workflows is not None
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("itsm"), {})), TODAY, workflows)
    policy.pending = "slot"
    policy.run = Run(workflows["group_membership"], index=_ask_index(workflows["group_membership"], "code"))
    assert policy.step("G R P B S L A B.").text == "I have G R P B S L A B. Is that right?"
    assert policy.step("No, the fourth one is Delta.").text == "I have G R P D S L A B. Is that right?"
    policy.step("Yes, that's right.")
    assert policy.known["group_code"] == "GRP-DSLAB"


def test_a_product_not_found_is_asked_again_by_what_it_is() -> None:
    """IT-008: the product heard as nothing like a product the caller holds (EVA-Bench's "Figma" was heard "Take
    that") is asked again naming what was not found: "that software product" (it said "that license for", the slot's
    old label)."""
    state = {"done": False}

    def ear(text: str) -> str:
        if text.strip(" .") == "Visio" and not state["done"]:  # the answer, not the opening request naming it
            state["done"] = True
            return "Take that."
        return text

    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-008")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert any("couldn't find a match for that software product" in text for text in agent), agent
    assert task_completion(conversation).passed, agent
