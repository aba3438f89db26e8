"""Cells the viewer reads from the tracking store: a cell run's folder, and a cell's clean twin found by its key.

One place for both callers: the runner writes each cell's page with its twin from the store, and
``python -m evalkit.view`` rebuilds a page from a run id. A reuse pointer holds no data, so the run it points to is
shown."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.view.cells import CellView, ViewInputError, load_cell_dir
from evalkit.view.page import render_page

if TYPE_CHECKING:
    from evalkit.tracking import TrackingTarget

PAGE_FILE = "viewer.html"


def write_page(cell: CellView, twin: CellView | None, out: Path, embed_mb: float) -> Path:
    """Render and write the page to ``out`` (its folder is where linked WAVs are found from)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_page(cell, twin, out.parent, int(embed_mb * 1_000_000)), encoding="utf-8")
    return out


def cell_from_run(target: TrackingTarget, run_id: str, dest: Path, audio: bool = True) -> CellView:
    """A finished cell run's folder downloaded into ``dest`` (``audio``: its WAVs too), as the runner wrote it."""
    from evalkit.tracking.reading import download_cell_folder, get_run

    run = get_run(target, run_id)
    if run is None:
        raise ViewInputError(f"no run {run_id} in {target.tracking_uri}")
    if run.tags.get("evalkit.kind") != "cell":
        raise ViewInputError(f"run {run_id} is not a cell run (evalkit.kind={run.tags.get('evalkit.kind')})")
    if run.tags.get("reused_from"):  # a reuse pointer holds no data: show the run it points to
        return cell_from_run(target, run.tags["reused_from"], dest, audio)
    download_cell_folder(target, run_id, dest, audio=audio)
    return load_cell_dir(dest, run.tags | {"mlflow.runName": run.name}, linkable=False)  # a copy: no WAV links


def twin_from_store(
    target: TrackingTarget, twin_key: str, dest: Path, audio: bool = True
) -> tuple[str, CellView] | None:
    """(run id, cell) of the newest finished run of the clean twin's cell key, downloaded into ``dest``; None when
    there is none."""
    from evalkit.tracking import latest_finished_cell

    found = latest_finished_cell(target, twin_key)
    return None if found is None else (found.run_id, cell_from_run(target, found.run_id, dest, audio))


def write_cell_page(out_dir: Path, names: dict[str, str], target: TrackingTarget, embed_mb: float) -> str:
    """The runner's ``viewer.html`` in the cell folder (logged with it): the cell's conversations beside its clean
    twin's, found in the store by the twin's cell key. ``names``: the cell run's name, condition, cell and twin keys
    (as its tags). What the page says about the twin, for the log."""
    cell = load_cell_dir(out_dir, names)
    twin_key = names.get("twin_key")
    own = not twin_key or twin_key == names.get("cell_key")
    with tempfile.TemporaryDirectory(prefix="evalkit-twin-") as tmp:
        found = None if own else twin_from_store(target, twin_key, Path(tmp) / "twin", audio=embed_mb > 0)
        write_page(cell, found[1] if found else None, out_dir / PAGE_FILE, embed_mb)
    if own:
        return "no clean twin"
    return "clean twin not finished yet" if found is None else f"beside clean twin run {found[0]}"
