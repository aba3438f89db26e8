"""Runs left RUNNING by killed processes, heartbeats, and two sweeps on one store at once (issue 16, point 9).

Real processes (tests/tracking_worker.py) on real SQLite stores; no cell computes anything, so each test costs
seconds."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from evalkit.tracking import (
    PARENT_RUN_ENV,
    CellClaimed,
    CellRun,
    find_finished_cell,
    mark_stale_runs,
    parent_run_env,
    read_parent_run,
    resolve_target,
    start_sweep,
)
from evalkit.tracking.liveness import HEARTBEAT_TAG, OWNER_HOST_TAG, OWNER_PID_TAG, RunLife, owner_tags, pid_alive
from evalkit.tracking.store import FAILURE_TAG
from tests.conftest import CONF_DIR, REPO


def worker(*args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.Popen(
        [sys.executable, "-m", "tests.tracking_worker", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def runs_of(store: Path, experiment: str) -> list:
    client = MlflowClient(f"sqlite:///{store.resolve()}/mlflow.db")
    exp = client.get_experiment_by_name(experiment)
    return client.search_runs([exp.experiment_id]) if exp else []


@pytest.fixture(autouse=True)
def _no_env_uri(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv(PARENT_RUN_ENV, raising=False)


def test_a_cell_killed_with_sigkill_is_marked_failed_on_the_next_start_and_runs_again(tmp_path):
    proc = worker("hang", str(tmp_path), "killed", "k-killed")
    line = proc.stdout.readline().split()  # type: ignore[union-attr]
    assert line[0] == "ready", proc.stderr.read()  # type: ignore[union-attr]
    sweep_id, cell_id = line[1], line[2]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    target = resolve_target(None, "killed", None, tmp_path)
    client = MlflowClient(target.tracking_uri)
    assert client.get_run(cell_id).info.status == "RUNNING"  # what kill -9 leaves behind

    marked = dict(mark_stale_runs(target))  # what a sweep or single run does when it starts
    assert set(marked) == {sweep_id, cell_id}
    for run_id in (sweep_id, cell_id):
        run = client.get_run(run_id)
        assert run.info.status == "FAILED"
        assert run.data.tags[FAILURE_TAG].startswith(f"stale: owner process {proc.pid} ")
    assert find_finished_cell(target, "k-killed") is None  # never taken as finished
    assert mark_stale_runs(target) == []  # idempotent

    # On resume the cell runs again: the dead run holds no claim on its key.
    with CellRun.open(target, "again", {"cell_key": "k-killed", "evalkit.kind": "cell"}, None, claim=True) as run:
        pass
    assert find_finished_cell(target, "k-killed") == run.run_id


def test_a_claim_held_by_a_dead_owner_is_released_without_a_stale_sweep_first(tmp_path):
    proc = worker("hang", str(tmp_path), "claim", "k-dead")
    assert proc.stdout.readline().startswith("ready")  # type: ignore[union-attr]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    target = resolve_target(None, "claim", None, tmp_path)
    with CellRun.open(target, "resumed", {"cell_key": "k-dead", "evalkit.kind": "cell"}, None, claim=True):
        pass
    statuses = sorted(r.info.status for r in runs_of(tmp_path, "claim") if r.data.tags.get("cell_key") == "k-dead")
    assert statuses == ["FAILED", "FINISHED"]


def test_a_live_claim_makes_a_second_opener_wait_and_its_own_run_leaves_no_trace(tmp_path):
    target = resolve_target(None, "live", None, tmp_path)
    tags = {"cell_key": "k-live", "evalkit.kind": "cell"}
    with CellRun.open(target, "first", tags, None, claim=True) as first:
        with pytest.raises(CellClaimed) as claimed, CellRun.open(target, "second", tags, None, claim=True):
            pass
        assert claimed.value.holder == first.run_id
    with pytest.raises(CellClaimed) as done, CellRun.open(target, "third", tags, None, claim=True):
        pass  # a complete run holds the key for good: reuse it
    assert done.value.holder == first.run_id
    assert [r.info.run_id for r in runs_of(tmp_path, "live")] == [first.run_id]  # losers deleted


def test_the_heartbeat_tag_moves_while_a_cell_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_HEARTBEAT_S", "0.2")
    target = resolve_target(None, "beat", None, tmp_path)
    client = MlflowClient(target.tracking_uri)
    with CellRun.open(target, "beating", {"cell_key": "k-beat"}, None) as run:
        first = int(client.get_run(run.run_id).data.tags[HEARTBEAT_TAG])
        time.sleep(1.0)
        later = int(client.get_run(run.run_id).data.tags[HEARTBEAT_TAG])
    tags = client.get_run(run.run_id).data.tags
    assert later > first
    assert tags[OWNER_PID_TAG] == str(os.getpid()) and tags[OWNER_HOST_TAG] == socket.gethostname()


def test_staleness_rule():
    now = int(time.time() * 1000)
    elsewhere = {OWNER_HOST_TAG: "another-host", OWNER_PID_TAG: "1", HEARTBEAT_TAG: str(now - 10_000)}
    assert RunLife(elsewhere, now - 60_000).stale_reason(now, limit_s=30) is None  # other host, fresh beat
    reason = RunLife(elsewhere | {HEARTBEAT_TAG: str(now - 100_000)}, 0).stale_reason(now, limit_s=30)
    assert reason is not None and reason.startswith("no heartbeat for 100 s (limit 30 s")
    # this host: a live owner is never stale, however late its beat; a recycled pid (other start time) is
    mine = owner_tags() | {HEARTBEAT_TAG: "0"}
    assert RunLife(mine, 0).stale_reason(now, limit_s=1) is None
    assert RunLife(mine | {"evalkit.owner.started": "1"}, 0).stale_reason(now, limit_s=1) is not None
    assert pid_alive(os.getpid()) and not pid_alive(2**22 + 12345)
    # a run with no owner at all (written by an older evalkit): judged by its start time
    assert RunLife({}, now - 10_000).stale_reason(now, limit_s=30) is None
    assert RunLife({}, now - 100_000).stale_reason(now, limit_s=30) is not None


@pytest.mark.slow
def test_two_sweeps_on_one_fresh_store_lose_nothing_and_run_each_cell_once(tmp_path):
    """Started together on a fresh SQLite store: both sweeps exist (migrations once), each key has exactly one
    FINISHED run, the other sweep waited for it and reused it, and nothing is left RUNNING."""
    keys = ["k1", "k2", "k3"]
    start_at = f"{time.time() + 4:.3f}"  # both processes are importing mlflow meanwhile
    procs = [worker("cells", str(tmp_path), "twosweeps", start_at, "0.8", *keys) for _ in range(2)]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    runs = runs_of(tmp_path, "twosweeps")
    sweeps = [r for r in runs if r.data.tags.get("evalkit.kind") == "sweep"]
    assert len(sweeps) == 2
    for key in keys:
        finished = [r for r in runs if r.data.tags.get("cell_key") == key and r.info.status == "FINISHED"]
        assert len(finished) == 1, [(r.info.run_id, r.info.status) for r in runs if r.data.tags.get("cell_key") == key]
        verbs = sorted(o["cells"][key].split()[0] for o in outputs)
        assert verbs == ["ran", "reused"]
        assert {o["cells"][key].split()[1] for o in outputs} == {finished[0].info.run_id}
    assert not [r for r in runs if r.info.status == "RUNNING"]


def test_parent_run_id_comes_from_the_environment_for_its_own_sweep_folder(tmp_path, monkeypatch):
    target = resolve_target(None, "parent", None, tmp_path)
    mine, other = tmp_path / "multirun" / "a", tmp_path / "multirun" / "b"
    parent = start_sweep(target, mine, {}, [])
    (mine / ".evalkit_parent_run").write_text("overwritten-by-another-sweep")
    monkeypatch.setenv(PARENT_RUN_ENV, parent_run_env(mine, parent))
    assert read_parent_run(mine) == parent  # the folder file no longer matters
    other.mkdir(parents=True)
    (other / ".evalkit_parent_run").write_text("run-b")
    assert read_parent_run(other) == "run-b"  # the variable names another folder: fall back to the file


def test_sweep_folders_are_unique_per_launch():
    dirs = set()
    for _ in range(2):
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            cfg = compose("config", return_hydra_config=True)
        dirs.add(OmegaConf.select(cfg, "hydra.sweep.dir"))
    assert len(dirs) == 2
    assert all(f"-{os.getpid()}-" in d for d in dirs)
