"""Simulation validation gates (App. D.1): real text-mode dialogues pass; each corruption type is caught."""

from __future__ import annotations

import pytest

from evalkit.domains.airline import REGISTRY
from evalkit.domains.scenarios import load_scenarios
from evalkit.records import Conversation, ToolCall, Turn
from evalkit.scenarios import Scenario
from evalkit.validation import validate
from tests.test_dialogue import talk as talk_text

SCENARIOS = {s.id: s for s in load_scenarios("airline")}


def talk(scenario: Scenario) -> tuple[Conversation, list[tuple[str, str]]]:
    """A real text-mode dialogue (local policy <-> scripted simulator) with its transcript as turns."""
    conversation, transcript = talk_text(scenario)
    turns = [
        Turn(index=i, role=role, intended_text=text, start_ms=float(i), end_ms=float(i) + 0.5)
        for i, (role, text) in enumerate(transcript)
    ]
    return conversation.model_copy(update={"turns": turns}), transcript


def gates(conversation: Conversation, scenario: Scenario) -> list[str]:
    return [flag.gate for flag in validate(conversation, scenario, REGISTRY)]


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=lambda s: s.id)
def test_clean_scripted_dialogues_pass_every_gate(scenario: Scenario) -> None:
    conversation, _ = talk(scenario)
    assert len(conversation.user_turns) >= 3  # the gates really read a whole dialogue
    assert validate(conversation, scenario, REGISTRY) == []


def with_turns(conversation: Conversation, **changes: object) -> Conversation:
    return conversation.model_copy(update=changes)


def test_infrastructure_error_and_turn_limit_are_invalid_ends() -> None:
    scenario = SCENARIOS["AL-002"]
    conversation, _ = talk(scenario)
    crashed = validate(with_turns(conversation, end_reason="error", error="ConnectionClosed"), scenario, REGISTRY)
    assert [(f.gate, f.infrastructure) for f in crashed] == [("valid_end", True)]
    assert "ConnectionClosed" in crashed[0].reason
    assert gates(with_turns(conversation, end_reason="max_turns"), scenario) == ["valid_end"]


def test_hanging_up_while_giving_information_is_premature() -> None:
    scenario = SCENARIOS["AL-002"]
    conversation, _ = talk(scenario)
    turns = list(conversation.turns)
    last_user = max(i for i, t in enumerate(turns) if t.role == "user")
    turns[last_user] = turns[last_user].model_copy(update={"intended_text": "It's 7HQ4TZ. Bye."})
    flags = validate(with_turns(conversation, turns=turns), scenario, REGISTRY)
    assert [f.gate for f in flags] == ["premature_ending"] and "7HQ4TZ" in flags[0].reason


def test_an_entity_outside_the_goal_is_flagged() -> None:
    scenario = SCENARIOS["AL-002"]
    conversation, _ = talk(scenario)
    turns = list(conversation.turns)
    first_user = next(i for i, t in enumerate(turns) if t.role == "user")
    turns[first_user] = turns[first_user].model_copy(update={"intended_text": "Put me on SK999 instead."})
    flags = validate(with_turns(conversation, turns=turns), scenario, REGISTRY)
    assert [f.gate for f in flags] == ["outside_goal"] and "SK999" in flags[0].reason


def test_a_date_or_time_said_as_a_person_says_it_is_no_entity_outside_the_goal() -> None:
    """Ordinals and clock times look code-like (digits and letters) but are a date or a time in spoken form: the
    EVA-Bench medical_hr records' callers say "the 14th" (33 conversations were rerun three times for it)."""
    scenario = SCENARIOS["AL-002"]
    conversation, _ = talk(scenario)
    turns = list(conversation.turns)
    first_user = next(i for i, t in enumerate(turns) if t.role == "user")
    spoken = "March 14th, the 22nd or the 1st, at 10AM or 10:30PM. Also SK999."
    turns[first_user] = turns[first_user].model_copy(update={"intended_text": spoken})
    flags = validate(with_turns(conversation, turns=turns), scenario, REGISTRY)
    assert [f.reason.split("said ")[1] for f in flags] == ["'SK999', not in its goal"]  # the code is still caught


def test_the_same_write_twice_is_a_duplicate_modification() -> None:
    scenario = SCENARIOS["AL-002"]
    conversation, _ = talk(scenario)
    call = next(c for c in scenario.reference_calls if c.name in REGISTRY.write_tools)
    write = ToolCall(name=call.name, arguments=call.arguments, result={"status": "success"}, ok=True, t_ms=0)
    once = Turn(index=98, role="assistant", intended_text="Done.", start_ms=0, end_ms=1, tool_calls=[write])
    assert gates(with_turns(conversation, turns=[*conversation.turns, once]), scenario) == []
    extra = Turn(index=99, role="assistant", intended_text="Done again.", start_ms=0, end_ms=1, tool_calls=[write])
    read_twice = ToolCall(name="get_reservation", arguments={}, result={}, ok=True, t_ms=0)
    reads = Turn(index=100, role="assistant", intended_text="", start_ms=0, end_ms=1, tool_calls=[read_twice] * 2)
    turns = [*conversation.turns, once, extra, reads]
    assert gates(with_turns(conversation, turns=turns), scenario) == ["duplicate_modification"]


# -- the elderly_slow AL-001 loop (found in an audio run: the ASR kept hearing "B, R, O, O, K, S" as "me, I-O-K-S",
# the agent read back the wrong-length name without end, the caller repeated the same sentence: max_turns) -------
def _mishears_brooks(nato_too: bool):
    import re

    def ear(text: str) -> str:
        text = text.replace("Brooks", "Looks")
        text = re.sub(r"\bB\W+R\W+O\W+O\W+K\W+S\b", "me, I, O, K, S", text)
        return re.sub(r"Bravo\W+Romeo", "Rama Robo", text) if nato_too else text

    return ear


def test_a_caller_the_asr_keeps_mishearing_hangs_up_instead_of_looping() -> None:
    from evalkit.text_dialogue import run_text_dialogue

    scenario = SCENARIOS["AL-001"]
    conversation = run_text_dialogue(scenario, ear=_mishears_brooks(nato_too=True), max_user_turns=30)
    assert conversation.end_reason == "user_end_call"  # a valid end: the agent's failure is scored, not rerun
    assert len(conversation.user_turns) < 15
    assert [f.gate for f in validate(conversation, scenario, REGISTRY)] == []
    respells = [t.intended_text for t in conversation.user_turns if t.intended_text.startswith(("No. It", "No..."))]
    assert len(set(respells)) == 3  # letters, NATO, letters with pauses: not one sentence over and over


def test_the_nato_respelling_gets_a_misheard_name_through() -> None:
    from evalkit.metrics.task_completion import task_completion
    from evalkit.text_dialogue import run_text_dialogue

    scenario = SCENARIOS["AL-001"]
    conversation = run_text_dialogue(scenario, ear=_mishears_brooks(nato_too=False), max_user_turns=30)
    assert conversation.end_reason == "user_end_call" and task_completion(conversation).passed
    assert any("Bravo, Romeo, Oscar" in t.intended_text for t in conversation.user_turns)
