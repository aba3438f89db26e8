"""Connection / channel degradation ops: codec, packet_loss, volume_fluctuation, band_limit, resample, clipping,
reverb — signal properties, measured degradation, alignment, loss statistics, configs and spec errors."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf
from scipy import signal as sps

from perturbations import Chain, PerturbationError
from perturbations.ops.packet_loss import bursts_of, gilbert_elliott_pattern, random_pattern
from tests.conftest import CONF_DIR, REPO
from tests.test_perturbations import speech_like

SR = 16000

CODEC_SPECS: list[dict[str, Any]] = [
    {"op": "codec", "codec": "g711_mulaw"},
    {"op": "codec", "codec": "g711_alaw"},
    {"op": "codec", "codec": "g722"},
    {"op": "codec", "codec": "g726", "bitrate_kbps": 24},
    {"op": "codec", "codec": "gsm"},
    {"op": "codec", "codec": "mp3", "bitrate_kbps": 32},
    {"op": "codec", "codec": "opus", "bitrate_kbps": 12},
    {"op": "codec", "codec": "amr_nb", "bitrate_kbps": 7.95},
]
RANDOM_SPECS: list[dict[str, Any]] = [
    {"op": "packet_loss", "loss_rate": 0.3, "concealment": "silence"},
    {"op": "packet_loss", "loss_rate": 0.3, "concealment": "repeat"},
    {"op": "packet_loss", "loss_rate": 0.3, "concealment": "fade", "frame_ms": 10.0},
    {"op": "packet_loss", "model": "gilbert_elliott", "p": 0.2, "r": 0.3, "loss_good": 0.05, "loss_bad": 0.8},
    {"op": "volume_fluctuation", "depth_db": 12.0, "rate_hz": 4.0},
    {"op": "reverb", "rt60_s": 0.3, "drr_db": 0.0},
]
DETERMINISTIC_SPECS: list[dict[str, Any]] = [
    *CODEC_SPECS,
    {"op": "band_limit"},
    {"op": "band_limit", "low_hz": 0.0, "high_hz": 3000.0, "order": 8},
    {"op": "resample"},
    {"op": "resample", "target_rate": 11025},
    {"op": "clipping", "threshold": 0.3},
    {"op": "clipping", "threshold": 90.0, "mode": "percentile"},
]
ALL_SPECS = RANDOM_SPECS + DETERMINISTIC_SPECS


def spec_id(spec: dict[str, Any]) -> str:
    return "-".join(str(v) for v in spec.values())


def band_noise(n: int, sample_rate: int, seed: int = 0, lo: float = 300.0, hi: float = 3000.0) -> np.ndarray:
    sos = sps.butter(4, [lo, hi], btype="bandpass", fs=sample_rate, output="sos")
    x = sps.sosfilt(sos, np.random.default_rng(seed).standard_normal(n))
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


def run(spec: dict[str, Any], x: np.ndarray, sample_rate: int = SR, seed: int = 0) -> tuple[np.ndarray, list[dict]]:
    return Chain.from_specs([spec])(x, sample_rate, np.random.default_rng(seed))


def snr_db(reference: np.ndarray, test: np.ndarray) -> float:
    ref = reference.astype(np.float64)
    err = test.astype(np.float64) - ref
    return 10.0 * math.log10(np.mean(ref**2) / np.mean(err**2))


def lag_of(x: np.ndarray, y: np.ndarray, max_lag: int = 400) -> int:
    """Lag (samples) at which y best matches x; positive = y is late."""
    corr = sps.correlate(y.astype(np.float64), x.astype(np.float64), mode="full", method="fft")
    mid = x.shape[0] - 1
    window = corr[mid - max_lag : mid + max_lag + 1]
    return int(np.argmax(window)) - max_lag


def band_energy(x: np.ndarray, sample_rate: int, lo: float, hi: float) -> float:
    spectrum = np.abs(np.fft.rfft(x.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(x.shape[0], 1.0 / sample_rate)
    return float(spectrum[(freqs >= lo) & (freqs < hi)].sum())


# ---- properties of every op -------------------------------------------------------------------------------


def make_input(kind: str, n: int, peak: float, seed: int) -> np.ndarray:
    if kind == "silence":
        return np.zeros(n, np.float32)
    x = np.random.default_rng(seed).standard_normal(n)
    if kind == "full_scale":
        return np.sign(x).astype(np.float32)  # +-1 everywhere: the worst case for overshoot
    return (peak * x / max(np.max(np.abs(x)), 1e-12)).astype(np.float32)


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(1, 3000),
    peak=st.floats(0.0, 1.0),
    kind=st.sampled_from(["noise", "silence", "full_scale"]),
    sample_rate=st.sampled_from([8000, 16000, 22050]),
    seed=st.integers(0, 2**32 - 1),
)
def test_op_properties(spec: dict[str, Any], n: int, peak: float, kind: str, sample_rate: int, seed: int) -> None:
    x = make_input(kind, n, peak, seed)
    out, applied = run(spec, x, sample_rate, seed)
    assert out.dtype == np.float32 and out.shape == x.shape
    assert np.isfinite(out).all()
    assert np.max(np.abs(out)) <= 1.0
    if kind == "silence":
        # nothing invented out of silence (A-law has no zero code: its idle level is 8/32768, -72 dBFS)
        assert np.max(np.abs(out)) <= 1e-3
    assert applied and applied[0]["type"] == spec["op"]
    again, applied_again = run(spec, x, sample_rate, seed)
    assert np.array_equal(out, again) and applied == applied_again


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
@pytest.mark.parametrize("n", [1, 2, 3, 17, 50])
def test_tiny_inputs(spec: dict[str, Any], n: int) -> None:
    for x in (np.zeros(n, np.float32), np.linspace(-0.9, 0.9, n, dtype=np.float32)):
        out, _ = run(spec, x)
        assert out.shape == x.shape and out.dtype == np.float32 and np.isfinite(out).all()


@pytest.mark.parametrize("spec", RANDOM_SPECS, ids=spec_id)
def test_random_ops_depend_on_the_seed(spec: dict[str, Any]) -> None:
    x = speech_like(seconds=2.0)
    a, _ = run(spec, x, seed=1)
    b, _ = run(spec, x, seed=2)
    assert not np.array_equal(a, b)


def test_chain_spec_round_trip() -> None:
    chain = Chain.from_specs(ALL_SPECS)
    assert Chain.from_specs(chain.to_specs()) == chain


# ---- codec -------------------------------------------------------------------------------------------------

NARROWBAND = ["g711_mulaw", "g711_alaw", "g726", "gsm", "amr_nb"]


@pytest.mark.parametrize("codec", NARROWBAND)
def test_narrowband_codecs_remove_energy_above_4khz(codec: str) -> None:
    x = make_input("noise", SR, 0.3, 3)  # white: as much energy above 4 kHz as below
    out, applied = run({"op": "codec", "codec": codec}, x)
    assert applied[0]["params"]["codec_sample_rate"] == 8000
    ratio = band_energy(out, SR, 4400.0, 8000.0) / band_energy(x, SR, 4400.0, 8000.0)
    assert ratio < 3e-4  # > 35 dB down past the resampler's transition band
    assert band_energy(out, SR, 300.0, 3400.0) > 0.3 * band_energy(x, SR, 300.0, 3400.0)


@pytest.mark.parametrize("spec", CODEC_SPECS, ids=spec_id)
@pytest.mark.parametrize("sample_rate", [16000, 22050])
def test_codec_degrades_and_stays_aligned(spec: dict[str, Any], sample_rate: int) -> None:
    x = band_noise(sample_rate, sample_rate)  # in-band for every codec, so the loss is coding, not band limit
    out, applied = run(spec, x, sample_rate)
    params = applied[0]["params"]
    measured = snr_db(x, out)
    assert measured < 35.0  # it really went through a lossy codec
    assert params["snr_db"] == pytest.approx(measured, abs=1e-3)
    assert lag_of(x, out) == 0  # delay compensated: cross-correlation peak at lag 0
    assert params["codec"] == spec["codec"] and params["backend"] in ("numpy", "soundfile", "pyav")
    assert params["delay_compensated_samples"] >= 0


def test_codec_without_compensation_would_be_late() -> None:
    """The compensation has teeth: AMR-NB and G.722 really delay the stream, by what the op reports."""
    from perturbations.ops.codec import codec_rate, raw_roundtrip

    for codec, kbps in (("amr_nb", 12.2), ("g722", 64.0)):
        rate = codec_rate(codec, SR, kbps)
        x = band_noise(rate, rate)
        raw = raw_roundtrip(codec, x, rate, kbps)[: x.shape[0]]
        _, applied = run({"op": "codec", "codec": codec}, band_noise(SR, SR))
        delay = applied[0]["params"]["delay_compensated_samples"]
        assert delay > 0 and lag_of(x, raw) == delay


@pytest.mark.parametrize(
    ("worse", "better"),
    [
        ({"codec": "mp3", "bitrate_kbps": 16}, {"codec": "mp3", "bitrate_kbps": 64}),
        ({"codec": "opus", "bitrate_kbps": 8}, {"codec": "opus", "bitrate_kbps": 32}),
        ({"codec": "gsm"}, {"codec": "g711_mulaw"}),
        ({"codec": "amr_nb", "bitrate_kbps": 4.75}, {"codec": "amr_nb", "bitrate_kbps": 12.2}),
        ({"codec": "g726", "bitrate_kbps": 16}, {"codec": "g726", "bitrate_kbps": 40}),
    ],
)
def test_codec_severity_ordering(worse: dict[str, Any], better: dict[str, Any]) -> None:
    # Band noise, not the harmonic speech_like(): AMR's 80 Hz high-pass shifts the phase of a 120 Hz fundamental
    # and μ-law noise fills the gaps between harmonics, so waveform SNR on it says little about bitrate.
    x = band_noise(2 * SR, SR)
    bad, _ = run({"op": "codec", **worse}, x)
    good, _ = run({"op": "codec", **better}, x)
    assert snr_db(x, bad) + 2.0 < snr_db(x, good)


def test_mp3_rate_follows_the_bitrate() -> None:
    from perturbations.ops.codec import mp3_rate

    assert mp3_rate(16000, 32) == 16000
    assert mp3_rate(22050, 64) == 22050
    assert mp3_rate(48000, 16) == 24000  # MPEG-1 has no 16 kbit/s: the highest MPEG-2 rate
    assert mp3_rate(16000, 320) == 32000  # no MPEG-2 rate allows 320


def test_pyav_is_loaded_only_when_a_pyav_codec_runs() -> None:
    """PyAV's wheel bundles GPL-2.0 FFmpeg parts (docs/licences.md): importing perturbations, building a codec chain
    and running a numpy/soundfile codec never load it; an MP3 round trip does. A fresh interpreter, since this one
    may have loaded av already."""
    script = """
