"""Where runs go and how a cell becomes an MLflow run.

Layout: one experiment; one parent run per sweep; one child run per cell, tagged with the cell key so a
finished cell is found and reused instead of re-run. A cell's run is marked complete only after its last
artifact is written, so a cell that died half-way is never taken as finished.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlflow.entities import Metric, Param
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient
from mlflow.utils.time import get_current_time_millis

PARENT_RUN_FILE = ".evalkit_parent_run"
COMPLETE_TAG = "evalkit.complete"
MAX_PARAM_CHARS = 500


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


def ensure_experiment(target: TrackingTarget) -> str:
    """Create the store and experiment once (idempotent; tolerates a concurrent creator)."""
    client = MlflowClient(target.tracking_uri)
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


def find_finished_cell(target: TrackingTarget, cell_key: str) -> str | None:
    """The newest finished run that holds the cell's data. Reuse pointers carry the cell key too, but never the
    data: returning one would make the next reuse point at a pointer (a chain the analysis must then untangle)."""
    client = MlflowClient(target.tracking_uri)
    experiment = client.get_experiment_by_name(target.experiment)
    if experiment is None:
        return None
    runs = client.search_runs(
        [experiment.experiment_id],
        filter_string=(
            f"tags.cell_key = '{cell_key}' and tags.`{COMPLETE_TAG}` = 'true' and tags.`evalkit.kind` = 'cell'"
        ),
        max_results=1,
        order_by=["attributes.start_time DESC"],
    )
    return runs[0].info.run_id if runs else None


def parent_run_file(sweep_dir: Path) -> Path:
    return sweep_dir / PARENT_RUN_FILE


def read_parent_run(sweep_dir: Path | None) -> str | None:
    if sweep_dir is None:
        return None
    path = parent_run_file(sweep_dir)
    return path.read_text().strip() if path.exists() else None


def _log_batched(client: MlflowClient, run_id: str, params: dict[str, str], metrics: dict[str, float]) -> None:
    now = get_current_time_millis()
    items = list(params.items())
    for i in range(0, len(items), 100):  # MLflow accepts at most 100 params per batch
        client.log_batch(run_id, params=[Param(k, v) for k, v in items[i : i + 100]])
    metric_items = [Metric(k, float(v), now, 0) for k, v in metrics.items()]
    for i in range(0, len(metric_items), 1000):
        client.log_batch(run_id, metrics=metric_items[i : i + 1000])


def start_sweep(target: TrackingTarget, sweep_dir: Path, grid: Mapping[str, Any], overrides: list[str]) -> str:
    """The parent run of a sweep; its id is written into the sweep folder for the jobs to find."""
    experiment_id = ensure_experiment(target)
    client = MlflowClient(target.tracking_uri)
    run = client.create_run(
        experiment_id,
        run_name=f"sweep {sweep_dir.name}",
        tags={"evalkit.kind": "sweep", "sweep_dir": str(sweep_dir)},
    )
    params = {f"grid.{k}": str(v)[:MAX_PARAM_CHARS] for k, v in grid.items()}
    params["overrides"] = " ".join(overrides)[:MAX_PARAM_CHARS]
    _log_batched(client, run.info.run_id, params, {})
    sweep_dir.mkdir(parents=True, exist_ok=True)
    parent_run_file(sweep_dir).write_text(run.info.run_id)
    return run.info.run_id


def end_sweep(target: TrackingTarget, parent_run_id: str) -> list[dict[str, Any]]:
    """Close the parent run with a summary table of its cells (one row per cell, aggregates as columns)."""
    client = MlflowClient(target.tracking_uri)
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
            **{k: round(v, 4) for k, v in sorted(r.data.metrics.items())},
        }
        for r in children
    ]
    if rows:
        columns = sorted({k for row in rows for k in row}, key=lambda c: (c not in ("run_id", "cell_key"), c))
        client.log_table(parent_run_id, {c: [row.get(c) for row in rows] for c in columns}, "summary_table.json")
    client.set_terminated(parent_run_id, "FINISHED")
    return rows


@dataclass
class CellRun:
    """An open child run for one cell. Use :func:`CellRun.open` as a context manager."""

    client: MlflowClient
    run_id: str

    @classmethod
    @contextmanager
    def open(
        cls, target: TrackingTarget, run_name: str, tags: dict[str, str], parent_run_id: str | None
    ) -> Iterator[CellRun]:
        experiment_id = ensure_experiment(target)
        client = MlflowClient(target.tracking_uri)
        all_tags = dict(tags)
        if parent_run_id:
            all_tags["mlflow.parentRunId"] = parent_run_id
        run = client.create_run(experiment_id, run_name=run_name, tags=all_tags)
        cell = cls(client, run.info.run_id)
        try:
            yield cell
        except BaseException:
            client.set_terminated(run.info.run_id, "FAILED")
            raise
        client.set_tag(run.info.run_id, COMPLETE_TAG, "true")
        client.set_terminated(run.info.run_id, "FINISHED")

    def log_params(self, params: dict[str, str]) -> None:
        _log_batched(self.client, self.run_id, params, {})

    def log_metrics(self, metrics: dict[str, float]) -> None:
        _log_batched(self.client, self.run_id, {}, {k: v for k, v in metrics.items() if v == v})

    def set_tags(self, tags: dict[str, str]) -> None:
        for key, value in tags.items():
            self.client.set_tag(self.run_id, key, value)

    def log_dir(self, local_dir: Path, artifact_path: str | None = None) -> None:
        self.client.log_artifacts(self.run_id, str(local_dir), artifact_path)

    def log_text(self, text: str, artifact_file: str) -> None:
        self.client.log_text(self.run_id, text, artifact_file)

    def log_table(self, columns: dict[str, list[Any]], artifact_file: str) -> None:
        self.client.log_table(self.run_id, columns, artifact_file)


def copy_reference(target: TrackingTarget, source_run_id: str) -> dict[str, float]:
    """Metrics of a finished run, to mirror into a reusing sweep's child run."""
    return dict(MlflowClient(target.tracking_uri).get_run(source_run_id).data.metrics)


