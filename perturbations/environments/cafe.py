"""Café background ("coffee shop", EVA-Bench App. G), synthesised procedurally: nothing is downloaded.

Crowd babble is the part that hurts ASR most because it is speech-like (speech spectrum, syllabic modulation,
overlapping voices), so most of the recipe goes into making it speech-shaped rather than into realism per se.

Recipe (``synthesize_cafe``; every draw from the given rng):

(a) Babble: 6-10 talkers at levels of -15..0 dB (a few near talkers dominate), summed. Each talker
    - is male (F0 90-150 Hz, formant scale 0.94-1.04) or female (F0 165-250 Hz, formant scale 1.10-1.22);
    - talks in spurts of 0.8-4 s separated by short pauses (0.15-0.6 s) or, 30% of the time, listening pauses
      (1-3.5 s); a spurt is a run of syllables of 120-300 ms (~4.7 Hz syllable rate); joins mid-conversation;
    - source: a naive sawtooth at a slowly varying F0 (declination over the spurt, a random accent per
      syllable, interpolated between syllable centres), plus a little aspiration noise;
    - per syllable: a flat-topped amplitude bump 1 - (2p - 1)^4 with random stress 0.4-1, zero in pauses;
    - vocal tract: a cascade of four 2-pole resonators with unity DC gain (Klatt 1980): F1-F3 from a ten-vowel
      Peterson & Barney table scaled per talker and jittered +-5%, F4 = 3.5 kHz x scale; a new vowel per
      syllable and a second one half-way through 40% of syllables (formants switch every ~60-300 ms);
    - consonants: 55% of syllables open with 25-70 ms of 2-5 kHz band-passed noise (-10 dB re the voicing);
    - distance: a 2nd-order low-pass at 2.5-6 kHz.
    Envelope, vocal tract, consonants and distance filter are applied per 23 ms STFT frame (50% overlap,
    sqrt-Hann, so the overlap-add interpolates between frames), at half the output rate when that is >= 8 kHz,
    then resampled: a few vectorised multiplies instead of hundreds of small filter calls per talker.
(b) Cups and cutlery: Poisson events at 0.5-2 per second; each is 2-5 inharmonic, exponentially decaying
    partials at 2-8 kHz (decay constants 10-80 ms) plus a 2 ms click, peaking 0-12 dB above the babble RMS.
(c) Room: babble and cutlery go through a short reverb (Gaussian noise impulse response with an exponential
    decay, RT60 0.3-0.6 s, wet gain 0.3-0.6 re dry, via scipy's overlap-add convolution); then room tone
    (pink + brown noise) is added 20 dB below the babble.
The sum is normalised to -20 dBFS RMS.

Speed: synthesis runs at ~80x real time at 22.05 kHz: fine once, too slow per user turn. The registered
"cafe" generator therefore reads from four 20 s seamless loops per sample rate (``registry.looped``),
synthesised from fixed seeds the first time each is drawn and cached (~0.25 s each); a call draws a loop and
an offset from the rng, so its output is still a pure function of the rng, at >1000x real time.
"""

from __future__ import annotations

import numpy as np
from scipy import signal as sps

from perturbations.environments.basic import colored_noise
from perturbations.environments.registry import looped, normalise, register_environment

# Peterson & Barney (1952), average adult male F1-F3 (Hz): i, ɪ, ɛ, æ, ɑ, ɔ, ʊ, u, ʌ, ɝ.
VOWELS = np.array(
    [
        [270, 2290, 3010],
        [390, 1990, 2550],
        [530, 1840, 2480],
        [660, 1720, 2410],
        [730, 1090, 2440],
        [570, 840, 2410],
        [440, 1020, 2240],
        [300, 870, 2240],
        [640, 1190, 2390],
        [490, 1350, 1690],
    ],
    dtype=np.float64,
)
BANDWIDTHS_HZ = np.array([90.0, 110.0, 170.0, 250.0])
F4_HZ = 3500.0
MAX_FREQ = 0.45  # x sample rate: resonances/filters above this are dropped or clamped


