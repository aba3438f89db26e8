"""Uploading a cell folder: what goes up, what stays on disk only, and how a WAV is stored once on a local store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse


def left_out(path: Path) -> bool:
    """What a cell folder's upload leaves out: an empty file (Hydra's job log when nothing was logged to it), and a
    folder holding another cell (a single run's ``clean_twin/``, which its own run stores: uploading it with the
    cell stored every twin WAV twice, issue 30 point 7)."""
    if path.is_dir():
        return (path / "records").is_dir()
    return path.stat().st_size == 0


def local_artifact_dir(artifact_uri: str | None) -> Path | None:
    """The run's artifact folder when the store keeps artifacts on this machine's disk (``file://``), else None."""
    if not artifact_uri or not artifact_uri.startswith("file:"):
        return None
    return Path(unquote(urlparse(artifact_uri).path))


def _link(source: Path, dest: Path) -> bool:
    """``dest`` as a hard link to ``source`` (one copy of the bytes on disk); False where the disk cannot (another
    file system, no hard links): the file is then uploaded as usual."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            dest.unlink()
        os.link(source, dest)
    except OSError:
        return False
    return True


def upload_folder(
    client: Any, run_id: str, folder: Path, artifact_path: str | None = None, local_root: Path | None = None
) -> None:
    """``folder`` as the run's artifacts, less what :func:`left_out` names. With ``local_root`` (a local file
    store, :func:`local_artifact_dir`) each WAV is hard-linked into the store instead of copied: the cell folder
    and the store then share its bytes, so a local run keeps each WAV once on disk (a WAV is written once per
    conversation and never rewritten in place: a rerun of the folder removes it first). One ``log_artifacts`` for
    a subtree with nothing to leave out or link (the usual remote case), file by file otherwise."""
    entries = list(folder.rglob("*"))
    linkable = local_root is not None and any(p.suffix == ".wav" for p in entries)
    if not linkable and not any(left_out(p) for p in entries):
        client.log_artifacts(run_id, str(folder), artifact_path)
        return
    for entry in sorted(folder.iterdir()):
        if left_out(entry):
            continue
        sub = f"{artifact_path}/{entry.name}" if artifact_path else entry.name
        if entry.is_dir():
            upload_folder(client, run_id, entry, sub, local_root)
        elif local_root is None or entry.suffix != ".wav" or not _link(entry, local_root / sub):
            client.log_artifact(run_id, str(entry), artifact_path)
