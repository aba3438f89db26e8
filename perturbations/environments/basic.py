"""Stationary coloured noises: "white" and "pink" (reference conditions and test fixtures).

Hand-written FFT shaping: audiomentations' AddColorNoise draws from numpy's global RNG and has no seed, and
the ``colorednoise`` package is not a dependency; the recipe is five lines.
"""

from __future__ import annotations

import numpy as np
from scipy import fft

from perturbations.environments.registry import looped, normalise, register_environment


def colored_noise(
    n_samples: int, sample_rate: int, rng: np.random.Generator, exponent: float, min_hz: float = 20.0
) -> np.ndarray:
    """Gaussian noise with power spectral density ~ 1/f**exponent (0 white, 1 pink, 2 brown), flat below
    ``min_hz`` so pink/brown are not dominated by inaudible drift. float64, unit-ish scale."""
    size = fft.next_fast_len(max(n_samples, 2), real=True)
    spectrum = fft.rfft(rng.standard_normal(size))
    freqs = np.maximum(np.fft.rfftfreq(size, 1.0 / sample_rate), min_hz)
    spectrum *= freqs ** (-exponent / 2.0)
    spectrum[0] = 0.0
    return fft.irfft(spectrum, size)[:n_samples]


@register_environment("white")
def white(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    # float32 draws: half the cost of float64 ones, and the noise op rescales the level anyway.
    return normalise(rng.standard_normal(n_samples, dtype=np.float32)).astype(np.float32)


def synthesize_pink(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    return normalise(colored_noise(n_samples, sample_rate, rng, exponent=1.0)).astype(np.float32)


# An FFT per call runs at ~500x real time; reading from four seamless 20 s loops is >5x faster (see cafe.py).
pink = register_environment("pink")(looped(synthesize_pink, key=0x9152, seconds=20.0, banks=4))
