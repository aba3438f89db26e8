"""Cells as the analysis sees them: per-conversation scores keyed by (scenario, trial), read back from MLflow.

Only this module talks to the tracking store (through ``evalkit.tracking``; it never imports mlflow). Which runs
are read: the children of a sweep's parent run (default: the latest sweep), or every finished cell of the
experiment. A reuse pointer (``evalkit.kind=reuse``) is followed to the run that holds the data (through any
chain of pointers; a cycle or a dangling id is a gap). A perturbed cell whose clean twin is not in the selection
gets its twin from anywhere in the experiment (one clean baseline serves every sweep), found by the ``twin_key``
tag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from evalkit.config import axes
from evalkit.tracking import TrackingTarget, find_finished_cell
from evalkit.tracking.reading import (
    RunSummary,
    find_runs,
    get_run,
    latest_sweep,
    load_json_artifact,
    load_json_artifact_dir,
    sweep_children,
)
from evalkit.tracking.store import COMPLETE_TAG

TABLE_ARTIFACT = "conversations_table.json"
RECORDS_DIR = "records"
NON_METRIC_COLUMNS = frozenset({"scenario", "trial", "seed", "turns", "valid"})


class AnalysisError(RuntimeError):
    """Nothing to analyse: the message names the store, experiment and runs that were looked at."""


@dataclass
class CellData:
    """One cell: its identity, axis params, aggregates and per-conversation metric scores."""

    run_id: str  # the run holding the data
    listed_as: str  # the run seen in the selection (a reuse pointer, or the run itself)
    name: str
    cell_key: str
    twin_key: str | None
    params: dict[str, str]
    aggregates: dict[str, float]
    scenarios: list[str] = field(default_factory=list)  # one entry per conversation
    trials: list[int] = field(default_factory=list)
    scores: dict[str, list[float]] = field(default_factory=dict)  # metric -> one score per conversation

    @property
    def is_clean(self) -> bool:
        return self.twin_key is not None and self.twin_key == self.cell_key

    def describe(self) -> str:
        p = self.params
        return f"run {self.run_id} ({p.get('agent', '?')}|{p.get('domain', '?')}|{p.get('perturb', '?')})"


@dataclass
class Selection:
    cells: list[CellData]
    gaps: list[str]
    input_runs: dict[str, str]  # run id -> role
    sweep_id: str | None
    description: str


def _is_number(value: Any) -> bool:
    return value is None or isinstance(value, int | float)  # bool is an int: pass flags count as 0/1


def table_scores(table: Mapping[str, Any]) -> tuple[list[str], list[int], dict[str, list[float]], list[str]]:
    """(scenarios, trials, metric -> scores, problems) from an MLflow table artifact (``columns`` + ``data``).

    Every numeric column other than scenario/trial/seed/turns/valid is a metric (booleans count as 0/1, None as
    NaN); a repeated (scenario, trial) is kept once and reported; a conversation whose ``valid`` is 0 (still
    invalid after the cell's regenerations, App. D.1) is excluded and reported.
    """
    columns = list(table.get("columns", []))
    rows = table.get("data", [])
    if "scenario" not in columns or "trial" not in columns:
        return [], [], {}, [f"table has no scenario/trial columns (columns: {columns})"]
    index = {c: i for i, c in enumerate(columns)}
    metric_cols = [c for c in columns if c not in NON_METRIC_COLUMNS and all(_is_number(r[index[c]]) for r in rows)]
    metric_cols = [c for c in metric_cols if any(r[index[c]] is not None for r in rows)]
    seen: set[tuple[str, int]] = set()
    problems: list[str] = []
    scenarios: list[str] = []
    trials: list[int] = []
    scores: dict[str, list[float]] = {c: [] for c in metric_cols}
    for row in rows:
        pair = (str(row[index["scenario"]]), int(row[index["trial"]]))
        if pair in seen:
            problems.append(f"conversation {pair[0]} trial {pair[1]} appears twice: kept the first")
            continue
        seen.add(pair)
        if "valid" in index and row[index["valid"]] in (0, False):
            # App. D.1: still invalid after every regeneration (a broken simulation, not the agent's doing)
            problems.append(f"conversation {pair[0]} trial {pair[1]} failed simulation validation: excluded")
            continue
        scenarios.append(pair[0])
        trials.append(pair[1])
        for c in metric_cols:
            value = row[index[c]]
            scores[c].append(float("nan") if value is None else float(value))
    return scenarios, trials, scores, problems


def records_table(records: Mapping[str, Any]) -> dict[str, Any]:
    """The conversations table rebuilt from ``records/*.json`` (cells logged without a table)."""
    rows = []
    for record in records.values():
        conv = record.get("conversation", {})
        row = {"scenario": conv.get("scenario_id"), "trial": conv.get("trial")}
        if conv.get("validation") is not None:
            row["valid"] = int(bool(conv["validation"].get("valid")))
        row.update({name: m.get("score") for name, m in record.get("metrics", {}).items()})
        rows.append(row)
    columns = sorted({k for r in rows for k in r}, key=lambda c: (c not in ("scenario", "trial"), c))
    return {"columns": columns, "data": [[r.get(c) for c in columns] for r in rows]}


def _cell_from_run(target: TrackingTarget, run: RunSummary, listed_as: str) -> tuple[CellData | None, list[str]]:
    table = load_json_artifact(target, run.run_id, TABLE_ARTIFACT)
    if table is None:
        records = load_json_artifact_dir(target, run.run_id, RECORDS_DIR)
        if not records:
            return None, [f"run {run.run_id} ({run.name}): no {TABLE_ARTIFACT} and no records/ artifacts: left out"]
        table = records_table(records)
    scenarios, trials, scores, problems = table_scores(table)
    cell = CellData(
        run_id=run.run_id,
        listed_as=listed_as,
        name=run.name,
        cell_key=run.tags.get("cell_key", run.run_id),
        twin_key=run.tags.get("twin_key"),
        params=run.params,
        aggregates=run.metrics,
        scenarios=scenarios,
        trials=trials,
        scores=scores,
    )
    return cell, [f"run {run.run_id} ({run.name}): {p}" for p in problems]


def _finished(run: RunSummary) -> bool:
    return run.tags.get(COMPLETE_TAG) == "true"


def _resolve_runs(
    target: TrackingTarget, runs: list[RunSummary], gaps: list[str], input_runs: dict[str, str]
) -> list[tuple[RunSummary, str]]:
    """(run holding the data, run listed) for every finished cell or reuse pointer; the rest named in gaps."""
    resolved: list[tuple[RunSummary, str]] = []
    seen_keys: set[str] = set()
    for run in runs:
        kind = run.tags.get("evalkit.kind")
        if kind not in ("cell", "reuse"):
            continue
        if not _finished(run):
            gaps.append(f"run {run.run_id} ({run.name}) did not finish (status {run.status}): left out")
            continue
        source = run
        if kind == "reuse":
            input_runs[run.run_id] = "reuse_pointer"
            source, problem = follow_reuse(target, run)
            if source is None:
                gaps.append(f"run {run.run_id} ({run.name}) {problem}: left out")
                continue
        key = source.tags.get("cell_key", source.run_id)
        if key in seen_keys:  # newest first: an older run of the same cell adds nothing
            continue
        seen_keys.add(key)
        resolved.append((source, run.run_id))
    return resolved


def follow_reuse(target: TrackingTarget, pointer: RunSummary) -> tuple[RunSummary | None, str]:
    """The finished cell run a reuse pointer stands for, through any number of pointers, or (None, why not).

    New pointers name the data run directly, but stores written before ``find_finished_cell`` skipped pointers
    hold pointer -> pointer chains; a cycle or a dangling id is reported, never followed forever."""
    chain = [pointer.run_id]
    run = pointer
    while run.tags.get("evalkit.kind") == "reuse":
        source_id = run.tags.get("reused_from", "")
        if source_id in chain:
            return None, f"is in a cycle of reuse pointers ({' -> '.join([*chain, source_id])})"
        found = get_run(target, source_id) if source_id else None
        if found is None:
            via = f" (via {' -> '.join(chain[1:])})" if len(chain) > 1 else ""
            return None, f"points to {source_id!r}{via}, not found"
        chain.append(source_id)
        run = found
    if run.tags.get("evalkit.kind") != "cell" or not _finished(run):
        return None, f"points to run {run.run_id}, which is not a finished cell run"
    return run, ""


def _twin_signature(params: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """For runs without a twin_key tag (older runs): the axis params their clean twin must have."""
    return _own_signature(axes.clean_signature(params))


def _own_signature(params: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((a, params.get(a, "")) for a in axes.param_names())


def _fill_missing_twin_keys(cells: list[CellData], gaps: list[str]) -> None:
    by_signature = {_own_signature(c.params): c.cell_key for c in cells}
    for cell in cells:
        if cell.twin_key is None:
            cell.twin_key = by_signature.get(_twin_signature(cell.params))
            if cell.twin_key is None:
                # no tag and no match: compare the run with itself would be wrong, so it stays unpaired
                continue
            gaps.append(f"{cell.describe()} has no twin_key tag (logged by an older evalkit): paired by axis params")


def select_runs(target: TrackingTarget, sweep: str) -> tuple[list[RunSummary], str | None, str]:
    """The runs to analyse: ``latest`` sweep (default), ``all`` finished cells, or a parent sweep run id."""
    where = f"experiment {target.experiment!r} at {target.tracking_uri}"
    if sweep == "all":
        return find_runs(target, "tags.`evalkit.kind` = 'cell'"), None, f"all cells of {where}"
    if sweep == "latest":
        parent = latest_sweep(target)
        if parent is None:
            cells = find_runs(target, "tags.`evalkit.kind` = 'cell'")
            return cells, None, f"all cells of {where} (no sweep run found)"
    else:
        parent = get_run(target, sweep)
        if parent is None:
            raise AnalysisError(f"sweep run {sweep!r} not found in {where}")
    return sweep_children(target, parent.run_id), parent.run_id, f"sweep {parent.run_id} ({parent.name}) of {where}"


def load_selection(
    target: TrackingTarget, sweep: str = "latest", workers: int = 4, loader: Callable[..., Any] | None = None
) -> Selection:
    """Read every selected cell (and missing clean twins from the rest of the experiment)."""
    runs, sweep_id, description = select_runs(target, sweep)
    gaps: list[str] = []
    input_runs: dict[str, str] = {}
    if sweep_id:
        input_runs[sweep_id] = "sweep"
    resolved = _resolve_runs(target, runs, gaps, input_runs)
    if not resolved:
        listed = ", ".join(r.run_id for r in runs) or "none"
        raise AnalysisError(f"no finished cell runs in {description}; runs looked at: {listed}")
    load = loader or _cell_from_run
    cells = _load_all(target, resolved, gaps, load, workers)
    known = {c.cell_key for c in cells}
    extra: list[tuple[RunSummary, str]] = []
    for cell in list(cells):
        if cell.twin_key and cell.twin_key not in known:
            twin_id = find_finished_cell(target, cell.twin_key)
            twin = get_run(target, twin_id) if twin_id else None
            if twin is not None:
                extra.append((twin, twin.run_id))
                known.add(cell.twin_key)
    cells += _load_all(target, extra, gaps, load, workers)
    _fill_missing_twin_keys(cells, gaps)
    twin_keys = {c.twin_key for c in cells if not c.is_clean}
    for cell in cells:
        role = "clean" if cell.is_clean else "perturbed"
        if cell.is_clean and cell.cell_key not in twin_keys:
            role = "clean_unused"
        input_runs[cell.run_id] = role
    return Selection(cells, gaps, input_runs, sweep_id, description)


def _load_all(
    target: TrackingTarget,
    resolved: list[tuple[RunSummary, str]],
    gaps: list[str],
    load: Callable[..., Any],
    workers: int,
) -> list[CellData]:
    # Downloads are I/O bound (a remote server, or many small files): a few threads overlap them.
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        loaded = list(pool.map(lambda pair: load(target, pair[0], pair[1]), resolved))
    cells: list[CellData] = []
    for cell, problems in loaded:
        gaps.extend(problems)
        if cell is not None:
            cells.append(cell)
    return cells
