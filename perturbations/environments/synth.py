"""Small synthesis helpers shared by the procedural environments (airport, baby, music, static, ...).

Everything here is a pure function of its arguments (randomness only from a passed ``rng``), works in float64,
and clamps filter corners to below Nyquist so every environment renders at any sample rate (8 kHz phone audio
included). Filtering, convolution and resampling are scipy's; what is hand-written (additive/FM oscillators,
event placement, a noise-impulse-response reverb) is a few lines each and has no maintained library equivalent
that takes a seeded rng.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import signal as sps
from scipy.interpolate import CubicSpline

# Reused from the café: its multi-talker babble and single-talker formant synthesis are the speech-like parts
# of the airport and street scenes (private helpers of a sibling module, imported deliberately: one recipe).
from perturbations.environments.cafe import MAX_FREQ, _babble, _istft, _voice

SPEED_OF_SOUND = 343.0  # m/s


def top_hz(sample_rate: int) -> float:
    """Highest frequency any filter corner or oscillator may use at this rate."""
    return MAX_FREQ * sample_rate


def _corner(hz: float, sample_rate: int) -> float:
    return float(min(max(hz, 1.0), top_hz(sample_rate)))


def lowpass(x: np.ndarray, sample_rate: int, hz: float, order: int = 2) -> np.ndarray:
    sos = sps.butter(order, _corner(hz, sample_rate), "lowpass", fs=sample_rate, output="sos")
    return sps.sosfilt(sos, x)


def highpass(x: np.ndarray, sample_rate: int, hz: float, order: int = 2) -> np.ndarray:
    sos = sps.butter(order, _corner(hz, sample_rate), "highpass", fs=sample_rate, output="sos")
    return sps.sosfilt(sos, x)


def bandpass(x: np.ndarray, sample_rate: int, low_hz: float, high_hz: float, order: int = 2) -> np.ndarray:
    """Butterworth band-pass; a band pushed above Nyquist degrades to a high-pass near the top."""
    high = _corner(high_hz, sample_rate)
    low = min(_corner(low_hz, sample_rate), 0.7 * high)
    sos = sps.butter(order, [low, high], "bandpass", fs=sample_rate, output="sos")
    return sps.sosfilt(sos, x)


def resonator(x: np.ndarray, sample_rate: int, hz: float, q: float, gain: float = 1.0) -> np.ndarray:
    """``x`` plus ``gain`` x a 2-pole band-pass at ``hz`` (a loudspeaker/cabin/body resonance)."""
    if hz >= top_hz(sample_rate):
        return x
    b, a = sps.iirpeak(hz, q, fs=sample_rate)
    return x + gain * sps.lfilter(b, a, x)


def event_times(rng: np.random.Generator, rate_hz: float, duration_s: float, lead_s: float = 0.0) -> np.ndarray:
    """Sorted Poisson event times in [-lead_s, duration_s): a lead lets events that started before the
    excerpt ring into it (a scene is joined mid-way, not started)."""
    span = duration_s + lead_s
    count = rng.poisson(rate_hz * span)
    return np.sort(rng.uniform(-lead_s, duration_s, count))


def add_at(out: np.ndarray, event: np.ndarray, start: int) -> None:
    """``out[start:start+len(event)] += event`` clipped to ``out``'s bounds (start may be negative)."""
    begin, end = max(start, 0), min(start + event.shape[0], out.shape[0])
    if end > begin:
        out[begin:end] += event[begin - start : end - start]


def fades(n: int, sample_rate: int, attack_s: float, release_s: float) -> np.ndarray:
    """Linear attack/release envelope of length ``n`` (no clicks at event edges)."""
    env = np.ones(n)
    a = min(n, max(1, round(attack_s * sample_rate)))
    r = min(n, max(1, round(release_s * sample_rate)))
    env[:a] *= np.linspace(0.0, 1.0, a, endpoint=False)
    env[n - r :] *= np.linspace(1.0, 0.0, r)
    return env


