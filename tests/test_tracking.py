"""Tracking against a real MLflow SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.tracking import (
    CellRun,
    end_sweep,
    ensure_experiment,
    find_finished_cell,
    flatten,
    read_parent_run,
    resolve_target,
    start_sweep,
)


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("store")  # one SQLite store per module: creating one costs seconds


@pytest.fixture
def target(store_dir, request, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return resolve_target(None, request.node.name, None, store_dir)


def test_default_target_is_an_absolute_sqlite_file_with_pinned_artifacts(store_dir, target):
    assert target.tracking_uri == f"sqlite:///{store_dir.resolve()}/mlflow.db"
    assert target.artifact_location == (store_dir / "mlartifacts").resolve().as_uri()


def test_environment_uri_is_honoured(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    assert resolve_target(None, "t", None, tmp_path).tracking_uri == "http://127.0.0.1:5999"
    assert resolve_target("sqlite:///x.db", "t", None, tmp_path).tracking_uri.endswith(f"{tmp_path}/x.db")


def test_experiment_creation_is_idempotent(target):
    assert ensure_experiment(target) == ensure_experiment(target)


def test_only_complete_cells_are_found(target):
    with CellRun.open(target, "ok", {"cell_key": "k1", "evalkit.kind": "cell"}, None) as run:
        run.log_metrics({"m": 1.0})
    with pytest.raises(RuntimeError), CellRun.open(target, "dies", {"cell_key": "k2", "evalkit.kind": "cell"}, None):
        raise RuntimeError("killed half-way")
    assert find_finished_cell(target, "k1") == run.run_id
    assert find_finished_cell(target, "k2") is None
    client = MlflowClient(target.tracking_uri)
    runs = client.search_runs([ensure_experiment(target)])
    statuses = {r.data.tags["cell_key"]: r.info.status for r in runs}
    assert statuses == {"k1": "FINISHED", "k2": "FAILED"}


def test_what_is_kept_for_the_close_lands_with_the_run_before_its_completion(target, tmp_path: Path) -> None:
    """One write at close: aggregates, a table written into the logged folder (what MLflow's log_table would
    store, tag included), and the completion tag; a run that fails still keeps what it was given."""
    from evalkit.tracking.store import COMPLETE_TAG, write_table

    columns = {"scenario": ["AL-001", "AL-005"], "task_completion": [1.0, None], "turns": [4, 7]}
    folder = tmp_path / "cell"
    folder.mkdir()
    write_table(columns, folder / "t.json")
    with CellRun.open(target, "closing", {"cell_key": "c1", "evalkit.kind": "cell"}, None) as run:
        run.log_dir(folder, tables=("t.json",))
        run.log_at_close({"m": 2.0, "nan": float("nan")}, {"note": "x"})
        assert "m" not in MlflowClient(target.tracking_uri).get_run(run.run_id).data.metrics  # not yet
    with CellRun.open(target, "reference", {"cell_key": "c2", "evalkit.kind": "test"}, None) as reference:
        reference.log_table(columns, "t.json")  # MLflow's own way
    client = MlflowClient(target.tracking_uri)
    stored = client.get_run(run.run_id)
    assert stored.data.metrics == {"m": 2.0} and stored.data.tags["note"] == "x"
    assert stored.data.tags[COMPLETE_TAG] == "true" and stored.info.status == "FINISHED"
    made_by_mlflow = client.get_run(reference.run_id).data.tags["mlflow.loggedArtifacts"]
    assert stored.data.tags["mlflow.loggedArtifacts"] == made_by_mlflow
    ours = json.loads(Path(client.download_artifacts(run.run_id, "t.json", str(tmp_path / "ours"))).read_text())
    theirs = client.download_artifacts(reference.run_id, "t.json", str(tmp_path / "theirs"))
    assert ours == json.loads(Path(theirs).read_text()) and ours["data"][0] == ["AL-001", 1.0, 4]

    with pytest.raises(RuntimeError), CellRun.open(target, "dies", {"cell_key": "c3"}, None) as failed:
        failed.log_at_close({"m": 3.0})
        raise RuntimeError("crashed after scoring")
    dead = client.get_run(failed.run_id)
    assert dead.info.status == "FAILED" and dead.data.metrics == {"m": 3.0} and COMPLETE_TAG not in dead.data.tags


def test_sweep_parent_collects_children_into_a_summary(tmp_path: Path, target):
    sweep_dir = tmp_path / "multirun" / "x"
    # "+perturb" as a sweeper param (conf/experiment/snr_curve.yaml): MLflow refused "grid.+perturb" as a key
    parent = start_sweep(target, sweep_dir, {"domain": "airline", "+perturb": "noise_cafe"}, ["+perturb=noise_cafe"])
    assert read_parent_run(sweep_dir) == parent
    assert MlflowClient(target.tracking_uri).get_run(parent).data.params["grid.perturb"] == "noise_cafe"
    for key in ("a", "b"):
        with CellRun.open(target, key, {"cell_key": key, "condition": key}, parent) as run:
            run.log_metrics({"user_wer_mean": 0.25})
    rows = end_sweep(target, parent)
    assert {r["cell_key"] for r in rows} == {"a", "b"}
    client = MlflowClient(target.tracking_uri)
    assert client.get_run(parent).info.status == "FINISHED"
    assert "summary_table.json" in {a.path for a in client.list_artifacts(parent)}


def test_flatten_makes_dotted_string_params():
    assert flatten({"a": {"b": 1, "c": [1, 2]}, "d": None}) == {"a.b": "1", "a.c": "[1, 2]", "d": "None"}


@pytest.mark.slow
def test_a_sqlite_store_commits_through_a_write_ahead_log(tmp_path: Path) -> None:
    """Rollback-journal commits wait for fsync (≈ 16 ms each, most of a cell's overhead: issue 16 point 8). The
    store is switched to WAL once (persistent in the file) and every connection of ours commits with
    synchronous=NORMAL, MLflow's pooled ones included; a store created by plain MLflow is switched too."""
    import sqlite3

    from sqlalchemy import create_engine, text

    from evalkit.tracking.store import mlflow_client

    old = tmp_path / "old" / "mlflow.db"
    old.parent.mkdir()
    MlflowClient(f"sqlite:///{old}").search_experiments()  # created by MLflow alone: rollback journal
    with sqlite3.connect(old) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    for path in (tmp_path / "new" / "mlflow.db", old):
        uri = f"sqlite:///{path}"
        client = mlflow_client(uri)
        client.create_experiment("wal")  # a write through MLflow's own engine
        with sqlite3.connect(path) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with create_engine(uri).connect() as connection:  # any engine of this process: synchronous NORMAL (1)
            assert connection.execute(text("PRAGMA synchronous")).scalar() == 1
        assert MlflowClient(uri).get_experiment_by_name("wal") is not None


def test_a_cell_report_is_written_in_one_pass_and_an_incomplete_one_ends_failed(target, tmp_path: Path) -> None:
    """publish: the params, the table (written into the folder, then uploaded with it) and the metrics of a computed
    cell land in its run; a report that says why it is not whole ends the run FAILED, never complete."""
    from evalkit.tracking import CellReport, publish
    from evalkit.tracking.store import COMPLETE_TAG, LOGGED_TABLES_TAG

    folder = tmp_path / "cell"
    folder.mkdir()
    (folder / "aggregates.json").write_text("{}")
    columns = {"scenario": ["AL-001"], "turns": [4]}
    whole = CellReport({"agent": "a"}, folder, {"t.json": columns}, {"conversations": 1.0}, label="k1")
    with CellRun.open(target, "whole", {"cell_key": "k1", "evalkit.kind": "cell"}, None) as run:
        publish(run, whole)
    client = MlflowClient(target.tracking_uri)
    stored = client.get_run(run.run_id)
    assert stored.data.params == {"agent": "a"} and stored.data.metrics == {"conversations": 1.0}
    assert stored.data.tags[COMPLETE_TAG] == "true" and "t.json" in stored.data.tags[LOGGED_TABLES_TAG]
    assert {a.path for a in client.list_artifacts(run.run_id)} == {"aggregates.json", "t.json"}
    assert json.loads((folder / "t.json").read_text())["data"] == [["AL-001", 4]]

    broken = CellReport({}, folder, {}, {"conversations": 1.0}, incomplete="infrastructure: 1 failed", label="k2")
    with CellRun.open(target, "broken", {"cell_key": "k2", "evalkit.kind": "cell"}, None) as failed:
        publish(failed, broken)
    dead = client.get_run(failed.run_id)
    assert dead.info.status == "FAILED" and COMPLETE_TAG not in dead.data.tags
