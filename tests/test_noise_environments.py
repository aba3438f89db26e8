"""The EVA-Bench noise environments (App. G) and the noise_files op: generator contract, per-environment
acoustic character (each check fails for the wrong recipe: the contrasting reference noises fail it), exact SNR
through the ops, and user-folder loading with its build-time errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import signal as sps

from perturbations import Chain, PerturbationError, available_environments, available_ops, generate
from tests.test_perturbations import realised_snr, speech_like

SR = 16000
EVA_ENVIRONMENTS = ["airport", "baby", "music", "static", "construction", "street", "road"]


def noise(environment: str, seconds: float, seed: int, sample_rate: int = SR) -> np.ndarray:
    return generate(environment, round(seconds * sample_rate), sample_rate, np.random.default_rng(seed)).astype(
        np.float64
    )


def db(ratio: float) -> float:
    return float(10.0 * np.log10(ratio))


# ---------------------------------------------------------------------------------------------- generator contract


def test_all_eight_eva_environments_are_registered() -> None:
    assert set(EVA_ENVIRONMENTS) | {"cafe"} <= set(available_environments())
    assert "noise_files" in available_ops()


@pytest.mark.slow
@pytest.mark.parametrize("environment", EVA_ENVIRONMENTS)
def test_deterministic_seeded_finite_and_exact_length(environment: str) -> None:
    a = generate(environment, 3 * SR + 7, SR, np.random.default_rng(42))
    b = generate(environment, 3 * SR + 7, SR, np.random.default_rng(42))
    c = generate(environment, 3 * SR + 7, SR, np.random.default_rng(43))
    assert a.dtype == np.float32 and a.shape == (3 * SR + 7,) and np.isfinite(a).all()
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
    for n in (1, 2, 161):
        assert generate(environment, n, SR, np.random.default_rng(0)).shape == (n,)
    assert generate(environment, 0, SR, np.random.default_rng(0)).shape == (0,)


@pytest.mark.parametrize("environment", EVA_ENVIRONMENTS)
def test_level_is_about_minus_20_dbfs_with_headroom(environment: str) -> None:
    x = noise(environment, 10.0, 5)
    assert abs(db(np.mean(x * x) / 0.01)) < 3.0  # a 10 s excerpt: within 3 dB of -20 dBFS RMS
    assert np.max(np.abs(x)) < 1.0  # the bed itself never exceeds full scale


@pytest.mark.parametrize("environment", EVA_ENVIRONMENTS)
def test_other_rates_and_the_uncached_path_agree(environment: str) -> None:
    # 8 kHz (narrow-band telephony) renders without filters above Nyquist; the cache only changes speed.
    module = __import__(f"perturbations.environments.{environment}", fromlist=[environment])
    generator = getattr(module, environment)
    first = generate(environment, 4000, 8000, np.random.default_rng(7))
    generator.bank.cache_clear()
    again = generate(environment, 4000, 8000, np.random.default_rng(7))
    assert first.tobytes() == again.tobytes() and np.isfinite(first).all() and np.any(first)


# ------------------------------------------------------------------------------------------ acoustic character


def band_share(x: np.ndarray, low: float, high: float, sample_rate: int = SR) -> float:
    f, p = sps.welch(x, sample_rate, nperseg=4096)
    return float(p[(f >= low) & (f < high)].sum() / p.sum())


def test_road_is_low_frequency_rumble_with_rpm_tied_engine_orders() -> None:
    for seed in (0, 1, 2):
        road = noise("road", 20.0, seed)
        assert band_share(road, 0.0, 500.0) > 0.85
        harmonic, f1_spread = engine_orders(road)
        assert harmonic >= 0.8 and f1_spread > 2.0  # a line with its 2nd harmonic, moving with the rpm
    pink = noise("pink", 20.0, 0)
    assert band_share(pink, 0.0, 500.0) < 0.7 and engine_orders(pink)[0] < 0.2


def engine_orders(x: np.ndarray) -> tuple[float, float]:
    """(share of 1 s frames whose most prominent 40-140 Hz line also has a prominent 2nd harmonic, spread in Hz
    of that line's frequency across frames)."""
    f, _, spec = sps.spectrogram(x, SR, nperseg=SR, noverlap=SR // 2)
    band = np.flatnonzero((f >= 40) & (f <= 140))
    hits, lines = [], []
    for column in spec.T:

        def prominence(i: int, col: np.ndarray = column) -> float:
            return db(col[i] / np.median(col[max(i - 15, 0) : i + 16]))

        i = band[np.argmax([prominence(i) for i in band])]
        hits.append(prominence(i) > 10 and max(prominence(2 * i + d) for d in (-1, 0, 1)) > 6)
        lines.append(f[i])
    return float(np.mean(hits)), float(np.std(lines))


def impulse_frames_per_s(x: np.ndarray) -> float:
    """10 ms frames holding a sample beyond 5 robust sigmas (MAD), per second: ~0 for any Gaussian noise."""
    sigma = np.median(np.abs(x - np.median(x))) / 0.6745
    over = np.abs(x[: len(x) // 160 * 160]) > 5 * sigma
    return float(over.reshape(-1, 160).any(axis=1).sum() / (len(x) / SR))


def line_prominence_db(x: np.ndarray, hz: float) -> float:
    f, p = sps.welch(x, SR, nperseg=SR)  # 1 Hz bins
    i = round(hz)
    return db(p[i] / np.median(p[(f >= hz - 15) & (f <= hz + 15)]))


def test_static_has_crackle_impulses_and_a_mains_hum() -> None:
    for seed in (0, 1, 2, 3):
        static = noise("static", 10.0, seed)
        assert np.max(np.abs(static)) / np.std(static) > 7.0
        assert impulse_frames_per_s(static) > 3.0
        mains = max((50.0, 60.0), key=lambda hz: line_prominence_db(static, hz))
        assert line_prominence_db(static, mains) > 20.0 and line_prominence_db(static, 3 * mains) > 15.0
        other = 110.0 - mains
        assert line_prominence_db(static, other) < 6.0  # one mains frequency per loop, not both
    white = noise("white", 10.0, 0)
    assert impulse_frames_per_s(white) < 0.5 and np.max(np.abs(white)) / np.std(white) < 6.0
    assert line_prominence_db(white, 50.0) < 10.0


def tonality(x: np.ndarray) -> tuple[float, float]:
    """(share of 150-2000 Hz power within +-25 cents of equal-tempered pitches (A4 = 440), spectral flatness
    of 100-4000 Hz): ~0.5 and high for noise; near 1 and low for music."""
    f, p = sps.welch(x, SR, nperseg=8192)
    band = (f >= 150) & (f <= 2000)
    cents = 1200.0 * np.log2(f[band] / 440.0)
    on_grid = float(p[band][np.abs((cents + 50.0) % 100.0 - 50.0) <= 25.0].sum() / p[band].sum())
    speech = p[(f >= 100) & (f <= 4000)]
    return on_grid, float(np.exp(np.mean(np.log(speech))) / np.mean(speech))


def test_music_is_tonal_on_the_equal_tempered_grid() -> None:
    for seed in (0, 1, 2):
        on_grid, flatness = tonality(noise("music", 20.0, seed))
        assert on_grid > 0.85 and flatness < 0.12
    cafe_grid, cafe_flatness = tonality(noise("cafe", 20.0, 0))
    assert cafe_grid < 0.6 and cafe_flatness > 0.15  # babble: harmonic, but not on a musical grid


def pitch_track(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F0 in Hz, normalised autocorrelation at that lag) of the loudest 30% of 40 ms frames, lags 1-6.7 ms."""
    frame = int(0.04 * SR)
    frames = np.lib.stride_tricks.sliding_window_view(x, frame)[:: frame // 2]
    energy = np.mean(frames**2, axis=1)
    loud = frames[energy >= np.quantile(energy, 0.7)]
    loud = loud - loud.mean(axis=1, keepdims=True)
    ac = np.fft.irfft(np.abs(np.fft.rfft(loud, 2 * frame, axis=1)) ** 2, axis=1)[:, :frame]
    ac /= ac[:, :1]
    lags = np.arange(SR // 1000, SR // 150 + 1)
    best = lags[np.argmax(ac[:, lags], axis=1)]
    return SR / best, ac[np.arange(best.shape[0]), best]


def test_baby_cries_are_harmonic_with_infant_f0() -> None:
    for seed in (0, 1, 2):
        f0, periodicity = pitch_track(noise("baby", 12.0, seed))
        assert 300.0 < np.median(f0) < 650.0 and np.mean((f0 > 300) & (f0 < 650)) > 0.7
        assert np.median(periodicity) > 0.7
    f0, periodicity = pitch_track(noise("cafe", 12.0, 0))
    assert np.median(f0) < 300.0  # adult babble: lower F0
    assert np.median(pitch_track(noise("white", 12.0, 0))[1]) < 0.3


def impulsiveness(x: np.ndarray) -> tuple[float, float]:
    """On the >1 kHz envelope in 2.5 ms frames: (peak of its 14-28 Hz modulation spectrum re the median over
    2-100 Hz, i.e. a jackhammer's impact rate; 99th/50th percentile of the envelope)."""
    hp = sps.sosfilt(sps.butter(4, 1000.0, "highpass", fs=SR, output="sos"), x)
    hop = SR // 400
    envelope = np.sqrt(np.mean(hp[: len(hp) // hop * hop].reshape(-1, hop) ** 2, axis=1))
    fm, pm = sps.welch(envelope / envelope.mean() - 1.0, 400.0, nperseg=256)
    rate_peak = float(pm[(fm >= 14) & (fm <= 28)].max() / np.median(pm[(fm >= 2) & (fm <= 100)]))
    return rate_peak, float(np.percentile(envelope, 99) / np.median(envelope))


def test_construction_has_impulsive_bursts_at_a_jackhammer_rate() -> None:
    for seed in (0, 1, 2):
        rate_peak, spread = impulsiveness(noise("construction", 20.0, seed))
        assert rate_peak > 15.0 and spread > 4.0
    for reference in ("white", "cafe", "static"):
        rate_peak, _ = impulsiveness(noise(reference, 20.0, 0))
        assert rate_peak < 8.0


def horn_frames(x: np.ndarray) -> int:
    """256 ms frames with two strong tones a third apart (ratio 1.17-1.28) whose lower one is at 330-500 Hz,
    both > 20 dB above the 300-1000 Hz median: the two-tone car horn."""
    f, _, spec = sps.spectrogram(x, SR, nperseg=4096, noverlap=2048)
    median = np.median(spec[(f >= 300) & (f <= 1000)], axis=0)
    low = np.flatnonzero((f >= 330) & (f <= 500))
    count = 0
    for j in range(spec.shape[1]):
        i = low[np.argmax(spec[low, j])]
        up = np.flatnonzero((f >= 1.17 * f[i]) & (f <= 1.28 * f[i]))
        k = up[np.argmax(spec[up, j])]
        count += bool(spec[i, j] > 100 * median[j] and spec[k, j] > 100 * median[j])
    return count


def test_street_has_horns_over_low_traffic_rumble() -> None:
    cafe = horn_frames(noise("cafe", 25.0, 0))
    for seed in (0, 1, 2):
        street = noise("street", 25.0, seed)  # > one 20 s loop: every loop has at least one horn
        assert horn_frames(street) >= 8 and horn_frames(street) > 2 * cafe
        assert band_share(street, 0.0, 500.0) > 0.4  # traffic: a heavy low end, unlike babble
    assert horn_frames(noise("pink", 25.0, 0)) == 0 and band_share(noise("cafe", 25.0, 0), 0.0, 500.0) < 0.35


def speech_modulation(x: np.ndarray) -> tuple[float, float]:
    """(share of power in 100-4000 Hz, power of the 10 ms-frame envelope at 3-6 Hz re its mean squared)."""
    f, p = sps.welch(x, SR, nperseg=1024)
    band = float(p[(f >= 100) & (f <= 4000)].sum() / p.sum())
    frames = x[: len(x) // 160 * 160].reshape(-1, 160)
    envelope = np.sqrt(np.mean(frames**2, axis=1))
    fm, pm = sps.welch(envelope / envelope.mean() - 1.0, 100.0, nperseg=256)
    return band, float(pm[(fm >= 3) & (fm <= 6)].sum())


def longest_stable_tone_s(x: np.ndarray) -> float:
    """Longest run of 64 ms hops in which the top 450-1100 Hz peak stays in one bin (+-1) at > 25 dB above the
    band median: a bell chime rings at a fixed pitch; babble harmonics glide."""
    f, t, spec = sps.spectrogram(x, SR, nperseg=4096, noverlap=3072)
    band = np.flatnonzero((f >= 450) & (f <= 1100))
    top = band[np.argmax(spec[band], axis=0)]
    prominence = spec[top, np.arange(spec.shape[1])] / np.median(spec[band], axis=0)
    best = run = 0
    for j in range(1, top.shape[0]):
        steady = abs(int(top[j]) - int(top[j - 1])) <= 1 and prominence[j] > 10**2.5 and prominence[j - 1] > 10**2.5
        run = run + 1 if steady else 0
        best = max(best, run)
    return best * float(t[1] - t[0])


def test_airport_is_speech_modulated_babble_with_pa_chimes() -> None:
    white_mod = speech_modulation(noise("white", 35.0, 0))[1]
    cafe_tone = longest_stable_tone_s(noise("cafe", 35.0, 0))
    assert cafe_tone < 0.4
    for seed in (0, 1, 2):
        airport = noise("airport", 35.0, seed)  # > one 30 s loop: every loop has one announcement
        band, modulation = speech_modulation(airport)
        assert band > 0.85 and modulation > 20 * white_mod
        assert longest_stable_tone_s(airport) > 0.6


# ------------------------------------------------------------------------------------------ exact SNR via ops


@settings(max_examples=40, deadline=None)
@given(
    environment=st.sampled_from(EVA_ENVIRONMENTS),
    snr_db=st.floats(-5.0, 40.0),
    mode=st.sampled_from(["active", "whole"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_noise_op_hits_the_snr_for_every_environment(environment: str, snr_db: float, mode: str, seed: int) -> None:
    clean = speech_like()
    chain = Chain.from_specs([{"op": "noise", "environment": environment, "snr_db": snr_db, "signal_power": mode}])
    out, [entry] = chain(clean, SR, np.random.default_rng(seed))
    assert out.shape == clean.shape and out.dtype == np.float32 and np.max(np.abs(out)) <= 1.0
    assert abs(realised_snr(clean, out, entry["params"], SR) - snr_db) < 0.1
    assert entry["params"]["environment"] == environment


@pytest.mark.parametrize("environment", EVA_ENVIRONMENTS)
@pytest.mark.parametrize("mode", ["active", "whole"])
def test_each_environment_at_15_db_both_power_modes(environment: str, mode: str) -> None:
    clean = speech_like(seconds=2.0)
    chain = Chain.from_specs([{"op": "noise", "environment": environment, "snr_db": 15.0, "signal_power": mode}])
    out, [entry] = chain(clean, SR, np.random.default_rng(9))
    assert abs(realised_snr(clean, out, entry["params"], SR) - 15.0) < 0.1


def test_unknown_environment_lists_all_nine() -> None:
    with pytest.raises(PerturbationError) as info:
        Chain.from_specs([{"op": "noise", "environment": "jungle"}])
    for name in [*EVA_ENVIRONMENTS, "cafe"]:
        assert name in str(info.value)


# ------------------------------------------------------------------------------------------------- noise_files


@pytest.fixture
def noise_folder(tmp_path: Path) -> Path:
    """A small corpus in the layouts the op must handle: stereo 44.1 kHz WAV, mono 8 kHz FLAC in a subfolder,
    a 50 ms file much shorter than any clip, plus things it must ignore."""
    rng = np.random.default_rng(0)
    (tmp_path / "street").mkdir()
    (tmp_path / "kitchen").mkdir()
    sf.write(tmp_path / "street" / "ch01.wav", 0.2 * rng.standard_normal((44100, 2)), 44100)
    sf.write(tmp_path / "kitchen" / "ch01.flac", 0.05 * rng.standard_normal(8000) + 0.3, 8000)  # with DC
    t = np.arange(800) / 16000
    sf.write(tmp_path / "beep.WAV", 0.5 * np.sin(2 * np.pi * 1000 * t), 16000)
    (tmp_path / "notes.txt").write_text("not audio")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.wav").write_bytes(b"junk")  # hidden: skipped, not an error
    return tmp_path


def files_chain(folder: Path, **fields: Any) -> Chain:
    return Chain.from_specs([{"op": "noise_files", "folder": str(folder), **fields}])


def test_noise_files_loads_every_layout_and_reports_the_file(noise_folder: Path) -> None:
    chain = files_chain(noise_folder, snr_db=10.0)
    clean = speech_like(seconds=2.0)
    seen = set()
    for seed in range(40):
        out, [entry] = chain(clean, SR, np.random.default_rng(seed))
        params = entry["params"]
        json.dumps(entry, allow_nan=False)
        seen.add(params["file"])
        assert entry["type"] == "noise_files" and out.shape == clean.shape and np.isfinite(out).all()
        assert abs(params["snr_db_measured"] - 10.0) < 1e-3
        assert abs(realised_snr(clean, out, params, SR) - 10.0) < 0.1
        assert 0.0 <= params["offset_s"] < params["file_seconds"]
        assert params["looped"]  # every file is shorter than the 2 s clip
    assert seen == {"beep.WAV", "kitchen/ch01.flac", "street/ch01.wav"}


def test_noise_files_picks_deterministically_and_resamples(noise_folder: Path) -> None:
    chain = files_chain(noise_folder, pattern="street/*.wav")
    clean = speech_like(seconds=0.5)
    a, applied_a = chain(clean, SR, np.random.default_rng(3))
    b, applied_b = chain(clean, SR, np.random.default_rng(3))
    c, _ = chain(clean, SR, np.random.default_rng(4))
    assert a.tobytes() == b.tobytes() and applied_a == applied_b and a.tobytes() != c.tobytes()
    params = applied_a[0]["params"]
    assert params["file"] == "street/ch01.wav"
    # 1 s at 44.1 kHz stereo, resampled to 16 kHz: 16000 samples less the 0.1 s loop crossfade.
    assert params["file_seconds"] == pytest.approx(0.9, abs=1e-3)
    assert params["looped"] == (params["offset_s"] + 0.5 > params["file_seconds"])
    _, [entry] = chain(clean, 22050, np.random.default_rng(3))
    assert entry["params"]["file_seconds"] == pytest.approx(0.9, abs=1e-3)


def test_noise_files_loops_a_short_file_and_removes_dc(noise_folder: Path) -> None:
    clean = speech_like(seconds=2.0)
    out, [entry] = files_chain(noise_folder, pattern="beep.*", signal_power="whole")(
        clean, SR, np.random.default_rng(0)
    )
    residual = out.astype(np.float64) - clean * 10 ** (entry["params"]["limiter_gain_db"] / 20)
    assert entry["params"]["looped"] and entry["params"]["file_seconds"] < 0.05
    f, p = sps.welch(residual, SR, nperseg=1024)
    assert f[np.argmax(p)] == pytest.approx(1000.0, abs=20.0)  # the beep, repeated over the whole clip
    assert min(np.std(residual[i : i + 1600]) for i in range(0, len(residual) - 1600, 1600)) > 0.0
    out, [entry] = files_chain(noise_folder, pattern="kitchen/*")(clean, SR, np.random.default_rng(0))
    assert abs(np.mean(out.astype(np.float64) - clean)) < 0.01 * np.std(out - clean)  # no DC offset


def test_noise_files_on_silence_and_tiny_input(noise_folder: Path) -> None:
    chain = files_chain(noise_folder)
    silent = np.zeros(100, dtype=np.float32)
    out, [entry] = chain(silent, SR, np.random.default_rng(0))
    assert out.tobytes() == silent.tobytes() and entry["params"]["skipped"] == "silent input"
    for n in (1, 2, 33):
        x = (0.1 * np.sin(np.arange(n) + 1.0)).astype(np.float32)
        out, [entry] = chain(x, SR, np.random.default_rng(1))
        assert out.shape == (n,) and np.isfinite(out).all() and abs(entry["params"]["snr_db_measured"] - 15.0) < 0.01


def test_noise_files_build_errors_name_the_folder_or_file(tmp_path: Path, noise_folder: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(PerturbationError, match=r"chain\[0\] \(noise_files\): folder: noise folder .*nowhere does not"):
        files_chain(missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "readme.md").write_text("no audio here")
    with pytest.raises(PerturbationError, match=r"noise folder .*empty holds no WAV/FLAC files"):
        files_chain(empty)
    with pytest.raises(PerturbationError, match=r"holds no files matching '\*\.ogg'"):
        files_chain(noise_folder, pattern="*.ogg")
    with pytest.raises(PerturbationError, match="folder is required"):
        Chain.from_specs([{"op": "noise_files"}])
    with pytest.raises(PerturbationError, match="snr_db must be a number between -5 and 40"):
        files_chain(noise_folder, snr_db=45)
    with pytest.raises(PerturbationError, match="pattern must be a glob relative to folder"):
        files_chain(noise_folder, pattern="/abs/*.wav")
    (noise_folder / "street" / "broken.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    with pytest.raises(PerturbationError, match=r"cannot read noise file .*street/broken\.wav: .+"):
        files_chain(noise_folder)
    files_chain(noise_folder, pattern="kitchen/*.flac")  # the broken file is outside this pattern: fine


def test_noise_files_spec_round_trips(noise_folder: Path) -> None:
    chain = files_chain(noise_folder, pattern="*/ch01.*", snr_db=5)
    [spec] = chain.to_specs()
    assert spec["folder"] == str(noise_folder) and spec["pattern"] == "*/ch01.*" and spec["snr_db"] == 5.0
    json.dumps(spec)
    assert Chain.from_specs([spec]) == chain
    assert [p.name for p in chain.ops[0].files] == ["ch01.flac", "ch01.wav"]  # sorted by relative path


def test_looped_reads_across_the_wrap_like_a_tiled_bank() -> None:
    """A read that crosses the bank's end (once or many times) is the bank repeated, sample for sample: the
    reader concatenates the pieces instead of tiling the whole bank."""
    from perturbations.environments.registry import looped

    def white(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
        return rng.standard_normal(n)

    generate_white = looped(white, key=7, seconds=0.01, banks=2)  # 80 samples at 8 kHz
    for n in (1, 79, 80, 81, 200, 1000):
        for seed in range(6):
            out = generate_white(n, 8000, np.random.default_rng(seed))
            rng = np.random.default_rng(seed)
            source = generate_white.bank(8000, int(rng.integers(2)))
            start = int(rng.integers(source.shape[0]))
            reference = np.tile(source, -(-(start + n) // source.shape[0]))[start : start + n]
            assert out.dtype == np.float32 and out.flags.writeable
            np.testing.assert_array_equal(out, reference)
