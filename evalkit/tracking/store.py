"""Where runs go and how a cell becomes an MLflow run.

Layout: one experiment; one parent run per sweep; one child run per cell, tagged with the cell key so a
finished cell is found and reused instead of re-run. A cell's run is marked complete only after its last
artifact is written, so a cell that died half-way is never taken as finished.

Several processes (parallel jobs, concurrent sweeps) share one store, so: a fresh SQLite store is created under a
file lock beside it (MLflow's schema migration is not safe to run twice at once); "database is locked" is retried;
every run carries its owner and a heartbeat (`evalkit.tracking.liveness`) so runs of killed processes are found
and marked FAILED on the next start; and a cell run *claims* its cell key (create-then-check, the earliest live
run wins) so two sweeps never compute one cell twice.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from filelock import FileLock
from mlflow.entities import Metric, Param, RunTag
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient
from mlflow.utils.time import get_current_time_millis
from sqlalchemy import event
from sqlalchemy.engine import Engine

from evalkit.provenance import FINGERPRINT_TAG, provenance_tags
from evalkit.tracking.artifacts import local_artifact_dir, upload_folder
from evalkit.tracking.liveness import HEARTBEAT_TAG, Heartbeat, RunLife, now_ms, owner_tags
from evalkit.tracking.traces import TraceSpec, log_traces

PARENT_RUN_FILE = ".evalkit_parent_run"
# In-process and forked/spawned jobs (basic, joblib, submitit_local) inherit the environment, so the parent run id
# travels there, keyed by the sweep folder; the folder file is only the fallback for launchers that do not pass
# the environment on. JSON {"sweep_dir": ..., "run_id": ...}.
PARENT_RUN_ENV = "EVALKIT_SWEEP_PARENT"
COMPLETE_TAG = "evalkit.complete"
FAILURE_TAG = "evalkit.failure"  # why a run ended FAILED (stale owner, judge failures...)
LOGGED_TABLES_TAG = "mlflow.loggedArtifacts"  # MLflow's list of a run's table artifacts (what log_table sets)
MAX_PARAM_CHARS = 500
MAX_TAG_CHARS = 5000  # below every backend's tag-value limit
LOCK_RETRY_S = 120.0  # how long a write waits out "database is locked" before giving up

log = logging.getLogger("evalkit")
T = TypeVar("T")


@dataclass(frozen=True)
class TrackingTarget:
    tracking_uri: str
    experiment: str
    artifact_location: str | None


def resolve_target(
    tracking_uri: str | None, experiment: str, artifact_location: str | None, base_dir: Path
) -> TrackingTarget:
    """Config value, else $MLFLOW_TRACKING_URI, else ``sqlite:///<base_dir>/mlflow.db``; relative SQLite paths
    are made absolute so every job of a sweep (whatever its working directory) writes to the same store."""
    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or "sqlite:///mlflow.db"
    if uri.startswith("sqlite:///") and not uri.startswith("sqlite:////"):
        uri = f"sqlite:///{(base_dir / uri.removeprefix('sqlite:///')).resolve()}"
    if artifact_location is None and uri.startswith("sqlite:"):
        # MLflow's default lands in ./mlruns of whatever directory the job runs in; pin it beside the DB.
        artifact_location = (Path(uri.removeprefix("sqlite:///")).parent / "mlartifacts").resolve().as_uri()
    elif artifact_location is not None and "://" not in artifact_location:
        artifact_location = (base_dir / artifact_location).resolve().as_uri()
    return TrackingTarget(uri, experiment, artifact_location)


def _is_locked(exc: BaseException) -> bool:
    return "database is locked" in str(exc) or "database table is locked" in str(exc)


def retry_locked(fn: Callable[[], T], budget_s: float = LOCK_RETRY_S) -> T:
    """``fn()``, retried with jittered backoff while SQLite answers "database is locked" (many writers, one file)."""
    deadline = time.monotonic() + budget_s
    delay = 0.05
    while True:
        try:
            return fn()
        except Exception as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay * random.uniform(0.5, 1.5))
        delay = min(2.0, delay * 2)


class _RetryingClient:
    """An MlflowClient whose every call is retried on "database is locked" (duck-typed: same methods)."""

    def __init__(self, client: MlflowClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr
        return functools.wraps(attr)(lambda *a, **kw: retry_locked(lambda: attr(*a, **kw)))


def sqlite_path(tracking_uri: str) -> Path | None:
    return Path(tracking_uri.removeprefix("sqlite:///")) if tracking_uri.startswith("sqlite:///") else None


def store_lock(tracking_uri: str, purpose: str = "create") -> contextlib.AbstractContextManager[Any]:
    """A file lock beside a SQLite store (one per purpose); nothing for server stores, which serialise themselves."""
    path = sqlite_path(tracking_uri)
    if path is None:
        return contextlib.nullcontext()
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(f"{path}.{purpose}.lock")


_READY: set[str] = set()


def use_write_ahead_log(path: Path) -> bool:
    """Switch a SQLite store to write-ahead logging (persistent in the file; True when it is in WAL mode).

    In SQLite's default rollback-journal mode every MLflow write is a commit that waits for fsync (≈ 16 ms on this
    machine; a cell makes 15-20 of them: most of its overhead, issue 16 point 8). With WAL and ``synchronous=NORMAL``
    (:func:`_sqlite_connection_pragmas`) a commit is ≈ 0.01 ms, and it stays durable when a process is killed
    (kill -9 resume keeps working): only a power cut can lose the last commits, never corrupt the file. Readers no
    longer block the writer either. WAL needs every process on one host (SQLite's rule; a cluster uses a tracking
    server). A store another process holds busy stays as it is: the switch is only a speed-up."""
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=5.0)) as connection:
            return str(connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower() == "wal"
    except sqlite3.Error as exc:
        log.debug("SQLite store %s stays in its journal mode: %s", path, exc)
        return False


@event.listens_for(Engine, "connect")
def _sqlite_connection_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Every SQLite connection of this process (MLflow's pooled engine included) to a WAL store commits without
    waiting for fsync (see :func:`use_write_ahead_log`; in rollback mode the default FULL is kept)."""
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    cursor = dbapi_connection.cursor()
    try:
        if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
            cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def mlflow_client(tracking_uri: str) -> MlflowClient:
    """A client whose store exists: the first use per process creates (or migrates) a SQLite store under a file
    lock, because two processes running MLflow's schema migration on one fresh file lose one of them; the store is
    switched to write-ahead logging first (:func:`use_write_ahead_log`), so the migration's commits are fast too."""
    if tracking_uri not in _READY:
        with store_lock(tracking_uri):  # MlflowClient() itself creates and migrates the SQLite schema
            if (path := sqlite_path(tracking_uri)) is not None:
                use_write_ahead_log(path)
            retry_locked(lambda: MlflowClient(tracking_uri).search_experiments(max_results=1))
        _READY.add(tracking_uri)
    return cast(MlflowClient, _RetryingClient(MlflowClient(tracking_uri)))


