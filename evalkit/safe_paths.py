"""Paths built from data (a scenario id, a record id from an imported dataset) stay inside their folder.

A scenario file is input: its ``id`` names the record and audio files a cell writes. An id such as
``../../../../etc/AL-001`` must not place them outside the run folder, so ids are limited to a safe set of characters
(:data:`SAFE_NAME`, checked when a scenario is read) and every path joined from data is checked again where it is
built (:func:`inside`): two locks, because a record can reach the writer without passing the schema (a test, a
replay, a future importer).
"""

from __future__ import annotations

import re
from pathlib import Path

# Letters, digits, '.', '_' and '-', starting with a letter or digit (so never '.', '..' or a hidden file); at most
# 128 characters. Every shipped scenario id (AL-001, ITSM-012, HR-020) and EVA-Bench's ("12", "1.1") fit.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
SAFE_NAME_RULE = "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit"


class UnsafePathError(ValueError):
    """A name from data that would leave its folder."""


def is_safe_name(name: str) -> bool:
    return SAFE_NAME.fullmatch(name) is not None


def inside(folder: Path, *names: str) -> Path:
    """``folder / name / ...``, refused unless each name is a safe file name and the result stays in ``folder``."""
    for name in names:
        if not is_safe_name(name):
            raise UnsafePathError(f"{name[:80]!r} is not a safe file name ({SAFE_NAME_RULE})")
    path = folder.joinpath(*names)
    root = folder.resolve()
    if not path.resolve().is_relative_to(root):  # a symlink inside the folder pointing out of it
        raise UnsafePathError(f"{path} leaves {root}")
    return path
