"""Every value the scripted caller says is in the form a person says it (issue 28 point 5), for evalkit's scenarios
and EVA-Bench's records alike: no written form that a TTS reads otherwise than a person would (an ISO date, a
24-hour time, a currency sign, a decimal zero, a record's JSON, a flight number or a code read as a cardinal number,
a dashed code read as words). Keyed by nothing but the written shape of a value.

The record shapes below are those found in evalkit's 213 scenarios and EVA-Bench's 213 records; the slow test runs
every scenario's text dialogue and checks every caller turn (EVA-Bench's records too when ``EVALKIT_EVA_DATA`` names
an EVA-Bench checkout or its data folder, kept outside the project).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from evalkit.domains.scenarios import load_scenarios
from evalkit.scenarios import Scenario
from evalkit.simulator.scripted.caller import ScriptedSimulator

# Written forms a TTS reads otherwise than a person says them (a snake-case identifier is not among them: eSpeak, and
# the Piper voices it phonemises for, read "reactivate_full" as "reactivate full"; a one-digit or 10-12 hour without
# AM/PM, "3:30", is said as written)
UNSPOKEN = {
    "an ISO date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "a 24-hour time": re.compile(r"\b(?:0\d|1[3-9]|2[0-3]):[0-5]\d\b"),
    "a currency sign": re.compile(r"[$€£]"),
    "a decimal zero": re.compile(r"\b\d+\.0+\b(?!\.\d)"),
    "a record's JSON": re.compile(r"[{}\[\]]|\"\w+\"\s*:"),
    "a flight number or code read as a number": re.compile(r"\b[A-Z]{2} ?\d{3,4}\b|\b[A-Za-z]+\d{3,}\b"),
    "a dashed code read as words": re.compile(r"\b[A-Z]{2,}-[A-Z0-9]{2,}"),
    "a phone number read as numbers": re.compile(r"\b\d{3}[-.]\d{3}[-.]\d{4}\b"),
    # an ID with lower-case letters between its digits ("REQ-SW-214a4860fa72"): read as words and numbers
    "an ID in lower case read as written": re.compile(r"\b[\w-]*(?:\d[a-z]+\d|[a-z]\d+[a-z])[\w-]*"),
}


def unspoken(text: str) -> list[str]:
    """The written forms in ``text`` that a TTS would not say as a person does (empty: all said as a person would)."""
    return [f"{name}: {m.group(0)!r}" for name, pattern in UNSPOKEN.items() for m in pattern.finditer(text)]


# (field, the record's written value, what the caller says)
RECORD_SHAPES = [
    ("date_of_birth", "1997-09-14", "September 14th, 1997"),
    ("shift_start", "19:30", "7:30 PM"),
    ("appointment_time", "07:00", "7 AM"),
    ("deposit", "$75.00", "75 dollars"),
    ("copay", "$45.50", "45 dollars and 50 cents"),
    ("flight_number", "UA1234", "UA twelve thirty-four"),
    ("original_flight_number", "SK 412", "SK four twelve"),
    ("missed_flight", "SK105 ATL to ORD departing 8:00 AM on 2026-09-08", "SK one oh five ATL to ORD departing 8 AM"),
    ("privilege_codes", "PRV-SURG-004, PRV-ECHO-007", "P R V - S U R G - 0 0 4 and P R V - E C H O - 0 0 7"),
    ("access_groups", "GRP-FINRPT and GRP-VENDOR", "G R P - F I N R P T and G R P - V E N D O R"),
    ("completion_codes", '{"HIPAA_TRAIN":"H7P2","TB_TEST":"T4B9"}', "HIPAA TRAIN: H 7 P 2; and TB TEST: T 4 B 9"),
    ("corrected_hours", "12.0", "12"),
    ("ticket_code", "EJR-99V", "E J R - 9 9 V"),
    ("license_number", "MA-MD-7878130", "M A - M D - 7 8 7 8 1 3 0"),
    ("passenger_phone_number", "+1-206-555-0334", "1, 2 0 6, 5 5 5, 0 3 3 4"),
    ("passenger_email", "emily.johansson@gmail.com", "emily.johansson@gmail.com"),  # TTS: "emily dot johansson at ..."
    ("request_id", "REQ-SW-214a4860fa72", "R E Q - S W - 2 1 4 A 4 8 6 0 F A 7 2"),  # mixed case: spelled too
    ("invoice", "inv7b2k9", "I N V 7 B 2 K 9"),
    ("notes", "Order 14th, 10am, covid-19 rules", "Order 14th, 10am, covid-19 rules"),  # no ID: said as written
]


def record_scenario(answers: dict[str, str]) -> Scenario:
    """An imported record (a workflow evalkit does not know) whose answers are written as a database writes them."""
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-001")
    scripted = scenario.user_goal.scripted.model_copy(update={"answers": answers})
    goal = scenario.user_goal.model_copy(update={"scripted": scripted, "information_required": answers})
    return scenario.model_copy(update={"user_goal": goal, "source": "eva_import", "workflow": "eva_record"})


@pytest.mark.parametrize(("field", "written", "said"), RECORD_SHAPES, ids=[f for f, _, _ in RECORD_SHAPES])
def test_the_caller_says_each_record_shape_as_a_person_would(field: str, written: str, said: str) -> None:
    simulator = ScriptedSimulator(record_scenario({field: written}), None, np.random.default_rng(0))
    text = simulator.respond(f"Could you tell me your {field.replace('_', ' ')}?").text
    assert said in text and not unspoken(text), text


def test_the_audit_sees_each_written_form() -> None:
    """The check itself: each written form is caught, the spoken forms pass."""
    written = 'On 2026-09-08 at 19:30 for $45.50, 12.0 hours, flight SK130, PRV-ONC-009, 206-555-0334, {"TB": 1}'
    written += ", REQ-SW-2a3b"
    assert {problem.split(":")[0] for problem in unspoken(written)} == set(UNSPOKEN)
    assert unspoken("On September 8th at 7:30 PM for 45 dollars and 50 cents, 12 hours, flight SK one thirty") == []


def _eva_records() -> Path | None:
    path = os.environ.get("EVALKIT_EVA_DATA")  # an EVA-Bench checkout or its data folder (outside the project)
    return Path(path) if path else None


@pytest.mark.slow
@pytest.mark.parametrize("collection", ["evalkit", "eva"])
def test_every_caller_turn_of_every_scenario_is_said_as_a_person_would(collection: str, tmp_path: Path) -> None:
    from evalkit.domains.scenarios import scenario_dir
    from evalkit.scenario_tools.walk import walk
    from evalkit.text_dialogue import run_text_dialogue

    if collection == "eva":
        if _eva_records() is None:
            pytest.skip("EVA-Bench's records are not part of the project: set EVALKIT_EVA_DATA to a checkout of them")
        folders = [_eva_records()]
    else:
        folders = [scenario_dir(d) for d in ("airline", "medical_hr", "itsm")]
    found: list[str] = []
    count = 0
    for folder in folders:
        for entry in walk(folder):
            assert entry.scenario is not None, entry.error
            conversation = run_text_dialogue(entry.scenario)
            count += 1
            for turn in conversation.turns:
                if turn.role == "user":
                    found += [f"{entry.id}: {problem}" for problem in unspoken(turn.intended_text or "")]
    assert count >= 200
    assert found == [], found[:20]


def test_a_request_number_in_lower_case_is_spelled_and_taken_by_the_agent() -> None:
    """ITSM request numbers ("REQ-SW-214a4860fa72") are read out character by character, as a person reads an ID,
    and the request slot takes the spelled form: the call still ends with the request escalated."""
    from evalkit.text_dialogue import run_text_dialogue

    scenario = next(s for s in load_scenarios("itsm") if s.id == "IT-018")
    conversation = run_text_dialogue(scenario)
    said = [t.intended_text or "" for t in conversation.turns if t.role == "user"]
    assert "It's R E Q - S W - 2 1 4 A 4 8 6 0 F A 7 2." in said
    assert not [problem for text in said for problem in unspoken(text)]
    assert conversation.final_db == conversation.expected_db


@pytest.mark.parametrize(
    ("text", "letter_a"),
    [
        ("W A 2", True),
        ("It's A W 2.", True),
        ("It's R E Q - S W - 2 1 4 a 4.", True),
        ("A as in Alpha, W as in Whiskey", True),
        ("A flight at 9", False),
        ("Plan B. A new one", False),
        ("take 5 a day", False),
    ],
)
def test_a_spelled_letter_a_is_phonemised_as_the_letter(text: str, letter_a: bool) -> None:
    """eSpeak NG's phonemiser (the eSpeak and the Piper voices) reads a lone "A" as the article /ɐ/ unless a clause
    ends after it; the text front end makes a spelled A the letter /eɪ/ and leaves the article alone."""
    from evalkit.speech.tts import text_to_phonemes

    ipa = " ".join(text_to_phonemes(text, "en-us", ipa=True))
    article = re.search(r"(?:^| )ɐ(?: |$)", ipa) is not None
    assert article != letter_a and (("ˈeɪ" in ipa) or not letter_a), ipa


@pytest.mark.parametrize(
    ("value", "question", "said"),
    [
        ("macos", "Which operating system: macOS or Windows?", "macOS"),  # not "Macos", a word no one says
        ("fmla", "Which leave type: FMLA, sick or vacation?", "FMLA"),
        ("list_a", "Which document list: List A, List B or List C?", "List A"),
        ("on_call", "Which pay type: on-call hours or overtime?", "on-call"),
        ("read_only", "Which access do you need?", "read only"),  # not offered in the question: its words
    ],
)
def test_a_choice_is_said_as_the_question_offered_it(value: str, question: str, said: str) -> None:
    from evalkit.simulator.scripted.style import as_offered

    assert as_offered(value, question) == said


def hr_record_scenario(answers: dict[str, str]) -> Scenario:
    """A medical_hr record of a workflow evalkit does not know (an EVA-Bench record): the caller answers from its
    fields, and the domain's slots of those fields say how each is said."""
    scenario = load_scenarios("medical_hr")[0]
    scripted = scenario.user_goal.scripted.model_copy(update={"answers": answers})
    goal = scenario.user_goal.model_copy(update={"scripted": scripted, "information_required": answers})
    return scenario.model_copy(update={"user_goal": goal, "source": "eva_import", "workflow": "eva_record"})


