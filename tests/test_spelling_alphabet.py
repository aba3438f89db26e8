"""Spelling with the alphabet (issue 17.2): a caller whose code was misheard spells it with the NATO alphabet (EVA-Bench
App. K: "spell it out using the NATO phonetic alphabet ... only if the agent mishears you"), in the persona's way
(``persona.spelling``: nato | as_in | letters); the workflow agent asks for the alphabet when it did not catch a
code with letters and primes its recogniser with a made-up code of the slot's format, spelled so."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

import pytest
from pydantic import ValidationError

from evalkit.agents.reference.slot_hearing import hear_slot
from evalkit.agents.reference.workflow_hearing import spells_letters
from evalkit.agents.reference.workflow_policy import ALPHABET_ASK
from evalkit.config.schema import PersonaConfig
from evalkit.domains.hr.workflows.steps import EMPLOYEE_ID, FACILITY, FACILITY_FORM
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import PersonaSpec
from evalkit.spoken import spell_with_alphabet
from evalkit.text_dialogue import run_text_dialogue, transcript

TODAY = date(2026, 7, 20)


def test_the_three_spellings_of_a_code() -> None:
    assert spell_with_alphabet("AWE-46R", "nato") == "Alpha, Whiskey, Echo, 4, 6, Romeo"
    assert (
        spell_with_alphabet("AWE-46R", "as_in") == "A as in Alpha, W as in Whiskey, E as in Echo, 4, 6, R as in Romeo"
    )
    assert spell_with_alphabet("AWE-46R", "letters") == "A, W, E, 4, 6, R"


@pytest.mark.parametrize(
    "heard",
    [
        "It's Alpha, Whiskey, Echo, 4, 6, Romeo.",
        "It's A as in Alpha, W as in Whiskey, E as in Echo, 4, 6, R as in Romeo.",
        # the unstressed "as" written "is" (tiny.en on Piper's voice, measured: "T is in Tango")
        "It's Alpha, W is in Whiskey, E is in Echo, 4, 6, R as in Romeo.",
        "It's A, W, E, 4, 6, R.",
    ],
)
def test_every_spelling_is_heard_as_the_code(heard: str) -> None:
    assert hear_slot(FACILITY, heard, TODAY) == "AWE-46R"


def test_the_word_after_as_in_names_the_letter_not_the_letter_before_it() -> None:
    # the letter was heard wrong ("M" for "N"), the alphabet word says which it was
    assert hear_slot(FACILITY, "M as in November, Papa, Kilo, 1, 2, Zulu.", TODAY) == "NPK-12Z"


def test_only_codes_with_letters_of_their_own_are_asked_for_with_the_alphabet() -> None:
    assert spells_letters(FACILITY)
    assert not spells_letters(EMPLOYEE_ID)  # its only letters are the format's EMP


def _hr(scenario_id: str) -> Scenario:
    return next(s for s in load_scenarios("medical_hr") if s.id == scenario_id)


def _first_code_lost(code: str) -> tuple[dict[str, int], Callable[[str], str]]:
    """An ear that does not catch the caller's first spelling of ``code`` (letters, with or without pauses)."""
    state = {"lost": 0}
    spelled = re.compile(r"\W+".join(code.replace("-", "")))  # "A W E - 4 6 R", "A, W, E, -, 4, 6, R"

    def ear(text: str) -> str:
        if state["lost"] == 0 and spelled.search(text):
            state["lost"] += 1
            return "If such, I will leave for six hours."
        return text

    return state, ear


@pytest.mark.parametrize(
    ("spelling", "said"),
    [
        ("nato", "Alpha, Whiskey, Echo, 4, 6, Romeo"),
        ("as_in", "A as in Alpha, W as in Whiskey, E as in Echo, 4, 6, R as in Romeo"),
        ("letters", "A, W, E, 4, 6, R"),
    ],
)
def test_a_facility_code_not_caught_is_asked_for_with_the_alphabet(spelling: str, said: str) -> None:
    """HR-017 (a provider's facility code AWE-46R): the first spelling is lost; the agent asks for the phonetic
    alphabet, the caller spells it the persona's way, and the task completes."""
    scenario = _hr("HR-017")
    code = scenario.user_goal.scripted.answers["facility_code"]
    assert code == "AWE-46R"
    state, ear = _first_code_lost(code)
    conversation = run_text_dialogue(scenario, ear=ear, persona=PersonaSpec(spelling=spelling))  # type: ignore[arg-type]
    lines = transcript(conversation)
    assert state["lost"] == 1
    asked = next(i for i, (role, text) in enumerate(lines) if role == "assistant" and ALPHABET_ASK.strip() in text)
    assert lines[asked + 1] == ("user", f"It's {said}."), lines[asked : asked + 2]
    assert task_completion(conversation).passed, lines


