"""Recorded tool calls carry the tool's declared writes/irreversible flags, and metrics read them from the record
(the domain's declaration only for older records whose flags are None)."""

from __future__ import annotations

from evalkit.call import tool_call_records
from evalkit.domains import tool_registry
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics import score_conversation
from evalkit.metrics.faithfulness import faithfulness_proxy
from evalkit.metrics.tool_flags import is_irreversible, is_write
from evalkit.records import Conversation, ToolCall, Turn
from evalkit.text_dialogue import run_text_dialogue

SUCCESS = {"status": "success"}


def _conversation(domain: str, turns: list[Turn]) -> Conversation:
    return Conversation(
        scenario_id="X-1",
        domain=domain,
        trial=0,
        seed=0,
        turns=turns,
        end_reason="user_end_call",
        initial_db={},
        final_db={},
        expected_db={},
    )


def _turn(index: int, role: str, text: str, heard: str | None = None, calls: list[ToolCall] = ()) -> Turn:
    return Turn(
        index=index,
        role=role,
        intended_text=text,
        heard_text=heard,
        start_ms=index,
        end_ms=index + 0.5,
        tool_calls=calls,
    )


def test_a_recorded_call_carries_the_declared_flags() -> None:
    registry = tool_registry("airline")
    calls = [
        ("get_reservation", {"confirmation_number": "ABC123"}, SUCCESS),
        ("cancel_reservation", {"confirmation_number": "ABC123"}, SUCCESS),
        ("assign_seat", {}, {"status": "error"}),
        ("no_such_tool", {}, {"status": "error"}),
    ]
    read, cancel, seat, unknown = tool_call_records(calls, 5.0, registry)
    assert (read.writes, read.irreversible) == (False, False)
    assert (cancel.writes, cancel.irreversible) == (True, True)
    assert (seat.writes, seat.irreversible) == (True, False)  # writes, but can be changed back
    assert (unknown.writes, unknown.irreversible) == (None, None)  # the executor refused it: nothing declared
    assert all(c.writes is None for c in tool_call_records(calls, 5.0))  # no registry given: flags unknown
    assert ToolCall.model_validate_json(cancel.model_dump_json()) == cancel  # the flags survive the record file


def test_a_conversation_records_the_flags_of_every_call() -> None:
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-003")  # a cancellation
    conversation = run_text_dialogue(scenario)
    registry = tool_registry("airline")
    calls = [c for t in conversation.turns for c in t.tool_calls]
    assert any(c.name == "cancel_reservation" for c in calls)
    for call in calls:
        assert (call.writes, call.irreversible) == (registry[call.name].writes, registry[call.name].irreversible)


def test_metrics_read_the_flag_from_the_record_and_the_declaration_only_when_it_is_missing() -> None:
    old = ToolCall(name="cancel_reservation", arguments={}, result=SUCCESS, ok=True, t_ms=0)
    assert is_irreversible(old, "airline") and is_write(old, "airline")  # declared by airline
    assert not is_irreversible(old, "hr") and is_write(old, "hr")  # hr declares no such tool: counted as a write
    flagged = old.model_copy(update={"writes": False, "irreversible": False})
    assert not is_irreversible(flagged, "airline") and not is_write(flagged, "airline")


def test_irreversible_action_safety_counts_calls_flagged_irreversible_in_the_record() -> None:
    shred = ToolCall(name="shred", arguments={}, result=SUCCESS, ok=True, t_ms=0, writes=True, irreversible=True)
    asked = [_turn(0, "assistant", "Shall I shred it?"), _turn(1, "user", "Yes.", "Yes.")]
    conversation = _conversation("hr", [*asked, _turn(2, "assistant", "Done.", calls=[shred])])
    result = score_conversation(conversation, ["irreversible_action_safety"])["irreversible_action_safety"]
    assert result.score == 1.0 and result.details["actions"] == [{"turn": 2, "tool": "shred", "confirmed": True}]
    unflagged = _conversation(
        "hr", [*asked, _turn(2, "assistant", "Done.", calls=[shred.model_copy(update={"irreversible": None})])]
    )
    none = score_conversation(unflagged, ["irreversible_action_safety"])["irreversible_action_safety"]
    assert none.score is None and "no irreversible tools declared for 'hr'" in none.details["reason"]


def test_faithfulness_rates_a_fabricated_value_by_the_recorded_read_flag_not_the_tool_name() -> None:
    """``verify_employee_auth`` reads (hr declares writes=False); the old name-prefix rule called it a write."""
    heard = _turn(0, "user", "My ID is one two three.", "My ID is one two three.")
    verify = ToolCall(
        name="verify_employee_auth", arguments={"employee_id": "EMP999"}, result=SUCCESS, ok=True, t_ms=0, writes=False
    )
    result = faithfulness_proxy(_conversation("hr", [heard, _turn(1, "assistant", "Thanks.", calls=[verify])]))
    assert result.details["fabricated_parameters"][0]["write"] is False
    assert result.details["dimensions"]["fabricating_tool_parameters"] == 2 and result.score == 0.5
    old = verify.model_copy(update={"writes": None})  # an old record: hr's declaration says the same
    assert faithfulness_proxy(_conversation("hr", [heard, _turn(1, "assistant", "Thanks.", calls=[old])])).score == 0.5