def ensure_experiment(target: TrackingTarget) -> str:
    """Create the store and experiment once (idempotent; tolerates a concurrent creator)."""
    client = mlflow_client(target.tracking_uri)
    existing = client.get_experiment_by_name(target.experiment)
    if existing is not None:
        return existing.experiment_id
    try:
        return client.create_experiment(target.experiment, artifact_location=target.artifact_location)
    except MlflowException:
        existing = client.get_experiment_by_name(target.experiment)
        if existing is None:
            raise
        return existing.experiment_id


def flatten(node: Any, prefix: str = "") -> dict[str, str]:
    """Dotted keys -> string values, as MLflow params (values cut to a length every backend accepts)."""
    if isinstance(node, Mapping):
        out: dict[str, str] = {}
        for key, value in node.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    text = json.dumps(node) if isinstance(node, list) else str(node)
    return {prefix: text[:MAX_PARAM_CHARS]}


@dataclass(frozen=True)
class FinishedCell:
    run_id: str
    fingerprint: str | None  # the code fingerprint it was computed with; None: logged before fingerprints existed


def _fingerprint_filter(fingerprint: str | None) -> str:
    return "" if fingerprint is None else f" and tags.`{FINGERPRINT_TAG}` = '{fingerprint}'"


def latest_finished_cell(target: TrackingTarget, cell_key: str, fingerprint: str | None = None) -> FinishedCell | None:
    """The newest finished run that holds the cell's data, computed by code of ``fingerprint`` (None: any code).
    Reuse pointers carry the cell key too, but never the data: returning one would make the next reuse point at a
    pointer (a chain the analysis must then untangle)."""
    client = mlflow_client(target.tracking_uri)
    experiment = client.get_experiment_by_name(target.experiment)
    if experiment is None:
        return None
    runs = client.search_runs(
        [experiment.experiment_id],
        filter_string=(
            f"tags.cell_key = '{cell_key}' and tags.`{COMPLETE_TAG}` = 'true' and tags.`evalkit.kind` = 'cell'"
            + _fingerprint_filter(fingerprint)
        ),
        max_results=1,
        order_by=["attributes.start_time DESC"],
    )
    if not runs:
        return None
    return FinishedCell(runs[0].info.run_id, runs[0].data.tags.get(FINGERPRINT_TAG))


