"""Metric formulas against hand-computed cases."""

from __future__ import annotations

import copy
import math

import pytest

from evalkit.metrics import aggregate_cell, pass_at_1, pass_at_k, pass_hat_k, score_conversation
from evalkit.metrics.hearing import key_entity_accuracy, user_wer
from evalkit.metrics.task_completion import canonical_hash, task_completion
from evalkit.records import Conversation, ConversationRecord, MetricValue, Turn

DB = {"reservations": {"ABC123": {"status": "changed", "seat": "21A"}}, "session": {"confirmation_number": "ABC123"}}


def conv(final_db=None, turns=(), entities=None, end="user_end_call", scenario="S1", trial=0) -> Conversation:
    return Conversation(
        scenario_id=scenario,
        domain="airline",
        trial=trial,
        seed=1,
        turns=list(turns),
        end_reason=end,
        initial_db={},
        final_db=final_db if final_db is not None else copy.deepcopy(DB),
        expected_db=DB,
        key_entities=entities or {},
    )


def user_turn(i, intended, heard) -> Turn:
    return Turn(index=i, role="user", intended_text=intended, heard_text=heard, start_ms=0, end_ms=1)


def test_task_completion_passes_on_identical_state_and_superset_session():
    final = copy.deepcopy(DB)
    final["session"] = {"confirmation_number": "abc123", "last_name": "brooks"}  # case-insensitive, extra key ok
    metric = task_completion(conv(final))
    assert metric.passed and metric.score == 1.0


def test_task_completion_fails_on_missing_authentication_first():
    final = copy.deepcopy(DB)
    final["session"] = {}
    final["reservations"]["ABC123"]["seat"] = "9Z"
    metric = task_completion(conv(final))
    assert not metric.passed and metric.details["reason"] == "authentication"


def test_task_completion_diff_names_the_changed_field():
    final = copy.deepcopy(DB)
    final["reservations"]["ABC123"]["seat"] = "22F"
    final["vouchers"] = {"MV-1": {}}
    metric = task_completion(conv(final))
    assert metric.score == 0.0
    diff = {d["path"]: d for d in metric.details["diff"]}
    assert diff["reservations.ABC123.seat"] == {
        "path": "reservations.ABC123.seat",
        "change": "modified",
        "expected": "21A",
        "actual": "22F",
    }
    assert diff["vouchers"]["change"] == "unexpected"


def test_canonical_hash_ignores_key_order_only():
    assert canonical_hash({"a": 1, "b": [1, 2]}) == canonical_hash({"b": [1, 2], "a": 1})
    assert canonical_hash({"a": 1}) != canonical_hash({"a": 1.5})


def test_user_wer_over_heard_turns_only():
    turns = [
        user_turn(1, "Change my flight to Boston.", "change my flight to austin"),  # 1 sub / 5
        user_turn(3, "Yes please.", "yes please"),  # 0 / 2
        Turn(index=5, role="user", intended_text="Goodbye.", heard_text=None, start_ms=0, end_ms=1),
    ]
    metric = user_wer(conv(turns=turns))
    assert metric.score == pytest.approx(1 / 7)
    assert metric.details["substitutions"] == 1 and metric.details["turns"] == 2


def test_key_entity_accuracy_counts_mentions_of_spelled_codes():
    turns = [
        user_turn(1, "It's W K 2 E X B.", "It's WK2EXB."),  # spelled vs glued: same after normalisation
        user_turn(3, "Brooks.", "Brooks."),
        user_turn(5, "Whiskey Kilo 2 Echo X-ray Bravo.", "double UK2XD"),
    ]
    metric = key_entity_accuracy(conv(turns=turns, entities={"confirmation_number": "WK2EXB", "last_name": "Brooks"}))
    # mentions: code in turn 1 (ok), name in turn 3 (ok); the NATO form does not contain the letters as written
    assert metric.details["correct"] == 2
    assert metric.score == pytest.approx(1.0)
    wrong = key_entity_accuracy(
        conv(turns=[user_turn(1, "It's W K 2 E X B.", "It's VK2EXB.")], entities={"confirmation_number": "WK2EXB"})
    )
    assert wrong.score == 0.0


def test_crashed_conversation_is_unscored_not_zero():
    scores = score_conversation(conv(end="error"), ["task_completion", "user_wer"])
    assert all(v.score is None for v in scores.values())


def test_pass_family_hand_computed():
    # 3 scenarios x k=3: s1 passes 3/3, s2 1/3, s3 0/3
    table = {"s1": [True, True, True], "s2": [True, False, False], "s3": [False, False, False]}
    assert pass_at_1(table) == pytest.approx(4 / 9)
    assert pass_at_k(table) == pytest.approx(2 / 3)
    assert pass_hat_k(table) == pytest.approx((1 + (1 / 3) ** 3 + 0) / 3)
    assert math.isnan(pass_at_1({}))


def test_aggregate_cell_means_and_passes():
    def record(scenario, trial, passed, wer):
        return ConversationRecord(
            conversation=conv(scenario=scenario, trial=trial),
            metrics={
                "task_completion": MetricValue(name="task_completion", score=float(passed), passed=passed),
                "user_wer": MetricValue(name="user_wer", score=wer),
            },
        )

    records = [record("a", 0, True, 0.1), record("a", 1, False, 0.3), record("b", 0, False, None)]
    agg = aggregate_cell(records)
    assert agg["task_completion_pass_at_1"] == pytest.approx(1 / 3)
    assert agg["task_completion_pass_at_k"] == pytest.approx(1 / 2)
    assert agg["task_completion_pass_hat_k"] == pytest.approx(((1 / 2) ** 2 + 0) / 2)
    assert agg["user_wer_mean"] == pytest.approx(0.2)
    assert agg["user_wer_unscored"] == 1.0
    assert agg["conversations"] == 3.0
