"""The CI gate (`python -m evalkit.gate`) against a real MLflow SQLite store holding synthetic sweeps logged the way
the runner logs cells (evalkit.analysis.synthetic): absolute, delta and baseline thresholds, JUnit and JSON, exit
statuses, bad input in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from evalkit.analysis import stats
from evalkit.analysis.gate import GateInputError, parse_threshold
from evalkit.analysis.synthetic import CLEAN, Condition, log_cell, log_experiment, make_experiment
from evalkit.gate import run
from evalkit.tracking import CellRun, end_sweep, resolve_target, start_sweep
from tests.conftest import REPO

NOISE = Condition("noise", perturb="noise_cafe", snr_db="15.0")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two sweeps of 2 agents × {clean, noise}, 6 scenarios, same draws (seed 4): in the first, a1 loses 0.3 key
    entity accuracy under noise; the second (the "new version") also loses 0.3 for a2 under noise."""
    root = tmp_path_factory.mktemp("gate-store")
    target = resolve_target(f"sqlite:///{root / 'mlflow.db'}", "synthetic", None, root)
    a1_drop = {("a1", "noise", "key_entity_accuracy"): -0.3}
    old = make_experiment(["a1", "a2"], ["airline"], [NOISE], 6, 2, 2, a1_drop, 4)
    base_id, _ = log_experiment(target, old)
    both_drop = a1_drop | {("a2", "noise", "key_entity_accuracy"): -0.3}
    new = make_experiment(["a1", "a2"], ["airline"], [NOISE], 6, 2, 2, both_drop, 4)
    new_id, run_ids = log_experiment(target, new)
    return target, base_id, new_id, old, new, run_ids


def gate(target, *args: str) -> int:
    return run([*args, "--tracking-uri", target.tracking_uri, "--experiment", "synthetic"])


def _cell(cells, agent, condition):
    return next(c for c in cells if c.agent == agent and c.condition == condition)


def test_absolute_and_delta_thresholds_fail_where_planted(store, tmp_path, capsys):
    target, base_id, _, old, _, _ = store
    junit, summary = tmp_path / "gate.xml", tmp_path / "gate.json"
    status = gate(target, "key_entity_accuracy_mean>=0", "delta:key_entity_accuracy_mean>=-0.15",
                  "--sweep", base_id, "--junit", str(junit), "--json", str(summary))  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    failures = [line for line in out if line.startswith("FAIL")]
    assert len(failures) == 1 and "airline|a1|noise_cafe@15.0dB" in failures[0], out
    # the value is the perturbed cell's aggregate minus its clean twin's, the CI the paired bootstrap over scenarios
    pert, clean = _cell(old, "a1", NOISE), _cell(old, "a1", CLEAN)
    expected = pert.aggregates()["key_entity_accuracy_mean"] - clean.aggregates()["key_entity_accuracy_mean"]
    doc = json.loads(summary.read_text())
    assert doc["passed"] is False and doc["sweep"] == base_id and doc["checks"] == 4 + 2 and doc["failures"] == 1
    failed = next(r for r in doc["results"] if not r["passed"])
    assert failed["value"] == pytest.approx(expected) and failed["reference_run_id"]
    deltas = stats.scenario_deltas(
        stats.scenario_means(pert.scenarios, pert.scores["key_entity_accuracy"]),
        stats.scenario_means(clean.scenarios, clean.scores["key_entity_accuracy"]),
    )
    assert failed["ci_low"] <= np.mean(deltas.values) <= failed["ci_high"] < -0.15
    assert f"{expected:.4g}" in failures[0] and "threshold >= -0.15" in failures[0] and "95% CI [" in failures[0]
    suite = ElementTree.parse(junit).getroot()
    assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", "6", "1")
    failing = [case for case in suite.iter("testcase") if case.find("failure") is not None]
    assert [c.get("name") for c in failing] == ["airline|a1|noise_cafe@15.0dB"]
    assert failing[0].get("classname") == "delta:key_entity_accuracy_mean>=-0.15"


def test_thresholds_that_hold_exit_0_also_from_yaml(store, tmp_path, capsys):
    target, base_id, *_ = store
    (tmp_path / "gate.yaml").write_text(
        "thresholds:\n  - task_completion_pass_at_1>=0\n  - delta:key_entity_accuracy_mean>=-0.5\n"
    )
    assert gate(target, "--thresholds", str(tmp_path / "gate.yaml"), "--sweep", base_id) == 0
    assert "6/6 checks held" in capsys.readouterr().out
    # the same file with a bound the planted drop breaks: red
    (tmp_path / "strict.yaml").write_text("- delta:key_entity_accuracy_mean>=-0.15\n")
    assert gate(target, "--thresholds", str(tmp_path / "strict.yaml"), "--sweep", base_id) == 1


