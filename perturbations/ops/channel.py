"""Channel ops: ``volume_fluctuation``, ``band_limit``, ``resample``, ``clipping`` and ``reverb``.

EVA-Bench App. G's connection degradation ends with "volume fluctuation" (no range given); the others model the
rest of a phone path (telephone band, narrow-band resampling, overdriven input, a reverberant room). All draw
randomness only from the op's ``rng``: audiomentations is not used because its transforms draw from the global
``random``/``np.random`` state (its issues #288, #362). Filters and resampling are scipy; the gain curve and the
synthetic room impulse response are hand-written (a few lines of numpy). pyroomacoustics (MIT) would give
image-source RIRs, but it is not installed, it is parameterised by room geometry and absorption rather than the
RT60 / direct-to-reverberant ratio a robustness sweep wants, and a statistical RIR (exponentially decaying noise)
is the standard stand-in for a diffuse tail, so it is not worth a compiled dependency.

Headroom: an op that can raise the peak (filter overshoot, reverb) scales the whole clip down to 0.999 when
needed and reports ``limiter_gain_db``; nothing is clipped except by the ``clipping`` op, which reports it.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Literal

import numpy as np
import soxr
from pydantic import Field, model_validator
from pydantic.dataclasses import dataclass
from scipy import signal as sps

from perturbations.audio import effect
from perturbations.errors import PerturbationError
from perturbations.registry import OP_CONFIG, Number, Op, register_op

PEAK_LIMIT = 0.999


def limit_peak(x: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """Scale ``x`` down to PEAK_LIMIT if it exceeds it (never clip); float32 out and the report."""
    peak = float(np.max(np.abs(x)))
    gain = PEAK_LIMIT / peak if peak > PEAK_LIMIT else 1.0
    out = (x * gain if gain != 1.0 else x).astype(np.float32)
    return out, {"limited": gain != 1.0, "limiter_gain_db": 20.0 * math.log10(gain)}


def resample(x: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Band-limited resampling with libsoxr (``soxr``, already installed with librosa; LGPL, not GPL), "HQ"
    quality: linear phase with its delay removed, so the output stays aligned. ~3x faster than
    ``scipy.signal.resample_poly`` for 22.05 <-> 8 kHz, the step that dominates a telephone-codec chain."""
    if from_rate == to_rate:
        return x
    return soxr.resample(x, from_rate, to_rate, quality="HQ")


# ---- volume fluctuation ------------------------------------------------------------------------------------

CONTROL_RATE = 200.0  # Hz: gain curve control points; fluctuations are <= 10 Hz, so this is smooth after interp
N_PARTIALS = 4