import sys
import numpy as np
import perturbations
from perturbations import Chain
assert "av" not in sys.modules, "import perturbations loaded av"
x = np.sin(np.arange(8000) * 0.3).astype(np.float32) * 0.5
rng = np.random.default_rng(1)
Chain.from_specs([{"op": "codec", "codec": "g711_mulaw"}, {"op": "codec", "codec": "gsm"}])(x, 8000, rng)
assert "av" not in sys.modules, "a mu-law/GSM codec loaded av"
Chain.from_specs([{"op": "codec", "codec": "mp3", "bitrate_kbps": 32}])(x, 8000, rng)
assert "av" in sys.modules, "an MP3 round trip ran without PyAV?"
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


# ---- packet loss -------------------------------------------------------------------------------------------


def test_random_loss_rate_and_bursts() -> None:
    rng = np.random.default_rng(0)
    lost = random_pattern(40000, 0.05, rng)
    assert lost.mean() == pytest.approx(0.05, abs=0.005)
    assert bursts_of(np.array([1, 1, 0, 1, 0, 0, 1, 1, 1], bool)) == [(0, 2), (3, 1), (6, 3)]


def test_gilbert_elliott_stationary_rate_and_burstiness() -> None:
    p, r, lg, lb = 0.02, 0.25, 0.01, 0.9
    lost = gilbert_elliott_pattern(200000, p, r, lg, lb, np.random.default_rng(1))
    assert lost.mean() == pytest.approx((r * lg + p * lb) / (p + r), abs=0.01)
    # simple Gilbert (loss only in Bad): mean burst = 1/r
    lost = gilbert_elliott_pattern(200000, 0.0175, 1 / 3, 0.0, 1.0, np.random.default_rng(2))
    assert np.mean([b for _, b in bursts_of(lost)]) == pytest.approx(3.0, rel=0.08)


