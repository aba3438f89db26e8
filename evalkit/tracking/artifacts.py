"""Uploading a cell folder: what goes up and what stays on disk only."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def left_out(path: Path) -> bool:
    """What a cell folder's upload leaves out: an empty file (Hydra's job log when nothing was logged to it), and a
    folder holding another cell (a single run's ``clean_twin/``, which its own run stores: uploading it with the
    cell stored every twin WAV twice, issue 30 point 7)."""
    if path.is_dir():
        return (path / "records").is_dir()
    return path.stat().st_size == 0


def upload_folder(client: Any, run_id: str, folder: Path, artifact_path: str | None = None) -> None:
    """``folder`` as the run's artifacts, less what :func:`left_out` names: one ``log_artifacts`` for a subtree
    with nothing to leave out (the usual case), file by file only where something is."""
    if not any(left_out(p) for p in folder.rglob("*")):
        client.log_artifacts(run_id, str(folder), artifact_path)
        return
    for entry in sorted(folder.iterdir()):
        if left_out(entry):
            continue
        if entry.is_dir():
            upload_folder(client, run_id, entry, f"{artifact_path}/{entry.name}" if artifact_path else entry.name)
        else:
            client.log_artifact(run_id, str(entry), artifact_path)
