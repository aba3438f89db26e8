"""EVA-A with offline proxies can pass (issue 17, point 3): hand-made conversations on both sides of every threshold
of EVA-Bench §3.2.4 / Table 11 (task completion = 1.0, faithfulness >= 0.5, speech fidelity >= 0.95), scored through
the metric registry as a cell scores them, and the two causes measured on the main job's clean cell (entity spans
that swallowed "I" / "a"; spelled read-backs and corrected read-backs taken for hallucinations)."""

from __future__ import annotations

import copy

import pytest

from evalkit.metrics import score_conversation
from evalkit.metrics.entities import spoken_entities
from evalkit.metrics.faithfulness import faithfulness_proxy, heard_forms
from evalkit.metrics.speech_fidelity import THRESHOLD as SF_THRESHOLD
from evalkit.metrics.speech_fidelity import speech_fidelity_proxy
from evalkit.records import Conversation, ToolCall, Turn

DB = {"reservations": {"M4TX6L": {"status": "changed", "last_name": "Okafor"}}}
EVA_A = ["eva_a_proxy"]


def turn(i: int, role: str, text: str, heard: str | None = None, calls: tuple[ToolCall, ...] = ()) -> Turn:
    return Turn(index=i, role=role, intended_text=text, heard_text=heard, start_ms=i * 1000.0,
                end_ms=i * 1000.0 + 900.0, tool_calls=list(calls))  # fmt: skip


def conversation(turns: list[Turn], final_db: dict | None = None) -> Conversation:
    final = copy.deepcopy(DB if final_db is None else final_db)
    return Conversation(scenario_id="S1", domain="airline", trial=0, seed=1, turns=turns, end_reason="user_end_call",
                        initial_db={}, final_db=final, expected_db=DB)  # fmt: skip


def lookup(last_name: str = "Okafor") -> ToolCall:
    arguments = {"confirmation_number": "M4TX6L", "last_name": last_name}
    result = {"status": "success", "flight": "SK418", "fare": 289}
    return ToolCall(name="get_reservation", arguments=arguments, result=result, ok=True, t_ms=0.0, writes=False)


def clean_call() -> list[Turn]:
    """The main job's AL-005 in miniature: the caller spells a name, the ASR hears it as words, the agent reads the
    spelling back, the caller corrects one letter, the agent looks the booking up and states an entity it found.
    Every agent turn is heard exactly as intended (the agent spoke its entities correctly)."""
    said = [
        "Thank you. Your code is M 4 T X 6 L.",
        "I have O K A F O R. Is that right?",
        "I have O K A F O R. Is that right?",
        "I found your booking on flight SK418. The fare is 289 dollars.",
    ]
    return [
        turn(0, "user", "My code is M, 4, T, X, 6, L.", heard="My code is M4TX6L."),
        turn(1, "assistant", said[0], heard=said[0]),
        turn(2, "user", "O, K, A, F, O, R.", heard="No, it's okay AFOR."),
        turn(3, "assistant", said[1], heard=said[1]),
        turn(4, "user", "Yes.", heard="Yes."),
        turn(5, "assistant", said[3], heard=said[3], calls=(lookup(),)),
    ]


def test_a_clean_successful_conversation_whose_agent_spoke_its_entities_passes_eva_a_proxy() -> None:
    values = score_conversation(conversation(clean_call()), EVA_A)
    assert {n: values[n].passed for n in ("task_completion", "faithfulness_proxy", "speech_fidelity_proxy")} == {
        "task_completion": True, "faithfulness_proxy": True, "speech_fidelity_proxy": True}  # fmt: skip
    assert values["eva_a_proxy"].passed is True and values["eva_a_proxy"].score == 1.0


def test_task_completion_threshold_one_point_zero() -> None:
    other = {"reservations": {"M4TX6L": {"status": "booked", "last_name": "Okafor"}}}
    values = score_conversation(conversation(clean_call(), final_db=other), EVA_A)
    assert values["task_completion"].score == 0.0
    assert values["eva_a_proxy"].passed is False and values["eva_a_proxy"].details["failed"] == ["task_completion"]


