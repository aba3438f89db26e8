"""Reading runs back as plain data: for the analysis (which never imports mlflow), analysis runs, and re-scoring."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlflow.exceptions import MlflowException

from evalkit.provenance import provenance_tags
from evalkit.tracking.artifacts import upload_folder
from evalkit.tracking.store import (
    MAX_PARAM_CHARS,
    MAX_TAG_CHARS,
    TrackingTarget,
    _log_batched,
    ensure_experiment,
    experiment_id,
    mlflow_client,
)

# --- Reading runs back, for the analysis (evalkit.analysis never imports mlflow) ---------------------------------

ANALYSIS_KIND = "analysis"
INPUT_TAG_PREFIX = "evalkit.input."


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


def find_runs(target: TrackingTarget, filter_string: str = "") -> list[RunSummary]:
    """Every run of the target's experiment matching an MLflow filter (all pages), newest first."""
    exp_id = experiment_id(target)
    if exp_id is None:
        return []
    client = mlflow_client(target.tracking_uri)
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
        return _summary(mlflow_client(target.tracking_uri).get_run(run_id))
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

    client = mlflow_client(target.tracking_uri)
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

    client = mlflow_client(target.tracking_uri)
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
    texts: Callable[[str], Mapping[str, str]] | None = None,
) -> str:
    """An MLflow run holding an analysis: its output folder as artifacts, linked to every input run.

    ``texts(run_id)``: artifact file -> text, logged over the folder's copy (the report whose image links must
    name the run, which exists only now).

    ``input_runs`` maps run id -> role (e.g. ``perturbed``, ``clean``, ``sweep``). Each becomes a tag
    ``evalkit.input.<run id>`` (so ``tags.`evalkit.input.<id>` = 'clean'`` finds every analysis that used a
    run), ``evalkit.inputs`` lists them all (cut to a tag's length; ``inputs.json`` has the full list).
    """
    from mlflow.entities import RunTag

    experiment = ensure_experiment(target)
    client = mlflow_client(target.tracking_uri)
    ids = sorted(input_runs)
    all_tags = {
        **provenance_tags(),  # the code that analysed, as every evalkit run records it
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
        upload_folder(client, run_id, out_dir)  # no empty log files
        for artifact_file, text in (texts(run_id) if texts else {}).items():
            client.log_text(run_id, text, artifact_file)
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
    run = mlflow_client(target.tracking_uri).get_run(run_id)
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
    local = Path(mlflow_client(target.tracking_uri).download_artifacts(run_id, "records", str(dest)))
    return sorted(local.glob("*.json"))


# --- a cell run's folder, for the conversation viewer (evalkit.view) -----------------------------------------------

CELL_VIEW_ARTIFACTS = ("records", "audio", "config.yaml", "aggregates.json")


def download_cell_folder(target: TrackingTarget, run_id: str, dest: Path, audio: bool = True) -> Path:
    """The artifacts the viewer reads of a cell run (records, and audio unless ``audio`` is False, its config and
    aggregates) downloaded into ``dest``, laid out as the cell folder the runner wrote; what the run lacks is
    skipped (a run logged with ``mlflow.log_audio=false`` has no audio)."""
    import os

    client = mlflow_client(target.tracking_uri)
    dest.mkdir(parents=True, exist_ok=True)
    present = {a.path for a in client.list_artifacts(run_id)}
    bar = os.environ.get("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR")
    os.environ["MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"] = "false"  # a bar per folder in the middle of a cell's log
    try:
        for path in CELL_VIEW_ARTIFACTS:
            if path in present and (audio or path != "audio"):
                client.download_artifacts(run_id, path, str(dest))
    finally:
        if bar is None:
            os.environ.pop("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", None)
        else:
            os.environ["MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"] = bar
    return dest
