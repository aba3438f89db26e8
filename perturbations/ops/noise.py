"""The ``noise`` op: background noise from a registered environment, mixed in at an exact SNR, optionally with
a level that drifts over the call.

SNR drift (``drift_db > 0``). Real backgrounds are not stationary over a call: a bus passes, the café fills
up, the caller walks to a quieter corner. The noise gain then follows ``10 ** (d(t) / 20)`` where ``d(t)`` (dB)
is a smooth random curve of ABSOLUTE call time ``t`` (``drift_curve_db``): a pure function of the call seed
(``ClipContext.call_seed``; drawn from the clip's rng when it is None) and ``t``, so consecutive turns of one
call see one continuous drift whatever order they are processed in. What the SNR numbers mean then:

- ``snr_db`` is the SNR at ``d = 0``: the level the noise has with drift off (same definition as
  ``perturbations.mixing``, same speech power of the clip). ``d(t) > 0`` means louder noise, so the
  instantaneous SNR is ``snr_db - d(t)``; ``snr_db_min``/``snr_db_max`` report its range over the clip.
- ``snr_db_clip`` is the clip's time-average SNR implied by the gain curve, ``P_speech / mean(noise_out**2)``,
  and ``snr_db_measured`` re-measures it on the float32 output (they agree to ~1e-6 dB): the exact figure.
- ``noise_gain_db`` is the gain at ``d = 0``; the gain at sample ``i`` is ``noise_gain_db + d(t_i)`` (then the
  limiter, if any, scales the whole mix and is reported as with drift off).

``drift_shape``: ``random`` (the default, above: a slow random walk between knots) or ``sine``: a volume envelope
``d(t) = drift_db * sin(2 pi t / drift_period_s + phase)``, the phase drawn from the call seed, for a regular
swell (a fan cycling, a caller pacing a room); same bounds, same reports.

With ``drift_db == 0`` (the default) the op behaves, draws and reports exactly as it did before drift existed,
and its spec (``to_dict``) has no drift fields, so existing configs keep their identity.
"""

from __future__ import annotations

import math
import zlib
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator
from pydantic.dataclasses import dataclass

from perturbations.audio import ClipContext, effect
from perturbations.environments import available_environments
from perturbations.environments.registry import generate_view, warm
from perturbations.mixing import mix_at_snr
from perturbations.registry import OP_CONFIG, Number, Op, register_op

DRIFT_TAG = 0xD21F7  # separates the drift's random stream from every other call-level stream
SINE_TAG = 0xD21F8  # the sine envelope's phase stream
_KNOTS_PER_DRAW = 64  # knot values are drawn in blocks: one Generator per 64 knots, not per knot