# --- Reading runs back, for the analysis (evalkit.analysis never imports mlflow) ---------------------------------

ANALYSIS_KIND = "analysis"
INPUT_TAG_PREFIX = "evalkit.input."
MAX_TAG_CHARS = 5000  # below every backend's tag-value limit


@dataclass(frozen=True)
class RunSummary:
    """A run as plain data: what the analysis needs, with no MLflow types leaking out."""

    run_id: str
    name: str
    status: str
    start_time: int
    params: dict[str, str]
    tags: dict[str, str]
    metrics: dict[str, float]


def _summary(run: Any) -> RunSummary:
    return RunSummary(
        run_id=run.info.run_id,
        name=run.info.run_name or "",
        status=run.info.status,
        start_time=int(run.info.start_time or 0),
        params=dict(run.data.params),
        tags=dict(run.data.tags),
        metrics=dict(run.data.metrics),
    )


def experiment_id(target: TrackingTarget) -> str | None:
    experiment = MlflowClient(target.tracking_uri).get_experiment_by_name(target.experiment)
    return experiment.experiment_id if experiment is not None else None


def find_runs(target: TrackingTarget, filter_string: str = "") -> list[RunSummary]:
    """Every run of the target's experiment matching an MLflow filter (all pages), newest first."""
    exp_id = experiment_id(target)
    if exp_id is None:
        return []
    client = MlflowClient(target.tracking_uri)
    runs: list[RunSummary] = []
    token: str | None = None
    while True:
        page = client.search_runs(
            [exp_id], filter_string, max_results=1000, order_by=["attributes.start_time DESC"], page_token=token
        )
        runs.extend(_summary(r) for r in page)
        token = page.token
        if not token:
            return runs


def get_run(target: TrackingTarget, run_id: str) -> RunSummary | None:
    try:
        return _summary(MlflowClient(target.tracking_uri).get_run(run_id))
    except MlflowException:
        return None


def latest_sweep(target: TrackingTarget) -> RunSummary | None:
    sweeps = find_runs(target, "tags.`evalkit.kind` = 'sweep'")
    return sweeps[0] if sweeps else None


def sweep_children(target: TrackingTarget, parent_run_id: str) -> list[RunSummary]:
    return find_runs(target, f"tags.`mlflow.parentRunId` = '{parent_run_id}'")


