"""Sweep progress from the tracking store: cells done / total, conversations per minute, ETA (issue 16, point 5).

Cells of one sweep may run in other processes or on other hosts (joblib, submitit, Ray), so nothing is counted in
memory: whenever a cell finishes (or is reused) it reads the sweep's children from the store and logs one step of
``sweep_*`` metrics to the parent run; the parent's own start time is the clock. The total is what the sweeper
planned (clean twins included), handed to the parent run as the tag ``evalkit.sweep.cells_total`` before any job
starts.

The rate counts only conversations computed in this sweep (reused cells cost nothing, and counting them would
promise an ETA the remaining, fresh cells cannot keep); the ETA assumes each remaining cell costs what a cell run
in this sweep has cost so far (wall time of the sweep / fresh cells, which is the throughput of parallel launchers).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from mlflow.entities import Metric

from evalkit.tracking.store import TrackingTarget, mlflow_client

TOTAL_TAG = "evalkit.sweep.cells_total"
DONE_KINDS = ("cell", "reuse")  # a cell computed here, or a pointer to one computed before

log = logging.getLogger("evalkit")


@dataclass(frozen=True)
class SweepProgress:
    done: int  # FINISHED child runs (computed or reused)
    total: int | None  # jobs the sweeper planned; None when no sweeper said
    fresh_cells: int  # of ``done``, computed in this sweep
    conversations: int  # in every done cell
    fresh_conversations: int  # in the cells computed in this sweep
    elapsed_s: float  # since the parent run started

    @property
    def per_min(self) -> float:
        return 60.0 * self.fresh_conversations / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left; None while nothing was computed to estimate a cell's cost from (or no total is known)."""
        if self.total is None:
            return None
        remaining = max(self.total - self.done, 0)
        if remaining == 0:
            return 0.0
        return remaining * self.elapsed_s / self.fresh_cells if self.fresh_cells else None

    def metrics(self) -> dict[str, float]:
        out = {
            "sweep_cells_done": float(self.done),
            "sweep_conversations_done": float(self.conversations),
            "sweep_conversations_per_min": round(self.per_min, 3),
        }
        if self.total is not None:
            out["sweep_cells_total"] = float(self.total)
        if self.eta_s is not None:
            out["sweep_eta_s"] = round(self.eta_s, 1)
        return out

    def line(self) -> str:
        """``sweep: 3/8 cells, 12.4 conv/min, ETA 4 min``."""
        total = "?" if self.total is None else str(self.total)
        return f"sweep: {self.done}/{total} cells, {self.per_min:.1f} conv/min, ETA {_duration(self.eta_s)}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 60:
        return f"{math.ceil(seconds)} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def set_sweep_total(target: TrackingTarget, parent_run_id: str, total: int) -> None:
    mlflow_client(target.tracking_uri).set_tag(parent_run_id, TOTAL_TAG, str(total))


@dataclass(frozen=True)
class _DoneChild:
    kind: str
    conversations: int


# Finished children already read, by (store, parent run): a FINISHED run does not change, so each progress step
# reads only the children it has not seen (``run_id NOT IN``). Reading every child each time cost O(cells) per
# cell (≈ 5 ms of run hydration per child: 1 s per cell at 200 cells). In-process only: a job in another process
# or host reads the store itself.
_SEEN: dict[tuple[str, str], dict[str, _DoneChild]] = {}


@dataclass(frozen=True)
class _Parent:
    experiment_id: str
    start_time_ms: int
    total: int | None


_PARENTS: dict[tuple[str, str], _Parent] = {}  # parent runs whose total is known (nothing else of them changes)


def _done_children(client: Any, experiment_id: str, parent_run_id: str, seen: dict[str, _DoneChild]) -> None:
    """Add the parent's FINISHED computed/reused children not in ``seen`` to it."""
    query = f"tags.`mlflow.parentRunId` = '{parent_run_id}' and attributes.status = 'FINISHED'"
    if seen:
        query += f" and attributes.run_id NOT IN ({', '.join(repr(run_id) for run_id in seen)})"
    token = None
    while True:
        page = client.search_runs([experiment_id], query, max_results=1000, page_token=token)
        for run in page:
            if (kind := run.data.tags.get("evalkit.kind")) in DONE_KINDS:
                seen[run.info.run_id] = _DoneChild(kind, int(run.data.metrics.get("conversations", 0)))
        token = page.token
        if not token:
            return


def sweep_progress(target: TrackingTarget, parent_run_id: str, now_ms: int | None = None) -> SweepProgress:
    """The sweep's progress as the store has it now (``now_ms`` for a fixed clock)."""
    client = mlflow_client(target.tracking_uri)
    key = (target.tracking_uri, parent_run_id)
    parent = _PARENTS.get(key)
    if parent is None:
        run = client.get_run(parent_run_id)
        total = run.data.tags.get(TOTAL_TAG)
        parent = _Parent(run.info.experiment_id, int(run.info.start_time or 0), int(total) if total else None)
        if parent.total is not None:  # set before the first job starts, never changed: read once
            _PARENTS[key] = parent
    seen = _SEEN.setdefault(key, {})
    _done_children(client, parent.experiment_id, parent_run_id, seen)
    done = list(seen.values())
    fresh = [c for c in done if c.kind == "cell"]
    now = int(time.time() * 1000) if now_ms is None else now_ms
    return SweepProgress(
        done=len(done),
        total=parent.total,
        fresh_cells=len(fresh),
        conversations=sum(c.conversations for c in done),
        fresh_conversations=sum(c.conversations for c in fresh),
        elapsed_s=max(now - (parent.start_time_ms or now), 0) / 1000.0,
    )


def log_sweep_progress(target: TrackingTarget, parent_run_id: str, now_ms: int | None = None) -> SweepProgress:
    """Compute the progress and log it to the parent run as one step (step = cells done, so the MLflow chart's
    x axis reads "cells done"; two cells finishing at once may log one step twice, with the same numbers)."""
    progress = sweep_progress(target, parent_run_id, now_ms)
    stamp = int(time.time() * 1000)
    metrics = [Metric(k, v, stamp, progress.done) for k, v in progress.metrics().items()]
    mlflow_client(target.tracking_uri).log_batch(parent_run_id, metrics=metrics)
    return progress


def report_sweep_progress(target: TrackingTarget, parent_run_id: str) -> None:
    """One progress step on the sweep's parent run, said in the log. The cell's data is stored by now: a progress
    write that fails is a warning, never a failed cell."""
    try:
        log.info(log_sweep_progress(target, parent_run_id).line())
    except Exception as exc:
        log.warning("sweep progress not logged: %s: %s", type(exc).__name__, exc)
