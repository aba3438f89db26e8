"""The ``noise_files`` op: background noise from the user's own recordings, mixed in at an exact SNR.

Real noise corpora beat any procedural bed for realism (MUSAN ``noise/free-sound/*.wav``, DEMAND
``*/ch01.wav``, ESC-50 ``audio/*.wav``, WHAM!, your own field recordings). Point ``folder`` at one; every
WAV/FLAC file under it (recursively, or those matching ``pattern``, a glob relative to ``folder``) is a
candidate. Hidden files and folders (".*", e.g. macOS "._x.wav" resource forks) are skipped.

- Build time (so a bad config stops before any audio is processed): the folder must exist and every
  candidate must be decodable, finite (no NaN/inf), at least ``MIN_NOISE_S`` long, louder than ``MIN_NOISE_DBFS``
  once its DC is removed, and keep its power when its channels are averaged to mono (a stereo file whose
  channels cancel would otherwise get ~+95 dB of gain); the error names the folder or the file and the reason.
  Each file is read once per process (streamed, a block at a time; cached per (path, size, mtime)), so
  rebuilding a chain costs a stat per file.
- Per clip: a file and a start offset are drawn from the rng; the file is decoded with soundfile, averaged to
  mono, its DC removed (DC is inaudible but would count as noise power), resampled to the clip's rate with
  ``scipy.signal.resample_poly`` and cached per (path, rate) in a byte-bounded LRU cache. Files shorter than
  the clip (or an offset near the end) loop seamlessly: the loop's last ``LOOP_CROSSFADE_S`` are crossfaded
  into its start (equal power), as ``environments.registry.looped`` does for synthetic beds.
- Mixing is ``perturbations.mixing.mix_at_snr`` (the exact-SNR mixer of the ``noise`` op); the effect reports
  the file (relative to ``folder``), the offset, whether it looped, and the measured SNR.
"""

from __future__ import annotations

import collections
import math
import threading
from pathlib import Path
from typing import Any, Literal

import numpy as np
import soundfile as sf
from pydantic import Field, ValidationInfo, field_validator
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError
from scipy import signal as sps

from perturbations.audio import NO_CONTEXT, ClipContext, effect
from perturbations.errors import PerturbationError
from perturbations.mixing import mix_at_snr
from perturbations.registry import OP_CONFIG, Number, Op, register_op

AUDIO_SUFFIXES = (".wav", ".flac")
LOOP_CROSSFADE_S = 0.1
CACHE_BYTES = 256 * 2**20  # decoded, resampled float32 audio kept per process


def _candidates(folder: Path, pattern: str | None) -> list[Path]:
    """WAV/FLAC files under ``folder`` (matching ``pattern`` if given), no hidden ones, sorted so the rng picks
    the same file on every machine."""
    found = folder.glob(pattern) if pattern else folder.rglob("*")
    files = []
    for path in found:
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix.lower() in AUDIO_SUFFIXES and path.is_file():
            files.append(path)
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


_HEADERS: dict[tuple[str, int, int], int] = {}  # (path, size, mtime_ns) -> frames
_CONTENT: dict[tuple[str, int, int], str | None] = {}  # (path, size, mtime_ns) -> why the file is unusable, or None
MIN_NOISE_S = 0.01  # shorter than this (a few samples), a file is a click looped for the whole call, not a noise bed
# Below this RMS (after DC removal) a file is silence: mix_at_snr would raise it by ~+95 dB to reach the SNR,
# turning quantisation noise into the "background". 16-bit dither sits near -101 dBFS.
MIN_NOISE_DBFS = -80.0
# Channels are averaged to mono; if that keeps less than this fraction of the channels' own power they cancel
# (a stereo file with one channel inverted): the mono mix is near silence, not the recording.
MIN_MONO_POWER_RATIO = 0.01  # -20 dB
_BLOCK_FRAMES = 1 << 16


