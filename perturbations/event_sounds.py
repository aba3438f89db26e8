"""Procedural burst sounds for the ``events`` op (and the cough tic of ``out_of_turn_speech``): nothing is
downloaded, every sound is a pure function of (sample_rate, rng).

A synthesiser returns a float64 array that ``synthesize_event`` trims (trailing samples below -60 dB of the
peak are dropped, so the reported event span is where the sound is) and peak-normalises to 1. Levels do not
matter here: the op sets each event's level from its SNR. Every frequency is kept below 0.45 x the sample rate,
so the recipes work from 8 kHz up. Recipes (all ranges uniform draws from the rng):

- ``horn``: a car horn, the classic two-note chord: two sawtooths at f and 1.26 f
  (f = 350-450 Hz, a major third, as in dual-note horns), 0.25-1 s with 15 ms attack and 40 ms release, 30% of
  the time a second honk after 0.1-0.2 s; band-passed 300-3500 Hz (the horn's diaphragm and trumpet).
- ``door_slam``: an impact = a damped low "thump" (50-110 Hz sine, decay 40-100 ms) plus a noise crack
  (decay 8-30 ms, low-passed at 2-5 kHz); 40% of the time a rattle (a second impact 60-150 ms later at -10 dB);
  then a room reverb (exponentially decaying noise impulse response, RT60 0.3-0.6 s).
- ``dog_bark``: 1-3 barks of 80-200 ms, 120-350 ms apart; each a sawtooth at F0 350-700 Hz falling ~30% over
  the bark plus 30% noise (barks are harsh), fast attack and exponential decay, band-passed 500-3000 Hz.
- ``dish_crash``: 12-30 clinks with onsets exponentially spread over the first 30-150 ms, each striking the
  crockery's 8-14 inharmonic modes (1.5-8 kHz, decays 10-80 ms: damped sinusoids, as the café's cutlery) with
  random amplitudes, on a high-passed (1 kHz) noise crash that decays in 60-150 ms; then the room reverb.
- ``phone_ring``: an electromechanical bell: partials at f x (1, 2.76, 5.40) (f = 900-1400 Hz, a struck
  bell's inharmonic ratios) trilled on/off at 18-25 Hz for 0.8-1.6 s.
- ``siren``: an emergency-vehicle siren passing at a distance: a sawtooth whose pitch sweeps between f and 1.6 f
  (f = 550-750 Hz) either as a "wail" (a slow sinusoidal sweep, 1.5-4 s per cycle) or a "hi-lo" (two tones
  alternating every 0.4-0.7 s), 30% each of the time "yelp" (fast sweep, 5-8 per second) instead; 1.2-2 s long,
  a 0.3 s rise and fall in level (the vehicle passes), band-passed 400-3500 Hz (the horn speaker), and a small
  Doppler-like glide: the pitch falls 3-6% over the sound.
- ``cough``: 1-2 coughs: a noise burst (5 ms attack, decay 60-150 ms) band-passed 300-3000 Hz with a weak
  voiced part (sawtooth at 100-250 Hz, -8 dB) 30-80 ms in.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import signal as sps

from perturbations.audio import check_rng, check_sample_rate
from perturbations.errors import PerturbationError

EventSynth = Callable[[int, np.random.Generator], np.ndarray]
MAX_EVENT_S = 2.0  # longest sound any recipe makes (the events op looks back this far for events in progress)
TRIM_DB = -60.0
MAX_FREQ = 0.45

_SOUNDS: dict[str, EventSynth] = {}


def register_event_sound(name: str) -> Callable[[EventSynth], EventSynth]:
    def decorate(fn: EventSynth) -> EventSynth:
        known = _SOUNDS.get(name)
        if known is not None and known.__qualname__ != fn.__qualname__:
            raise ValueError(f"event sound {name!r} is already registered")
        _SOUNDS[name] = fn
        return fn

    return decorate


def available_event_sounds() -> list[str]:
    return sorted(_SOUNDS)


def synthesize_event(name: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """One ``name`` sound: float64, peak 1 (or all zeros), trimmed at -60 dB, at most MAX_EVENT_S long."""
    if name not in _SOUNDS:
        raise PerturbationError(f"unknown event sound {name!r}; available: {', '.join(available_event_sounds())}")
    rate = check_sample_rate(sample_rate)
    x = np.asarray(_SOUNDS[name](rate, check_rng(rng)), dtype=np.float64)[: max(1, int(MAX_EVENT_S * rate))]
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    if not (peak > 0.0 and np.isfinite(peak)):
        return np.zeros(1)
    loud = np.flatnonzero(np.abs(x) >= peak * 10.0 ** (TRIM_DB / 20.0))
    return x[: loud[-1] + 1] / peak


def _time(seconds: float, sample_rate: int) -> np.ndarray:
    return np.arange(max(1, round(seconds * sample_rate))) / sample_rate


def _saw(freq: np.ndarray | float, t: np.ndarray, sample_rate: int) -> np.ndarray:
    """Naive sawtooth (``freq`` may vary per sample). Its aliases above ~4 kHz sit under each recipe's band-pass
    and in a noisy scene: not worth band-limiting (an additive version was 5x slower), as in the café babble."""
    f = np.broadcast_to(np.asarray(freq, dtype=np.float64), t.shape)
    cycles = np.cumsum(f) / sample_rate
    return 2.0 * (cycles % 1.0) - 1.0


def _band(x: np.ndarray, low: float, high: float, sample_rate: int, order: int = 2) -> np.ndarray:
    top = MAX_FREQ * sample_rate
    high = min(high, top)
    low = min(low, 0.5 * high)
    return sps.sosfilt(sps.butter(order, [low, high], "bandpass", fs=sample_rate, output="sos"), x)


def _room(x: np.ndarray, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Dry sound + a diffuse tail: noise impulse response decaying 60 dB in RT60 = 0.3-0.6 s."""
    rt60 = rng.uniform(0.3, 0.6)
    t = _time(rt60, sample_rate)
    response = rng.standard_normal(t.shape[0]) * np.exp(-6.9078 * t / rt60)
    response /= np.sqrt(np.sum(response * response))
    wet = rng.uniform(0.2, 0.5) * sps.oaconvolve(x, response)
    wet[: x.shape[0]] += x
    return wet


