"""The conversation viewer (issue 30 point 5): one static HTML file per cell — per conversation an audio player with
caller and agent lanes, the turns (what was said, what was heard), the effects, the tool calls and the scores, side
by side with the clean twin's conversation of the same scenario and trial. Written by the runner after a cell
(``viewer.html``, an artifact of the cell run) and rebuilt by ``python -m evalkit.view`` (docs/viewer.md)."""

from __future__ import annotations

from evalkit.view.cells import CellView, ViewInputError, load_cell_dir
from evalkit.view.page import render_page
from evalkit.view.store import PAGE_FILE, cell_from_run, twin_from_store, write_cell_page, write_page

__all__ = [
    "PAGE_FILE",
    "CellView",
    "ViewInputError",
    "cell_from_run",
    "load_cell_dir",
    "render_page",
    "twin_from_store",
    "write_cell_page",
    "write_page",
]
