"""Hydra callbacks: create the MLflow store and the sweep's parent run once, before parallel jobs fan out
(parallel jobs racing to create a SQLite store hit "database is locked"), and close it with a summary.

At start, runs left RUNNING by killed processes are marked FAILED (evalkit.tracking.mark_stale_runs). The parent
run id reaches the jobs through the environment, keyed by this sweep's folder, so a second sweep writing into the
same folder cannot redirect this sweep's cells; the parent run beats a heartbeat while the sweep runs.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobStatus
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from evalkit.cli import outcome
from evalkit.records import CellResult
from evalkit.tracking import (
    PARENT_RUN_ENV,
    TrackingTarget,
    end_sweep,
    log_sweep_progress,
    mark_stale_runs,
    parent_run_env,
    read_parent_run,
    resolve_target,
    set_sweep_total,
    start_sweep,
)
from evalkit.tracking.liveness import Heartbeat
from evalkit.tracking.store import beat, mlflow_client

log = logging.getLogger("evalkit")


def hand_total_to_parent(config: DictConfig, total: int) -> None:
    """The sweeper knows the job list (clean twins included): it tells the parent run, so every cell's progress
    step can say "n / total" whichever process or host it runs on. No parent run (no tracking callback): nothing."""
    parent = read_parent_run(Path(config.hydra.sweep.dir).resolve())
    if parent:
        set_sweep_total(_target(config), parent, total)


def _target(config: DictConfig) -> TrackingTarget:
    m = config.get("mlflow", {})
    return resolve_target(m.get("tracking_uri"), m.get("experiment", "evalkit"), m.get("artifact_location"), Path.cwd())


# The sweep's parent-run heartbeats, by sweep folder. Not on the callback: launchers (joblib, submitit, Ray) pickle
# the Hydra context, callbacks included, to send jobs to their workers, and a thread cannot be pickled.
_HEARTBEATS: dict[Path, Heartbeat] = {}


class TrackingCallback(Callback):
    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        target = _target(config)
        stale = mark_stale_runs(target)
        if stale:
            log.warning("marked %d run(s) left RUNNING by dead processes as FAILED", len(stale))
        sweep_dir = Path(config.hydra.sweep.dir).resolve()
        grid = OmegaConf.to_container(config.hydra.sweeper.params or {}, resolve=False)
        overrides = sweep_overrides(config)
        run_id = start_sweep(target, sweep_dir, grid or {}, overrides)  # type: ignore[arg-type]
        os.environ[PARENT_RUN_ENV] = parent_run_env(sweep_dir, run_id)  # inherited by this sweep's job processes
        _HEARTBEATS[sweep_dir] = beat(mlflow_client(target.tracking_uri), run_id)
        log.info("sweep parent run %s (store %s)", run_id, target.tracking_uri)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        close_sweep(config, outcome.current().failure_reason())


def sweep_overrides(config: DictConfig) -> list[str]:
    """The command line's overrides. At ``on_multirun_start`` Hydra has not set its HydraConfig singleton yet (it
    is set per job), so reading it there gave none; the composed config carries them as ``hydra.overrides.task``."""
    try:
        task = OmegaConf.select(config, "hydra.overrides.task", default=None)
    except Exception:  # a config without a hydra node (a test's plain DictConfig)
        task = None
    if task is not None:
        return [str(o) for o in task]
    return list(HydraConfig.get().overrides.task) if HydraConfig.initialized() else []


def close_sweep(config: DictConfig, failure: str | None) -> None:
    """Stop the parent run's heartbeat and close it: FINISHED when every cell finished or was reused, else FAILED
    with ``failure`` (a failed cell, a job or the sweep itself that raised). Never left RUNNING by a sweep that got
    here; once per sweep folder (the sweeper calls it when the sweep raises, Hydra's end callback does not run)."""
    sweep_dir = Path(config.hydra.sweep.dir).resolve()
    heartbeat = _HEARTBEATS.pop(sweep_dir, None)
    if heartbeat is not None:
        heartbeat.stop()
    parent = read_parent_run(sweep_dir)
    os.environ.pop(PARENT_RUN_ENV, None)
    if not parent or sweep_dir in _CLOSED:
        return
    _CLOSED.add(sweep_dir)
    target = _target(config)
    with contextlib.suppress(Exception):  # a progress read that fails must not keep the parent open
        log.info("%s (final)", log_sweep_progress(target, parent).line())  # the parent ends with them
    rows = end_sweep(target, parent, failure)
    status = "FINISHED" if failure is None and all(r["status"] != "FAILED" for r in rows) else "FAILED"
    log.info("sweep parent run %s closed %s with %d cell run(s)", parent, status, len(rows))


_CLOSED: set[Path] = set()  # sweep folders whose parent run this process closed


def count_job(job: JobReturn) -> JobReturn:
    """Count one finished job of the sweep (evalkit.cli.outcome) from what it returned to the sweeper. A job that
    raised is logged as one line (its traceback in the job folder's traceback.txt), counted as a failed cell and
    handed back as done, so the sweep's other batches still run and the parent run is closed (Hydra's sweeper
    re-raised the first failed job's exception, which skipped the end callback and left the parent RUNNING)."""
    done = outcome.current()
    if job.status == JobStatus.COMPLETED:
        value = job._return_value
        if isinstance(value, dict):
            done.add_cells(v for v in value.values() if isinstance(v, CellResult))
        return job
    exc = job._return_value
    if not isinstance(exc, BaseException):  # not run (status unknown): nothing came back to count
        exc = RuntimeError(f"the job ended with status {job.status}")
    folder = _job_folder(job)
    log.error("%s", done.add_raised(list(job.overrides or []), exc, folder))
    job.status, job._return_value = JobStatus.COMPLETED, None
    return job


def _job_folder(job: JobReturn) -> Path | None:
    """The job's output folder (``hydra.runtime.output_dir``), where its traceback is written; None if unknown."""
    try:
        return Path(job.hydra_cfg.hydra.runtime.output_dir)  # type: ignore[union-attr]
    except Exception:
        return None
