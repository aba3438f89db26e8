"""MLflow tracking: the only package that imports mlflow (DESIGN dependency rules)."""

from evalkit.tracking.store import (
    PARENT_RUN_ENV,
    CellClaimed,
    CellRun,
    TrackingTarget,
    end_sweep,
    ensure_experiment,
    find_finished_cell,
    flatten,
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
    "CellRun",
    "TrackingTarget",
    "end_sweep",
    "ensure_experiment",
    "find_finished_cell",
    "flatten",
    "mark_stale_runs",
    "parent_run_env",
    "parent_run_file",
    "read_parent_run",
    "resolve_target",
    "start_sweep",
    "wait_for_run",
]