def _content_problem(path: Path, key: tuple[str, int, int]) -> str | None:
    """Why a noise file's samples cannot serve as a background, in one streamed pass (a block at a time, so a
    long recording is never held whole): non-finite samples, too short, silent or DC only, or channels that
    cancel when averaged to mono. Cached per (path, size, mtime): a sweep checks each file once."""
    if key in _CONTENT:
        return _CONTENT[key]
    frames = 0
    total = total_sq = channel_sq = 0.0
    try:
        with sf.SoundFile(str(path)) as f:
            rate = f.samplerate
            for block in f.blocks(blocksize=_BLOCK_FRAMES, dtype="float64", always_2d=True):
                if not np.isfinite(block).all():
                    _CONTENT[key] = "holds NaN or infinite samples"
                    return _CONTENT[key]
                mono = block.mean(axis=1)
                frames += block.shape[0]
                total += float(mono.sum())
                total_sq += float(np.dot(mono, mono))
                channel_sq += float(np.square(block).sum()) / block.shape[1]
    except (OSError, RuntimeError, sf.SoundFileError) as exc:
        return f"cannot decode: {exc}"
    problem = None
    mean = total / max(frames, 1)
    power = total_sq / max(frames, 1) - mean * mean  # the mono signal's power once its DC is removed (as _decode)
    if frames < MIN_NOISE_S * rate:
        problem = f"is too short ({frames} samples, {frames / rate * 1000:.1f} ms; at least {MIN_NOISE_S:g} s)"
    elif channel_sq > 0.0 and total_sq < MIN_MONO_POWER_RATIO * channel_sq:
        problem = (
            f"has channels that cancel when averaged to mono ({10 * math.log10(max(total_sq, 1e-300) / channel_sq):.0f}"
            " dB of their power left): keep one channel"
        )
    elif power <= 10 ** (MIN_NOISE_DBFS / 10):
        level = 10 * math.log10(power) if power > 0 else -math.inf
        problem = f"is silent or a constant offset ({level:.0f} dBFS after DC removal; at least {MIN_NOISE_DBFS:g})"
    _CONTENT[key] = problem
    return problem


def _frames(path: Path) -> int:
    """Frame count from the header (cached); raises PydanticCustomError naming the file and the reason."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in _HEADERS:
            _HEADERS[key] = sf.info(str(path)).frames
    except (OSError, RuntimeError, sf.SoundFileError) as exc:
        raise PydanticCustomError(
            "unreadable_noise_file", "cannot read noise file {file}: {reason}", {"file": str(path), "reason": str(exc)}
        ) from None
    if _HEADERS[key] <= 0:
        raise PydanticCustomError("empty_noise_file", "noise file {file} has no samples", {"file": str(path)})
    problem = _content_problem(path, key)
    if problem:
        raise PydanticCustomError(
            "unusable_noise_file", "noise file {file} {reason}", {"file": str(path), "reason": problem}
        )
    return _HEADERS[key]


class _DecodedCache:
    """LRU of decoded, mono, resampled, loop-ready noise per (path, size, mtime, rate), bounded in bytes (a
    corpus like MUSAN would not fit in memory whole; the working set of a sweep usually does)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: collections.OrderedDict[tuple[str, int, int, int], np.ndarray] = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, path: Path, sample_rate: int) -> np.ndarray:
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns, sample_rate)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        loop = _loop_ready(_decode(path, sample_rate), sample_rate)
        loop.flags.writeable = False
        with self._lock:
            if key not in self._items:
                self._items[key] = loop
                self._bytes += loop.nbytes
            while self._bytes > self.max_bytes and len(self._items) > 1:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= dropped.nbytes
        return loop

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