def test_baseline_sweep_catches_the_new_regression(store, tmp_path, capsys):
    target, base_id, new_id, *_ = store
    summary = tmp_path / "b.json"
    status = gate(target, "baseline:key_entity_accuracy_mean>=-0.1", "--sweep", new_id, "--baseline", base_id,
                  "--json", str(summary))  # fmt: skip
    assert status == 1
    doc = json.loads(summary.read_text())
    failed = [r for r in doc["results"] if not r["passed"]]
    # the same draws in both sweeps: only a2's noise cell moved, by the planted -0.3
    assert [r["cell"] for r in failed] == ["airline|a2|noise_cafe@15.0dB"] and doc["checks"] == 4
    assert failed[0]["value"] == pytest.approx(-0.3, abs=0.02)
    assert all(r["value"] == pytest.approx(0.0, abs=1e-9) for r in doc["results"] if r["passed"])
    assert "baseline" in capsys.readouterr().out


def test_latest_is_the_newest_sweep(store, capsys):
    target, _, new_id, *_ = store
    assert gate(target, "delta:key_entity_accuracy_mean>=-0.15", "--latest") == 1
    out = capsys.readouterr().out
    assert f"sweep {new_id}" in out and sum(line.startswith("FAIL") for line in out.splitlines()) == 2


def test_a_cell_that_did_not_finish_fails_the_gate(store, capsys):
    """A FAILED cell run (e.g. judge failures) is a red build even when every threshold holds on the rest."""
    target, *_ = store
    other = resolve_target(target.tracking_uri, "incomplete", None, Path(target.tracking_uri[10:]).parent)
    cells = make_experiment(["a1"], ["airline"], [], 4, 1, 1, {}, 1)
    with tempfile.TemporaryDirectory() as tmp:
        parent = start_sweep(other, Path(tmp), {"agent": "a1"}, [])
    log_cell(other, cells[0], parent)
    with CellRun.open(other, "airline|a1|broken", {"cell_key": "k2", "evalkit.kind": "cell"}, parent) as broken:
        broken.mark_incomplete("judge: 3 judgment(s) failed")
    end_sweep(other, parent)
    status = run(["task_completion_pass_at_1>=0", "--sweep", parent, "--tracking-uri", other.tracking_uri,
                  "--experiment", "incomplete"])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 1 and f"FAIL cell airline|a1|broken (run {broken.run_id}) did not finish" in out
    assert "judge: 3 judgment(s) failed" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["task_completion_pass_at_l>=0.8"], "unknown metric 'task_completion_pass_at_l'"),
        (["task_completion_pass_at_1=>0.8"], "malformed threshold"),
        (["task_completion_pass_at_1>=high"], "'high' is not a number"),
        (["relative:task_completion_pass_at_1>=0"], "unknown prefix 'relative'"),
        (["task_completion_pass_at_1>=0.8", "--sweep", "deadbeef"], "sweep run 'deadbeef' not found"),
        (["baseline:task_completion_pass_at_1>=0"], "baseline: thresholds need --baseline"),
        ([], "no thresholds"),
        (["--sweep"], "expected one argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(store, capsys, args, message):
    target, *_ = store
    assert gate(target, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evalkit.gate: ") and message in err[0], err


def test_unknown_metric_suggests_the_close_name(store, capsys):
    target, base_id, *_ = store
    assert gate(target, "task_completion_pass_at_l>=0.8", "--sweep", base_id) == 2
    assert "did you mean " in (err := capsys.readouterr().err) and "task_completion_pass_at_1" in err


@pytest.mark.parametrize(
    ("text", "kind", "metric", "op", "value"),
    [
        ("task_completion_pass_at_1>=0.8", "absolute", "task_completion_pass_at_1", ">=", 0.8),
        ("delta:task_completion_pass_at_1 >= -0.1", "delta", "task_completion_pass_at_1", ">=", -0.1),
        ("baseline:latency_response_ms_p95<1500", "baseline", "latency_response_ms_p95", "<", 1500.0),
        ("user_wer_mean<=0.05", "absolute", "user_wer_mean", "<=", 0.05),
    ],
)
def test_parse_threshold(text, kind, metric, op, value):
    t = parse_threshold(text)
    assert (t.kind, t.metric, t.op, t.value) == (kind, metric, op, value)
    assert t.holds(value) == (op in (">=", "<=", "=="))


def test_parse_threshold_refuses_nan():
    with pytest.raises(GateInputError, match="NaN"):
        parse_threshold("x>=nan")


def test_command_line_help_and_exit_status(store, tmp_path, capsys, monkeypatch):
    """The module as CI runs it: a failing gate exits 1 (a subprocess: ``main``'s exit status); --help has examples
    and a missing store is exit 2 in one line (``run``, in process: each start of the module costs ~3 s)."""
    target, base_id, *_ = store
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    failing = subprocess.run(
        [sys.executable, "-m", "evalkit.gate", "delta:key_entity_accuracy_mean>=-0.15", "--sweep", base_id,
         "--tracking-uri", target.tracking_uri, "--experiment", "synthetic"],
        env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert failing.returncode == 1, failing.stderr[-2000:]
    assert "Traceback" not in failing.stderr
    capsys.readouterr()
    assert run(["--help"]) == 0
    help_text = capsys.readouterr().out
    assert "delta:task_completion_pass_at_1>=-0.1" in help_text and "exit status: 0" in help_text
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)
    assert run(["x>=1"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"evalkit.gate: no MLflow store at {tmp_path / 'mlflow.db'}: pass --tracking-uri or set MLFLOW_TRACKING_URI"
    ]
    assert not (tmp_path / "mlflow.db").exists()
