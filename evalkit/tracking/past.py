"""Finished cells of a tracking store, as the plan (``python -m evalkit.plan``) reads them to estimate wall time: how
long each took per conversation, by cell key, agent and domain; and as reuse reads them (:func:`reuse_candidates`).
Read-only; a store that does not exist yet has none."""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.tracking.store import (
    CellRun,
    FinishedCell,
    TrackingTarget,
    copy_reference,
    latest_finished_cell,
    mlflow_client,
)


@dataclass(frozen=True)
class StoredCell:
    run_id: str
    cell_key: str
    agent: str
    domain: str
    wall_s: float
    conversations: int

    @property
    def wall_s_per_conversation(self) -> float:
        return self.wall_s / self.conversations


def stored_cells(tracking_uri: str, experiment: str, limit: int = 2000) -> list[StoredCell]:
    """The store's finished cell runs (not reuse pointers) that logged their wall time, newest first."""
    client = mlflow_client(tracking_uri)
    found = client.get_experiment_by_name(experiment)
    if found is None:
        return []
    runs = client.search_runs(
        [found.experiment_id],
        filter_string="tags.`evalkit.kind` = 'cell' and attributes.status = 'FINISHED'",
        max_results=limit,
        order_by=["attributes.start_time DESC"],
    )
    out = []
    for run in runs:
        metrics, params = run.data.metrics, run.data.params
        conversations = int(metrics.get("conversations", 0))
        if conversations <= 0 or "wall_s" not in metrics:
            continue
        out.append(
            StoredCell(
                run.info.run_id,
                run.data.tags.get("cell_key", ""),
                params.get("agent", ""),
                params.get("domain", ""),
                float(metrics["wall_s"]),
                conversations,
            )
        )
    return out


def reuse_candidates(
    target: TrackingTarget, cell_key: str, fingerprint: str | None
) -> tuple[FinishedCell | None, FinishedCell | None]:
    """(the newest finished run of the cell by code of ``fingerprint`` (None: any code), else None; when there is
    none, the newest finished run of the cell by any code, else None): what reuse decides from, in one pass."""
    found = latest_finished_cell(target, cell_key, fingerprint)
    if found is not None or fingerprint is None:
        return found, None
    return None, latest_finished_cell(target, cell_key)


def reuse_decision(found: FinishedCell, fingerprint: str) -> str:
    """What the log and the reuse pointer say about a reused run: same code, or other code taken by reuse=any."""
    if found.fingerprint == fingerprint:
        return f"reused: same code fingerprint {fingerprint}"
    return (
        f"reused with reuse=any: computed by code fingerprint {found.fingerprint or 'none'}, this code is {fingerprint}"
    )


def recompute_reason(other: FinishedCell | None, fingerprint: str) -> str:
    """Why a cell runs although reuse is on: nothing finished, or only runs of other code."""
    if other is None:
        return "fresh: no finished run of this cell"
    return (
        f"recomputed because the code fingerprint differs: run {other.run_id} has {other.fingerprint or 'none'}, "
        f"this code is {fingerprint} (reuse=any would reuse it)"
    )


def point_to(
    target: TrackingTarget,
    found: FinishedCell,
    run_name: str,
    pointer: tuple[dict[str, str], dict[str, str]],
    parent_run_id: str | None,
) -> dict[str, float]:
    """The finished run's metrics; in a sweep (``parent_run_id``) also a pointer run to it, named by ``pointer``
    (tags, params; ``reused_from`` added here), so the sweep's summary lists every cell it covers."""
    tags, params = pointer
    metrics = copy_reference(target, found.run_id)
    if parent_run_id:
        with CellRun.open(target, run_name, tags | {"reused_from": found.run_id}, parent_run_id) as run:
            run.log_params(params)
            run.log_at_close(metrics)
    return metrics