def _decode(path: Path, sample_rate: int) -> np.ndarray:
    try:
        data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (OSError, RuntimeError, sf.SoundFileError) as exc:
        raise PerturbationError(f"perturb noise_files: cannot decode noise file {path}: {exc}") from None
    if data.shape[0] == 0:
        raise PerturbationError(f"perturb noise_files: noise file {path} has no samples")
    mono = data.astype(np.float64).mean(axis=1)
    mono -= mono.mean()
    if rate != sample_rate:
        g = math.gcd(int(rate), int(sample_rate))
        mono = sps.resample_poly(mono, sample_rate // g, rate // g)
    return mono


def _loop_ready(x: np.ndarray, sample_rate: int) -> np.ndarray:
    """float32 loop whose end flows into its start: the last ``fade`` samples are crossfaded (equal power) into
    the first ones and dropped, so ``np.tile`` of the result has no seam. Very short files keep a short fade."""
    fade = min(round(LOOP_CROSSFADE_S * sample_rate), x.shape[0] // 4)
    if fade < 1:
        return x.astype(np.float32)
    theta = (np.arange(fade) + 0.5) / fade * (np.pi / 2)
    loop = x[: x.shape[0] - fade].copy()
    loop[:fade] = x[x.shape[0] - fade :] * np.cos(theta) + x[:fade] * np.sin(theta)
    return loop.astype(np.float32)


DECODED = _DecodedCache(CACHE_BYTES)


@register_op("noise_files")
@dataclass(config=OP_CONFIG, kw_only=True)
class NoiseFiles(Op):
    """Add noise read from ``folder`` (WAV/FLAC, recursive, or ``pattern``) at ``snr_db``; SNR as in
    ``perturbations.mixing``. The effect reports ``file`` (relative to ``folder``), ``offset_s``, ``looped``,
    ``file_seconds`` and the requested/measured SNR."""

    # pattern comes first so the folder check can see it (kw_only: the order is only the validation order).
    pattern: str | None = None  # a glob relative to folder, e.g. "*/ch01.wav"; default: every WAV/FLAC file
    folder: str | Path  # str | Path rather than str so the check's reason reaches the error; stored as str
    snr_db: Number = Field(default=15.0, ge=-5.0, le=40.0)
    signal_power: Literal["active", "whole"] = "active"
    active_range_db: Number = Field(default=40.0, ge=10.0, le=80.0)

    @field_validator("pattern")
    @classmethod
    def _pattern_is_relative(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or Path(value).is_absolute()):
            raise PydanticCustomError("noise_pattern", "pattern must be a glob relative to folder, like '*/ch01.wav'")
        return value

    @field_validator("folder")
    @classmethod
    def _folder_holds_audio(cls, value: str | Path, info: ValidationInfo) -> str:
        """Build-time check: the folder exists and holds >= 1 audio file, every one of them readable."""
        folder = Path(value).expanduser()
        if not folder.is_dir():
            reason = "is not a folder" if folder.exists() else "does not exist"
            raise PydanticCustomError(
                "noise_folder", "noise folder {folder} {reason}", {"folder": str(value), "reason": reason}
            )
        if "pattern" not in info.data:
            return str(value)  # the pattern was invalid and is reported on its own
        pattern = info.data["pattern"]
        try:
            files = _candidates(folder, pattern)
        except (OSError, ValueError) as exc:  # an unlistable folder, or a glob pathlib rejects
            raise PydanticCustomError(
                "noise_folder",
                "cannot list noise folder {folder}: {reason}",
                {"folder": str(value), "reason": str(exc)},
            ) from None
        if not files:
            what = f"files matching {pattern!r}" if pattern else "WAV/FLAC files"
            raise PydanticCustomError(
                "noise_folder", "noise folder {folder} holds no {what}", {"folder": str(value), "what": what}
            )
        for path in files:
            _frames(path)
        return str(value)

    def __post_init__(self) -> None:
        # The validator has checked the listing; keep it (the rng indexes into it), outside the spec fields.
        object.__setattr__(self, "_files", tuple(_candidates(self.root, self.pattern)))

    @property
    def root(self) -> Path:
        return Path(self.folder).expanduser()

    @property
    def files(self) -> tuple[Path, ...]:
        """The candidate files found at build time, in pick order."""
        return self._files  # type: ignore[attr-defined,no-any-return]

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        return self.apply_in_context(audio, sample_rate, rng, NO_CONTEXT)

    def apply_in_context(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator, context: ClipContext
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        reference = context.reference_power  # the open line between utterances: the bed at speech's gain
        n = audio.shape[0]
        index = int(rng.integers(len(self.files)))
        path = self.files[index]
        info: dict[str, Any]
        params: dict[str, Any] = {"file": path.relative_to(self.root).as_posix()}
        if reference is None and not np.any(audio):
            mixed = audio.copy()  # nothing to set a level against (as the noise op): no decoding either
            info = {"snr_db_requested": self.snr_db, "signal_power": self.signal_power, "skipped": "silent input"}
        else:
            source = DECODED.get(path, sample_rate)
            start = int(rng.integers(source.shape[0]))
            reps = -(-(start + n) // source.shape[0])
            noise = (source if reps == 1 else np.tile(source, reps))[start : start + n]
            params.update(offset_s=start / sample_rate, file_seconds=source.shape[0] / sample_rate, looped=reps > 1)
            mixed, info = mix_at_snr(
                audio, noise, self.snr_db, sample_rate, self.signal_power, self.active_range_db, reference
            )
        params.update(info)
        if self.signal_power == "active":
            params["active_range_db"] = self.active_range_db
        return mixed, [effect("noise_files", n, sample_rate, params)]
