"""MLFLOW_TRACKING_URI is honoured: cells logged to, and analysed from, a real `mlflow server` on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.analysis.compare import Settings
from evalkit.analysis.pipeline import run_analysis
from evalkit.analysis.synthetic import Condition, log_experiment, make_experiment
from evalkit.tracking import resolve_target

STARTUP_S = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    cmd = [
        sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
        "--backend-store-uri", f"sqlite:///{tmp_path / 'server.db'}",
        "--artifacts-destination", str(tmp_path / "server-artifacts"),
    ]  # fmt: skip
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"mlflow server did not start: {(tmp_path / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url, tmp_path
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server's own process group (it forks workers)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.mark.slow
def test_cells_and_analysis_go_to_the_server_named_by_the_environment(server, monkeypatch):
    url, tmp_path = server
    monkeypatch.setenv("MLFLOW_TRACKING_URI", url)
    target = resolve_target(None, "remote", None, tmp_path)  # the runner's resolution: config null -> env
    assert target.tracking_uri == url and target.artifact_location is None
    cells = make_experiment(["a1"], ["airline"], [Condition("noise", perturb="noise_cafe", snr_db="5.0")], 6, 2, 2,
                            {("a1", "noise", "user_wer"): 0.3}, seed=2)  # fmt: skip
    parent, run_ids = log_experiment(target, cells)
    outcome = run_analysis(target, tmp_path / "out", Settings(n_permutations=1000, n_bootstrap=200))
    assert outcome.selection.sweep_id == parent
    wer = next(r for r in outcome.analysis.rows if r.metric == "user_wer")
    assert wer.delta == pytest.approx(0.3, abs=0.05) and wer.p == pytest.approx(2 / 64)

    client = MlflowClient(url)
    run = client.get_run(outcome.analysis_run_id)
    assert run.data.tags["evalkit.kind"] == "analysis"
    assert {k.removeprefix("evalkit.input.") for k in run.data.tags if k.startswith("evalkit.input.")} == {
        parent,
        *run_ids.values(),
    }
    local = Path(client.download_artifacts(outcome.analysis_run_id, "report.md", str(tmp_path / "dl")))
    assert "## user_wer" in local.read_text()
    # artifacts went through the server into its --artifacts-destination, not into a local mlruns folder
    assert list((tmp_path / "server-artifacts").rglob("conversations_table.json"))
    assert not (tmp_path / "mlruns").exists() and not Path("mlruns").exists()


@pytest.mark.slow
def test_a_joblib_sweep_against_a_shared_server_logs_every_cell(server):
    """The cluster set-up in miniature: parallel jobs (joblib, 2 processes) write to one `mlflow server`."""
    from tests.test_end_to_end import run_evalkit

    url, tmp_path = server
    run = run_evalkit(
        tmp_path,
        "+experiment=smoke",
        "domain.scenarios=[AL-005]",
        "+perturb=noise_cafe",
        "metrics=[task_completion]",
        "progress=false",
        f"mlflow.tracking_uri={url}",
        "mlflow.experiment=shared",
        "hydra/launcher=joblib",
        "hydra.launcher.n_jobs=2",
        "-m",
    )
    assert run.returncode == 0, run.stderr[-3000:]
    client = MlflowClient(url)
    experiment = client.get_experiment_by_name("shared")
    runs = client.search_runs([experiment.experiment_id])
    cells = [r for r in runs if r.data.tags.get("evalkit.kind") == "cell"]
    (parent,) = [r for r in runs if r.data.tags.get("evalkit.kind") == "sweep"]
    assert sorted(r.data.params["perturb"] for r in cells) == ["clean", "noise_cafe"]
    assert all(r.info.status == "FINISHED" and r.data.tags["mlflow.parentRunId"] == parent.info.run_id for r in cells)
    assert parent.info.status == "FINISHED" and parent.data.metrics["sweep_cells_done"] == 2
    assert not (tmp_path / "mlflow.db").exists()  # nothing went to a local store