def test_op_realised_rate_and_ge_is_burstier_than_random() -> None:
    x = make_input("noise", 8000 * 400, 0.3, 0)  # 400 s at 8 kHz = 20,000 frames of 20 ms
    base = {"op": "packet_loss", "loss_rate": 0.05, "concealment": "silence"}
    _, rnd = run(base, x, 8000)
    _, ge = run({**base, "model": "gilbert_elliott", "mean_burst_frames": 3.0}, x, 8000)
    rnd_p, ge_p = rnd[0]["params"], ge[0]["params"]
    assert rnd_p["frames"] == 20000 and rnd_p["realised_loss_rate"] == pytest.approx(0.05, abs=0.006)
    assert ge_p["realised_loss_rate"] == pytest.approx(0.05, abs=0.015)
    assert ge_p["mean_burst_frames"] > 2.0 * rnd_p["mean_burst_frames"]
    assert rnd_p["lost"] == sum(b for _, b in rnd_p["bursts"])
    assert len(rnd) == 1 + len(rnd_p["bursts"])  # one entry per burst after the summary
    first = rnd[1]
    assert first["type"] == "packet_loss_burst"
    assert first["start_ms"] == pytest.approx(20.0 * rnd_p["bursts"][0][0])
    assert first["end_ms"] - first["start_ms"] == pytest.approx(20.0 * rnd_p["bursts"][0][1])


