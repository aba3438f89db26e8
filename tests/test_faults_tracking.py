"""Faults outside the agent (issue 16, point 7): the tracking server goes away mid-cell, the artifact disk is full.
Either way the cell fails cleanly — FAILED (or left RUNNING for the next start to mark), never tagged complete,
never reported as success with data missing — and the same command later resumes it.

The full disk is a real 64 KiB tmpfs mounted over the artifact folder (needs root, which the test machine and CI
containers have; elsewhere the test is skipped with that reason): a file-size rlimit would raise EFBIG, not the
ENOSPC a full disk gives, and would need a subprocess."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from evalkit.cell import run_cell
from evalkit.tracking.store import COMPLETE_TAG, FAILURE_TAG, find_finished_cell, resolve_target
from tests.conftest import REPO
from tests.test_faults import cell_config, faulty
from tests.test_mlflow_server import STARTUP_S, free_port

__all__ = ["faulty"]

CELL = (
    "+experiment=smoke",
    "domain.scenarios=[AL-005]",
    "trials=1",
    "metrics=[task_completion]",
    "progress=false",
    "mlflow.log_audio=false",
)


class Server:
    """A real `mlflow server` on 127.0.0.1 that can be killed and started again on the same port and store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [
            sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(self.port),
            "--workers", "1", "--backend-store-uri", f"sqlite:///{self.root / 'server.db'}",
            "--artifacts-destination", str(self.root / "server-artifacts"),
        ]  # fmt: skip
        log = (self.root / "server.log").open("a")
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"mlflow server did not start: {(self.root / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # gone at once, as a crashed host would be
            self.proc.wait(timeout=30)


def evalkit_process(cwd: Path, url: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env |= {
        "PYTHONPATH": str(REPO),
        "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",  # MLflow's own retries (default 7, minutes): kept short here
        "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
        "MLFLOW_HTTP_REQUEST_TIMEOUT": "10",
        "EVALKIT_HEARTBEAT_S": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "evalkit", *CELL, f"mlflow.tracking_uri={url}"],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def cell_runs(url: str) -> list:
    client = MlflowClient(url)
    experiment = client.get_experiment_by_name("evalkit")
    if experiment is None:
        return []
    return [r for r in client.search_runs([experiment.experiment_id]) if r.data.tags.get("evalkit.kind") == "cell"]


@pytest.mark.slow
def test_the_tracking_server_going_away_mid_cell_fails_it_cleanly_and_the_rerun_resumes(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.start()
    try:
        proc = evalkit_process(tmp_path, server.url)
        deadline = time.monotonic() + 120
        while not [r for r in cell_runs(server.url) if r.info.status == "RUNNING"]:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0][-3000:]
            time.sleep(0.3)
        server.kill()  # while the cell computes its conversation
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode != 0, out[-3000:]  # never a success with the cell's data missing
        assert "finished:" not in out  # the cell's success line
        # refused, or cut off mid-answer when the kill lands during a request ("Connection broken: IncompleteRead")
        lost_server = ("ConnectionError", "Max retries exceeded", "Connection broken")
        assert any(reason in out for reason in lost_server), out[-3000:]

        server.start()  # the server is back (same store): the same command resumes the cell
        (lost,) = cell_runs(server.url)
        assert COMPLETE_TAG not in lost.data.tags  # never taken as finished
        assert lost.info.status == "RUNNING"  # its owner could not tell the server: the next start marks it
        again = evalkit_process(tmp_path, server.url)
        out, _ = again.communicate(timeout=600)
        assert again.returncode == 0, out[-3000:]
        runs = {r.info.run_id: r for r in cell_runs(server.url)}
        assert runs[lost.info.run_id].info.status == "FAILED"
        assert runs[lost.info.run_id].data.tags[FAILURE_TAG].startswith("stale: owner process")
        finished = [r for r in runs.values() if r.info.status == "FINISHED"]
        assert len(finished) == 1 and finished[0].data.tags[COMPLETE_TAG] == "true"
        records = MlflowClient(server.url).list_artifacts(finished[0].info.run_id, "records")
        assert [Path(a.path).name for a in records] == ["AL-005_t0.json"]
    finally:
        server.kill()


@pytest.fixture
def full_disk(tmp_path: Path) -> Any:
    folder = tmp_path / "full"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"a tiny tmpfs needs root: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.parametrize("where", ["artifacts", "cell folder"])
def test_a_full_disk_fails_the_cell_cleanly_and_a_later_run_resumes_it(
    faulty: Any,
    tmp_path: Path,
    full_disk: Path,
    where: str,
) -> None:
    """ENOSPC while the records and audio are written (cell folder) or uploaded (artifact store): the run ends
    FAILED with the reason, is never complete or reused; with space again the same cell runs and finishes.
    Not retried within the cell: a full disk does not empty itself in seconds."""
    artifacts = full_disk if where == "artifacts" else tmp_path / "mlartifacts"
    out = full_disk / "cell" if where == "cell folder" else tmp_path / "cell"
    config = cell_config("none", "mlflow.log_audio=true", tmp_path=tmp_path)
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, str(artifacts), tmp_path)
    with pytest.raises(OSError) as raised:
        run_cell(config, target, out)
    assert raised.value.errno == errno.ENOSPC
    client = MlflowClient(target.tracking_uri)
    (run,) = client.search_runs([client.get_experiment_by_name("evalkit").experiment_id])
    assert run.info.status == "FAILED" and "No space left on device" in run.data.tags[FAILURE_TAG]
    assert COMPLETE_TAG not in run.data.tags
    assert find_finished_cell(target, run.data.tags["cell_key"]) is None

    subprocess.run(["umount", "-l", str(full_disk)], check=True)  # space again (the plain folder underneath)
    result = run_cell(config, target, out)
    assert not result.reused and client.get_run(result.run_id).info.status == "FINISHED"
