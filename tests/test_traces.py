"""Conversations as MLflow traces (issue 17, point 5): a real cell writes one trace per conversation, a span per
turn with the intended and heard text, tool calls as TOOL spans with arguments and results, one session per cell
run, linked to the run and its audio; reuse and rewrites add no trace. Against SQLite here and a real
``mlflow server`` in the slow test; the browser check is scripts/check_mlflow_ui.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.cell import run_cell
from evalkit.cell.log import conversation_traces
from evalkit.config.schema import RunConfig, validate_config
from evalkit.records import ConversationRecord
from evalkit.tracking import resolve_target
from evalkit.tracking.store import CellRun
from evalkit.tracking.traces import SESSION_KEY, SOURCE_RUN_KEY
from tests.conftest import REPO
from tests.test_config import composed
from tests.test_mlflow_server import server

__all__ = ["server"]  # the real-server fixture

SCENARIO = "AL-005"  # looks a booking up: tool calls in the first turns


def tiny_cell(tracking_uri: str, *overrides: str) -> RunConfig:
    raw = composed(
        "+experiment=smoke",
        f"domain.scenarios=[{SCENARIO}]",
        "simulator.max_user_turns=6",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion,user_wer,tool_call_validity]",
        *overrides,
    )
    raw["mlflow"]["tracking_uri"] = tracking_uri
    return validate_config(raw)


def check_traces(client: MlflowClient, run_id: str, records: list[ConversationRecord], artifact_uri: str) -> None:
    """What a reader of the trace view needs, checked against the cell's own records."""
    experiment_id = client.get_run(run_id).info.experiment_id
    traces = client.search_traces(locations=[experiment_id], run_id=run_id)
    assert len(traces) == len(records) == 1
    trace, record = traces[0], records[0]
    conv = record.conversation
    assert trace.info.trace_metadata[SOURCE_RUN_KEY] == run_id
    session = trace.info.trace_metadata[SESSION_KEY]
    assert session.endswith(run_id[:8]) and session.startswith(client.get_run(run_id).data.tags["cell_key"])
    assert trace.info.trace_metadata["evalkit.audio"] == f"{artifact_uri}/audio/{SCENARIO}_t0"
    assert trace.info.tags["scenario"] == SCENARIO

    spans = trace.data.spans
    root = next(s for s in spans if s.parent_id is None)
    turns = [s for s in spans if s.parent_id == root.span_id]
    assert [s.name for s in turns] == [f"turn {t.index} {t.role}" for t in conv.turns]
    for span, turn in zip(turns, conv.turns, strict=True):
        assert (span.end_time_ns - span.start_time_ns) / 1e6 == pytest.approx(turn.end_ms - turn.start_ms, abs=0.01)
        if turn.role == "user":
            assert span.inputs == {"intended_text": turn.intended_text}
            assert span.outputs == {"heard_text": turn.heard_text}
            assert span.attributes["effects"] == [e.model_dump() for e in turn.effects]
        else:
            assert span.span_type == "AGENT" and span.outputs["intended_text"] == turn.intended_text
            assert span.attributes["compute_ms"] == pytest.approx(turn.compute_ms)
    user = next(s for s in turns if s.name.endswith("user"))
    assert user.inputs["intended_text"] and user.outputs["heard_text"]

    tools = [s for s in spans if s.span_type == "TOOL"]
    calls = conv.tool_calls
    assert calls, "the scenario must call a tool for this check"
    assert [(s.name, s.inputs, s.outputs) for s in tools] == [(c.name, c.arguments, c.result) for c in calls]
    assert all(s.parent_id in {t.span_id for t in turns if t.span_type == "AGENT"} for s in tools)

    scores = {a.name: a.value for a in trace.info.assessments}
    expected = {name: m.score for name, m in record.metrics.items() if m.score is not None}
    assert scores == pytest.approx(expected) and "task_completion" in scores


