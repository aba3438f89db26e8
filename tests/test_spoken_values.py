"""The caller speaks a record as a person would (issue 28 point 5): written dates, clock times, amounts and codes in
spoken form, the phonetic alphabet when the agent asks for it; the LLM caller's prompt shows the spoken form."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from evalkit.domains.scenarios import load_scenarios
from evalkit.prompts.render import render_simulator_prompt
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import is_code
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.spoken import parse_date
from evalkit.spoken_values import ordinal, say_date, say_written_values, year_words

RECORD = {
    "date_of_birth": "1997-09-14",
    "shift_start": "19:30",
    "deposit": "$75.00",
    "ticket_code": "EJR-99V",
}


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("1997-09-14.", "September 14th, 1997."),
        ("Born 2000-01-02, shift 07:00", "Born January 2nd, 2000, shift 7 AM"),
        ("10:00 AM.", "10 AM."),
        ("at 19:30 or 3:30", "at 7:30 PM or 3:30"),  # "3:30" alone may be afternoon: left as written
        ("fee $75.00, $1,200 and $7.50", "fee 75 dollars, 1,200 dollars and 7 dollars and 50 cents"),
        ("$45.50, $1, $0.05", "45 dollars and 50 cents, 1 dollar, 5 cents"),
        ("I'll take flight SK130 at 1 PM.", "I'll take flight SK one thirty at 1 PM."),
        (
            "flight UA 1234, SK412, SK105, DL1200",
            "flight UA twelve thirty-four, SK four twelve, SK one oh five, DL twelve hundred",
        ),
        ("MA-MD-7878130, SC 29201", "MA-MD-7878130, SC 29201"),  # a dashed code and a ZIP code: no flight
        ("12.0 hours, 12.5 hours, version 2.0", "12 hours, 12.5 hours, version 2.0"),
        ("2026-02-30", "2026-02-30"),  # no date: as written
    ],
)
def test_written_values_as_said(written: str, said: str) -> None:
    assert say_written_values(written) == said


def test_dates_in_words() -> None:
    assert say_date("1997-09-14", words=True) == "September fourteenth, nineteen ninety-seven"
    assert say_date("2026-08-23", current_year=2026, words=True) == "August twenty-third"
    assert [year_words(y) for y in (2005, 2026, 1900, 1905)] == [
        "two thousand five", "twenty twenty-six", "nineteen hundred", "nineteen oh five"]  # fmt: skip
    assert [ordinal(n) for n in (1, 2, 12, 21, 30)] == ["first", "second", "twelfth", "twenty-first", "thirtieth"]


@pytest.mark.parametrize(
    "said",
    ["September 14th, 1997", "September fourteenth, nineteen ninety-seven", "the 14th of September 1997"],
)
def test_the_agent_side_parser_reads_a_said_year(said: str) -> None:
    assert parse_date(said, date(2026, 6, 1)) == date(1997, 9, 14)
    assert parse_date("It's Y, T, M, 9, 2, 4. November 8th.", date(2026, 6, 1)) == date(2026, 11, 8)


def test_dashed_codes_are_spelled_and_dates_are_not_codes() -> None:
    assert is_code("EJR-99V") and is_code("WK2EXB") and not is_code("2026-08-20") and not is_code("Ana")


def record_scenario() -> Scenario:
    """An imported record (a workflow evalkit does not know) whose answers are written as a database writes them."""
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-001")
    scripted = scenario.user_goal.scripted.model_copy(update={"answers": RECORD})
    goal = scenario.user_goal.model_copy(update={"scripted": scripted, "information_required": RECORD})
    return scenario.model_copy(update={"user_goal": goal, "source": "eva_import", "workflow": "eva_record"})


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("Could you tell me your date of birth?", "September 14th, 1997"),
        ("And your shift start?", "7:30 PM"),
        ("How much was the deposit?", "75 dollars"),
        ("What is your ticket code?", "E J R - 9 9 V"),
    ],
)
def test_the_caller_says_a_record_value_as_a_person_would(asked: str, said: str) -> None:
    simulator = ScriptedSimulator(record_scenario(), None, np.random.default_rng(0))
    text = simulator.respond(asked).text
    assert said in text and not any(v in text for v in RECORD.values()), text


def test_the_caller_spells_with_the_phonetic_alphabet_when_asked() -> None:
    simulator = ScriptedSimulator(record_scenario(), None, np.random.default_rng(0))
    text = simulator.respond("Could you spell your ticket code using the NATO alphabet?").text
    assert "Echo, Juliet, Romeo, 9, 9, Victor" in text, text


def test_the_llm_callers_prompt_carries_the_spoken_forms() -> None:
    prompt = render_simulator_prompt(record_scenario())
    assert '- date_of_birth: 1997-09-14 (say it as "September fourteenth, nineteen ninety-seven")' in prompt
    assert '- shift_start: 19:30 (say it as "7:30 PM")' in prompt
    assert "phonetic (NATO) alphabet" in prompt