def gain_curve_db(n: int, sample_rate: int, depth_db: float, rate_hz: float, rng: np.random.Generator) -> np.ndarray:
    """A smooth random gain curve in dB spanning [-depth, 0] over the clip, at control points every
    ``control_step(sample_rate)`` samples from sample 0 (the last point may lie past the clip end; depth is scaled
    down for clips shorter than one nominal period 1/rate_hz, so a 50 ms clip does not get a full swing).

    Sum of N_PARTIALS random-phase sinusoids at rate_hz·2^U(-1, 1) (about two octaves around rate_hz), min-max
    normalised over the points inside the clip, the point past the end clamped into that range (so the linear
    interpolation in ``gain_per_sample`` never leaves it). Attenuation-only, so it never adds peak."""
    step = control_step(sample_rate)
    n_ctrl = max(2, -(-(n - 1) // step) + 1)
    t_ctrl = np.arange(n_ctrl) * step / sample_rate
    freqs = rate_hz * 2.0 ** rng.uniform(-1.0, 1.0, N_PARTIALS)
    phases = rng.uniform(0.0, 2.0 * np.pi, N_PARTIALS)
    phase = (2.0 * np.pi * freqs)[:, None] * t_ctrl[None, :]
    phase += phases[:, None]
    curve = np.sin(phase, out=phase).sum(axis=0)
    inside = curve[: (n - 1) // step + 1]
    lo, hi = float(inside.min()), float(inside.max())
    if hi - lo <= 0.0:
        return np.zeros(n_ctrl)
    depth = depth_db * min(1.0, n / sample_rate * rate_hz)
    return -depth * (hi - np.clip(curve, lo, hi)) / (hi - lo)


def control_step(sample_rate: int) -> int:
    return max(1, round(sample_rate / CONTROL_RATE))


def gain_per_sample(g_db_ctrl: np.ndarray, n: int, sample_rate: int) -> np.ndarray:
    """float32 linear gain per sample, linearly interpolated between the control points. Interpolating the
    linear gain (not dB) costs one exp per control point instead of per sample (between points 5 ms apart the two
    differ by far less than 0.01 dB); the uniform spacing makes the interpolation one broadcast, ~10x cheaper
    than ``np.interp``. Hand-written for that speed."""
    step = control_step(sample_rate)
    g = (10.0 ** (g_db_ctrl / 20.0)).astype(np.float32)
    frac = np.arange(step, dtype=np.float32) / np.float32(step)
    ramps = np.multiply.outer(g[1:] - g[:-1], frac)  # ~1.5x faster than broadcasting into a preallocated view
    ramps += g[:-1, None]
    flat = ramps.ravel()
    if flat.shape[0] >= n:
        return flat[:n]
    return np.append(flat, g[-1])[:n]  # the clip's last sample is the last control point


def gain_range(gain: np.ndarray, step: int) -> tuple[float, float]:
    """(min, max) of a ``gain_per_sample`` curve from its ramp ends only: each ramp a + (b - a)·f is computed with
    rounding, which is monotone in f, so its extremes are its first and last samples (exact, ~n/step reads)."""
    ends = np.concatenate((gain[::step], gain[step - 1 :: step], gain[-1:]))
    return float(ends.min()), float(ends.max())


@register_op("volume_fluctuation")
@dataclass(config=OP_CONFIG)
class VolumeFluctuation(Op):
    """Slow random level changes of a VoIP call (AGC pumping, a phone moving away from the mouth).

    ``depth_db``: peak-to-peak range of the gain in dB (the curve spans [-depth_db, 0] dB on clips at least
    1/rate_hz long); ``rate_hz``: typical fluctuation rate. Reports the realised min/max gain in dB."""

    depth_db: Number = Field(default=6.0, ge=0.0, le=40.0)
    rate_hz: Number = Field(default=0.5, gt=0.0, le=10.0)

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        gain = gain_per_sample(
            gain_curve_db(audio.shape[0], sample_rate, self.depth_db, self.rate_hz, rng), audio.shape[0], sample_rate
        )
        lowest, highest = (20.0 * math.log10(v) for v in gain_range(gain, control_step(sample_rate)))
        out = np.multiply(audio, gain, out=gain)  # the gain curve is ours: reuse its buffer
        params = {
            "depth_db": self.depth_db,
            "rate_hz": self.rate_hz,
            "gain_db_min": lowest,
            "gain_db_max": highest,
            "realised_depth_db": highest - lowest,
        }
        return out, [effect("volume_fluctuation", audio.shape[0], sample_rate, params)]


# ---- band limit --------------------------------------------------------------------------------------------


@register_op("band_limit")
@dataclass(config=OP_CONFIG)
class BandLimit(Op):
    """Telephone band: a causal Butterworth band-pass (``sosfilt``, like the analogue line it models; its group
    delay is about a millisecond in-band). ``order`` is per band edge. A high edge at or above Nyquist is dropped
    (low_hz = 0 also gives a plain low-pass) and the applied edges are reported. A low edge at or above Nyquist
    leaves no band at all: that is a bad spec, refused by ``check_rate`` (a harness calls it with the lowest
    rate it will run at, before any audio; ``apply`` checks the clip's own rate)."""

    draws: ClassVar[bool] = False

    low_hz: Number = Field(default=300.0, ge=0.0, le=20000.0)
    high_hz: Number = Field(default=3400.0, gt=0.0, le=24000.0)
    order: int = Field(default=4, ge=1, le=12)

    @model_validator(mode="after")
    def _ordered(self) -> BandLimit:
        if self.low_hz >= self.high_hz:
            raise ValueError("low_hz must be below high_hz")
        return self

    def check_rate(self, sample_rate: int) -> None:
        """PerturbationError when the band's low edge is at or above the Nyquist frequency of ``sample_rate``."""
        if self.low_hz >= sample_rate / 2.0:
            raise PerturbationError(
                f"perturb band_limit: low_hz {self.low_hz:g} is at or above the Nyquist frequency "
                f"({sample_rate / 2.0:g} Hz) of {sample_rate} Hz audio: no band is left"
            )

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        self.check_rate(sample_rate)
        nyquist = sample_rate / 2.0
        low = self.low_hz if 0.0 < self.low_hz < nyquist else None
        high = self.high_hz if self.high_hz < nyquist else None
        params: dict[str, Any] = {"low_hz": low, "high_hz": high, "order": self.order}
        if low is None and high is None:
            out, report = audio.copy(), {"skipped": "both edges outside (0, Nyquist)"}
        else:
            if low is not None and high is not None:
                sos = sps.butter(self.order, [low, high], btype="bandpass", fs=sample_rate, output="sos")
            elif high is not None:
                sos = sps.butter(self.order, high, btype="lowpass", fs=sample_rate, output="sos")
            else:
                sos = sps.butter(self.order, low, btype="highpass", fs=sample_rate, output="sos")
            out, report = limit_peak(sps.sosfilt(sos, audio.astype(np.float64)))
        return out, [effect("band_limit", audio.shape[0], sample_rate, {**params, **report})]


# ---- resample ----------------------------------------------------------------------------------------------


@register_op("resample")
@dataclass(config=OP_CONFIG)
class Resample(Op):
    """Down to ``target_rate`` and back with ``resample_poly`` (polyphase, zero-phase, so aligned): removes
    everything above target_rate/2 as a narrow-band leg of a call does. A target at or above the clip's rate is
    an identity (reported as skipped)."""

    draws: ClassVar[bool] = False

    target_rate: int = Field(default=8000, ge=1000, le=96000)

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        params: dict[str, Any] = {"target_rate": self.target_rate}
        if self.target_rate >= sample_rate:
            return audio.copy(), [effect("resample", audio.shape[0], sample_rate, {**params, "skipped": True})]
        down = resample(audio, sample_rate, self.target_rate)
        back = resample(down, self.target_rate, sample_rate)
        n = audio.shape[0]
        back = back[:n] if back.shape[0] >= n else np.concatenate([back, np.zeros(n - back.shape[0])])
        out, report = limit_peak(back)
        return out, [effect("resample", n, sample_rate, {**params, "skipped": False, **report})]


# ---- clipping ----------------------------------------------------------------------------------------------


@register_op("clipping")
@dataclass(config=OP_CONFIG)
class Clipping(Op):
    """Hard clipping (an overdriven microphone preamp or ADC). ``mode`` full_scale: clip at ``threshold`` × full
    scale (0 < threshold <= 1); percentile: clip at the ``threshold``-th percentile of |x| (0 < threshold <= 100),
    so the same share of samples clips whatever the level. Reports the level and the fraction clipped."""

    draws: ClassVar[bool] = False

    threshold: Number = Field(default=0.5, gt=0.0, le=100.0)
    mode: Literal["full_scale", "percentile"] = "full_scale"

    @model_validator(mode="after")
    def _threshold_fits_mode(self) -> Clipping:
        if self.mode == "full_scale" and self.threshold > 1.0:
            raise ValueError("threshold must be a fraction of full scale in (0, 1] for mode full_scale")
        return self

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        magnitude = np.abs(audio)
        percentile = self.mode == "percentile"
        level = float(np.percentile(magnitude, self.threshold)) if percentile else float(self.threshold)
        clipped = int(np.count_nonzero(magnitude > level))
        out = np.clip(audio, -level, level).astype(np.float32)
        params = {
            "mode": self.mode,
            "threshold": self.threshold,
            "clip_level": level,
            "clipped_samples": clipped,
            "fraction_clipped": clipped / audio.shape[0],
        }
        return out, [effect("clipping", audio.shape[0], sample_rate, params)]


# ---- reverb ------------------------------------------------------------------------------------------------


def synthetic_rir(
    sample_rate: int, rt60_s: float, drr_db: float, rng: np.random.Generator, predelay_ms: float = 2.0
) -> np.ndarray:
    """Direct path (unit impulse at 0) + a diffuse tail of Gaussian noise decaying 60 dB over ``rt60_s``,
    starting ``predelay_ms`` later, scaled so 10·log10(E_direct / E_tail) = ``drr_db``."""
    length = max(2, round(rt60_s * sample_rate))
    t = np.arange(length) / sample_rate
    tail = rng.standard_normal(length) * np.exp(-3.0 * math.log(10.0) * t / rt60_s)  # amplitude: -60 dB at rt60
    tail[: max(1, round(predelay_ms * sample_rate / 1000.0))] = 0.0
    energy = float(np.sum(tail * tail))
    h = np.zeros(length)
    if energy > 0.0:
        h = tail * math.sqrt(10.0 ** (-drr_db / 10.0) / energy)
    h[0] = 1.0
    return h


def schroeder_rt60(h: np.ndarray, sample_rate: int) -> float | None:
    """RT60 of an impulse response from its Schroeder decay curve (T20: the -5..-25 dB fit, ×3), for reporting
    the realised reverberation time."""
    tail = h[1:] ** 2
    edc = np.cumsum(tail[::-1])[::-1]
    if edc[0] <= 0.0:
        return None
    edc_db = 10.0 * np.log10(np.maximum(edc / edc[0], 1e-30))
    idx = np.flatnonzero((edc_db <= -5.0) & (edc_db >= -25.0))
    if idx.size < 2:
        return None
    slope, _ = np.polyfit(idx / sample_rate, edc_db[idx], 1)
    return float(-60.0 / slope) if slope < 0 else None


@register_op("reverb")
@dataclass(config=OP_CONFIG)
class Reverb(Op):
    """Room reverberation by convolution (``fftconvolve``) with a synthetic RIR (``synthetic_rir``). The direct
    path is at lag 0 with unit gain, so the output stays aligned with the input and the same length (the tail
    past the clip end is cut, as the next clip starts fresh). Reports requested and realised RT60 and DRR."""

    rt60_s: Number = Field(default=0.4, ge=0.05, le=3.0)
    drr_db: Number = Field(default=3.0, ge=-20.0, le=30.0)

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        h = synthetic_rir(sample_rate, self.rt60_s, self.drr_db, rng)
        n = audio.shape[0]
        wet = sps.fftconvolve(audio.astype(np.float64), h)[:n]
        out, report = limit_peak(wet)
        tail_energy = float(np.sum(h[1:] ** 2))
        params = {
            "rt60_s": self.rt60_s,
            "drr_db": self.drr_db,
            "rt60_s_realised": schroeder_rt60(h, sample_rate),
            "drr_db_realised": 10.0 * math.log10(1.0 / tail_energy) if tail_energy > 0.0 else None,
            "rir_samples": int(h.shape[0]),
            **report,
        }
        return out, [effect("reverb", n, sample_rate, params)]
