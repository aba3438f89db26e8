"""The registry of noise environments: name -> ``generate(n_samples, sample_rate, rng) -> float32 array``.

Every generator is a pure function of its arguments (randomness only from ``rng``) and returns noise at about
-20 dBFS RMS; the level does not matter to the noise op, which rescales to the requested SNR.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from perturbations.audio import check_rng, check_sample_rate
from perturbations.errors import PerturbationError

NoiseGenerator = Callable[[int, int, np.random.Generator], np.ndarray]
TARGET_RMS = 0.1  # -20 dBFS

_ENVIRONMENTS: dict[str, NoiseGenerator] = {}


def register_environment(name: str) -> Callable[[NoiseGenerator], NoiseGenerator]:
    def decorate(fn: NoiseGenerator) -> NoiseGenerator:
        known = _ENVIRONMENTS.get(name)
        if known is not None and known.__qualname__ != fn.__qualname__:
            raise ValueError(f"noise environment {name!r} is already registered")
        _ENVIRONMENTS[name] = fn
        return fn

    return decorate


def available_environments() -> list[str]:
    return sorted(_ENVIRONMENTS)


def generate(environment: str, n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """``n_samples`` of the named environment's noise (float32, ~-20 dBFS RMS), a pure function of ``rng``."""
    if environment not in _ENVIRONMENTS:
        raise PerturbationError(
            f"unknown noise environment {environment!r}; available environments: " + ", ".join(available_environments())
        )
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 0:
        raise PerturbationError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    rate = check_sample_rate(sample_rate)
    if n_samples == 0:
        return np.zeros(0, dtype=np.float32)
    out = _ENVIRONMENTS[environment](int(n_samples), rate, check_rng(rng))
    return np.asarray(out, dtype=np.float32)


def normalise(x: np.ndarray, rms: float = TARGET_RMS) -> np.ndarray:
    """Scale to the given RMS (a silent array stays silent)."""
    level = float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if x.size else 0.0
    return x * (rms / level) if level > 0.0 else x


def looped(
    synthesize: NoiseGenerator, *, key: int, seconds: float, banks: int, crossfade_s: float = 0.25
) -> NoiseGenerator:
    """Turn a slow procedural synthesiser into a fast generator that reads from seamless loops.

    Bank ``i`` at a rate is ``synthesize(seconds, rate, default_rng([key, i]))`` with its end crossfaded into
    its start (so reading across the wrap has no seam), computed once per process and cached. A call draws a
    bank and a start offset from ``rng``, so the output is still a pure function of ``rng`` (and of
    constants); only the speed depends on whether the bank is cached yet.
    """

    @functools.lru_cache(maxsize=16)
    def bank(sample_rate: int, index: int) -> np.ndarray:
        length = max(1, round(seconds * sample_rate))
        fade = min(length, round(crossfade_s * sample_rate))
        x = synthesize(length + fade, sample_rate, np.random.default_rng([key, index])).astype(np.float64)
        # bank[-1] is followed by bank[0] when looping; x[length] is its natural successor, so start from the
        # continuation and fade (equal power: the two parts are uncorrelated) into the true start.
        theta = (np.arange(fade) + 0.5) / fade * (np.pi / 2)
        looped_x = x[:length].copy()
        looped_x[:fade] = x[length:] * np.cos(theta) + x[:fade] * np.sin(theta)
        out = normalise(looped_x).astype(np.float32)
        out.flags.writeable = False
        return out

    def generate_looped(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
        return read(n_samples, sample_rate, rng, copy=True)

    def read(n_samples: int, sample_rate: int, rng: np.random.Generator, copy: bool) -> np.ndarray:
        index = int(rng.integers(banks))
        source = bank(sample_rate, index)
        start = int(rng.integers(source.shape[0]))
        if start + n_samples <= source.shape[0]:
            piece = source[start : start + n_samples]
            return piece.copy() if copy else piece  # without a copy: a read-only view of the cached bank
        # across the wrap: the pieces only (tiling the whole bank to read one seam cost ~0.5 ms per call)
        pieces = [source[start:]]
        remaining = n_samples - pieces[0].shape[0]
        while remaining > 0:
            pieces.append(source[: min(remaining, source.shape[0])])
            remaining -= pieces[-1].shape[0]
        return np.concatenate(pieces)

    generate_looped.__qualname__ = f"looped({synthesize.__qualname__})"
    generate_looped.bank = bank  # type: ignore[attr-defined]  # exposed for benchmarks and cache warming
    generate_looped.banks = banks  # type: ignore[attr-defined]
    generate_looped.view = lambda n, rate, rng: read(n, rate, rng, copy=False)  # type: ignore[attr-defined]
    return generate_looped


def warm(environment: str, sample_rate: int) -> None:
    """Build every bank of a looped environment at ``sample_rate`` now (~2 s each, once per process), so that the
    first clips of a call do not pay for them; other environments need nothing."""
    generator = _ENVIRONMENTS.get(environment)
    bank = getattr(generator, "bank", None)
    for index in range(int(getattr(generator, "banks", 0))):
        bank(check_sample_rate(sample_rate), index)  # type: ignore[misc]


def generate_view(environment: str, n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """``generate`` for a caller that only reads the noise (the noise op): the same samples and draws, as a
    read-only view of a looped bank where the read does not wrap, so no copy is made; else ``generate``."""
    view = getattr(_ENVIRONMENTS.get(environment), "view", None)
    if view is None or isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples <= 0:
        return generate(environment, n_samples, sample_rate, rng)
    return view(n_samples, check_sample_rate(sample_rate), check_rng(rng))