def find_finished_cell(target: TrackingTarget, cell_key: str, fingerprint: str | None = None) -> str | None:
    """The run id of :func:`latest_finished_cell`."""
    found = latest_finished_cell(target, cell_key, fingerprint)
    return None if found is None else found.run_id


def parent_run_file(sweep_dir: Path) -> Path:
    return sweep_dir / PARENT_RUN_FILE


def parent_run_env(sweep_dir: Path, run_id: str) -> str:
    return json.dumps({"sweep_dir": str(sweep_dir.resolve()), "run_id": run_id})


def read_parent_run(sweep_dir: Path | None) -> str | None:
    """The sweep's parent run: from the environment when it names this sweep folder (cannot be overwritten by
    another sweep), else from the folder's file."""
    if sweep_dir is None:
        return None
    with contextlib.suppress(ValueError, TypeError):
        passed = json.loads(os.environ.get(PARENT_RUN_ENV, ""))
        if passed.get("sweep_dir") == str(sweep_dir.resolve()):
            return str(passed["run_id"])
    path = parent_run_file(sweep_dir)
    return path.read_text().strip() if path.exists() else None


def _log_batched(
    client: MlflowClient,
    run_id: str,
    params: dict[str, str],
    metrics: dict[str, float],
    tags: dict[str, str] | None = None,
) -> None:
    """Params, then metrics, then tags, in as few ``log_batch`` calls as MLflow's limits allow (100 params, 100
    tags, 1,000 entries per call). Tags ride in the last metric batch and the last tag written is the last item of
    ``tags``: a completion tag put there is stored only after everything else."""
    now = get_current_time_millis()
    items = list(params.items())
    for i in range(0, len(items), 100):
        client.log_batch(run_id, params=[Param(k, v) for k, v in items[i : i + 100]])
    metric_items = [Metric(k, float(v), now, 0) for k, v in metrics.items()]
    tag_items = [RunTag(k, v) for k, v in (tags or {}).items()]
    first_tags, more_tags = tag_items[:100], tag_items[100:]
    size = 1000 - len(first_tags)
    chunks = [metric_items[i : i + size] for i in range(0, len(metric_items), size)] or [[]]
    for chunk in chunks[:-1]:
        client.log_batch(run_id, metrics=chunk)
    if chunks[-1] or first_tags:
        client.log_batch(run_id, metrics=chunks[-1], tags=first_tags)
    for i in range(0, len(more_tags), 100):
        client.log_batch(run_id, tags=more_tags[i : i + 100])


def write_table(columns: dict[str, list[Any]], path: Path) -> None:
    """A table artifact as ``MlflowClient.log_table`` writes one (pandas "split" JSON, no index), written into a
    folder that is logged whole: one upload instead of log_table's listing, upload, run read and tag write."""
    import pandas as pd

    pd.DataFrame(columns).to_json(path, orient="split", index=False, date_format="iso")


def start_sweep(target: TrackingTarget, sweep_dir: Path, grid: Mapping[str, Any], overrides: list[str]) -> str:
    """The parent run of a sweep; its id is written into the sweep folder for the jobs to find (see
    :func:`read_parent_run` for the environment route, which the caller sets)."""
    experiment_id = ensure_experiment(target)
    client = mlflow_client(target.tracking_uri)
    note = (
        f"Sweep of {sweep_dir}: overrides `{' '.join(overrides) or '(none)'}`; grid "
        + (", ".join(f"{k}={v}" for k, v in grid.items()) or "(none)")
        + ". One child run per cell (its name leads with the condition); summary_table.json lists them at the end."
    )
    run = client.create_run(
        experiment_id,
        run_name=f"sweep {sweep_dir.name}",
        tags={
            **provenance_tags(),
            "evalkit.kind": "sweep",
            "sweep_dir": str(sweep_dir),
            **owner_tags(),
            "mlflow.note.content": note[:MAX_TAG_CHARS],
        },
    )
    # "+perturb" (an experiment file's sweeper params add a group) is no valid MLflow key: MLflow refused the batch,
    # the parent run stayed without children and `evalkit.analyze` (sweep=latest) found no cells
    params = {f"grid.{k.lstrip('+~')}": str(v)[:MAX_PARAM_CHARS] for k, v in grid.items()}
    params["overrides"] = " ".join(overrides)[:MAX_PARAM_CHARS]
    _log_batched(client, run.info.run_id, params, {})
    sweep_dir.mkdir(parents=True, exist_ok=True)
    parent_run_file(sweep_dir).write_text(run.info.run_id)
    return run.info.run_id


