"""Sweep progress (issue 16, point 5): computed from the store, logged to the parent run as each cell ends.

Store-level tests log cells with ``CellRun`` under a real parent sweep run (fixed clock for the arithmetic);
one tiny real sweep (a cell and its clean twin, one conversation each) checks the whole path: the sweeper hands
the total to the parent run, each cell logs a step, the parent ends with the final numbers.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.tracking import (
    CellRun,
    SweepProgress,
    TrackingTarget,
    log_sweep_progress,
    resolve_target,
    set_sweep_total,
    start_sweep,
    sweep_progress,
)
from tests.conftest import REPO


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TrackingTarget:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return resolve_target(None, "progress", None, tmp_path)


def log_cell(target: TrackingTarget, parent: str, key: str, kind: str, conversations: int, fail: bool = False) -> None:
    tags = {"cell_key": key, "evalkit.kind": kind}
    expected = pytest.raises(RuntimeError) if fail else contextlib.nullcontext()
    with expected, CellRun.open(target, f"cell {key}", tags, parent) as run:
        run.log_metrics({"conversations": float(conversations)})
        if fail:
            raise RuntimeError("agent crashed")


def test_progress_arithmetic_from_the_store(target: TrackingTarget, tmp_path: Path) -> None:
    parent = start_sweep(target, tmp_path / "sweep", {}, [])
    set_sweep_total(target, parent, 5)
    log_cell(target, parent, "a", "cell", 4)
    log_cell(target, parent, "b", "cell", 4)
    log_cell(target, parent, "c", "reuse", 6)  # reused: done, but costs no time
    log_cell(target, parent, "d", "cell", 4, fail=True)  # FAILED: not done
    start = MlflowClient(target.tracking_uri).get_run(parent).info.start_time
    progress = log_sweep_progress(target, parent, now_ms=start + 120_000)  # two minutes in
    assert (progress.done, progress.total, progress.fresh_cells) == (3, 5, 2)
    assert progress.conversations == 14 and progress.fresh_conversations == 8
    assert progress.per_min == pytest.approx(4.0)  # 8 computed conversations / 2 min
    assert progress.eta_s == pytest.approx(120.0)  # 2 cells left × 120 s / 2 computed cells
    assert progress.line() == "sweep: 3/5 cells, 4.0 conv/min, ETA 2 min"
    logged = MlflowClient(target.tracking_uri).get_run(parent).data.metrics
    assert logged["sweep_cells_done"] == 3 and logged["sweep_cells_total"] == 5
    assert logged["sweep_conversations_done"] == 14 and logged["sweep_eta_s"] == 120.0
    history = MlflowClient(target.tracking_uri).get_metric_history(parent, "sweep_cells_done")
    assert [m.step for m in history] == [3]


def test_each_progress_step_reads_only_the_children_it_has_not_seen(
    target: TrackingTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FINISHED child does not change, so a step reads only new ones (reading all cost O(cells) per cell); the
    numbers stay those of a full read, failed cells still never count."""
    parent = start_sweep(target, tmp_path / "sweep", {}, [])
    set_sweep_total(target, parent, 6)
    log_cell(target, parent, "a", "cell", 4)
    log_cell(target, parent, "b", "reuse", 6)
    returned: list[int] = []
    search = MlflowClient.search_runs

    def counted(self: MlflowClient, *args: object, **kwargs: object) -> object:
        runs = search(self, *args, **kwargs)  # type: ignore[arg-type]
        returned.append(len(runs))
        return runs

    monkeypatch.setattr(MlflowClient, "search_runs", counted)
    assert sweep_progress(target, parent).done == 2 and returned == [2]
    log_cell(target, parent, "c", "cell", 3)
    log_cell(target, parent, "d", "cell", 4, fail=True)  # FAILED: never done
    log_cell(target, parent, "e", "reuse", 5)
    progress = sweep_progress(target, parent)
    assert returned == [2, 2]  # c and e only
    assert (progress.done, progress.fresh_cells, progress.conversations, progress.fresh_conversations) == (4, 2, 18, 7)
    assert sweep_progress(target, parent).done == 4 and returned == [2, 2, 0]


def test_progress_without_computed_cells_or_total_says_so(target: TrackingTarget, tmp_path: Path) -> None:
    parent = start_sweep(target, tmp_path / "sweep", {}, [])
    log_cell(target, parent, "a", "reuse", 6)
    progress = sweep_progress(target, parent)
    assert progress.total is None and progress.eta_s is None and "sweep_eta_s" not in progress.metrics()
    assert progress.line().startswith("sweep: 1/? cells") and progress.line().endswith("ETA ?")


def test_eta_is_zero_when_every_cell_is_done() -> None:
    progress = SweepProgress(done=2, total=2, fresh_cells=0, conversations=4, fresh_conversations=0, elapsed_s=3.0)
    assert progress.eta_s == 0.0 and progress.line() == "sweep: 2/2 cells, 0.0 conv/min, ETA 0 s"
    long = SweepProgress(done=1, total=100, fresh_cells=1, conversations=1, fresh_conversations=1, elapsed_s=60.0)
    assert long.line() == "sweep: 1/100 cells, 1.0 conv/min, ETA 1.6 h"


@pytest.mark.slow
def test_real_sweep_parent_carries_final_progress(tmp_path: Path) -> None:
    """Two cells (noise_cafe on AL-005 and its clean twin, one trial): ~1-2 min of CPU."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    args = ["+experiment=smoke", "domain.scenarios=[AL-005]", "+perturb=noise_cafe", "progress=false"]
    args += ["metrics=[task_completion,user_wer]", "-m"]
    cmd = [sys.executable, "-m", "evalkit", *args]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    output = proc.stdout + proc.stderr
    assert "sweep: 1/2 cells" in output and "sweep: 2/2 cells" in output
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("evalkit")
    (parent,) = client.search_runs([experiment.experiment_id], "tags.`evalkit.kind` = 'sweep'")
    assert parent.info.status == "FINISHED"
    metrics = parent.data.metrics
    assert metrics["sweep_cells_done"] == 2 == metrics["sweep_cells_total"]
    assert metrics["sweep_conversations_done"] == 2 and metrics["sweep_eta_s"] == 0
    assert metrics["sweep_conversations_per_min"] > 0
    steps = [m.step for m in client.get_metric_history(parent.info.run_id, "sweep_cells_done")]
    assert sorted(set(steps)) == [1, 2]