@pytest.mark.parametrize(
    ("field", "written", "question", "said", "not_said"),
    [
        ("new_state_code", "OH", "Which state is the new facility in?", "Ohio", r"\bOH\b"),
        ("access_change_type", "reactivate_full", "Do you need full or restricted EHR access?", "Full access", "reac"),
        ("per_occurrence_limit_usd", "2000000", "What is the per-occurrence limit?", "2000000", r"2 0 0|2, 0"),
    ],
    ids=["state code", "code of a choice", "amount"],
)
def test_a_record_of_an_unknown_workflow_is_said_as_the_domain_slot_of_each_field_says(
    field: str, written: str, question: str, said: str, not_said: str
) -> None:
    """EVA-Bench's medical_hr records run on the caller's field answers: it said "OH", "reactivate_full" and an
    amount digit by digit ("2, 0, 0, 0, 0, 0, 0") where the domain's slot of the same field says "Ohio", "Full
    access" and a number (15 of 40 audio failures); now the slot says it, and its read-back is checked as the slot's
    kind says (the amount read back as a number is right)."""
    simulator = ScriptedSimulator(hr_record_scenario({field: written}), None, np.random.default_rng(0))
    text = simulator.respond(question).text
    assert said in text and not re.search(not_said, text), text
    if field == "per_occurrence_limit_usd":
        assert "right" in simulator.respond("I have 2,000,000 dollars. Is that right?").text.lower()