def end_sweep(target: TrackingTarget, parent_run_id: str, failure: str | None = None) -> list[dict[str, Any]]:
    """Close the parent run with a summary table of its cells (one row per cell, aggregates as columns). It ends
    FINISHED only when every cell did: ``failure`` (the sweeper's count of failed cells and raised jobs) or a
    child run that ended FAILED closes it FAILED, with the reason as ``evalkit.failure``."""
    client = mlflow_client(target.tracking_uri)
    parent = client.get_run(parent_run_id)
    children = client.search_runs(
        [parent.info.experiment_id], filter_string=f"tags.`mlflow.parentRunId` = '{parent_run_id}'"
    )
    rows = [
        {
            "run_id": r.info.run_id,
            "cell_key": r.data.tags.get("cell_key"),
            "condition": r.data.tags.get("condition"),
            "reused_from": r.data.tags.get("reused_from", ""),
            "status": r.info.status,
            **{k: round(v, 4) for k, v in sorted(r.data.metrics.items())},
        }
        for r in children
    ]
    if rows:
        columns = sorted({k for row in rows for k in row}, key=lambda c: (c not in ("run_id", "cell_key"), c))
        client.log_table(parent_run_id, {c: [row.get(c) for row in rows] for c in columns}, "summary_table.json")
    failed = sum(row["status"] == "FAILED" for row in rows)
    if failure is None and failed:  # a sweeper that does not count its jobs (not hydra/sweeper=evalkit): the store
        failure = f"{failed} of {len(rows)} cell runs FAILED"
    if failure is not None:
        mark_failed(client, parent_run_id, failure)
    else:
        client.set_terminated(parent_run_id, "FINISHED")
    return rows


def beat(client: MlflowClient, run_id: str) -> Heartbeat:
    """Start refreshing a run's heartbeat tag (see evalkit.tracking.liveness); stop it when the run ends."""
    return Heartbeat(lambda: client.set_tag(run_id, HEARTBEAT_TAG, str(now_ms()))).start()


def mark_failed(client: MlflowClient, run_id: str, reason: str) -> None:
    from evalkit.redaction import redact_text  # a reason may quote a URL or an error carrying a credential

    client.set_tag(run_id, FAILURE_TAG, redact_text(reason)[:MAX_TAG_CHARS])
    client.set_terminated(run_id, "FAILED")


def mark_stale_runs(target: TrackingTarget) -> list[tuple[str, str]]:
    """Mark every RUNNING run of the experiment whose owner is dead FAILED, with the reason as ``evalkit.failure``.
    Called when a sweep or single run starts, so a kill -9 never leaves cells or sweeps RUNNING for good."""
    exp_id = experiment_id(target)
    if exp_id is None:
        return []
    client = mlflow_client(target.tracking_uri)
    marked: list[tuple[str, str]] = []
    for run in client.search_runs([exp_id], "attributes.status = 'RUNNING'", max_results=5000):
        reason = RunLife(run.data.tags, int(run.info.start_time or 0)).stale_reason()
        if reason is not None:
            mark_failed(client, run.info.run_id, f"stale: {reason}")
            log.warning("run %s (%s) was left RUNNING: marked FAILED (%s)", run.info.run_id, run.info.run_name, reason)
            marked.append((run.info.run_id, reason))
    return marked


class CellClaimed(Exception):
    """Another live run holds (or has finished) this cell key: wait for ``holder`` and reuse it."""

    def __init__(self, cell_key: str, holder: str) -> None:
        super().__init__(f"cell {cell_key} is claimed by run {holder}")
        self.cell_key = cell_key
        self.holder = holder


