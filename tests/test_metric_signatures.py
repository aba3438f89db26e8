"""Metric versions (issue 32 point 5): every score carries its metric's version, and a metric's code cannot change
without its version (or a reviewed --accept) being recorded in tests/metric_signatures.json."""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.metrics import METRICS, Metric, metric_versions, register, score_conversation, version_params
from evalkit.metrics.signatures import (
    Signatures,
    builtin_signatures,
    normalized_source,
    scoring_modules,
    signature_problems,
)
from evalkit.records import Conversation, MetricValue, Turn
from tests.conftest import REPO

SIGNATURES = REPO / "tests" / "metric_signatures.json"
SCRIPT = REPO / "scripts" / "update_metric_signatures.py"
UPDATE = "python scripts/update_metric_signatures.py"


@functools.cache
def current_signatures() -> Signatures:
    """The built-in metrics' signatures, computed once for the module (hashing every metric's code costs ~5 s)."""
    return builtin_signatures()


def test_recorded_signatures_match_the_metric_code():
    problems = signature_problems(json.loads(SIGNATURES.read_text()), current_signatures())
    assert not problems, f"bump the version of a metric whose scores can change, then run `{UPDATE}`:\n" + "\n".join(
        problems
    )


def test_a_code_change_without_a_version_bump_is_a_problem_and_a_bump_is_recorded():
    recorded = {"m": {"version": 1, "hash": "aaaa"}}
    (unbumped,) = signature_problems(recorded, {"m": {"version": 1, "hash": "bbbb"}})
    assert "its code changed but its version is still 1: bump Metric(version=...)" in unbumped
    (bumped,) = signature_problems(recorded, {"m": {"version": 2, "hash": "bbbb"}})
    assert "version 1 -> 2: record the new signature" in bumped
    assert signature_problems(recorded, {"m": {"version": 1, "hash": "aaaa"}}) == []


def test_code_edits_change_the_hash_and_comments_or_docstrings_do_not():
    source = (REPO / "evalkit" / "metrics" / "latency.py").read_text()
    reworded = source.replace('"""Response latency', '"""Reworded: response latency', 1)
    reworded = reworded.replace("    rows = []\n", "    rows = []  # a new comment\n\n", 1)
    assert reworded != source and normalized_source(reworded) == normalized_source(source)
    edited = source.replace("/ 1000.0", "/ 1000.0 * 1.0", 1)
    assert normalized_source(edited) != normalized_source(source)


def test_a_metric_hash_covers_the_helpers_it_imports():
    """response_latency reuses turn-taking's exchange splitting; user_wer the WER text normalisation."""
    assert "evalkit.metrics.turn_taking" in scoring_modules("evalkit.metrics.latency")
    assert "evalkit.textnorm" in scoring_modules("evalkit.metrics.hearing")
    assert "evalkit.metrics.registry" not in scoring_modules("evalkit.metrics.latency")


def update(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )  # fmt: skip


def update_in_process(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """The script's ``main`` in this process, with the real signatures hashed once for the module: each start of the
    script costs ~8 s (it imports and hashes every metric); its exit status wiring (``sys.exit(main())``) is proven
    once, by the subprocess run below."""
    spec = importlib.util.spec_from_file_location("update_metric_signatures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    monkeypatch.setattr(module, "builtin_signatures", current_signatures)
    return module.main(list(args))


def test_the_update_script_refuses_an_unbumped_change_unless_accepted(tmp_path: Path, capsys, monkeypatch) -> None:
    stale = json.loads(SIGNATURES.read_text())
    stale["response_latency"]["hash"] = "0" * 16  # as if its code had changed since the file was written
    file = tmp_path / "signatures.json"
    file.write_text(json.dumps(stale))
    check = update("--check", "--file", str(file))  # the script as a user runs it: its exit status and message
    assert check.returncode == 1 and "response_latency: its code changed but its version is still" in check.stderr
    capsys.readouterr()
    assert update_in_process(monkeypatch, "--file", str(file)) == 1
    assert "bump Metric(version=...) or pass --accept response_latency" in capsys.readouterr().err
    assert json.loads(file.read_text()) == stale  # nothing written
    assert update_in_process(monkeypatch, "--file", str(file), "--accept", "response_latency") == 0, (
        capsys.readouterr().err
    )
    assert json.loads(file.read_text()) == json.loads(SIGNATURES.read_text())


def conversation(end_reason: str = "agent_end_call") -> Conversation:
    turns = [
        Turn(index=0, role="assistant", intended_text="Hello.", start_ms=0, end_ms=1000),
        Turn(index=1, role="user", intended_text="Hi there.", heard_text="Hi there.", start_ms=1400, end_ms=2000),
        Turn(index=2, role="assistant", intended_text="Sure.", start_ms=2500, end_ms=3000),
    ]
    error = "boom" if end_reason == "error" else None
    return Conversation(scenario_id="S1", domain="airline", trial=0, seed=0, turns=turns, end_reason=end_reason,
                        initial_db={}, final_db={}, expected_db={}, error=error)  # fmt: skip


def _toy(conv: Conversation) -> MetricValue:
    return MetricValue(name="toy_versioned", score=1.0)


def test_every_score_carries_its_metrics_version():
    names = ["task_completion", "response_latency", "user_wer", "eva_a_proxy"]
    for record in (score_conversation(conversation(), names), score_conversation(conversation("error"), names)):
        assert record and all(v.version == METRICS[n].version for n, v in record.items())
    toy = Metric(name="toy_versioned", kind="deterministic", source="test", inputs=(), fn=_toy, version=3)
    register(toy, origin="tests")
    try:
        assert score_conversation(conversation(), ["toy_versioned"])["toy_versioned"].version == 3
        assert metric_versions(["toy_versioned"]) == {"toy_versioned": 3}
        assert version_params(["toy_versioned"]) == {"metric_version.toy_versioned": "3"}
    finally:
        METRICS.pop("toy_versioned")
