"""MLflow tracking: the only package that imports mlflow (docs/architecture.md, dependency rules)."""

from evalkit.tracking.past import reuse_candidates
from evalkit.tracking.progress import SweepProgress, log_sweep_progress, set_sweep_total, sweep_progress
from evalkit.tracking.report import CellReport, publish
from evalkit.tracking.store import (
    PARENT_RUN_ENV,
    CellClaimed,
    CellRun,
    FinishedCell,
    TrackingTarget,
    end_sweep,
    ensure_experiment,
    find_finished_cell,
    flatten,
    latest_finished_cell,
    mark_stale_runs,
    parent_run_env,
    parent_run_file,
    read_parent_run,
    resolve_target,
    start_sweep,
    wait_for_run,
)

__all__ = [
    "PARENT_RUN_ENV",
    "CellClaimed",
    "CellReport",
    "CellRun",
    "FinishedCell",
    "SweepProgress",
    "TrackingTarget",
    "end_sweep",
    "ensure_experiment",
    "find_finished_cell",
    "flatten",
    "latest_finished_cell",
    "log_sweep_progress",
    "mark_stale_runs",
    "parent_run_env",
    "parent_run_file",
    "publish",
    "read_parent_run",
    "resolve_target",
    "reuse_candidates",
    "set_sweep_total",
    "start_sweep",
    "sweep_progress",
    "wait_for_run",
]