def _claim_holder(client: MlflowClient, exp_id: str, cell_key: str, own: Any, fingerprint: str | None) -> str | None:
    """The run that owns ``cell_key`` if not ``own``: a complete cell run, or the earliest-started live RUNNING
    cell run (ties broken by run id), of code ``fingerprint`` (None: of any code). Dead holders are marked FAILED
    on the way."""
    base = f"tags.cell_key = '{cell_key}' and tags.`evalkit.kind` = 'cell'" + _fingerprint_filter(fingerprint)
    done = client.search_runs([exp_id], f"{base} and tags.`{COMPLETE_TAG}` = 'true'", max_results=1)
    if done:
        return str(done[0].info.run_id)
    contenders = [(int(own.info.start_time or 0), own.info.run_id)]
    for run in client.search_runs([exp_id], f"{base} and attributes.status = 'RUNNING'", max_results=1000):
        if run.info.run_id == own.info.run_id:
            continue
        reason = RunLife(run.data.tags, int(run.info.start_time or 0)).stale_reason()
        if reason is not None:
            mark_failed(client, run.info.run_id, f"stale: {reason}")
            continue
        contenders.append((int(run.info.start_time or 0), run.info.run_id))
    winner = min(contenders)[1]
    return None if winner == own.info.run_id else winner


def wait_for_run(target: TrackingTarget, run_id: str, poll_s: float | None = None) -> str:
    """Block until ``run_id`` is no longer RUNNING (or its owner dies: then it is marked FAILED). Its status."""
    poll = float(os.environ.get("EVALKIT_CLAIM_POLL_S", "5")) if poll_s is None else poll_s
    client = mlflow_client(target.tracking_uri)
    while True:
        run = client.get_run(run_id)
        if run.info.status != "RUNNING" or run.info.lifecycle_stage == "deleted":
            return str(run.info.status)
        reason = RunLife(run.data.tags, int(run.info.start_time or 0)).stale_reason()
        if reason is not None:
            mark_failed(client, run_id, f"stale: {reason}")
            return "FAILED"
        time.sleep(poll)