def _lost_mask(params: dict[str, Any], n: int) -> np.ndarray:
    frame = params["frame_samples"]
    mask = np.zeros(n, bool)
    for start, count in params["bursts"]:
        mask[start * frame : (start + count) * frame] = True
    return mask


def test_concealments_differ_and_silence_zeroes_exactly_the_lost_frames() -> None:
    t = np.arange(3 * SR) / SR
    x = (0.5 * np.sin(2 * np.pi * 200.0 * t + 0.3)).astype(np.float32)
    outs: dict[str, np.ndarray] = {}
    for mode in ("silence", "repeat", "fade"):
        spec = {"op": "packet_loss", "model": "gilbert_elliott", "p": 0.05, "r": 0.3, "concealment": mode}
        outs[mode], applied = run(spec, x, seed=7)  # same seed: same loss pattern for all three
        params = applied[0]["params"]
        assert params["lost"] > 0
    mask = _lost_mask(params, x.shape[0])
    assert np.all(outs["silence"][mask] == 0.0) and np.array_equal(outs["silence"][~mask], x[~mask])
    assert not np.array_equal(outs["repeat"], outs["fade"])
    assert not np.array_equal(outs["repeat"], outs["silence"])
    # repeat: inside a lost frame, away from the crossfades, the previous frame's samples come back
    frame, xf = params["frame_samples"], round(0.0025 * SR)
    start = next(s for s, _ in params["bursts"] if s > 0) * frame
    np.testing.assert_array_equal(outs["repeat"][start : start + frame - 2 * xf], x[start - frame + xf : start - xf])
    # fade is repeat under a decaying gain: never louder, quieter over multi-frame bursts
    assert np.all(np.abs(outs["fade"][mask]) <= np.abs(outs["repeat"][mask]) + 1e-6)
    long_bursts = [(s, c) for s, c in params["bursts"] if c >= 3 and s > 0]
    assert long_bursts
    s, c = long_bursts[0]
    last = slice((s + c - 1) * frame, (s + c) * frame)
    assert np.max(np.abs(outs["fade"][last])) < 0.5 * np.max(np.abs(outs["repeat"][last]))
    # crossfades: repeat/fade never jump more than the sine's slope plus a ramp step; silence gating does
    slope = 0.5 * 2 * np.pi * 200.0 / SR
    assert np.max(np.abs(np.diff(outs["repeat"]))) < slope + 1.0 / xf
    assert np.max(np.abs(np.diff(outs["fade"]))) < slope + 1.0 / xf
    assert np.max(np.abs(np.diff(outs["silence"]))) > 3 * slope


