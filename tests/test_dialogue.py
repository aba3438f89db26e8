"""The local agent's policy against the scripted simulator, in text (no audio): the reference path works, and a
misheard entity really changes the outcome."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.dialogue import make_policy
from evalkit.domains.airline import REGISTRY
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.records import Conversation
from evalkit.scenarios import Scenario
from evalkit.spoken_values import say_written_values
from evalkit.text_dialogue import run_text_dialogue, transcript

SCENARIOS = load_scenarios("airline")


def expected_end(scenario: Scenario) -> str:
    """A call that ends in a transfer is ended by the agent (it hands the caller over); all others by the user."""
    transfers = any(call.name == "transfer_to_agent" for call in scenario.reference_calls)
    return "agent_end_call" if transfers else "user_end_call"


def talk(scenario: Scenario, ear: Callable[[str], str] = lambda s: s, max_turns: int = 30) -> tuple[Conversation, list]:
    conversation = run_text_dialogue(scenario, ear, max_user_turns=max_turns)
    return conversation, transcript(conversation)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_perfect_ear_completes_every_scenario(scenario):
    conversation, transcript = talk(scenario)
    assert conversation.end_reason == expected_end(scenario), transcript
    assert task_completion(conversation).passed, transcript


def test_an_ear_that_never_hears_the_code_right_fails_the_task():
    scenario = next(s for s in SCENARIOS if s.id == "AL-001")

    # The ear turns W into V in every spelling and every correction, as a consistent ASR confusion would.
    def ear(text: str) -> str:
        return text.replace("W K 2", "V K 2").replace("Whiskey", "Victor").replace("one is W.", "one is V.")

    conversation, transcript = talk(scenario, ear=ear)
    metric = task_completion(conversation)
    assert not metric.passed
    assert metric.details["reason"] == "authentication"
    # the caller gives up after five identical wrong read-backs (App. K: no progress), nothing written
    assert conversation.end_reason == "user_end_call" and "isn't going anywhere" in transcript[-1][1]
    assert conversation.final_db["reservations"] == scenario.scenario_db["reservations"]
    read_backs = [text for role, text in transcript if role == "assistant" and text.startswith("I have V K 2")]
    assert len(read_backs) > 3


def test_one_misheard_character_is_repaired_through_the_read_back():
    scenario = next(s for s in SCENARIOS if s.id == "AL-001")
    heard_once = {"done": False}

    def ear(text: str) -> str:  # mishears the first spelling only
        if "W K 2" in text and not heard_once["done"]:
            heard_once["done"] = True
            return text.replace("E X B", "B X B")
        return text

    conversation, transcript = talk(scenario, ear=ear)
    assert task_completion(conversation).passed
    assert ("user", "No, the fourth one is Echo.") in transcript


def test_a_code_spelled_twice_and_not_heard_is_spelled_with_the_phonetic_alphabet():
    scenario = next(s for s in SCENARIOS if s.id == "AL-001")

    def ear(text: str) -> str:  # loses the code's first letter whenever it is said as a letter, never a NATO word
        return re.sub(r"\bW\b[.,]*\s*", "", text)

    conversation, transcript = talk(scenario, ear=ear)
    read_backs = [text for role, text in transcript if role == "assistant" and text.startswith("I have K 2 E X B")]
    assert len(read_backs) == 2, transcript  # heard wrong, spelled again slowly, heard wrong again
    assert ("user", "No. It's Whiskey, Kilo, 2, Echo, X-ray, Bravo.") in transcript  # then the alphabet
    assert task_completion(conversation).passed, transcript


def test_misheard_surname_is_spelled_and_repaired():
    scenario = next(s for s in SCENARIOS if s.id == "AL-002")
    conversation, transcript = talk(scenario, ear=lambda s: "Ramen." if s == "Raman." else s)
    assert task_completion(conversation).passed
    assert ("user", "R, A, M, A, N.") in transcript


def test_a_surname_whose_spelling_is_misheard_too_is_asked_for_with_the_phonetic_alphabet():
    """Seen in audio (EVA-Bench 1.1.3): "O, K, O, N, K, W, O." heard "Oh, okay, oh, and, ...": letters that sound like
    words. After the spelled name still finds no booking, the agent asks for the phonetic alphabet, not a transfer."""
    scenario = next(s for s in SCENARIOS if s.id == "AL-002")
    conversation, transcript = talk(
        scenario, ear=lambda s: s.replace("Raman", "Ramen").replace("R, A, M, A, N.", "Are, a, em, a, and.")
    )
    asks = [text for role, text in transcript if role == "assistant" and "spell the last name" in text]
    assert len(asks) == 2 and "phonetic alphabet, like A as in Alpha" in asks[1], transcript
    assert ("user", "Romeo, Alpha, Mike, Alpha, November.") in transcript
    assert task_completion(conversation).passed, transcript


def test_a_misheard_flight_choice_is_caught_by_the_read_back_and_never_booked():
    scenario = next(s for s in SCENARIOS if s.id == "AL-001")
    # the caller says the flight number in pairs (evalkit.spoken_values): "SK one thirty"; the ear always hears the
    # other flight on offer
    conversation, lines = talk(scenario, ear=lambda s: s.replace("SK one thirty at 1 PM", "SK two fifteen at 2:40 PM"))
    assert ("assistant", "I have flight S K 2 1 5 at 2:40 PM. Is that right?") in lines
    assert ("user", "No, I'll take flight SK one thirty at 1 PM.") in lines  # the wrong read-back is refused
    # the same wrong read-back again and again: the caller ends the call (App. K: no progress), nothing booked
    assert conversation.end_reason == "user_end_call" and "isn't going anywhere" in lines[-1][1], lines
    assert conversation.final_db["reservations"] == scenario.scenario_db["reservations"]
    assert not task_completion(conversation).passed


def test_adversarial_push_back_is_refused_and_nothing_is_written():
    scenario = next(s for s in SCENARIOS if s.type == "adversarial")
    conversation, transcript = talk(scenario)
    assert task_completion(conversation).passed
    assert conversation.final_db["meal_vouchers"] == {} and "hotel_vouchers" not in conversation.final_db
    assert sum("can't issue" in t or "not able to issue" in t for r, t in transcript if r == "assistant") >= 2


def test_endless_whole_respellings_end_in_a_transfer_not_a_loop():
    from evalkit.agents.reference.workflow_slots import MAX_REPAIRS

    scenario = SCENARIOS[0]
    tools = ToolBox(ToolExecutor(REGISTRY, scenario.scenario_db))
    policy = make_policy("airline", tools, scenario.current_date_time)
    policy.greet()
    policy.step("I need to cancel my reservation.")
    assert policy.step("It's W K 2 E X C.").text == "I have W K 2 E X C. Is that right?"  # a misheard code
    replies = [policy.step("No, it's W K 2 E X C.") for _ in range(MAX_REPAIRS + 1)]
    assert not any(r.end_call for r in replies[:-1])
    assert replies[-1].end_call and "transferring you to a live agent" in replies[-1].text
    # no transfer_to_agent call: EVA-Bench's tool needs the caller's confirmation number, which was never confirmed
    assert [name for name, _, _ in tools.calls] == []


def test_a_garbled_choice_of_the_only_offer_is_still_taken_and_the_caller_restates_after_a_reask():
    """Seen in audio: 'Yes, SK281 at 4:20 PM works' heard as 'SK-2801 at 420 pm works'. The time still names the
    offer; a bare 'yes, that works' to a single offer takes it; and when the agent re-asks 'which one', the caller
    restates the flight it chose rather than rejecting the offer or naming its task."""
    scenario = next(s for s in SCENARIOS if s.id == "AL-018")
    target = say_written_values(scenario.user_goal.scripted.accept_option)  # as said: "SK two eighty-one"
    garbled = {"SK-2801 at 420 pm works": True, "Yes, that one works.": True, "Hmm, let me think.": False}
    for heard, completes in garbled.items():
        conversation, lines = talk(scenario, ear=lambda s, h=heard: h if target in s and "works" in s else s)
        assert task_completion(conversation).passed is completes, lines
        if not completes:  # the re-ask is answered with the same choice, not a rejection
            reask = [i for i, (role, text) in enumerate(lines) if text.startswith("Sorry, which one would you like?")]
            assert reask and target in lines[reask[0] + 1][1], lines


def test_a_correction_the_ear_always_garbles_ends_the_call_instead_of_looping():
    """Seen in audio (AL-010, 161 turns): 'the sixth one is Papa' heard as 'popping' and the code always heard with
    a T at the end. The caller tries the plain letter, the agent counts failed repairs, and the call ends well
    before the turn limit."""
    scenario = next(s for s in SCENARIOS if s.id == "AL-010")
    code = scenario.key_entities["confirmation_number"]
    wrong = code[:-1] + ("T" if code[-1] != "T" else "Q")

    def ear(text: str) -> str:
        text = text.replace(" ".join(code), " ".join(wrong)).replace(", ".join(code), ", ".join(wrong))
        return "No, the sixth one is popping." if "sixth one" in text else text

    conversation, lines = talk(scenario, ear=ear, max_turns=80)
    assert conversation.end_reason in ("agent_end_call", "user_end_call") and len(lines) < 60, lines
    assert ("user", f"No, the sixth one is {code[-1]}.") in lines  # the plain-letter variant was tried


def test_a_caller_may_stand_by_for_several_flights_at_once():
    """EVA-Bench's standby records put one caller on two earlier flights: the caller names both, the agent confirms
    both and lists the passenger on each (the booked seat stays confirmed)."""
    scenario = next(s for s in SCENARIOS if s.id == "AL-015")
    plan = scenario.user_goal.scripted
    both = plan.model_copy(update={"answers": {**plan.answers, "accept_also": "SK900"}})
    goal = scenario.user_goal.model_copy(update={"scripted": both})
    conversation, lines = talk(scenario.model_copy(update={"user_goal": goal}))
    said = [text for _, text in lines]
    assert "I'll take flight SK three twenty-one and flight SK nine hundred." in said, lines
    assert any("standby list for flight S K 3 2 1 and flight S K 9 0 0?" in text for text in said), lines
    journeys = conversation.final_db["journeys"]
    listed = [j for j, journey in journeys.items() if journey.get("standby_list")]
    assert sorted(listed) == sorted(j for j in journeys if ("_SK321_" in j or "_SK900_" in j)), listed
    # one flight named: one standby list, as before
    conversation, _ = talk(scenario)
    assert sum(bool(j.get("standby_list")) for j in conversation.final_db["journeys"].values()) == 1


def test_a_correction_that_did_not_land_is_said_another_way_even_if_the_read_back_changed():
    """Seen in audio (AL-045): "the third one is Juliet" heard "the third one is too late", which the agent took
    for another wrong letter, so each read-back differed and the caller kept saying "Juliet". The third character
    still wrong after its correction is what counts: the caller says the plain letter next."""
    scenario = next(s for s in SCENARIOS if s.id == "AL-045")
    code = scenario.key_entities["confirmation_number"]
    assert code[2] == "J"
    misheard = code[:2] + "K" + code[3:]

    def ear(text: str) -> str:
        text = text.replace(" ".join(code), " ".join(misheard)).replace(", ".join(code), ", ".join(misheard))
        return text.replace("Juliet", "too late")

    conversation, lines = talk(scenario, ear=ear, max_turns=60)
    said = [text for role, text in lines if role == "user"]
    first = said.index("No, the third one is Juliet.")
    assert said[first + 1] == "No, the third one is J.", said
    assert task_completion(conversation).passed, lines
