"""Time-varying realism: SNR drift over the call, burst events, dynamic muffling, out-of-turn speech."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf
from scipy import stats

from perturbations import Chain, ClipContext, PerturbationError, generate, register_speech_source
from perturbations.event_sounds import available_event_sounds, synthesize_event
from perturbations.ops.events import DEFAULT_REMARKS, DEFAULT_TICS, call_onsets
from perturbations.ops.noise import drift_curve_db
from perturbations.speech_sources import _SOURCES, synthesize_speech
from tests.conftest import REPO
from tests.test_perturbations import power, realised_snr, speech_like

SR = 16000


def run(spec: dict[str, Any], audio: np.ndarray, seed: int = 0, sample_rate: int = SR, **context: Any) -> Any:
    return Chain.from_specs([spec])(audio, sample_rate, np.random.default_rng(seed), ClipContext(**context))


def spans(entries: list[dict[str, Any]], kind: str, sample_rate: int = SR) -> list[tuple[int, int]]:
    return [
        (round(e["start_ms"] * sample_rate / 1000), round(e["end_ms"] * sample_rate / 1000))
        for e in entries
        if e["type"] == kind
    ]


def outside(n: int, ranges: list[tuple[int, int]]) -> np.ndarray:
    mask = np.ones(n, dtype=bool)
    for lo, hi in ranges:
        mask[lo:hi] = False
    return mask


def with_pauses(sample_rate: int = SR, pause_s: float = 1.5, parts: int = 4) -> np.ndarray:
    """Speech-like bursts separated by long, truly silent pauses (room for a side remark)."""
    chunk = speech_like(sample_rate, seconds=1.2)
    gap = np.zeros(round(pause_s * sample_rate), dtype=np.float32)
    return np.concatenate([x for _ in range(parts) for x in (chunk, gap)])


# ---------------------------------------------------------------------------------------------- SNR drift


def drift_gain_db(clean: np.ndarray, out: np.ndarray, params: dict[str, Any], sample_rate: int = SR) -> np.ndarray:
    """Per-sample noise gain (dB) actually applied: (out - clean) / the regenerated noise, where |noise| is not
    tiny (float32 rounding), else NaN."""
    noise = generate(params["environment"], len(clean), sample_rate, np.random.default_rng(params["noise_seed"]))
    noise = noise.astype(np.float64)
    residual = out.astype(np.float64) - clean.astype(np.float64)
    gain = np.full(len(clean), np.nan)
    ok = np.abs(noise) > 0.05
    gain[ok] = 20 * np.log10(np.abs(residual[ok] / noise[ok]))
    return gain


def test_drift_off_is_the_old_op_exactly() -> None:
    clean = speech_like()
    plain, [plain_entry] = run({"op": "noise", "snr_db": 10}, clean, seed=4)
    explicit, [entry] = run(
        {"op": "noise", "snr_db": 10, "drift_db": 0, "drift_period_s": 7}, clean, seed=4, offset_ms=9000, call_seed=3
    )
    assert plain.tobytes() == explicit.tobytes() and plain_entry == entry
    assert not any(key.startswith("drift") for key in entry["params"])
    assert "drift_db" not in Chain.from_specs([{"op": "noise", "drift_db": 0}]).to_specs()[0]
    assert Chain.from_specs([{"op": "noise", "drift_db": 3}]).to_specs()[0]["drift_db"] == 3.0


def test_drift_is_continuous_across_consecutive_clips_of_a_call() -> None:
    clean = speech_like(seconds=2.0)
    spec = {"op": "noise", "environment": "white", "snr_db": 10, "drift_db": 10, "drift_period_s": 2.0}
    first, [e1] = run(spec, clean, seed=1, offset_ms=0.0, call_seed=11)
    second, [e2] = run(spec, clean, seed=2, offset_ms=2000.0, call_seed=11)
    assert e1["params"]["noise_gain_db"] == pytest.approx(e2["params"]["noise_gain_db"])  # same speech power
    g1, g2 = drift_gain_db(clean, first, e1["params"]), drift_gain_db(clean, second, e2["params"])
    window = round(0.01 * SR)
    end_1, start_1 = np.nanmedian(g1[-window:]), np.nanmedian(g1[:window])
    start_2 = np.nanmedian(g2[:window])
    assert abs(end_1 - start_2) < 0.2  # the level carries over from one turn to the next ...
    assert abs(end_1 - start_1) > 1.0  # ... and it did drift, so a restart at clip time 0 would be seen
    # The gain follows d(t) of absolute call time sample by sample (gain at d = 0 plus the curve).
    times = 2.0 + np.arange(len(clean)) / SR
    zlib_stream = __import__("zlib").crc32(b"white")
    expected = e2["params"]["noise_gain_db"] + drift_curve_db(11, times, 10.0, 2.0, zlib_stream)
    ok = ~np.isnan(g2)
    assert np.max(np.abs(g2[ok] - expected[ok])) < 0.01
    assert e2["params"]["drift_db_start"] == pytest.approx(expected[0] - e2["params"]["noise_gain_db"])
    assert e1["params"]["drift_db_end"] == pytest.approx(e2["params"]["drift_db_start"], abs=0.05)


def test_drift_does_not_depend_on_turn_order_or_clip_rng() -> None:
    clip_a, clip_b = speech_like(seconds=1.0), speech_like(seconds=1.5, peak=0.5)
    spec = {"op": "noise", "snr_db": 5, "drift_db": 8, "drift_period_s": 3.0}
    in_order = [
        run(spec, clip_a, seed=1, offset_ms=500, call_seed=9),
        run(spec, clip_b, 2, offset_ms=4000, call_seed=9),
    ]
    reversed_ = [run(spec, clip_b, 2, offset_ms=4000, call_seed=9), run(spec, clip_a, 1, offset_ms=500, call_seed=9)]
    assert in_order[0][0].tobytes() == reversed_[1][0].tobytes() and in_order[1][1] == reversed_[0][1]
    # Another clip rng: different noise, same drift (the curve belongs to the call); another call: other drift.
    other_rng = run(spec, clip_b, seed=77, offset_ms=4000, call_seed=9)[1][0]["params"]
    other_call = run(spec, clip_b, seed=2, offset_ms=4000, call_seed=10)[1][0]["params"]
    same = in_order[1][1][0]["params"]
    assert other_rng["noise_seed"] != same["noise_seed"]
    assert other_rng["drift_db_mean"] == same["drift_db_mean"] and other_call["drift_db_mean"] != same["drift_db_mean"]


def test_realised_drift_range_matches_drift_db() -> None:
    times = np.arange(0.0, 3600.0, 0.01)
    for drift_db in (2.0, 6.0, 15.0):
        curve = drift_curve_db(5, times, drift_db, 10.0)
        assert np.max(np.abs(curve)) <= drift_db + 1e-9
        assert curve.max() > 0.95 * drift_db and curve.min() < -0.95 * drift_db
        assert np.max(np.abs(np.diff(curve))) < drift_db * 0.01  # smooth: < 1.9 x drift_db per s at most
    # The op reports the range it realised on a long clip, and the instantaneous SNR range that follows.
    # 120 s at period 5 s = 48 independent knot levels, uniform in [-6, 6]: P(none beyond +-4.2) ~ 4e-4.
    clean = speech_like(8000, seconds=120.0)
    spec = {"op": "noise", "snr_db": 20, "drift_db": 6, "drift_period_s": 5}
    _, [entry] = run(spec, clean, sample_rate=8000, call_seed=2)
    p = entry["params"]
    assert -6.0 <= p["drift_db_min"] < -4.2 and 4.2 < p["drift_db_max"] <= 6.0
    assert p["snr_db_min"] == pytest.approx(20 - p["drift_db_max"]) and p["snr_db_max"] == pytest.approx(
        20 - p["drift_db_min"]
    )


@settings(max_examples=25, deadline=None)
@given(
    snr_db=st.floats(-5.0, 40.0),
    drift_db=st.floats(0.5, 20.0),
    period=st.floats(1.0, 60.0),
    offset_ms=st.floats(0.0, 3.6e6),
    call_seed=st.one_of(st.none(), st.integers(0, 2**40)),
    mode=st.sampled_from(["active", "whole"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_drift_clip_average_snr_is_reported_exactly(
    snr_db: float, drift_db: float, period: float, offset_ms: float, call_seed: int | None, mode: str, seed: int
) -> None:
    clean = speech_like(seconds=2.0)
    spec = {"op": "noise", "snr_db": snr_db, "drift_db": drift_db, "drift_period_s": period, "signal_power": mode}
    out, [entry] = run(spec, clean, seed, offset_ms=offset_ms, call_seed=call_seed)
    p = entry["params"]
    assert abs(p["snr_db_measured"] - p["snr_db_clip"]) < 1e-3  # float32 rounding only
    assert abs(realised_snr(clean, out, p, SR) - p["snr_db_clip"]) < 0.05  # independent measurement
    assert p["snr_db_requested"] == snr_db and p["drift_seed_from"] == ("clip" if call_seed is None else "call")
    assert p["snr_db_min"] - 1e-6 <= p["snr_db_clip"] <= p["snr_db_max"] + 1e-6  # a power mean of the curve
    assert np.max(np.abs(out)) <= 1.0 and p["limited"] == (p["limiter_gain_db"] < 0)
    if call_seed is None:
        assert run(spec, clean, seed, offset_ms=offset_ms)[0].tobytes() == out.tobytes()


# ------------------------------------------------------------------------------------------------ events


def test_call_onsets_are_a_poisson_process_of_the_given_rate() -> None:
    onsets = [t for t, _ in call_onsets([1, 2, 3], 6.0, 0.0, 3600.0)]
    assert abs(len(onsets) - 360) < 4 * math.sqrt(360)
    gaps = np.diff(onsets)
    assert stats.kstest(gaps, "expon", args=(0, 10.0)).pvalue > 0.001  # exponential inter-arrivals, mean 10 s
    # Any window of the process is the same whether drawn alone or as part of a longer one.
    window = [t for t, _ in call_onsets([1, 2, 3], 6.0, 1234.5, 1300.0)]
    assert window == [t for t in onsets if 1234.5 <= t < 1300.0]


def test_event_count_over_a_long_clip_matches_the_rate() -> None:
    clean = speech_like(8000, seconds=240.0)
    _, entries = run({"op": "events", "rate_per_min": 30}, clean, sample_rate=8000, call_seed=5)
    onsets = [e for e in entries if e["type"] == "event" and e["params"]["truncated"] in (None, "end")]
    assert abs(len(onsets) - 120) < 3.5 * math.sqrt(120)
    [mix] = [e for e in entries if e["type"] == "events_mix"]
    assert mix["params"]["n_events"] == len([e for e in entries if e["type"] == "event"])


def test_events_stay_inside_their_spans_at_the_drawn_snr() -> None:
    clean = speech_like(seconds=30.0, peak=0.2)
    spec = {"op": "events", "rate_per_min": 12, "snr_db_min": 5, "snr_db_max": 20, "types": available_event_sounds()}
    out, entries = run(spec, clean, call_seed=21)
    events = [e for e in entries if e["type"] == "event"]
    ranges = spans(entries, "event")
    assert len(events) >= 3 and not entries[-1]["params"]["limited"]
    diff = out.astype(np.float64) - clean
    assert not np.any(diff[outside(len(clean), ranges)])  # nothing outside the spans changes, bit for bit
    speech_power = power(clean, SR, "active")
    checked = 0
    for i, (entry, (lo, hi)) in enumerate(zip(events, ranges, strict=True)):
        assert np.mean(diff[lo : lo + max(1, (hi - lo) // 4)] ** 2) > 0  # energy is where the span says
        overlaps = any(j != i and lo < h and s < hi for j, (s, h) in enumerate(ranges))
        if overlaps or entry["params"]["truncated"]:
            continue
        realised = 10 * np.log10(speech_power / np.mean(diff[lo:hi] ** 2))
        assert 5 - 0.05 < realised < 20 + 0.05 and realised == pytest.approx(entry["params"]["snr_db"], abs=0.05)
        assert entry["params"]["snr_db_measured"] == pytest.approx(entry["params"]["snr_db"], abs=1e-6)
        checked += 1
    assert checked >= 2


def test_event_straddling_two_turns_continues_in_the_second() -> None:
    clean = speech_like(seconds=3.0)
    for call_seed in range(200):
        first = run({"op": "events", "rate_per_min": 30}, clean, call_seed=call_seed)[1]
        cut = [e for e in first if e["type"] == "event" and e["params"]["truncated"] == "end"]
        if cut:
            break
    else:
        pytest.fail("no event straddled the turn boundary in 200 calls")
    second = run({"op": "events", "rate_per_min": 30}, clean, seed=9, offset_ms=3000.0, call_seed=call_seed)[1]
    [tail] = [
        e for e in second if e["type"] == "event" and e["params"]["call_time_ms"] == cut[0]["params"]["call_time_ms"]
    ]
    assert tail["params"]["truncated"] == "start" and tail["start_ms"] == 0.0
    assert tail["params"]["event_type"] == cut[0]["params"]["event_type"]
    shown = (cut[0]["end_ms"] - cut[0]["start_ms"]) + tail["end_ms"]
    assert shown == pytest.approx(cut[0]["params"]["duration_ms"], abs=0.2)


def test_loud_events_are_limited_not_clipped() -> None:
    clean = speech_like(seconds=20.0, peak=0.95)
    out, entries = run({"op": "events", "rate_per_min": 20, "snr_db_min": -10, "snr_db_max": -10}, clean, call_seed=4)
    mix = entries[-1]["params"]
    assert mix["limited"] is True and mix["limiter_gain_db"] < 0 and np.max(np.abs(out)) <= 1.0
    gain = 10 ** (mix["limiter_gain_db"] / 20)
    rest = outside(len(clean), spans(entries, "event"))
    np.testing.assert_allclose(out[rest], gain * clean[rest], atol=1e-6)


def test_event_sounds_are_distinct_and_band_limited() -> None:
    for rate in (8000, 16000, 44100):
        for name in available_event_sounds():
            x = synthesize_event(name, rate, np.random.default_rng(3))
            assert 0.05 * rate < len(x) <= 2.0 * rate and np.max(np.abs(x)) == pytest.approx(1.0)
            assert np.isfinite(x).all()
    # Each recipe has its own spectral signature: dominant frequency regions differ between recipes.
    centroids = {}
    for name in available_event_sounds():
        x = synthesize_event(name, SR, np.random.default_rng(0))
        spectrum = np.abs(np.fft.rfft(x)) ** 2
        freqs = np.fft.rfftfreq(len(x), 1 / SR)
        centroids[name] = float((spectrum * freqs).sum() / spectrum.sum())
    assert centroids["door_slam"] < centroids["horn"] < centroids["dish_crash"]
    assert centroids["phone_ring"] > 900


# ------------------------------------------------------------------------------------------------ muffle


def band_db(x: np.ndarray, low: float, high: float, sample_rate: int = SR) -> float:
    spectrum = np.abs(np.fft.rfft(x.astype(np.float64) * np.hanning(len(x)))) ** 2
    freqs = np.fft.rfftfreq(len(x), 1 / sample_rate)
    return 10 * np.log10(spectrum[(freqs >= low) & (freqs < high)].sum())


def test_muffle_cuts_high_frequencies_only_inside_its_segments() -> None:
    noise = (0.1 * np.random.default_rng(0).standard_normal(30 * SR)).astype(np.float32)
    spec = {"op": "muffle", "rate_per_min": 10, "attenuation_db_min": 6, "attenuation_db_max": 6}
    out, entries = run(spec, noise, call_seed=3)
    ranges = spans(entries, "muffle")
    assert len(ranges) >= 2
    assert out[outside(len(noise), ranges)].tobytes() == noise[outside(len(noise), ranges)].tobytes()
    fade = round(0.02 * SR)
    for entry, (lo, hi) in zip(entries, ranges, strict=True):
        if any(s < hi and lo < h for s, h in ranges if (s, h) != (lo, hi)) or hi - lo < 4 * fade:
            continue
        inner = slice(lo + fade, hi - fade)
        cutoff = entry["params"]["cutoff_hz"]
        assert 500 <= cutoff <= 1500 and entry["params"]["attenuation_db"] == 6
        high = band_db(noise[inner], 3000, 8000) - band_db(out[inner], 3000, 8000)
        low = band_db(noise[inner], 50, 200) - band_db(out[inner], 50, 200)
        assert high > 30 and low == pytest.approx(6.0, abs=1.0)


def test_muffle_crossfades_without_clicks() -> None:
    t = np.arange(20 * SR) / SR
    tone = (0.5 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)  # below every cutoff: only the level changes
    spec = {"op": "muffle", "rate_per_min": 20, "attenuation_db_min": 20, "attenuation_db_max": 20}
    out, entries = run(spec, tone, call_seed=8)
    assert entries and np.max(np.abs(out)) <= 0.5 + 1e-6
    second = lambda x: np.max(np.abs(np.diff(x.astype(np.float64), 2)))  # noqa: E731
    assert second(out) < 1.5 * second(tone)  # a hard switch would jump by ~0.45 in one sample
    hard = run({**spec, "fade_ms": 1}, tone, call_seed=8)[0]
    assert second(hard) > 3 * second(tone)  # the measure does see a click when the fade is too short


# ------------------------------------------------------------------------------------------ out of turn


def test_out_of_turn_speech_goes_into_pauses_at_its_level() -> None:
    clean = with_pauses()
    spec = {"op": "out_of_turn_speech", "tic_rate_per_min": 20, "remark_rate_per_min": 10, "placement": "pauses"}
    out, entries = run(spec, clean, seed=3)
    inserts = [e for e in entries if e["type"] == "out_of_turn_speech"]
    ranges = spans(entries, "out_of_turn_speech")
    assert len(inserts) >= 2 and {e["params"]["kind"] for e in inserts} <= {"tic", "remark"}
    diff = out.astype(np.float64) - clean
    assert not np.any(diff[outside(len(clean), ranges)])
    speech_power = power(clean, SR, "active")
    for entry, (lo, hi) in zip(inserts, ranges, strict=True):
        p = entry["params"]
        assert p["in_pause"] and not np.any(clean[lo:hi])  # really in a pause
        assert p["text"] in DEFAULT_TICS + DEFAULT_REMARKS
        level = 10 * np.log10(np.mean(diff[lo:hi] ** 2) / speech_power)
        assert -20.05 < level < -7.95 and level == pytest.approx(p["level_db"], abs=0.05)
    assert entries[-1]["type"] == "out_of_turn_mix" and entries[-1]["params"]["n_inserted"] == len(inserts)


def test_out_of_turn_overlap_and_pause_modes() -> None:
    t = np.arange(4 * SR) / SR
    hum = (0.3 * np.sin(2 * np.pi * 150 * t)).astype(np.float32)  # no pauses at all
    spec = {"op": "out_of_turn_speech", "tic_rate_per_min": 60, "remark_rate_per_min": 30}
    strict = run({**spec, "placement": "pauses"}, hum, seed=1)[1][-1]["params"]
    assert strict["n_inserted"] == 0 and strict["n_dropped_no_pause"] > 0
    for placement in ("overlap", "prefer_pauses"):
        out, entries = run({**spec, "placement": placement}, hum, seed=1)
        inserts = [e for e in entries if e["type"] == "out_of_turn_speech"]
        assert inserts and not any(e["params"]["in_pause"] for e in inserts)
        assert not np.any((out - hum)[outside(len(hum), spans(entries, "out_of_turn_speech"))])


def test_speech_source_is_checked_when_the_op_runs_and_is_pluggable() -> None:
    chain = Chain.from_specs([{"op": "out_of_turn_speech", "source": "test_source", "tic_rate_per_min": 60}])
    with pytest.raises(PerturbationError) as info:
        chain(with_pauses(), SR, np.random.default_rng(0))
    for fragment in ("source", "'test_source'", "registered speech sources", "babble"):
        assert fragment in str(info.value)
    calls: list[str] = []

    def tone(text: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
        calls.append(text)
        return np.sin(np.arange(round(0.2 * sample_rate)) * 0.3).astype(np.float32)

    register_speech_source("test_source", tone)
    try:
        _, entries = chain(with_pauses(), SR, np.random.default_rng(0))
        spoken = [e for e in entries if e["type"] == "out_of_turn_speech" and e["params"]["source"] == "test_source"]
        assert spoken and calls and all(e["params"]["text"] in calls for e in spoken)
    finally:
        _SOURCES.pop("test_source", None)


def test_builtin_talker_follows_the_text() -> None:
    rng = np.random.default_rng
    short, long = (
        synthesize_speech("babble", "um", SR, rng(0)),
        synthesize_speech("babble", "hold on, honey, I'm on the phone", SR, rng(0)),
    )
    assert len(long) > 4 * len(short)
    spectrum = np.abs(np.fft.rfft(long)) ** 2
    freqs = np.fft.rfftfreq(len(long), 1 / SR)
    assert spectrum[(freqs > 80) & (freqs < 4000)].sum() > 0.9 * spectrum.sum()  # speech band
    assert synthesize_speech("babble", "um", SR, rng(0)).tobytes() == short.tobytes()


# ------------------------------------------------------------------------------------------------ all ops

ALL_SPECS = [
    {"op": "noise", "snr_db": 5, "drift_db": 10, "drift_period_s": 1.0},
    {"op": "events", "rate_per_min": 120, "snr_db_min": -10, "snr_db_max": 40, "types": available_event_sounds()},
    {"op": "muffle", "rate_per_min": 60, "duration_s_min": 0.05, "attenuation_db_min": 0, "attenuation_db_max": 0},
    {"op": "out_of_turn_speech", "tic_rate_per_min": 120, "remark_rate_per_min": 60, "level_db_max": 10},
    {
        "op": "out_of_turn_speech",
        "tic_rate_per_min": 120,
        "placement": "overlap",
        "level_db_min": 10,
        "level_db_max": 10,
    },
]


@settings(max_examples=40, deadline=None)
@given(
    spec=st.sampled_from(ALL_SPECS),
    n_samples=st.one_of(st.integers(1, 64), st.integers(65, 3 * 22050)),
    sample_rate=st.sampled_from([8000, 16000, 22050]),
    amplitude=st.sampled_from([0.0, 1e-6, 0.3, 1.0]),
    seed=st.integers(0, 2**32 - 1),
    offset_ms=st.floats(0.0, 1e6),
    call_seed=st.one_of(st.none(), st.integers(0, 2**62)),
)
def test_every_op_keeps_the_contract(
    spec: dict[str, Any],
    n_samples: int,
    sample_rate: int,
    amplitude: float,
    seed: int,
    offset_ms: float,
    call_seed: int | None,
) -> None:
    audio = (amplitude * np.clip(np.random.default_rng(seed).standard_normal(n_samples), -1, 1)).astype(np.float32)
    out, entries = run(spec, audio, seed, sample_rate, offset_ms=offset_ms, call_seed=call_seed)
    assert out.shape == audio.shape and out.dtype == np.float32
    assert np.isfinite(out).all() and np.max(np.abs(out)) <= 1.0
    again, entries_again = run(spec, audio, seed, sample_rate, offset_ms=offset_ms, call_seed=call_seed)
    assert again.tobytes() == out.tobytes() and entries_again == entries
    json.dumps(entries, allow_nan=False)
    duration_ms = 1000 * n_samples / sample_rate
    assert all(0 <= e["start_ms"] < e["end_ms"] <= duration_ms + 1e-9 for e in entries)
    if amplitude == 0.0:
        assert not np.any(out)  # silence stays silent: no absolute level to set anything against


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        (
            {"op": "events", "types": ["horn", "jackhammer"]},
            ["chain[0] (events)", "types must be", "jackhammer", "dog_bark"],
        ),
        ({"op": "events", "types": []}, ["types must be a non-empty list"]),
        ({"op": "events", "snr_db_min": 10, "snr_db_max": 5}, ["snr_db_max must be", ">= snr_db_min", "got 5"]),
        ({"op": "events", "rate_per_min": -1}, ["rate_per_min must be a number between 0 and 120"]),
        (
            {"op": "muffle", "cutoff_hz_min": 2000, "cutoff_hz_max": 1000},
            ["(muffle)", "cutoff_hz_max", ">= cutoff_hz_min"],
        ),
        ({"op": "out_of_turn_speech", "tics": ["um", "*sneeze*"]}, ["tics must be", "*sneeze*", "cough"]),
        ({"op": "out_of_turn_speech", "placement": "anywhere"}, ["placement must be one of", "'prefer_pauses'"]),
        ({"op": "noise", "drift_db": 30}, ["drift_db must be a number between 0 and 20"]),
    ],
)
def test_bad_specs_name_the_field(spec: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(PerturbationError) as info:
        Chain.from_specs([spec])
    for fragment in fragments:
        assert fragment in str(info.value)


def test_specs_round_trip() -> None:
    chain = Chain.from_specs([{"op": "events", "types": ["horn"]}, {"op": "muffle"}, {"op": "out_of_turn_speech"}])
    specs = chain.to_specs()
    assert specs[0]["types"] == ["horn"] and isinstance(specs[2]["tics"], list)
    assert Chain.from_specs(json.loads(json.dumps(specs))) == chain
    hash(chain.ops[0])  # list fields are stored as tuples: ops stay hashable


def test_realistic_cafe_config_runs() -> None:
    conf = OmegaConf.load(REPO / "conf" / "perturb" / "realistic_cafe.yaml")
    specs = OmegaConf.to_container(OmegaConf.create({"perturb": conf}).perturb.chain, resolve=True)
    chain = Chain.from_specs(specs)
    assert [op.name for op in chain] == ["out_of_turn_speech", "noise", "events", "muffle"]
    assert chain.ops[1].drift_db > 0 and chain.ops[0].source == "babble"
    clean = with_pauses(parts=3)
    out, entries = chain(clean, SR, np.random.default_rng(0), ClipContext(offset_ms=12000.0, call_seed=1))
    assert out.shape == clean.shape and np.isfinite(out).all() and np.max(np.abs(out)) <= 1.0
    assert {"noise", "events_mix", "out_of_turn_mix"} <= {e["type"] for e in entries}