def load_json_artifact(target: TrackingTarget, run_id: str, artifact_path: str) -> Any | None:
    """A JSON artifact of a run, or None when the run has no such artifact."""
    import tempfile

    client = MlflowClient(target.tracking_uri)
    with tempfile.TemporaryDirectory(prefix="evalkit-dl-") as tmp:
        try:
            local = client.download_artifacts(run_id, artifact_path, tmp)
        except (MlflowException, OSError):
            return None
        path = Path(local)
        return json.loads(path.read_text()) if path.is_file() else None


def load_json_artifact_dir(target: TrackingTarget, run_id: str, artifact_dir: str) -> dict[str, Any]:
    """Every ``*.json`` file of an artifact folder (e.g. ``records``), by file name; empty when absent."""
    import tempfile

    client = MlflowClient(target.tracking_uri)
    with tempfile.TemporaryDirectory(prefix="evalkit-dl-") as tmp:
        try:
            local = Path(client.download_artifacts(run_id, artifact_dir, tmp))
        except (MlflowException, OSError):
            return {}
        return {p.name: json.loads(p.read_text()) for p in sorted(local.glob("*.json"))}


def log_analysis_run(
    target: TrackingTarget,
    run_name: str,
    out_dir: Path,
    input_runs: Mapping[str, str],
    params: Mapping[str, str],
    metrics: Mapping[str, float],
    tags: Mapping[str, str] | None = None,
) -> str:
    """An MLflow run holding an analysis: its output folder as artifacts, linked to every input run.

    ``input_runs`` maps run id -> role (e.g. ``perturbed``, ``clean``, ``sweep``). Each becomes a tag
    ``evalkit.input.<run id>`` (so ``tags.`evalkit.input.<id>` = 'clean'`` finds every analysis that used a
    run), ``evalkit.inputs`` lists them all (cut to a tag's length; ``inputs.json`` has the full list).
    """
    from mlflow.entities import RunTag

    experiment = ensure_experiment(target)
    client = MlflowClient(target.tracking_uri)
    ids = sorted(input_runs)
    all_tags = {
        "evalkit.kind": ANALYSIS_KIND,
        "evalkit.inputs": ",".join(ids)[:MAX_TAG_CHARS],
        **(tags or {}),
        **{f"{INPUT_TAG_PREFIX}{run_id}": role for run_id, role in input_runs.items()},
    }
    run = client.create_run(experiment, run_name=run_name)
    run_id = run.info.run_id
    try:
        items = [RunTag(k, str(v)[:MAX_TAG_CHARS]) for k, v in all_tags.items()]
        for i in range(0, len(items), 100):
            client.log_batch(run_id, tags=items[i : i + 100])
        _log_batched(client, run_id, {k: str(v)[:MAX_PARAM_CHARS] for k, v in params.items()}, dict(metrics))
        client.log_dict(run_id, {"input_runs": dict(sorted(input_runs.items()))}, "inputs.json")
        client.log_artifacts(run_id, str(out_dir))
    except BaseException:
        client.set_terminated(run_id, "FAILED")
        raise
    client.set_terminated(run_id, "FINISHED")
    return run_id


# --- re-scoring finished cells (evalkit.rescore) -------------------------------------------------------------------


@dataclass(frozen=True)
class StoredCell:
    """What re-scoring needs to know about a finished cell run."""

    run_id: str
    run_name: str
    experiment_id: str
    parent_run_id: str | None
    tags: dict[str, str]
    params: dict[str, str]


def get_stored_cell(target: TrackingTarget, run_id: str) -> StoredCell:
    run = MlflowClient(target.tracking_uri).get_run(run_id)
    return StoredCell(
        run_id=run_id,
        run_name=run.info.run_name or run_id,
        experiment_id=run.info.experiment_id,
        parent_run_id=run.data.tags.get("mlflow.parentRunId"),
        tags=dict(run.data.tags),
        params=dict(run.data.params),
    )


def download_records(target: TrackingTarget, run_id: str, dest: Path) -> list[Path]:
    """The cell's per-conversation records (``records/*.json`` artifacts), downloaded into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    local = Path(MlflowClient(target.tracking_uri).download_artifacts(run_id, "records", str(dest)))
    return sorted(local.glob("*.json"))