def _envelope(n: int, attack: int, release: int) -> np.ndarray:
    env = np.ones(n)
    a, r = min(attack, n), min(release, n)
    env[:a] = np.linspace(0.0, 1.0, a, endpoint=False)
    if r:
        env[n - r :] *= np.linspace(1.0, 0.0, r)
    return env


@register_event_sound("horn")
def horn(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    f = rng.uniform(350.0, 450.0)
    honks = 2 if rng.random() < 0.3 else 1
    parts: list[np.ndarray] = []
    for i in range(honks):
        t = _time(rng.uniform(0.25, 1.0) / (1.5 if honks == 2 else 1.0), sample_rate)
        tone = _saw(f, t, sample_rate) + _saw(1.26 * f, t, sample_rate)
        parts.append(tone * _envelope(t.shape[0], int(0.015 * sample_rate), int(0.04 * sample_rate)))
        if i + 1 < honks:
            parts.append(np.zeros(round(rng.uniform(0.1, 0.2) * sample_rate)))
    return _band(np.concatenate(parts), 300.0, 3500.0, sample_rate)


def _impact(sample_rate: int, rng: np.random.Generator, length_s: float) -> np.ndarray:
    t = _time(length_s, sample_rate)
    thump = np.sin(2.0 * np.pi * rng.uniform(50.0, 110.0) * t) * np.exp(-t / rng.uniform(0.04, 0.1))
    crack = rng.standard_normal(t.shape[0]) * np.exp(-t / rng.uniform(0.008, 0.03))
    cutoff = min(rng.uniform(2000.0, 5000.0), MAX_FREQ * sample_rate)
    crack = sps.sosfilt(sps.butter(2, cutoff, fs=sample_rate, output="sos"), crack)
    return thump + 0.7 * crack


@register_event_sound("door_slam")
def door_slam(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    x = _impact(sample_rate, rng, 0.6)
    if rng.random() < 0.4:
        delay = round(rng.uniform(0.06, 0.15) * sample_rate)
        rattle = 10.0 ** (-10.0 / 20.0) * _impact(sample_rate, rng, 0.6)
        x = np.concatenate([x, np.zeros(delay)])
        x[delay:] += rattle[: x.shape[0] - delay]
    return _room(x, sample_rate, rng)


@register_event_sound("dog_bark")
def dog_bark(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    parts: list[np.ndarray] = []
    for i in range(int(rng.integers(1, 4))):
        t = _time(rng.uniform(0.08, 0.2), sample_rate)
        f0 = rng.uniform(350.0, 700.0) * (1.0 - 0.3 * t / t[-1] if t.shape[0] > 1 else 1.0)
        voice = _saw(f0, t, sample_rate) + 0.3 * rng.standard_normal(t.shape[0])
        envelope = _envelope(t.shape[0], int(0.01 * sample_rate), 0) * np.exp(-t / (0.4 * t[-1] + 1e-3))
        if i:
            parts.append(np.zeros(round(rng.uniform(0.12, 0.35) * sample_rate)))
        parts.append(voice * envelope)
    return _band(np.concatenate(parts), 500.0, 3000.0, sample_rate)


@register_event_sound("dish_crash")
def dish_crash(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    t = _time(1.2, sample_rate)
    n = t.shape[0]
    crash = rng.standard_normal(n) * np.exp(-t / rng.uniform(0.06, 0.15))
    high = sps.butter(2, min(1000.0, 0.25 * sample_rate), "highpass", fs=sample_rate, output="sos")
    x = 0.5 * sps.sosfilt(high, crash)
    # The broken crockery rings at a set of modes (8-14, 1.5-8 kHz, decays 10-80 ms); each clink strikes every
    # mode with a random amplitude. A mode is a 2-pole resonator driven by the clinks' impulse train: one
    # recursive filter per mode instead of an exp and a sin per clink and partial (~15x faster).
    top = MAX_FREQ * sample_rate
    onsets = np.minimum(
        n - 1, np.round(rng.exponential(rng.uniform(0.03, 0.15), int(rng.integers(12, 31))) * sample_rate)
    )
    for _ in range(int(rng.integers(8, 15))):
        w = 2.0 * np.pi * min(rng.uniform(1500.0, 8000.0), top * rng.uniform(0.8, 1.0)) / sample_rate
        r = np.exp(-1.0 / (rng.uniform(0.01, 0.08) * sample_rate))
        strikes = np.zeros(n)
        np.add.at(strikes, onsets.astype(np.int64), rng.uniform(0.0, 1.0, onsets.shape[0]) ** 2)
        x += 0.3 * sps.lfilter([np.sin(w)], [1.0, -2.0 * r * np.cos(w), r * r], strikes)
    return _room(x, sample_rate, rng)


@register_event_sound("phone_ring")
def phone_ring(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    t = _time(rng.uniform(0.8, 1.6), sample_rate)
    f = rng.uniform(900.0, 1400.0)
    tone = np.zeros(t.shape[0])
    for ratio, amp in ((1.0, 1.0), (2.76, 0.5), (5.40, 0.25)):
        if ratio * f < MAX_FREQ * sample_rate:
            tone += amp * np.sin(2.0 * np.pi * ratio * f * t + rng.uniform(0.0, 2.0 * np.pi))
    trill = 0.5 + 0.5 * np.tanh(8.0 * np.sin(2.0 * np.pi * rng.uniform(18.0, 25.0) * t))  # clapper on/off
    return tone * trill * _envelope(t.shape[0], int(0.005 * sample_rate), int(0.05 * sample_rate))


@register_event_sound("siren")
def siren(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    t = _time(rng.uniform(1.2, MAX_EVENT_S), sample_rate)
    f = rng.uniform(550.0, 750.0)
    style = rng.random()
    if style < 0.3:  # yelp: a fast up-sweep, repeated
        sweep = (t * rng.uniform(5.0, 8.0)) % 1.0
    elif style < 0.65:  # wail: a slow rise and fall
        sweep = 0.5 - 0.5 * np.cos(2.0 * np.pi * t / rng.uniform(1.5, 4.0) + rng.uniform(0.0, 2.0 * np.pi))
    else:  # hi-lo: two tones alternating
        sweep = np.floor(t / rng.uniform(0.4, 0.7) + rng.integers(2)) % 2.0
    glide = 1.0 - rng.uniform(0.03, 0.06) * t / t[-1]  # the pitch drops as the vehicle passes
    tone = _saw(f * (1.0 + 0.6 * sweep) * glide, t, sample_rate)
    ramp = int(0.3 * sample_rate)
    return _band(tone * _envelope(t.shape[0], ramp, ramp), 400.0, 3500.0, sample_rate)


@register_event_sound("cough")
def cough(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    parts: list[np.ndarray] = []
    for i in range(int(rng.integers(1, 3))):
        t = _time(rng.uniform(0.2, 0.4), sample_rate)
        burst = rng.standard_normal(t.shape[0]) * np.exp(-t / rng.uniform(0.06, 0.15))
        burst *= _envelope(t.shape[0], int(0.005 * sample_rate), 0)
        voiced = _saw(rng.uniform(100.0, 250.0), t, sample_rate) * np.exp(-t / 0.08)
        delay = min(t.shape[0], round(rng.uniform(0.03, 0.08) * sample_rate))
        burst[delay:] += 0.4 * voiced[: t.shape[0] - delay]
        if i:
            parts.append(np.zeros(round(rng.uniform(0.15, 0.3) * sample_rate)))
        parts.append(burst)
    return _band(np.concatenate(parts), 300.0, 3000.0, sample_rate)