def drift_curve_db(
    seed: int, times_s: np.ndarray, drift_db: float, period_s: float, stream: int = 0, shape: str = "random"
) -> np.ndarray:
    """The drift d(t) in dB at absolute times ``times_s`` (float64 array): a pure function of its arguments.

    ``shape="sine"``: ``drift_db * sin(2 pi t / period_s + phase)``, the phase a pure function of (seed, stream).

    Value noise, hand-written because no library offers a seeded, random-access smooth curve: knots every
    ``period_s / 2`` seconds (so a rise and a fall take about ``period_s``) carry independent levels
    uniform in [-drift_db, drift_db], joined by the quintic smootherstep ``6u^5 - 15u^4 + 10u^3`` (C2-smooth,
    and it never leaves the range of its two knots, so |d| <= drift_db). Knot k's level depends only on
    (seed, stream, k), so any stretch of the curve can be computed without the rest.
    """
    times = np.asarray(times_s, dtype=np.float64)
    if drift_db == 0.0 or times.size == 0:
        return np.zeros(times.shape)
    if shape == "sine":
        phase = np.random.default_rng([seed, SINE_TAG, stream]).uniform(0.0, 2.0 * np.pi)
        return drift_db * np.sin(2.0 * np.pi * times / period_s + phase)
    spacing = period_s / 2.0
    position = times / spacing
    first = math.floor(position.min())
    last = math.floor(position.max()) + 1
    blocks = range(first // _KNOTS_PER_DRAW, last // _KNOTS_PER_DRAW + 1)
    levels = np.concatenate(
        [np.random.default_rng([seed, DRIFT_TAG, stream, b]).uniform(-1.0, 1.0, _KNOTS_PER_DRAW) for b in blocks]
    )
    base = blocks[0] * _KNOTS_PER_DRAW
    k = np.floor(position).astype(np.int64)
    u = position - k
    smooth = u * u * u * (u * (6.0 * u - 15.0) + 10.0)
    left = levels[k - base]
    right = levels[k + 1 - base]
    return drift_db * (left + (right - left) * smooth)


@register_op("noise")
@dataclass(config=OP_CONFIG)
class Noise(Op):
    """Add ``environment`` noise at ``snr_db``; see ``perturbations.mixing`` for the SNR definition and the
    module docstring for drift.

    Reports one effect over the whole clip with the requested and measured SNR, the noise seed (the noise is
    ``generate(environment, len(audio), sample_rate, np.random.default_rng(noise_seed))``) and any limiting;
    with drift also the drift seed and the realised drift and SNR ranges.
    """

    environment: str = "cafe"
    snr_db: Number = Field(default=15.0, ge=-5.0, le=40.0)  # 15 dB: EVA-Bench App. G default
    signal_power: Literal["active", "whole"] = "active"
    active_range_db: Number = Field(default=40.0, ge=10.0, le=80.0)
    drift_db: Number = Field(default=0.0, ge=0.0, le=20.0)  # 0 = off; |d(t)| <= drift_db
    drift_period_s: Number = Field(default=20.0, ge=1.0, le=600.0)
    drift_shape: Literal["random", "sine"] = "random"  # random walk between knots, or a sinusoidal envelope

    @field_validator("environment")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        if value not in available_environments():
            raise ValueError("unknown environment")
        return value

    @classmethod
    def expected(cls, field: str) -> str | None:
        if field == "environment":
            return "one of the available environments (" + ", ".join(available_environments()) + ")"
        return None

    def prepare(self, sample_rate: int) -> None:
        warm(self.environment, sample_rate)

    def to_dict(self) -> dict[str, Any]:
        spec = super().to_dict()
        if self.drift_db == 0.0:  # drift off: the spec (and any hash of it) is what it was before drift
            del spec["drift_db"], spec["drift_period_s"]
        if self.drift_shape == "random":  # the default shape: the spec is what it was before shapes existed
            spec.pop("drift_shape", None)
        return spec

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        return self.apply_in_context(audio, sample_rate, rng, ClipContext())

    def apply_in_context(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator, context: ClipContext
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        noise_seed = int(rng.integers(0, 2**53))  # JSON-safe integer
        drift: dict[str, Any] = {}
        gain_curve: np.ndarray | None = None
        if self.drift_db > 0.0:
            from_call = context.call_seed is not None
            drift_seed = context.call_seed if from_call else int(rng.integers(0, 2**53))
            times = context.offset_ms / 1000.0 + np.arange(audio.shape[0]) / sample_rate
            stream = zlib.crc32(self.environment.encode())  # two environments in one chain drift independently
            curve = drift_curve_db(drift_seed, times, self.drift_db, self.drift_period_s, stream, self.drift_shape)
            gain_curve = 10.0 ** (curve / 20.0)
            drift = {
                "drift_db": self.drift_db,
                "drift_period_s": self.drift_period_s,
                "drift_shape": self.drift_shape,
                "drift_seed": drift_seed,
                "drift_seed_from": "call" if from_call else "clip",
                "drift_db_start": float(curve[0]),
                "drift_db_end": float(curve[-1]),
                "drift_db_min": float(curve.min()),
                "drift_db_max": float(curve.max()),
                "drift_db_mean": float(curve.mean()),
                "snr_db_min": self.snr_db - float(curve.max()),
                "snr_db_max": self.snr_db - float(curve.min()),
            }
        info: dict[str, Any]
        reference = context.reference_power
        if reference is None and float(audio.min()) == 0.0 == float(audio.max()):  # all zeros (~2x np.any's speed)
            # Nothing to set a level against: leave silence silent rather than invent an absolute noise level.
            mixed = audio.copy()
            info = {
                "snr_db_requested": self.snr_db,
                "signal_power": self.signal_power,
                "skipped": "silent input",
            }
        else:
            noise = generate_view(self.environment, audio.shape[0], sample_rate, np.random.default_rng(noise_seed))
            if gain_curve is None:
                mixed, info = mix_at_snr(
                    audio, noise, self.snr_db, sample_rate, self.signal_power, self.active_range_db, reference
                )
            else:
                mixed, info = self._mix_drifting(audio, noise, gain_curve, sample_rate, reference)
        params = {"environment": self.environment, **info, **drift, "noise_seed": noise_seed}
        if self.signal_power == "active":
            params["active_range_db"] = self.active_range_db
        return mixed, [effect("noise", audio.shape[0], sample_rate, params)]

    def _mix_drifting(
        self,
        audio: np.ndarray,
        noise: np.ndarray,
        gain_curve: np.ndarray,
        sample_rate: int,
        reference_power: float | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Mix ``noise * gain_curve`` so that the gain at d = 0 is the one ``snr_db`` gives the stationary noise.

        mix_at_snr scales whatever noise it gets to an exact clip-average SNR; asking it for
        ``snr_db - 10 log10(P(noise * curve) / P(noise))`` makes that scale exactly the d = 0 gain, and keeps its
        limiter and measurement.
        """
        n = noise.astype(np.float64)
        shaped = n * gain_curve
        p_noise = float(np.mean(n * n))
        p_shaped = float(np.mean(shaped * shaped))
        clip_snr = self.snr_db
        if p_noise > 0.0 and p_shaped > 0.0:
            clip_snr = self.snr_db - 10.0 * math.log10(p_shaped / p_noise)
        mixed, info = mix_at_snr(
            audio, shaped, clip_snr, sample_rate, self.signal_power, self.active_range_db, reference_power
        )
        info["snr_db_requested"] = self.snr_db
        info["snr_db_clip"] = clip_snr  # noise_gain_db is then already the d = 0 gain (see above)
        return mixed, info
