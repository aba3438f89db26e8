"""MLflow tracking: the only package that imports mlflow (DESIGN dependency rules)."""

from evalkit.tracking.store import (
    CellRun,
    TrackingTarget,
    end_sweep,
    ensure_experiment,
    find_finished_cell,
    flatten,
    parent_run_file,
    read_parent_run,
    resolve_target,
    start_sweep,
)

__all__ = [
    "CellRun",
    "TrackingTarget",
    "end_sweep",
    "ensure_experiment",
    "find_finished_cell",
    "flatten",
    "parent_run_file",
    "read_parent_run",
    "resolve_target",
    "start_sweep",
]
