"""The audio of a page: each lane embedded as an Ogg Vorbis data URI while the page's budget lasts, else a relative
link to the cell's WAV.

Why embedded: the page must play when it is one file on its own — downloaded from MLflow's artifact view, mailed,
or shown in MLflow's HTML preview (an iframe whose relative links lead nowhere). Why Vorbis and a budget: the WAVs
are 16 kHz 16-bit (32 kB per second per lane); base64 WAV would make a 30-call cell with its twin a page of
hundreds of MB. Vorbis at 16 kHz is ≈ 3-4 kB per second (≈ 7 ms of encoding per second of audio) and decodes in
every current browser (Safari since 17.4, with Ogg). Past the budget a lane links the WAV by its path relative to
the page: it plays where the page sits beside its ``audio/`` folder (the cell folder, a downloaded run folder), and
the page says which lanes are linked."""

from __future__ import annotations

import base64
import io
import os
from dataclasses import dataclass
from pathlib import Path

import soundfile as sf

VORBIS_QUALITY = 0.9  # libsndfile's compression level (0 best quality, 1 smallest): speech stays clear at 16 kHz


@dataclass
class AudioBudget:
    """Bytes of embedded audio a page may still take; ``page_dir``: where the page is written (relative links)."""

    remaining: int
    page_dir: Path
    embedded: int = 0
    linked: int = 0
    dropped: int = 0  # lanes neither embedded nor linkable


def encode_vorbis(path: Path) -> bytes:
    samples, rate = sf.read(str(path), dtype="float32", always_2d=False)
    out = io.BytesIO()
    sf.write(out, samples, rate, format="OGG", subtype="VORBIS", compression_level=VORBIS_QUALITY)
    return out.getvalue()


def lane_source(path: Path, budget: AudioBudget, linkable: bool = True) -> str | None:
    """The ``src`` of a lane's ``<audio>``: a data URI while the budget allows, else the WAV's relative path (POSIX
    separators: it is a URL), or None when the WAV may not be linked (a temporary copy)."""
    data = encode_vorbis(path) if budget.remaining > 0 else b""
    encoded = 4 * ((len(data) + 2) // 3)  # the base64 length
    if data and encoded <= budget.remaining:
        budget.remaining -= encoded
        budget.embedded += 1
        return "data:audio/ogg;base64," + base64.b64encode(data).decode("ascii")
    budget.remaining = 0  # once one lane is over, every later lane links too (no re-encoding to test each)
    if not linkable:
        budget.dropped += 1
        return None
    budget.linked += 1
    return Path(os.path.relpath(path.resolve(), budget.page_dir.resolve())).as_posix()