def test_a_cell_writes_one_readable_trace_per_conversation_and_reuse_adds_none(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = tiny_cell(uri)
    target = resolve_target(uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    client = MlflowClient(uri)
    records = [ConversationRecord.model_validate_json(p.read_text()) for p in (tmp_path / "cell/records").iterdir()]
    run = client.get_run(result.run_id)
    check_traces(client, result.run_id, records, run.info.artifact_uri)
    assert run.data.metrics["trace_log_s"] > 0

    again = run_cell(config, target, tmp_path / "again")  # a finished cell is reused: no conversation, no trace
    assert again.reused and again.run_id == result.run_id
    experiment_id = run.info.experiment_id
    assert len(client.search_traces(locations=[experiment_id])) == 1

    # Writing the run's traces again (a retried log) finds them by their derived ids and adds none.
    with CellRun.open(target, "rewrite", {"cell_key": "x", "evalkit.kind": "test"}, None) as other:
        specs = conversation_traces(records, 0.0, "s", {}, "file:///a")
        first = other.log_traces(specs)
        assert other.log_traces(specs) == first
    assert len(client.search_traces(locations=[experiment_id])) == 2


def test_a_trace_started_without_its_spans_gets_them_once_on_a_retry(tmp_path: Path) -> None:
    """log_traces writes each trace's info, then all spans in one transaction: a failure in between leaves traces
    without spans, and the retried call must complete them (not skip them as written, not log spans twice)."""
    from mlflow.tracing.client import TracingClient

    from evalkit.tracking.traces import _trace_info, build_spans

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = tiny_cell(uri, "mlflow.log_traces=false")
    target = resolve_target(uri, config.mlflow.experiment, None, tmp_path)
    run_cell(config, target, tmp_path / "cell")
    records = [ConversationRecord.model_validate_json(p.read_text()) for p in (tmp_path / "cell/records").iterdir()]
    specs = conversation_traces(records, 0.0, "s", {}, "file:///a")
    client = MlflowClient(uri)
    with CellRun.open(target, "half-written", {"cell_key": "z", "evalkit.kind": "test"}, None) as run:
        trace_id, spans = build_spans(specs[0], run.run_id)
        tracing = TracingClient(uri)
        tracing.start_trace(_trace_info(specs[0], trace_id, run.experiment_id or "", run.run_id))
        assert "mlflow.trace.spansLocation" not in tracing.get_trace_info(trace_id).tags  # no spans stored yet
        assert run.log_traces(specs) == [trace_id]
        assert len(client.get_trace(trace_id).data.spans) == len(spans)
        assert run.log_traces(specs) == [trace_id]  # whole now: nothing more is written
        assert len(client.get_trace(trace_id).data.spans) == len(spans)


def test_traces_can_be_turned_off(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = tiny_cell(uri, "mlflow.log_traces=false")
    result = run_cell(config, resolve_target(uri, config.mlflow.experiment, None, tmp_path), tmp_path / "cell")
    client = MlflowClient(uri)
    run = client.get_run(result.run_id)
    assert client.search_traces(locations=[run.info.experiment_id]) == []
    assert "trace_log_s" not in run.data.metrics and run.data.metrics["conversations"] == 1


def test_a_secret_value_never_reaches_a_trace(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Secrets are redacted by value (every secret env value), as in the cell's config.yaml."""
    planted = "sk-planted-Trace-Key-77c1"
    monkeypatch.setenv("EVALKIT_TEST_TRACE_KEY", planted)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = tiny_cell(uri)
    target = resolve_target(uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    record = ConversationRecord.model_validate_json(next((tmp_path / "cell/records").iterdir()).read_text())
    record.conversation.turns[0].intended_text += f" my key is {planted}"
    record.conversation.tool_calls[0].arguments["note"] = planted
    with CellRun.open(target, "planted", {"cell_key": "y", "evalkit.kind": "test"}, None) as run:
        run.log_traces(conversation_traces([record], 0.0, "s", {}, "file:///a"))
    client = MlflowClient(uri)
    traces = client.search_traces(locations=[client.get_run(result.run_id).info.experiment_id], run_id=run.run_id)
    text = json.dumps([s.to_dict() for s in traces[0].data.spans])
    assert "my key is ***" in text and planted not in text
    stored = list(tmp_path.glob("mlflow.db*"))  # the write-ahead log too: recent commits may be only there
    assert tmp_path / "mlflow.db" in stored and all(planted.encode() not in p.read_bytes() for p in stored)


@pytest.mark.slow
def test_traces_reach_a_real_mlflow_server(server: tuple[str, Path]) -> None:
    url, tmp_path = server
    config = tiny_cell(url)
    target = resolve_target(url, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    records = [ConversationRecord.model_validate_json(p.read_text()) for p in (tmp_path / "cell/records").iterdir()]
    client = MlflowClient(url)
    check_traces(client, result.run_id, records, client.get_run(result.run_id).info.artifact_uri)


@pytest.mark.slow
def test_the_trace_page_shows_a_turn_in_headless_chromium(tmp_path: Path) -> None:
    """scripts/check_mlflow_ui.py end to end; needs Debian's chromium and the [browser] extra."""
    if shutil.which("chromium") is None:
        pytest.skip("no chromium installed (apt-get install -y chromium); not part of the default set-up")
    pytest.importorskip("playwright", reason="pip install -e '.[browser]'")
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts/check_mlflow_ui.py"), "--workdir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "found turn text" in proc.stdout