@pytest.mark.parametrize(
    ("writes", "score", "passes"),
    [(False, 0.5, True), (True, 0.0, False)],  # rating 2 = 0.5 meets >= 0.5; rating 1 = 0.0 does not
)
def test_faithfulness_threshold_one_half(writes: bool, score: float, passes: bool) -> None:
    turns = clean_call()
    fabricated = ToolCall(name="update_reservation", arguments={"confirmation_number": "Q9Z9Z9"},
                          result={"status": "success"}, ok=True, t_ms=0.0, writes=writes)  # fmt: skip
    turns[5].tool_calls.append(fabricated)  # a code nobody said: rating 2 on a read tool, 1 on a write tool
    values = score_conversation(conversation(turns), EVA_A)
    assert values["faithfulness_proxy"].score == score and values["faithfulness_proxy"].passed is passes
    assert values["eva_a_proxy"].passed is passes


def test_faithfulness_fails_a_stated_entity_nothing_grounds() -> None:
    turns = clean_call()
    turns[5] = turn(5, "assistant", "The fare is 298 dollars.", heard="The fare is 298 dollars.", calls=(lookup(),))
    values = score_conversation(conversation(turns), EVA_A)
    assert values["faithfulness_proxy"].score == 0.0
    assert values["faithfulness_proxy"].details["ungrounded_statements"] == [{"turn": 5, "entity": "2 9 8 dollars"}]
    assert values["eva_a_proxy"].passed is False


def entity_turns(n: int, misheard: int) -> list[Turn]:
    """``n`` agent turns that each speak a code; the first ``misheard`` of them heard with one character wrong."""
    turns = clean_call()[:1]
    for k in range(n):
        code = "M 4 T X 6 L"
        heard = code.replace("6", "8") if k < misheard else code
        turns.append(turn(2 * k + 1, "assistant", f"Your code is {code}.", heard=f"Your code is {heard}."))
        turns.append(turn(2 * k + 2, "user", "Yes.", heard="Yes."))
    return turns


@pytest.mark.parametrize(("rated", "passes"), [(20, True), (19, False)])
def test_speech_fidelity_threshold_095(rated: int, passes: bool) -> None:
    """One misheard turn: 19 of 20 = 0.95 meets the bar, 18 of 19 = 0.947 does not (App. E.4.3)."""
    metric = speech_fidelity_proxy(conversation(entity_turns(rated, misheard=1)))
    assert metric.details["rated_turns"] == rated
    assert metric.score == pytest.approx((rated - 1) / rated)
    assert (metric.score >= SF_THRESHOLD) is passes and metric.passed is passes
    values = score_conversation(conversation(entity_turns(rated, misheard=1)), EVA_A)
    assert values["eva_a_proxy"].passed is passes


def test_spelled_read_backs_and_corrections_are_grounded_but_other_letters_are_not() -> None:
    """E.4.2 judges a cascade on the STT text: reading back what the ASR's words spell is no hallucination, and
    neither is applying the caller's one-letter correction; a letter from nowhere still is."""
    assert "o k a f o r" in heard_forms("No, it's okay AFOR.", None)
    corrected = heard_forms("No, the third one is Echo.", "I have A B B R N A T H Y. Is that right?")
    assert "a b e r n a t h y" in corrected and "abernathy" in corrected

    def readback(heard: str, said: str) -> float | None:
        turns = [turn(0, "user", "A, B, E, R, N, A, T, H, Y.", heard="A B B R N A T H Y"),
                 turn(1, "assistant", "I have A B B R N A T H Y. Is that right?", heard=None),
                 turn(2, "user", "No, the third one is Echo.", heard=heard),
                 turn(3, "assistant", said, heard=None)]  # fmt: skip
        return faithfulness_proxy(conversation(turns)).score

    assert readback("No, the third one is Echo.", "I have A B E R N A T H Y. Is that right?") == 1.0
    assert readback("No, the third one is Echo.", "I have A B Q R N A T H Y. Is that right?") == 0.0
    assert readback("Yes, that's right.", "I have A B E R N A T H Y. Is that right?") == 0.0  # no correction given


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("On June 22 I have flight SK722.", [("june", "2", "2"), ("s", "k", "7", "2", "2")]),
        ("I've issued a 15 dollar meal voucher.", [("1", "5", "dollars")]),
        ("Your seat is 12A.", [("1", "2", "a")]),  # a seat letter stays
        ("I have S Z Y M A N S K I.", [("s", "z", "y", "m", "a", "n", "s", "k", "i")]),  # spelled I and A stay
    ],
)
def test_the_pronoun_i_and_the_article_a_are_not_part_of_a_number(text: str, entities: list[tuple[str, ...]]) -> None:
    assert spoken_entities(text) == entities
