"""The conversation viewer (issue 30 point 5): one static HTML file per cell — per conversation an audio player with
caller and agent lanes, the turns (what was said, what was heard), the effects, the tool calls and the scores, side
by side with the clean twin's conversation of the same scenario and trial. Written by the runner after a cell
(``viewer.html``, an artifact of the cell run) and rebuilt by ``python -m evalkit.view`` (docs/viewer.md)."""

from __future__ import annotations

from pathlib import Path

from evalkit.view.cells import CellView, ViewInputError, load_cell_dir
from evalkit.view.page import render_page

__all__ = ["PAGE_FILE", "CellView", "ViewInputError", "load_cell_dir", "render_page", "write_page"]

PAGE_FILE = "viewer.html"


def write_page(cell: CellView, twin: CellView | None, out: Path, embed_mb: float) -> Path:
    """Render and write the page to ``out`` (its folder is where linked WAVs are found from)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_page(cell, twin, out.parent, int(embed_mb * 1_000_000)), encoding="utf-8")
    return out