def test_received_frames_away_from_bursts_are_untouched() -> None:
    x = speech_like(seconds=2.0)
    out, applied = run({"op": "packet_loss", "loss_rate": 0.1, "concealment": "repeat"}, x, seed=3)
    params = applied[0]["params"]
    frame = params["frame_samples"]
    near = _lost_mask(params, x.shape[0])
    near = np.convolve(near, np.ones(2 * frame + 1), mode="same") > 0  # lost frames +- one frame
    assert np.array_equal(out[~near], x[~near])


# ---- volume fluctuation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("depth_db", "rate_hz"), [(6.0, 0.5), (20.0, 3.0), (1.0, 10.0)])
def test_volume_fluctuation_depth(depth_db: float, rate_hz: float) -> None:
    x = np.full(10 * SR, 0.5, np.float32)
    out, applied = run({"op": "volume_fluctuation", "depth_db": depth_db, "rate_hz": rate_hz}, x, seed=4)
    gain_db = 20.0 * np.log10(out.astype(np.float64) / 0.5)
    params = applied[0]["params"]
    assert gain_db.max() == pytest.approx(0.0, abs=1e-3)
    assert gain_db.min() == pytest.approx(-depth_db, abs=1e-3)
    assert params["gain_db_min"] == pytest.approx(gain_db.min(), abs=1e-3)
    assert params["realised_depth_db"] == pytest.approx(depth_db, abs=1e-3)
    # smooth: no per-sample step larger than a fast sinusoid at the top of the range would make
    assert np.max(np.abs(np.diff(gain_db))) < depth_db * 2 * np.pi * 2 * rate_hz / SR * 2