def test_the_agent_asks_for_the_alphabet_once_a_code_was_not_caught() -> None:
    """HR-017's facility code: after the answer was not caught, the agent asks for the phonetic alphabet (a careful
    human's repair; its recogniser gets no prompt); the n-best's form check takes the alphabet spelling; the answer is
    read back as letters."""
    from evalkit.agents.base import ToolBox
    from evalkit.agents.reference.hearing import expected_form
    from evalkit.agents.reference.workflow_policy import WorkflowPolicy
    from evalkit.domains import tool_registry
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.hr.workflows import WORKFLOWS

    scenario = _hr("HR-017")
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("medical_hr"), scenario.scenario_db)), TODAY, WORKFLOWS)
    policy.step("I need to transfer my DEA registration to a new facility.")
    policy.step(f"It's {', '.join(scenario.user_goal.scripted.answers['npi'])}.")
    policy.step("Yes, that's right.")
    assert policy.last_text.endswith(FACILITY.question)
    policy.step("If such, I will leave for six hours.")
    assert policy.last_text.endswith(ALPHABET_ASK)
    fits = expected_form(policy)
    assert fits is not None and fits("It's Alpha, Whiskey, Echo, 4, 6, Romeo.") and not fits("It's Alpha, 4.")
    policy.step("It's Alpha, Whiskey, Echo, 4, 6, Romeo.")
    assert policy.last_text == "I have A W E 4 6 R. Is that right?"


def test_a_name_the_agent_asks_to_spell_is_spelled() -> None:
    """HR-011: "Please spell the dependent's first name." was answered "It's Rajesh." (heard "It's a lot of cash");
    a caller asked to spell spells, letter by letter."""
    scenario = _hr("HR-011")
    conversation = run_text_dialogue(scenario)
    lines = transcript(conversation)
    asked = next(
        i for i, (role, text) in enumerate(lines) if role == "assistant" and "spell the dependent's first" in text
    )
    first = scenario.user_goal.scripted.answers["dependent_first_name"]
    assert ", ".join(first.upper()) in lines[asked + 1][1], lines[asked + 1]
    assert task_completion(conversation).passed


def test_an_unknown_spelling_is_refused_with_the_choices() -> None:
    with pytest.raises(ValidationError, match="nato"):
        PersonaConfig(name="default", spelling="klingon")  # type: ignore[arg-type]
    assert PersonaConfig(name="default").spelling == "nato"
    assert FACILITY.pattern == FACILITY_FORM


def test_a_correction_that_lands_neither_way_is_followed_by_the_whole_code_with_the_alphabet() -> None:
    """HR-029 (facility code DNA-93Z): heard "D N D 9 3 Z"; "the third one is Alpha" was heard "... is melted" and
    "the third one is A" "... is made" every time (tiny.en on eSpeak). After both ways missed, the caller spells the
    whole code with the alphabet, which is heard, and the task completes."""
    scenario = _hr("HR-029")
    code = scenario.user_goal.scripted.answers["facility_code"]
    assert code == "DNA-93Z"
    first = re.compile(r"\W+".join(code.replace("-", "")))
    state = {"first": 0}

    def ear(text: str) -> str:
        if first.search(text) and not state["first"]:
            state["first"] += 1
            return "It's D N D 9 3 Z."
        text = text.replace("the third one is Alpha", "the third one is melted")
        return text.replace("the third one is A.", "the third one is made.")

    conversation = run_text_dialogue(scenario, ear=ear)
    said = [text for role, text in transcript(conversation) if role == "user"]
    assert "No. It's Delta, November, Alpha, 9, 3, Zulu." in said, said
    assert task_completion(conversation).passed, said


def test_a_recognisers_mishearing_of_alpha_is_not_read_as_a_letter() -> None:
    # issue 28.3: "Elvis" for eSpeak's "Alpha" was tiny.en lore; a word that is no alphabet word is no character, so
    # the code is not caught and the agent asks again (a careful human's repair), rather than guessing an A
    assert hear_slot(FACILITY, "It's Kilo, Charlie, Golf, 2, 8, Elvis.", TODAY) is None
    assert hear_slot(FACILITY, "It's Kilo, Charlie, Golf, 2, 8, Alpha.", TODAY) == "KCG-28A"
