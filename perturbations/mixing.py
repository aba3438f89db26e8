"""Mixing noise into speech at an exact SNR, with headroom handling.

Hand-written with numpy on purpose: audiomentations' AddBackgroundNoise/AddColorNoise/AddGaussianSNR draw
from the global RNG (no seed argument), measure signal power over the whole clip only, and report neither
the realised SNR nor any limiting. Here SNR is a definition we control and report:

    SNR = 10 log10(P_signal / P_noise)

- P_noise is the noise's mean power over the whole clip (its long-term level: the background is a property of
  the room, not of where the speech happens to be).
- P_signal depends on ``signal_power``:
  * "whole"  - mean power over every sample, pauses included. Simple, but the same utterance with longer
               pauses gets less noise, so the SNR then measures the pause ratio as much as the speech.
  * "active" - mean power over speech-active 20 ms frames: frames whose energy is within
               ``active_range_db`` (default 40 dB) of the loudest frame. A cheap stand-in for the ITU-T P.56
               active speech level; it makes the SNR a property of the speech itself. The default.

After mixing, if the peak exceeds 0.999 the whole mix (speech and noise together) is scaled down, which keeps
the SNR, and the gain is reported: nothing is silently clipped.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

SignalPower = Literal["whole", "active"]
FRAME_MS = 20.0
PEAK_LIMIT = 0.999


def active_mask(signal: np.ndarray, sample_rate: int, active_range_db: float = 40.0) -> np.ndarray:
    """Boolean per-sample mask of speech-active frames (all False for an all-zero signal)."""
    n = signal.shape[0]
    frame = max(1, round(sample_rate * FRAME_MS / 1000.0))
    squared = np.square(signal, dtype=np.float64)
    n_full = n // frame
    energy = squared[: n_full * frame].reshape(n_full, frame).mean(axis=1)
    if n_full * frame < n:
        energy = np.append(energy, squared[n_full * frame :].mean())
    loudest = energy.max()
    if loudest <= 0.0:
        return np.zeros(n, dtype=bool)
    frames = energy >= loudest * 10.0 ** (-active_range_db / 10.0)
    return np.repeat(frames, frame)[:n]


def signal_power(
    signal: np.ndarray, sample_rate: int, mode: SignalPower = "active", active_range_db: float = 40.0
) -> tuple[float, float]:
    """(mean power under ``mode``, fraction of samples it was measured over)."""
    x = signal.astype(np.float64, copy=False)
    if mode == "whole":
        return float(np.mean(x * x)), 1.0
    mask = active_mask(x, sample_rate, active_range_db)
    if not mask.any():
        return 0.0, 0.0
    active = x[mask]
    return float(np.mean(active * active)), float(mask.mean())


def _db(ratio: float) -> float | None:
    return 10.0 * math.log10(ratio) if ratio > 0.0 and math.isfinite(ratio) else None


def mix_at_snr(
    signal: np.ndarray,
    noise: np.ndarray,
    snr_db: float,
    sample_rate: int,
    mode: SignalPower = "active",
    active_range_db: float = 40.0,
) -> tuple[np.ndarray, dict[str, Any]]:
    """``signal + g * noise`` with g chosen so the SNR (module docstring) equals ``snr_db``; float32 out.

    Returns (mix, params). A silent signal (or silent noise) is returned unchanged with ``skipped`` set,
    never a NaN. ``snr_db_measured`` is measured on the float32 output, taking
    noise part = output - limiter gain * signal.
    """
    s = signal.astype(np.float64)
    p_signal, active_fraction = signal_power(s, sample_rate, mode, active_range_db)
    params: dict[str, Any] = {
        "snr_db_requested": float(snr_db),
        "signal_power": mode,
        "active_fraction": active_fraction,
    }
    if p_signal <= 0.0:
        return signal.astype(np.float32), {**params, "skipped": "silent input"}
    n = noise.astype(np.float64)
    p_noise = float(np.mean(n * n))
    if p_noise <= 0.0:
        return signal.astype(np.float32), {**params, "skipped": "silent noise"}

    gain = math.sqrt(p_signal / (p_noise * 10.0 ** (snr_db / 10.0)))
    mix = s + gain * n
    peak = float(np.max(np.abs(mix)))
    limiter = PEAK_LIMIT / peak if peak > PEAK_LIMIT else 1.0
    out = (mix * limiter if limiter != 1.0 else mix).astype(np.float32)

    # Measure what was actually delivered, float32 rounding included (the error is ~1e-6 dB).
    scaled_signal = limiter * s
    noise_out = out.astype(np.float64) - scaled_signal
    measured = _db(limiter * limiter * p_signal / float(np.mean(noise_out * noise_out)))
    params.update(
        snr_db_measured=measured,
        signal_level_db=_db(p_signal),
        noise_gain_db=20.0 * math.log10(gain) if gain > 0.0 else None,
        limited=limiter != 1.0,
        limiter_gain_db=20.0 * math.log10(limiter),
        peak=float(np.max(np.abs(out))),
    )
    return out, params
