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
import hashlib
import io
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import soundfile as sf

# a libsndfile built without Ogg Vorbis (old system builds; the soundfile wheels have it): every lane links its WAV
CAN_ENCODE = "OGG" in sf.available_formats() and "VORBIS" in sf.available_subtypes("OGG")
VORBIS_QUALITY = 0.9  # libsndfile's compression level (0 best quality, 1 smallest): speech stays clear at 16 kHz


@dataclass
class AudioBudget:
    """Bytes of embedded audio a page may still take; ``page_dir``: where the page is written (relative links)."""

    remaining: int
    page_dir: Path
    embedded: int = 0
    linked: int = 0
    dropped: int = 0  # lanes neither embedded nor linkable


# Encodings of this process by the WAV's content: a cell's page embeds its twin's lanes, which the twin's own page
# (built just before, in a single run or a one-process sweep) encoded already; encoding is the page's main cost.
_ENCODED: OrderedDict[str, bytes] = OrderedDict()
CACHE_BYTES = 64_000_000
VORBIS_BLOCK_FRAMES = 16_384


def encode_vorbis(path: Path) -> bytes:
    wav = path.read_bytes()
    key = hashlib.sha256(wav).hexdigest()
    if key in _ENCODED:
        _ENCODED.move_to_end(key)
        return _ENCODED[key]
    samples, rate = sf.read(io.BytesIO(wav), dtype="float32", always_2d=False)
    out = io.BytesIO()
    channels = 1 if samples.ndim == 1 else samples.shape[1]
    with sf.SoundFile(out, "w", rate, channels, format="OGG", subtype="VORBIS", compression_level=VORBIS_QUALITY) as f:
        # In blocks: libsndfile 1.2.2's Vorbis encoder crashes the process (SIGSEGV) on one write of a long signal
        # (measured: 160 s at 16 kHz in one write crashes, the same in 16,384-frame blocks does not).
        for start in range(0, len(samples), VORBIS_BLOCK_FRAMES):
            f.write(samples[start : start + VORBIS_BLOCK_FRAMES])
    _ENCODED[key] = out.getvalue()
    while sum(len(v) for v in _ENCODED.values()) > CACHE_BYTES:
        _ENCODED.popitem(last=False)
    return _ENCODED[key]


def lane_source(path: Path, budget: AudioBudget, linkable: bool = True) -> str | None:
    """The ``src`` of a lane's ``<audio>``: a data URI while the budget allows, else the WAV's relative path (POSIX
    separators: it is a URL), or None when the WAV may not be linked (a temporary copy)."""
    data = encode_vorbis(path) if budget.remaining > 0 and CAN_ENCODE else b""
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