def decay(n: int, sample_rate: int, tau_s: float) -> np.ndarray:
    return np.exp(-np.arange(n) / (tau_s * sample_rate))


def harmonic_tone(f0: np.ndarray, sample_rate: int, amplitudes: Sequence[float], phase: float = 0.0) -> np.ndarray:
    """Additive synthesis: sum_k a_k sin(k phi(t)) with phi the integral of the per-sample ``f0`` (Hz), so
    glides, vibrato and Doppler shifts stay phase-continuous. Each harmonic fades out as it nears Nyquist
    (no aliasing, whatever the contour)."""
    phi = phase + 2.0 * np.pi * np.cumsum(f0) / sample_rate
    limit = top_hz(sample_rate)
    out = np.zeros(f0.shape[0])
    for k, a in enumerate(amplitudes, start=1):
        if a == 0.0:
            continue
        fk = k * f0
        if fk.min() >= limit:
            break
        alias_guard = np.clip((limit - fk) / (0.1 * limit), 0.0, 1.0)
        out += a * alias_guard * np.sin(k * phi)
    return out


def fm_tone(freq: float, n: int, sample_rate: int, ratio: float, index: np.ndarray, phase: float = 0.0) -> np.ndarray:
    """Two-operator FM (Chowning 1973): sin(2 pi f t + index(t) sin(2 pi ratio f t)); a decaying index gives
    the bright-attack/mellow-tail of electric pianos and bells."""
    t = np.arange(n) / sample_rate
    return np.sin(2.0 * np.pi * freq * t + phase + index * np.sin(2.0 * np.pi * ratio * freq * t))


def smooth_walk(rng: np.random.Generator, n: int, sample_rate: int, knot_s: float) -> np.ndarray:
    """A smooth random curve in about [-1, 1]: uniform knots every ``knot_s`` seconds, cubic-interpolated."""
    knots = max(4, int(np.ceil(n / (knot_s * sample_rate))) + 3)
    values = rng.uniform(-1.0, 1.0, knots)
    x = np.arange(knots) * knot_s * sample_rate
    return np.clip(CubicSpline(x, values)(np.arange(n) + knot_s * sample_rate), -1.0, 1.0)


def reverb(x: np.ndarray, sample_rate: int, rng: np.random.Generator, rt60_s: float, wet: float) -> np.ndarray:
    """``x`` + ``wet`` x (x convolved with exponentially decaying Gaussian noise, -60 dB at ``rt60_s``): a
    cheap diffuse tail, the same recipe as the café room at any size (scipy's overlap-add convolution)."""
    t = np.arange(max(int(rt60_s * sample_rate), 1)) / sample_rate
    response = rng.standard_normal(t.shape[0]) * np.exp(-6.9078 * t / rt60_s)
    response /= np.sqrt(np.sum(response * response))
    return x + wet * sps.oaconvolve(x, response)[: x.shape[0]]


def soft_clip(x: np.ndarray, drive: float) -> np.ndarray:
    """tanh saturation normalised to unit small-signal gain: an overdriven small loudspeaker/amplifier."""
    return np.tanh(drive * x) / drive


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def at_rms(x: np.ndarray, level: float) -> np.ndarray:
    """Scale to RMS ``level`` (silence stays silence)."""
    r = rms(x)
    return x * (level / r) if r > 0.0 else x


def babble(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """The café's 6-10 talker babble (unit RMS)."""
    return _babble(n, sample_rate, rng)


def talker(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """One formant-synthesised talker (the café's talker model), unit RMS; float64."""
    return at_rms(_istft(_voice(n, sample_rate, rng), n).astype(np.float64), 1.0)


def midi_hz(note: float | np.ndarray) -> float | np.ndarray:
    """Equal temperament, A4 = 440 Hz."""
    return 440.0 * 2.0 ** ((np.asarray(note, dtype=np.float64) - 69.0) / 12.0)