FRAME = 256  # STFT size for the babble's vocal-tract filtering (23 ms at 11025 Hz)
_WINDOW = np.sqrt(0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(FRAME) / FRAME))  # sqrt-Hann: w^2 sums to 1 at 50%


def _stft(x: np.ndarray) -> np.ndarray:
    """Frames centred on multiples of FRAME/2 (frame k at sample k*hop), sqrt-Hann windowed."""
    hop = FRAME // 2
    n_frames = 1 + -(-x.shape[0] // hop)
    padded = np.zeros((n_frames + 1) * hop, dtype=x.dtype)
    padded[hop : hop + x.shape[0]] = x
    frames = np.lib.stride_tricks.sliding_window_view(padded, FRAME)[::hop]
    return np.fft.rfft(frames * _WINDOW.astype(x.dtype), axis=1)


def _istft(spectrogram: np.ndarray, n: int) -> np.ndarray:
    """Weighted overlap-add inverse of ``_stft`` (exact reconstruction for an unmodified spectrogram)."""
    hop = FRAME // 2
    frames = np.fft.irfft(spectrogram, FRAME, axis=1) * _WINDOW.astype(spectrogram.real.dtype)
    out = np.zeros((frames.shape[0] + 1) * hop)
    blocks = out.reshape(-1, hop)
    blocks[:-1] += frames[:, :hop]
    blocks[1:] += frames[:, hop:]
    return out[hop : hop + n]


def _tract_responses(formants: np.ndarray, sample_rate: int, freqs: np.ndarray) -> np.ndarray:
    """Frequency responses (segments x bins) of cascades of 2-pole resonators with unity DC gain (Klatt 1980),
    one cascade per row of ``formants`` (segments x 4 Hz); resonances above MAX_FREQ x rate are left out."""
    r = np.exp(-np.pi * BANDWIDTHS_HZ / sample_rate)  # (4,)
    a1 = -2.0 * r * np.cos(2.0 * np.pi * formants / sample_rate)  # (S, 4)
    a2 = r * r
    z1 = np.exp(-2j * np.pi * freqs / sample_rate)  # (B,)
    sections = (1.0 + a1 + a2)[..., None] / (1.0 + a1[..., None] * z1 + a2[:, None] * z1 * z1)
    sections[formants >= MAX_FREQ * sample_rate] = 1.0
    return sections.prod(axis=1)


def _syllables(duration_s: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start_s, length_s, position within its talk spurt 0..1) of each syllable overlapping [0, duration)."""
    starts: list[float] = []
    lengths: list[float] = []
    position: list[float] = []
    t = -rng.uniform(0.0, 3.0)  # join the conversation in the middle
    while t < duration_s:
        spurt = rng.uniform(0.8, 4.0)
        begin, end = t, t + spurt
        while t < end:
            length = rng.uniform(0.12, 0.30)
            starts.append(t)
            lengths.append(length)
            position.append((t - begin) / spurt)
            t += length
        t += rng.uniform(1.0, 3.5) if rng.random() < 0.3 else rng.uniform(0.15, 0.6)
    s, ln, p = np.array(starts), np.array(lengths), np.array(position)
    keep = s + ln > 0.0
    return s[keep], ln[keep], p[keep]


def _voice(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """One talker's STFT (``_stft`` framing), scaled to unit mean power per bin (zeros if silent throughout).

    The vocal tract is applied as a per-frame spectral envelope rather than a time-domain filter whose
    coefficients switch per syllable: one vectorised multiply instead of hundreds of small filter calls (~10x
    faster), and formant transitions come out smooth.
    """
    female = rng.random() < 0.5
    f0_base = rng.uniform(165.0, 250.0) if female else rng.uniform(90.0, 150.0)
    tract = rng.uniform(1.10, 1.22) if female else rng.uniform(0.94, 1.04)
    starts, lengths, position = _syllables(n / sample_rate, rng)
    k = len(starts)
    hop = FRAME // 2
    n_frames = 1 + -(-n // hop)
    freqs = np.fft.rfftfreq(FRAME, 1.0 / sample_rate)
    if k == 0:
        return np.zeros((n_frames, freqs.shape[0]), dtype=np.complex64)
    first = np.round(starts * sample_rate).astype(np.int64)
    last = np.round((starts + lengths) * sample_rate).astype(np.int64)
    stress = rng.uniform(0.4, 1.0, k)
    centres = np.arange(n_frames) * hop  # frame k is centred on sample k*hop
    syllable = np.clip(np.searchsorted(first, centres, side="right") - 1, 0, k - 1)
    phase = (centres - first[syllable]) / np.maximum(last - first, 1)[syllable]  # 0..1 inside a syllable
    inside = (phase >= 0.0) & (phase < 1.0)

    # Source: a sawtooth at a smooth F0 contour (declination over the spurt, an accent per syllable), F0
    # held per hop (11.6 ms), phase-continuous. Its aliasing sits under the formant and distance low-pass
    # filters in a noise background: not worth band-limiting.
    f0_knots = f0_base * (1.12 - 0.25 * position) * (1.0 + rng.uniform(-0.06, 0.12, k))
    f0 = np.interp(centres, (starts + lengths / 2.0) * sample_rate, f0_knots)
    cycles = np.cumsum(np.repeat(f0 / sample_rate, hop)[:n])
    source = (2.0 * (cycles % 1.0) - 1.0).astype(np.float32) + 0.05 * rng.standard_normal(n, dtype=np.float32)

    # Syllable envelope per frame: a flat-topped 1 - (2p - 1)^4 bump scaled by stress (the overlap-add
    # interpolates it between frames); consonant bursts cover the first 25-70 ms of 55% of syllables.
    u = 2.0 * phase - 1.0
    envelope = np.where(inside, stress[syllable] * (1.0 - (u * u) ** 2), 0.0)
    burst_len = np.round(rng.uniform(0.025, 0.07, k) * sample_rate)
    has_burst = rng.random(k) < 0.55
    bursts = np.where(
        inside & has_burst[syllable] & (centres - first[syllable] < burst_len[syllable]),
        stress[syllable],
        0.0,
    )

    # Vocal tract: a vowel per syllable, a second one half-way through 40% of them; each jittered +-5%.
    split = rng.random(k) < 0.4
    seg_starts = np.sort(np.concatenate([first, ((first + last) // 2)[split]]))
    vowels = VOWELS[rng.integers(len(VOWELS), size=seg_starts.shape[0])]
    formants = np.column_stack(
        [vowels * tract * rng.uniform(0.95, 1.05, vowels.shape), np.full(len(vowels), F4_HZ * tract)]
    )
    top = MAX_FREQ * sample_rate
    distance = sps.sosfreqz(
        sps.butter(2, min(rng.uniform(2500.0, 6000.0), top), fs=sample_rate, output="sos"),
        worN=freqs,
        fs=sample_rate,
    )[1]
    responses = (_tract_responses(formants, sample_rate, freqs) * distance).astype(np.complex64)
    segment_of_frame = np.clip(np.searchsorted(seg_starts, centres, side="right") - 1, 0, len(seg_starts) - 1)
    tract_frames = responses[segment_of_frame] * envelope[:, None].astype(np.float32)
    tract_frames[1:-1] = 0.25 * tract_frames[:-2] + 0.5 * tract_frames[1:-1] + 0.25 * tract_frames[2:]
    talker = _stft(source)
    talker *= tract_frames
    talker = _unit_power(talker)

    # Consonants: band-passed (2-5 kHz) noise bursts at syllable onsets, made directly in the STFT domain and
    # only for the frames that have one.
    band = sps.butter(2, [min(2000.0, 0.5 * top), min(5000.0, top)], "bandpass", fs=sample_rate, output="sos")
    rows = np.flatnonzero(bursts)
    if rows.size:
        shape = (rows.size, freqs.shape[0])
        noise = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * bursts[rows, None]
        noise *= sps.sosfreqz(band, worN=freqs, fs=sample_rate)[1] * distance
        scale = 0.3 * np.sqrt(n_frames * freqs.shape[0] / max(_power_sum(noise), 1e-300))
        talker[rows] += (scale * noise).astype(np.complex64)
    return _unit_power(talker)


def _power_sum(spectrogram: np.ndarray) -> float:
    return float(np.vdot(spectrogram, spectrogram).real)


def _unit_power(spectrogram: np.ndarray) -> np.ndarray:
    """Scale to unit mean power per bin (in place)."""
    power = _power_sum(spectrogram) / spectrogram.size
    if power > 0.0:
        spectrogram *= np.float32(1.0 / np.sqrt(power))
    return spectrogram


def _babble(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Sum of talkers at -15..0 dB, synthesised at half the rate when that is still >= 8 kHz (the distance
    low-pass leaves little above 4-5 kHz anyway), then resampled. Unit RMS."""
    internal = sample_rate // 2 if sample_rate >= 16000 and sample_rate % 2 == 0 else sample_rate
    m = -(-n * internal // sample_rate)
    voices = int(rng.integers(6, 11))
    total = np.zeros((1 + -(-m // (FRAME // 2)), FRAME // 2 + 1), dtype=np.complex64)
    for level in rng.uniform(-15.0, 0.0, voices):
        total += np.float32(10.0 ** (level / 20.0)) * _voice(m, internal, rng)
    babble = _istft(total, m).astype(np.float64)
    if internal != sample_rate:
        babble = sps.resample_poly(babble, sample_rate // internal, 1)
    return normalise(babble[:n], 1.0)


def _cutlery(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Clinks: Poisson-timed sums of inharmonic decaying partials, peak levels relative to unit babble RMS."""
    out = np.zeros(n)
    rate_hz = rng.uniform(0.5, 2.0)
    top = MAX_FREQ * sample_rate
    for _ in range(rng.poisson(rate_hz * n / sample_rate)):
        start = int(rng.integers(n))
        partials = int(rng.integers(2, 6))
        freqs = np.minimum(rng.uniform(2000.0, 8000.0, partials), top * rng.uniform(0.8, 1.0, partials))
        decay = rng.uniform(0.01, 0.08, partials)
        amps = rng.uniform(0.3, 1.0, partials)
        phases = rng.uniform(0.0, 2.0 * np.pi, partials)
        m = min(n - start, int(5.0 * decay.max() * sample_rate) + 1)
        t = np.arange(m)[:, None] / sample_rate
        event = (amps * np.exp(-t / decay) * np.sin(2.0 * np.pi * freqs * t + phases)).sum(axis=1)
        click = min(m, int(0.002 * sample_rate) + 1)
        event[:click] += 0.5 * rng.standard_normal(click) * np.exp(-np.arange(click) / max(click / 4.0, 1.0))
        peak = float(np.max(np.abs(event)))
        if peak > 0.0:
            out[start : start + m] += event * (10.0 ** (rng.uniform(0.0, 12.0) / 20.0) / peak)
    return out


def _reverb(x: np.ndarray, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    rt60 = rng.uniform(0.3, 0.6)
    t = np.arange(max(int(rt60 * sample_rate), 1)) / sample_rate
    response = rng.standard_normal(t.shape[0]) * np.exp(-6.9078 * t / rt60)  # -60 dB at rt60
    response /= np.sqrt(np.sum(response * response))
    # Overlap-add convolution: a long signal with a short response; scipy does this better than we would.
    wet = sps.oaconvolve(x, response)[: x.shape[0]]
    return x + rng.uniform(0.3, 0.6) * wet


def synthesize_cafe(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh café noise per the module recipe (the slow path, ~80x real time). float32 at -20 dBFS RMS."""
    if n_samples <= 0:
        return np.zeros(0, dtype=np.float32)
    babble = _babble(n_samples, sample_rate, rng)
    scene = _reverb(babble + _cutlery(n_samples, sample_rate, rng), sample_rate, rng)
    room = normalise(
        colored_noise(n_samples, sample_rate, rng, 1.0) + colored_noise(n_samples, sample_rate, rng, 2.0), 0.1
    )
    return normalise(scene + room).astype(np.float32)


cafe = register_environment("cafe")(looped(synthesize_cafe, key=0xCAFE, seconds=20.0, banks=4))
