"""Input checks and the effect-timeline entry every op reports.

Checks run once per chain call, so ops can assume a finite, non-empty, 1-D float32 array and a positive
int rate.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from perturbations.errors import PerturbationError


def check_sample_rate(sample_rate: Any) -> int:
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Integral) or sample_rate <= 0:
        raise PerturbationError(f"sample_rate must be a positive integer (Hz), got {sample_rate!r}")
    return int(sample_rate)


def check_audio(audio: Any, sample_rate: Any) -> tuple[np.ndarray, int]:
    """A float32 copy of ``audio`` and the rate as int, or PerturbationError saying what is wrong."""
    rate = check_sample_rate(sample_rate)
    if not isinstance(audio, np.ndarray):
        raise PerturbationError(f"audio must be a numpy array, got {type(audio).__name__}")
    if audio.ndim != 1:
        raise PerturbationError(f"audio must be 1-D (mono samples), got shape {audio.shape}")
    if audio.dtype.kind != "f":  # numpy's floating kinds (float16..longdouble); ~20x cheaper than issubdtype
        raise PerturbationError(
            f"audio must be a float array with samples in [-1, 1], got dtype {audio.dtype} "
            "(convert integer PCM first, e.g. pcm16 / 32768)"
        )
    if audio.size == 0:
        raise PerturbationError("audio is empty (0 samples)")
    out = audio.astype(np.float32)  # always a copy: ops and callers never share buffers
    # min and max propagate NaN and are +-inf when any sample is: two fast reductions, no boolean temporary
    if not (math.isfinite(float(out.min())) and math.isfinite(float(out.max()))):
        raise PerturbationError("audio contains NaN or infinite samples")
    return out, rate


def check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise PerturbationError(
            f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(seed)), got {type(rng).__name__}"
        )
    return rng


_ATOMS = frozenset((int, float, str, bool, type(None)))


def plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so applied params serialise to JSON as-is. Exact types first: most values
    already are plain (a numpy float64 is a float subclass, so it is caught by type, not isinstance)."""
    if type(value) in _ATOMS:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def effect(
    type_: str,
    n_samples: int,
    sample_rate: int,
    params: dict[str, Any],
    start: int = 0,
    end: int | None = None,
) -> dict[str, Any]:
    """One effect-timeline entry; start/end are sample indices into the op's input, reported in ms."""
    stop = n_samples if end is None else end
    return {
        "type": type_,
        "start_ms": 1000.0 * start / sample_rate,
        "end_ms": 1000.0 * stop / sample_rate,
        "params": plain(params),
    }


@dataclass(frozen=True)
class ClipContext:
    """Where a clip sits in its conversation, for ops whose effect spans the call (e.g. SNR drift).

    ``offset_ms``: start of this clip on the conversation's timeline. ``call_seed``: an integer that is the
    same for every clip of one conversation (and differs between conversations), so a call-level process can be
    a pure function of (call_seed, absolute time) and stay continuous from one clip to the next; ``None`` means
    "no call": such ops then draw their call-level process from the clip's rng. ``participant``: whose speech
    this is ("user" or "assistant"). A plain ``Chain(audio, rate, rng)`` call uses ``ClipContext()``.

    ``reference_power``: the mean power (re digital full scale) of the speech this clip stands beside, for a clip
    that holds no speech of its own: the stretch of an open line between the caller's utterances. Ops that set a
    level against the signal (the noise beds) use it when the clip is silent, so the ambient bed goes on between
    utterances at the level the condition gives it under speech; ``None``: silence stays silent.
    """

    offset_ms: float = 0.0
    call_seed: int | None = None
    participant: str = "user"
    reference_power: float | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.offset_ms, int | float) and np.isfinite(self.offset_ms) and self.offset_ms >= 0):
            raise PerturbationError(f"ClipContext.offset_ms must be a finite number >= 0, got {self.offset_ms!r}")
        if self.call_seed is not None and (
            isinstance(self.call_seed, bool) or not isinstance(self.call_seed, int) or self.call_seed < 0
        ):
            raise PerturbationError(f"ClipContext.call_seed must be a non-negative int or None, got {self.call_seed!r}")
        power = self.reference_power
        if power is not None and not (isinstance(power, int | float) and math.isfinite(power) and power > 0):
            raise PerturbationError(f"ClipContext.reference_power must be a finite number > 0, got {power!r}")


NO_CONTEXT = ClipContext()
