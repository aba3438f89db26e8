"""A computed cell's one write pass into its run: the cell computes without reading the store back, then hands
its run a :class:`CellReport` (params, tables, folder, metrics, traces, why it is not whole), written here at once."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.tracking.store import CellRun, write_table
from evalkit.tracking.traces import TraceSpec

log = logging.getLogger("evalkit")


@dataclass(frozen=True)
class CellReport:
    """What a computed cell hands its run, in one pass at its end (:func:`publish`)."""

    params: dict[str, str]  # redacted by the cell
    folder: Path  # the cell's output folder, uploaded whole
    tables: dict[str, dict[str, list[Any]]]  # file in the folder -> an MLflow table's columns, written at publish
    metrics: dict[str, float]  # aggregates and what the cell's stages cost; written with the run's last write
    traces: list[TraceSpec] = field(default_factory=list)  # one per conversation (``mlflow.log_traces``)
    incomplete: str | None = None  # why the results are not whole: the run ends FAILED, never reused
    label: str = ""  # the cell's key, for a warning


def publish(run: CellRun, report: CellReport) -> None:
    """The cell's one write pass: params, why it is not whole, its tables (into the folder) and the folder, its
    metrics (at close) and its traces. Traces are a view of data already stored: a store that refuses them costs a
    warning, never the cell. ``trace_log_s``: what they cost."""
    run.log_params(report.params)
    if report.incomplete is not None:
        run.mark_incomplete(report.incomplete)
    for name, columns in report.tables.items():
        write_table(columns, report.folder / name)
    run.log_dir(report.folder, tables=tuple(report.tables))
    run.log_at_close(report.metrics)
    if not report.traces:
        return
    t0 = time.perf_counter()
    try:
        run.log_traces(report.traces)
    except Exception as exc:
        log.warning("cell %s: conversation traces not logged: %s: %s", report.label, type(exc).__name__, exc)
        return
    run.log_at_close({"trace_log_s": time.perf_counter() - t0})
