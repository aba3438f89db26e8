"""A dead or refusing judge is an infrastructure failure (issue 16, point 9): retried per the judge config, counted,
its metrics unscored with the reason, and the cell never reused as complete. Against the real local server of
tests/openai_server.py and a closed port."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.cell import build_cell_judge, run_cell, score_record
from evalkit.cell.score import judge_failures
from evalkit.config.schema import cell_key
from evalkit.judges import PROMPTS
from evalkit.tracking import CellRun, find_finished_cell, resolve_target
from evalkit.tracking.store import FAILURE_TAG
from tests.openai_server import OpenAIStubServer, Reply, free_port
from tests.test_judges_cell import KEY_ENV, SELECTED, composed, judge_overrides, judged_conversation

JUDGED = ("faithfulness", "agent_speech_fidelity", "conversation_progression", "conciseness", "speakability")


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-infra-test")


def test_a_401_judge_is_counted_unscored_with_the_reason_and_asked_only_once(tmp_path, key_env):
    with OpenAIStubServer([Reply(status=401)]) as server:
        judge = build_cell_judge(composed(*judge_overrides(server.base_url, tmp_path / "cache")))
        records = [score_record(judged_conversation(), SELECTED, judge) for _ in range(2)]
        assert len(server.requests) == 1  # a bad key fails every call: the judge stops asking after the first
    for record in records:
        for name in JUDGED:
            value = record.metrics[name]
            assert value.score is None and value.details["judge_error"] == "JudgeRequestError"
            assert "HTTP 401" in value.details["failed"] and server.base_url in value.details["failed"]
        assert record.metrics["task_completion"].score == 1.0  # the deterministic metrics still score
    count, reason = judge_failures(records)
    assert count == 2 * len(JUDGED) and reason is not None and "HTTP 401" in reason


def test_a_failing_judge_is_retried_per_its_config_then_counted(tmp_path, key_env):
    overrides = judge_overrides("", tmp_path / "cache")[:-2]  # drop max_retries=0 and the timeout
    with OpenAIStubServer([Reply(status=503)]) as server:
        overrides[1] = f"judge.base_url={server.base_url}"
        config = composed(*overrides, "judge.max_retries=2", "judge.backoff_base_s=0", "judge.backoff_max_s=0")
        record = score_record(judged_conversation(), SELECTED, build_cell_judge(config))
        assert len(server.requests) == 3  # 1 + max_retries, then unavailable and failing fast
    assert {record.metrics[n].details["judge_error"] for n in JUDGED} == {"JudgeUnavailable"}
    assert judge_failures([record])[0] == len(JUDGED)


def test_a_closed_port_is_counted_as_judge_failures(tmp_path, key_env):
    url = f"http://127.0.0.1:{free_port()}/v1"
    record = score_record(judged_conversation(), SELECTED, build_cell_judge(composed(*judge_overrides(url, tmp_path))))
    count, reason = judge_failures([record])
    assert count == len(JUDGED) and reason is not None and "unavailable" in reason and url in reason


def test_offline_and_not_applicable_judgments_are_not_failures():
    record = score_record(judged_conversation(), SELECTED, None)  # judge=none: skipped, not failed
    assert judge_failures([record]) == (0, None)


def test_an_incomplete_cell_run_ends_failed_with_the_reason_and_is_never_reused(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    target = resolve_target(None, "incomplete", None, tmp_path)
    with CellRun.open(target, "judged", {"cell_key": "k-judge", "evalkit.kind": "cell"}, None, claim=True) as run:
        run.log_metrics({"judge_failures": 3.0})
        run.mark_incomplete("judge: 3 judgment(s) failed: HTTP 401")
    stored = MlflowClient(target.tracking_uri).get_run(run.run_id)
    assert stored.info.status == "FAILED" and stored.data.tags[FAILURE_TAG].endswith("HTTP 401")
    assert "evalkit.complete" not in stored.data.tags
    assert find_finished_cell(target, "k-judge") is None
    with CellRun.open(target, "again", {"cell_key": "k-judge", "evalkit.kind": "cell"}, None, claim=True) as again:
        pass  # the failed run holds no claim: the next run computes the cell
    assert find_finished_cell(target, "k-judge") == again.run_id


def test_the_judges_identity_is_part_of_the_cell_key(tmp_path, monkeypatch):
    base = judge_overrides("http://127.0.0.1:9/v1", tmp_path)
    key = cell_key(composed(*base))
    assert cell_key(composed(*[*base, "judge.base_url=http://127.0.0.1:10/v1"])) != key  # endpoint
    assert cell_key(composed(*[*base, "judge.model=other-judge"])) != key  # model
    edited = dataclasses.replace(PROMPTS["conciseness"], system=PROMPTS["conciseness"].system + " Be strict.")
    monkeypatch.setitem(PROMPTS, "conciseness", edited)
    assert cell_key(composed(*base)) != key  # an edited prompt is another judge: no reuse of the old cell


def test_a_real_cell_with_a_401_judge_ends_failed_and_is_not_reused(tmp_path, key_env, monkeypatch, caplog):
    """One conversation through the real cell (TTS, ASR, agent), judged by a server that answers 401."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with OpenAIStubServer([Reply(status=401)]) as server:
        config = composed(
            *judge_overrides(server.base_url, tmp_path / "cache"),
            "domain.scenarios=[AL-005]",
            "trials=1",
            "progress=false",
            "mlflow.log_audio=false",
            "metrics=[task_completion,conciseness]",
        )
        target = resolve_target(None, "realjudge", None, tmp_path)
        # Listen on the evalkit logger itself: an earlier in-process Hydra run may have re-configured logging
        # (propagation, disabled loggers), and the warning must be seen whatever the suite ran before.
        evalkit_log = logging.getLogger("evalkit")
        monkeypatch.setattr(evalkit_log, "disabled", False)
        evalkit_log.addHandler(caplog.handler)
        try:
            with caplog.at_level(logging.WARNING, logger="evalkit"):
                result = run_cell(config, target, Path(tmp_path / "out"))
        finally:
            evalkit_log.removeHandler(caplog.handler)
    assert result.aggregates["judge_failures"] == 1.0
    assert any("judge failure" in r.message and "HTTP 401" in r.message for r in caplog.records)
    stored = MlflowClient(target.tracking_uri).get_run(result.run_id)
    assert stored.info.status == "FAILED" and "HTTP 401" in stored.data.tags[FAILURE_TAG]
    assert stored.data.metrics["judge_failures"] == 1.0
    assert find_finished_cell(target, result.cell_key) is None  # the next run calls the judge again