def test_volume_fluctuation_short_clip_gets_a_partial_swing() -> None:
    x = np.full(SR // 10, 0.5, np.float32)  # 100 ms at 0.5 Hz: a twentieth of a period
    _, applied = run({"op": "volume_fluctuation", "depth_db": 10.0, "rate_hz": 0.5}, x)
    assert applied[0]["params"]["realised_depth_db"] == pytest.approx(0.5, abs=1e-3)


# ---- band limit, resample, clipping, reverb ----------------------------------------------------------------


def butterworth_bandpass_db(f: float, lo: float, hi: float, order: int, fs: float) -> float:
    """Independent derivation: analogue Butterworth band-pass magnitude at the bilinear-prewarped frequency."""

    def warp(v: float) -> float:
        return 2.0 * fs * math.tan(math.pi * v / fs)

    w, wl, wh = warp(f), warp(lo), warp(hi)
    omega = (w * w - wl * wh) / (w * (wh - wl))  # low-pass prototype frequency
    return -10.0 * math.log10(1.0 + omega ** (2 * order))


@pytest.mark.parametrize("freq", [100.0, 200.0, 1000.0, 3000.0, 5000.0, 7000.0])
def test_band_limit_attenuation_matches_butterworth(freq: float) -> None:
    t = np.arange(2 * SR) / SR
    x = (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    out, _ = run({"op": "band_limit", "low_hz": 300.0, "high_hz": 3400.0, "order": 4}, x)
    steady = slice(SR // 2, None)  # after the filter's transient
    measured = 20.0 * math.log10(np.std(out[steady]) / np.std(x[steady]))
    assert measured == pytest.approx(butterworth_bandpass_db(freq, 300.0, 3400.0, 4, SR), abs=0.3)
    if freq in (100.0, 7000.0):
        assert measured < -20.0


def test_resample_removes_content_above_the_target_nyquist() -> None:
    x = make_input("noise", SR, 0.3, 5)
    out, _ = run({"op": "resample", "target_rate": 8000}, x)
    assert band_energy(out, SR, 4400.0, 8000.0) < 3e-4 * band_energy(x, SR, 4400.0, 8000.0)
    assert band_energy(out, SR, 100.0, 3500.0) == pytest.approx(band_energy(x, SR, 100.0, 3500.0), rel=0.05)
    assert lag_of(x, out) == 0


@pytest.mark.parametrize(
    ("spec", "level"),
    [({"threshold": 0.2}, lambda x: 0.2), ({"threshold": 80.0, "mode": "percentile"}, lambda x: None)],
)
def test_clipping_reports_what_it_clipped(spec: dict[str, Any], level: Any) -> None:
    x = speech_like(peak=0.8)
    out, applied = run({"op": "clipping", **spec}, x)
    params = applied[0]["params"]
    expected_level = level(x) if level(x) is not None else float(np.percentile(np.abs(x), 80.0))
    assert params["clip_level"] == pytest.approx(expected_level)
    clipped = np.abs(x) > expected_level
    assert params["clipped_samples"] == int(clipped.sum()) > 0
    assert params["fraction_clipped"] == pytest.approx(clipped.mean())
    assert np.max(np.abs(out)) <= expected_level + 1e-7
    np.testing.assert_array_equal(out[~clipped], x[~clipped])


@pytest.mark.parametrize(("rt60", "drr"), [(0.3, 5.0), (0.8, -3.0)])
def test_reverb_rt60_drr_and_alignment(rt60: float, drr: float) -> None:
    x = band_noise(2 * SR, SR)
    out, applied = run({"op": "reverb", "rt60_s": rt60, "drr_db": drr}, x, seed=9)
    params = applied[0]["params"]
    assert params["rt60_s_realised"] == pytest.approx(rt60, rel=0.1)
    assert params["drr_db_realised"] == pytest.approx(drr, abs=1e-6)
    assert lag_of(x, out) == 0  # direct path at lag 0
    wet = out.astype(np.float64) - x * 10 ** (params["limiter_gain_db"] / 20)
    assert np.mean(wet**2) > 0.05 * np.mean(x.astype(np.float64) ** 2)  # a real reverberant tail was added


# ---- configs -----------------------------------------------------------------------------------------------

MY_CONFIGS = [
    "connection_voip",
    "codec_g711",
    "codec_gsm",
    "codec_mp3",
    "packet_loss",
    "phone_line",
    "noise_cafe_g711_loss5",
]


def load_perturb(name: str, **overrides: Any) -> dict[str, Any]:
    node = OmegaConf.load(Path(CONF_DIR) / "perturb" / f"{name}.yaml")
    root = OmegaConf.create({"perturb": node})
    for key, value in overrides.items():
        OmegaConf.update(root, f"perturb.{key}", value)
    return OmegaConf.to_container(root, resolve=True)["perturb"]  # type: ignore[index,return-value]


@pytest.mark.parametrize("name", MY_CONFIGS)
def test_config_builds_a_valid_chain(name: str) -> None:
    from evalkit.config.schema import PerturbConfig

    cfg = load_perturb(name)
    assert cfg["name"] == name
    chain = Chain.from_specs(cfg["chain"])
    assert len(chain) == len(cfg["chain"]) > 0
    PerturbConfig.model_validate(cfg)
    out, applied = chain(speech_like(), SR, np.random.default_rng(0))
    assert out.shape == speech_like().shape and applied


def test_connection_degradation_is_last() -> None:
    ops = [spec["op"] for spec in load_perturb("noise_cafe_g711_loss5")["chain"]]
    assert ops == ["noise", "codec", "packet_loss"]


def test_mp3_bitrate_is_sweepable() -> None:
    cfg = load_perturb("codec_mp3", bitrate_kbps=16)
    assert Chain.from_specs(cfg["chain"]).ops[0].bitrate_kbps == 16
    with pytest.raises(PerturbationError, match="bitrate_kbps"):
        Chain.from_specs(load_perturb("codec_mp3", bitrate_kbps=17)["chain"])


# ---- bad specs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ({"op": "codec", "codec": "speex"}, ["chain[0] (codec)", "codec must be one of", "'g711_mulaw'"]),
        ({"op": "codec", "codec": "amr_nb", "bitrate_kbps": 8}, ["bitrate_kbps", "amr_nb", "4.75", "12.2"]),
        ({"op": "codec", "codec": "g711_mulaw", "bitrate_kbps": 32}, ["bitrate_kbps", "g711_mulaw", "64"]),
        ({"op": "codec", "codec": "mp3", "bitrate_kbps": 33}, ["bitrate_kbps", "mp3", "320"]),
        ({"op": "codec", "codec": "opus", "bitrate_kbps": 4}, ["bitrate_kbps", "opus", "6", "510"]),
        ({"op": "packet_loss", "loss_rate": 1.5}, ["(packet_loss)", "loss_rate", "less than or equal to 1"]),
        ({"op": "packet_loss", "model": "gilbert_elliott"}, ["p and r", "loss_rate and mean_burst_frames"]),
        ({"op": "packet_loss", "p": 0.1, "r": 0.5}, ["gilbert_elliott only"]),
        ({"op": "packet_loss", "concealment": "magic"}, ["concealment", "'repeat'"]),
        ({"op": "clipping", "threshold": 50.0}, ["threshold", "full_scale"]),
        ({"op": "band_limit", "low_hz": 4000.0, "high_hz": 3400.0}, ["low_hz must be below high_hz"]),
        ({"op": "volume_fluctuation", "depth_db": -1.0}, ["depth_db", "between 0 and 40"]),
        ({"op": "reverb", "rt60_s": 10.0}, ["rt60_s", "between 0.05 and 3"]),
    ],
)
def test_bad_specs_name_the_field(spec: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(PerturbationError) as info:
        Chain.from_specs([spec])
    for fragment in fragments:
        assert fragment in str(info.value)


@pytest.mark.parametrize("sample_rate", [8000, 16000, 22050])
@pytest.mark.parametrize("n", [1, 2, 79, 80, 81, 1000, 48000])
def test_gain_range_from_ramp_ends_equals_the_full_scan(sample_rate: int, n: int) -> None:
    """volume_fluctuation reports min/max from the ramp ends only; the rounding of a + (b - a)·f is monotone in f,
    so that is exactly the min/max over every sample."""
    from perturbations.ops.channel import control_step, gain_curve_db, gain_per_sample, gain_range

    for seed in range(20):
        gain = gain_per_sample(gain_curve_db(n, sample_rate, 12.0, 4.0, np.random.default_rng(seed)), n, sample_rate)
        assert gain_range(gain, control_step(sample_rate)) == (float(gain.min()), float(gain.max()))


def test_ops_without_randomness_get_no_generator_and_keep_the_others_streams() -> None:
    """Deterministic ops (codec, band_limit, resample, clipping) declare draws = False: the chain builds them no
    generator, every op's seed is still drawn up front (the ops after them draw what they drew before), and an op
    that would draw anyway fails loudly."""
    from perturbations.chain import NO_DRAWS

    x = speech_like(SR, 1.0)
    specs = [{"op": "clipping", "threshold": 0.2}, {"op": "packet_loss", "loss_rate": 0.3}]
    out, _ = Chain.from_specs(specs)(x, SR, np.random.default_rng(5))
    seeds = np.random.default_rng(5).integers(0, 2**63, size=2)
    clipped, _ = Chain.from_specs(specs[:1])(x, SR, np.random.default_rng(0))
    expected, _ = Chain.from_specs(specs[1:]).ops[0].run_checked(clipped, SR, np.random.default_rng(int(seeds[1])))
    np.testing.assert_array_equal(out, expected)
    for name in ("codec", "band_limit", "resample", "clipping"):
        assert Chain.from_specs([{"op": name}]).ops[0].draws is False
    assert all(Chain.from_specs(RANDOM_SPECS).ops[i].draws for i in range(len(RANDOM_SPECS)))
    with pytest.raises(PerturbationError, match="draws = False"):
        NO_DRAWS.random(3)