@dataclass
class CellRun:
    """An open child run for one cell. Use :func:`CellRun.open` as a context manager.

    Writes that only matter once the run is whole (aggregates, the table tag) can be kept for its last write
    (:meth:`log_at_close`): one ``log_batch`` with the completion tag instead of one call each (issue 16 point 8)."""

    client: MlflowClient
    run_id: str
    incomplete: str | None = field(default=None)
    tracking_uri: str | None = field(default=None)
    experiment_id: str | None = field(default=None)
    artifact_root: str | None = field(default=None)  # the run's artifact URI, as create_run returned it
    _closing_metrics: dict[str, float] = field(default_factory=dict)
    _closing_tags: dict[str, str] = field(default_factory=dict)
    _tables: list[str] = field(default_factory=list)

    def mark_incomplete(self, reason: str) -> None:
        """The cell ran but its results are not whole (e.g. the judge failed): the run ends FAILED with the reason,
        is never tagged complete, and so is never reused; the next run of the cell computes it again."""
        self.incomplete = reason

    @classmethod
    @contextmanager
    def open(
        cls,
        target: TrackingTarget,
        run_name: str,
        tags: dict[str, str],
        parent_run_id: str | None,
        claim: bool = False,
        claim_any_code: bool = False,
    ) -> Iterator[CellRun]:
        """``claim``: first make sure no other live run holds this cell key (tag ``cell_key``) for the same code
        fingerprint (``claim_any_code``: for any code, as ``reuse=any`` takes any), else delete the new run and raise
        :class:`CellClaimed`. Create-then-check under a lock beside a SQLite store, so the earliest run wins and
        every later one sees it; against a server store the same rule holds up to clock skew. Every run records the
        code's provenance (version, fingerprint, git state) unless ``tags`` say otherwise."""
        experiment_id = ensure_experiment(target)
        client = mlflow_client(target.tracking_uri)
        all_tags = provenance_tags() | dict(tags) | owner_tags()
        fingerprint = None if claim_any_code else all_tags[FINGERPRINT_TAG]
        if parent_run_id:
            all_tags["mlflow.parentRunId"] = parent_run_id
        with store_lock(target.tracking_uri, "claim") if claim else contextlib.nullcontext():
            run = client.create_run(experiment_id, run_name=run_name, tags=all_tags)
            holder = _claim_holder(client, experiment_id, tags["cell_key"], run, fingerprint) if claim else None
            if holder is not None:
                client.delete_run(run.info.run_id)  # never a second run for the key, not even a FAILED one
                raise CellClaimed(tags["cell_key"], holder)
        cell = cls(
            client,
            run.info.run_id,
            tracking_uri=target.tracking_uri,
            experiment_id=experiment_id,
            artifact_root=run.info.artifact_uri,
        )
        heartbeat = beat(client, run.info.run_id)
        try:
            yield cell
        except BaseException as exc:
            heartbeat.stop()
            with contextlib.suppress(Exception):  # what the run had is worth keeping; the failure is what matters
                cell._flush_closing({})
            mark_failed(client, run.info.run_id, f"{type(exc).__name__}: {exc}")
            raise
        heartbeat.stop()
        if cell.incomplete is not None:
            cell._flush_closing({})
            mark_failed(client, run.info.run_id, cell.incomplete)
            return
        cell._flush_closing({COMPLETE_TAG: "true"})  # last: stored only after everything else
        client.set_terminated(run.info.run_id, "FINISHED")

    def _flush_closing(self, tags: dict[str, str]) -> None:
        if self._tables:
            self._closing_tags[LOGGED_TABLES_TAG] = json.dumps([{"path": t, "type": "table"} for t in self._tables])
        _log_batched(self.client, self.run_id, {}, self._closing_metrics, self._closing_tags | tags)
        self._closing_metrics, self._closing_tags = {}, {}

    def log_params(self, params: dict[str, str]) -> None:
        _log_batched(self.client, self.run_id, params, {})

    def log_metrics(self, metrics: dict[str, float]) -> None:
        _log_batched(self.client, self.run_id, {}, {k: v for k, v in metrics.items() if v == v})

    def log_at_close(self, metrics: dict[str, float] | None = None, tags: dict[str, str] | None = None) -> None:
        """Metrics and tags written with the run's last write (also when it ends FAILED or raises)."""
        self._closing_metrics.update({k: v for k, v in (metrics or {}).items() if v == v})
        self._closing_tags.update(tags or {})

    def set_tags(self, tags: dict[str, str]) -> None:
        for key, value in tags.items():
            self.client.set_tag(self.run_id, key, value)

    def log_dir(self, local_dir: Path, artifact_path: str | None = None, tables: tuple[str, ...] = ()) -> None:
        """The folder as the run's artifacts. ``tables``: files in it written by :func:`write_table` (paths
        relative to the folder), registered as MLflow tables as ``log_table`` would (tag at close)."""
        upload_folder(self.client, self.run_id, local_dir, artifact_path, local_artifact_dir(self.artifact_root))
        for table in tables:
            path = f"{artifact_path}/{table}" if artifact_path else table
            if path not in self._tables:
                self._tables.append(path)

    def log_text(self, text: str, artifact_file: str) -> None:
        self.client.log_text(self.run_id, text, artifact_file)

    def log_table(self, columns: dict[str, list[Any]], artifact_file: str) -> None:
        self.client.log_table(self.run_id, columns, artifact_file)
        if artifact_file not in self._tables:  # the tag written at close lists it too
            self._tables.append(artifact_file)

    @property
    def artifact_uri(self) -> str:
        if self.artifact_root is not None:
            return self.artifact_root
        return str(self.client.get_run(self.run_id).info.artifact_uri)

    def log_traces(self, specs: list[TraceSpec]) -> list[str]:
        """Each conversation as an MLflow trace of this run (see evalkit.tracking.traces). The trace ids."""
        if self.tracking_uri is None or self.experiment_id is None:
            raise ValueError("log_traces needs a run opened with CellRun.open")
        uri, experiment_id = self.tracking_uri, self.experiment_id
        return retry_locked(lambda: log_traces(uri, experiment_id, self.run_id, specs))


def copy_reference(target: TrackingTarget, source_run_id: str) -> dict[str, float]:
    """Metrics of a finished run, to mirror into a reusing sweep's child run."""
    return dict(mlflow_client(target.tracking_uri).get_run(source_run_id).data.metrics)


def experiment_id(target: TrackingTarget) -> str | None:
    experiment = mlflow_client(target.tracking_uri).get_experiment_by_name(target.experiment)
    return experiment.experiment_id if experiment is not None else None
