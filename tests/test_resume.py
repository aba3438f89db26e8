"""Resume after kills (issue 16, point 6): a half-written cell is never taken as done, locally or in MLflow, and a
sweep SIGKILLed at random moments and rerun finishes every cell exactly once with the uninterrupted result
(scripts/chaos_resume.py, here with 5 kills)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from evalkit.cell import run_cell
from evalkit.tracking.store import COMPLETE_TAG, find_finished_cell, mark_stale_runs, resolve_target
from tests.conftest import REPO
from tests.test_faults import cell_config, faulty

__all__ = ["faulty"]


def test_a_half_written_cell_folder_is_not_taken_as_done_nor_published(faulty: Any, tmp_path: Path) -> None:
    """A killed run left records and audio in the folder the rerun uses (a re-queued SLURM job, a fixed
    ``hydra.run.dir``). run_cell decides 'done' only from MLflow's ``evalkit.complete`` tag, never from the folder,
    and clears the stale files first: the folder is logged whole, so they would be published as this run's."""
    out = tmp_path / "cell"
    (out / "records").mkdir(parents=True)
    (out / "records" / "AL-001_t0.json").write_text('{"half": ')  # cut mid-write by the kill
    (out / "audio" / "AL-001_t0").mkdir(parents=True)
    (out / "aggregates.json").write_text("{}")
    config = cell_config("none", tmp_path=tmp_path)
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)

    result = run_cell(config, target, out)
    assert not result.reused
    client = MlflowClient(target.tracking_uri)
    records = [Path(a.path).name for a in client.list_artifacts(result.run_id, "records")]
    assert records == ["AL-005_t0.json"]
    assert sorted(p.name for p in (out / "records").iterdir()) == ["AL-005_t0.json"]
    assert json.loads((out / "aggregates.json").read_text())["conversations"] == 1


def test_a_run_killed_after_logging_part_of_its_artifacts_is_not_reused(tmp_path: Path) -> None:
    """A real process logs a record artifact into its cell run and is SIGKILLed before the run is tagged
    complete: nothing takes it as finished, and the next start marks it FAILED (so its key is free to run again)."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.tracking_worker", "half", str(tmp_path), "half", "k-half"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    line = proc.stdout.readline().split()  # type: ignore[union-attr]
    assert line and line[0] == "ready", proc.stderr.read()  # type: ignore[union-attr]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    target = resolve_target(None, "half", None, tmp_path)
    client = MlflowClient(target.tracking_uri)
    half = client.get_run(line[2])
    assert [a.path for a in client.list_artifacts(half.info.run_id, "records")] == ["records/AL-005_t0.json"]
    assert COMPLETE_TAG not in half.data.tags
    assert find_finished_cell(target, "k-half") is None  # half-written: never taken as done
    assert dict(mark_stale_runs(target)).keys() >= {half.info.run_id}
    assert client.get_run(half.info.run_id).info.status == "FAILED"


def _chaos_module() -> Any:
    spec = importlib.util.spec_from_file_location("chaos_resume", REPO / "scripts" / "chaos_resume.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["chaos_resume"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_sweep_killed_five_times_at_random_moments_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    """Two real cells (café noise and its clean twin, one conversation each, no listener ASR), SIGKILLed 5 times
    at seeded random moments, rerun each time, then let finish."""
    chaos = _chaos_module()
    figures = chaos.run_chaos(tmp_path, kills=5, seed=0, overrides=list(chaos.DEFAULT_OVERRIDES))
    print(figures)
    assert figures.kills == 5
    assert figures.final_returncode == 0
    assert figures.runs_left_running == 0
    assert figures.cell_keys == 2 and figures.duplicate_keys == []
    assert figures.half_written_taken_as_done == 0
    # a kill mid-cell leaves that cell's run and its sweep's, both marked FAILED (a kill during start-up: none)
    assert figures.runs_failed >= 2 * figures.killed_mid_cell
    assert figures.identical_to_reference
