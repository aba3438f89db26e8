"""Simulation validation in the cell (EVA-Bench App. D.1): a conversation failing a gate is regenerated with new
seeds and counted; attempt 0 is the conversation a cell without validation runs; the rerun limit holds and the
last invalid attempt is kept, marked. Real components only: the local policy and scripted simulator in text mode,
and real cells (eSpeak NG -> Whisper tiny.en -> local agent) on one short scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.cell import plan_cell, run_cell_conversations, run_validated, validation_stats
from evalkit.config.schema import ConfigError, RunConfig, cell_key, validate_config
from evalkit.domains.airline import REGISTRY
from evalkit.domains.scenarios import load_scenarios
from evalkit.records import Conversation
from evalkit.seeds import derive_seed
from evalkit.text_dialogue import run_text_dialogue
from evalkit.validation import validate
from tests.test_config import composed

SCENARIO = {s.id: s for s in load_scenarios("airline")}["AL-002"]


def text_attempts(turn_limits: list[int]) -> tuple[list[int], callable]:
    """A real text-mode dialogue per attempt; attempt k may speak ``turn_limits[k]`` user turns, so a tight limit
    makes that attempt end by max_turns (the valid-end gate's infrastructure failure)."""
    calls: list[int] = []

    def run(attempt: int) -> tuple[Conversation, int]:
        calls.append(attempt)
        return run_text_dialogue(SCENARIO, max_user_turns=turn_limits[attempt]), attempt

    return calls, run


def check(conversation: Conversation) -> list:
    return validate(conversation, SCENARIO, REGISTRY)


def test_a_conversation_failing_a_gate_is_regenerated_and_counted() -> None:
    calls, run = text_attempts([1, 40, 40])
    conversation, kept = run_validated(run, check, max_reruns=2)
    assert calls == [0, 1] and kept == 1  # regenerated once, then valid: no third attempt
    v = conversation.validation
    assert v is not None and v.valid and v.attempt == 1 and v.attempts == 2
    assert [f["gate"] for f in v.flags[0]] == ["valid_end"] and v.flags[0][0]["infrastructure"] and v.flags[1] == []
    assert conversation.end_reason == "user_end_call"
    stats = validation_stats([conversation])
    assert stats["sim_reruns"] == 1 and stats["sim_rerun_rate"] == 1.0 and stats["sim_invalid_kept"] == 0
    assert stats["sim_rerun_infrastructure"] == 1.0 and stats["sim_rerun_simulator"] == 0.0
    assert stats["sim_rerun_gate_valid_end"] == 1


def test_a_valid_first_attempt_is_not_rerun() -> None:
    calls, run = text_attempts([40, 40])
    conversation, _ = run_validated(run, check, max_reruns=1)
    assert calls == [0] and conversation.validation.valid and conversation.validation.attempts == 1
    assert validation_stats([conversation])["sim_reruns"] == 0


def test_the_limit_holds_and_the_last_invalid_attempt_is_kept_and_marked() -> None:
    calls, run = text_attempts([1, 2, 3, 40])
    conversation, kept = run_validated(run, check, max_reruns=2)
    assert calls == [0, 1, 2] and kept == 2  # 1 + max_reruns attempts, never the fourth
    v = conversation.validation
    assert not v.valid and v.attempt == 2 and v.attempts == 3 and all(flags for flags in v.flags)
    assert len(conversation.user_turns) == 3  # the kept conversation is the last attempt
    stats = validation_stats([conversation])
    assert stats["sim_invalid_kept"] == 1 and stats["sim_reruns"] == 2 and stats["sim_attempts"] == 3


def test_simulator_errors_and_infrastructure_are_counted_apart() -> None:
    valid, _ = run_validated(text_attempts([40])[1], check, max_reruns=0)
    turns = list(valid.turns)
    last_user = max(i for i, t in enumerate(turns) if t.role == "user")
    turns[last_user] = turns[last_user].model_copy(update={"intended_text": "Put me on SK999. Bye."})
    outside = valid.model_copy(update={"turns": turns, "validation": None})
    attempts = [outside, valid.model_copy(update={"validation": None})]
    conversation, _ = run_validated(lambda k: (attempts[k], k), check, max_reruns=1)
    crashed, _ = run_validated(text_attempts([1, 40])[1], check, max_reruns=1)
    stats = validation_stats([conversation, crashed, valid])
    assert stats["sim_rerun_simulator"] == pytest.approx(1 / 3)
    assert stats["sim_rerun_infrastructure"] == pytest.approx(1 / 3)
    assert stats["sim_rerun_rate"] == pytest.approx(2 / 3) and stats["sim_regenerated_share"] == pytest.approx(2 / 3)
    assert stats["sim_rerun_gate_outside_goal"] == 1 and stats["sim_rerun_gate_valid_end"] == 1


# -- config -----------------------------------------------------------------------------------------------------
def test_validation_config_defaults_and_rejects_bad_values() -> None:
    config = validate_config(composed())
    assert config.validation.enabled and config.validation.max_reruns == 2
    with pytest.raises(ConfigError, match=r"validation\.max_reruns"):
        validate_config(composed("validation.max_reruns=-1"))
    with pytest.raises(ConfigError, match=r"validation\.tries"):
        validate_config(composed("+validation.tries=3"))


def test_validation_settings_are_part_of_the_cell_identity() -> None:
    base = validate_config(composed())
    assert cell_key(base) != cell_key(validate_config(composed("validation.max_reruns=0")))
    assert cell_key(base) != cell_key(validate_config(composed("validation.enabled=false")))


# -- real cells (audio) -------------------------------------------------------------------------------------------
def tiny_cell(*overrides: str) -> RunConfig:
    return validate_config(
        composed("domain.scenarios=[AL-002]", "trials=1", "progress=false", "metrics=[task_completion]", *overrides)
    )


def run_tiny(tmp_path: Path, name: str, *overrides: str) -> tuple[list, dict[str, float], Path]:
    out = tmp_path / name
    stats: dict[str, float] = {}
    records = run_cell_conversations(plan_cell(tiny_cell(*overrides)), out, log_audio=False, stats=stats)
    return records, stats, out


def test_real_cell_keeps_and_marks_an_invalid_conversation_at_the_limit(tmp_path: Path) -> None:
    """One user turn allowed: every attempt ends by max_turns; with max_reruns=1 the cell runs exactly two."""
    records, stats, out = run_tiny(tmp_path, "cut", "simulator.max_user_turns=1", "validation.max_reruns=1")
    (record,) = records
    v = record.conversation.validation
    assert not v.valid and v.attempts == 2 and v.attempt == 1
    assert all(flags[0]["gate"] == "valid_end" and "max_turns" in flags[0]["reason"] for flags in v.flags)
    # the kept attempt ran with its own seeds, not attempt 0's
    assert record.conversation.seed != derive_seed(0, "AL-002", 0)
    stats_expected = {"sim_attempts": 2, "sim_reruns": 1, "sim_invalid_kept": 1, "sim_rerun_infrastructure": 1.0}
    assert {k: stats[k] for k in stats_expected} == stats_expected
    stored = json.loads(next((out / "records").glob("*.json")).read_text())
    assert stored["conversation"]["validation"]["valid"] is False  # the mark reaches the record on disk
    from evalkit.cell import per_conversation_table

    assert per_conversation_table(records)["valid"] == [0]  # and the MLflow table the analysis reads


@pytest.mark.slow
def test_real_cell_attempt_zero_runs_with_the_seeds_of_a_cell_without_validation(tmp_path: Path) -> None:
    """Attempt 0 derives every seed exactly as before validation existed (conversation, simulator, each turn and its
    perturbation), so a cell without reruns is the conversation a cell without validation runs; a rerun's differ.

    Whole records are not compared across two runs: the eSpeak NG user audio is not reproducible between runs
    (reported separately), so what the agent hears may differ even with identical seeds."""
    (on,), stats, _ = run_tiny(tmp_path, "on", "+perturb=noise_cafe", "perturb.snr_db=20")
    conversation = on.conversation
    assert conversation.validation.valid and conversation.validation.attempts == 1
    assert stats["sim_reruns"] == 0 and stats["sim_rerun_rate"] == 0.0
    assert conversation.seed == derive_seed(0, "AL-002", 0)
    users = conversation.user_turns
    assert len(users) >= 3 and [t.seed for t in users] == [derive_seed(0, "AL-002", 0, t.index) for t in users]
    assert conversation.effects  # the noise chain ran, drawing from those per-turn seeds

    (cut,), _, _ = run_tiny(tmp_path, "cut", "simulator.max_user_turns=2", "validation.max_reruns=1")
    kept = cut.conversation.user_turns
    assert cut.conversation.validation.attempt == 1
    assert [t.seed for t in kept] == [derive_seed(0, "AL-002", 0, "attempt:1", t.index) for t in kept]
    assert not {t.seed for t in kept} & {t.seed for t in users}
