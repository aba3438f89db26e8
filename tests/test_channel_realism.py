"""Issue 31 point 3: burst noise (incl. the siren), the sinusoidal bed envelope, the telephone band, network delay
both ways and the speakerphone echo, the `enabled` switch of the regular/ablation presets, and their bad input.

Pure numpy and in-process calls: the ops and evalkit's AudioChannel on synthetic signals."""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

import numpy as np
import pytest
import yaml

from evalkit.call import CallSettings, TurnBasedSession, VirtualClock, run_call
from evalkit.call.channel import AudioChannel
from evalkit.call.line import FILL_RATE
from evalkit.cli.entry import one_line
from evalkit.cli.sweeper import plan_jobs
from evalkit.config.schema import LOWEST_LINE_RATE, ConfigError, cell_key, validate_config
from perturbations import Chain, ClipContext, PerturbationError
from perturbations.event_sounds import synthesize_event
from perturbations.ops.line import ECHO_RATE
from perturbations.ops.noise import drift_curve_db
from tests.conftest import CONF_DIR
from tests.test_call_loop import RATE, EchoAgent, ScriptCaller, context, tone
from tests.test_config import composed

SR = 16000
BURSTS = ["horn", "door_slam", "dog_bark", "phone_ring", "siren"]


def speech_like(seconds: float, sample_rate: int = SR, seed: int = 0) -> np.ndarray:
    """A steady 'talker': band-limited noise at -26 dBFS-ish, voiced all along (no pauses to confuse levels)."""
    rng = np.random.default_rng(seed)
    return (0.05 * rng.standard_normal(int(seconds * sample_rate))).astype(np.float32)


def run(specs: list[dict[str, Any]], audio: np.ndarray, seed: int = 0, **ctx: Any) -> tuple[np.ndarray, list[Any]]:
    return Chain.from_specs(specs)(audio, SR, np.random.default_rng(seed), ClipContext(**ctx))


# -- burst noise -----------------------------------------------------------------------------------------------------


def test_siren_is_seeded_and_sweeps_in_pitch() -> None:
    a = synthesize_event("siren", SR, np.random.default_rng(3))
    b = synthesize_event("siren", SR, np.random.default_rng(3))
    assert np.array_equal(a, b) and 1.0 <= len(a) / SR <= 2.0
    # its dominant frequency moves over the sound (a sweep or two tones), within the horn speaker's band
    frames = a[: len(a) // 4096 * 4096].reshape(-1, 4096)
    peaks = [np.fft.rfftfreq(4096, 1 / SR)[np.argmax(np.abs(np.fft.rfft(f * np.hanning(4096))))] for f in frames]
    assert max(peaks) - min(peaks) > 50.0 and min(peaks) > 300.0 and max(peaks) < 3600.0


def test_burst_events_are_seeded_recorded_and_loud_where_recorded() -> None:
    spec = [{"op": "events", "types": BURSTS, "rate_per_min": 30.0, "snr_db_min": 0.0, "snr_db_max": 5.0}]
    x = speech_like(20.0)
    out, applied = run(spec, x, call_seed=11)
    again, applied_again = run(spec, x, seed=99, call_seed=11)  # on a call, the call seed places the events
    assert np.array_equal(out, again) and applied == applied_again
    events = [e for e in applied if e["type"] == "event"]
    assert len(events) >= 3 and {e["params"]["event_type"] for e in events} <= set(BURSTS)
    added = out.astype(np.float64) - x
    inside = np.zeros(len(x), dtype=bool)
    for e in events:
        lo, hi = round(e["start_ms"] / 1000 * SR), round(e["end_ms"] / 1000 * SR)
        inside[lo:hi] = True
        # at 0-5 dB SNR the event adds at least 10 ** -0.5 of the speech's power to its span (+1.2 dB or more)
        assert np.mean(out[lo:hi] ** 2) > 1.25 * np.mean(x[lo:hi] ** 2)
        assert 0.0 - 0.5 <= e["params"]["snr_db_measured"] <= 5.0 + 0.5
    assert np.max(np.abs(added[~inside])) < 1e-6  # nothing outside the recorded spans


def test_bursts_go_on_between_utterances_at_the_speech_level() -> None:
    spec = [{"op": "events", "types": ["horn"], "rate_per_min": 60.0, "snr_db_min": 0.0, "snr_db_max": 0.0}]
    silence = np.zeros(10 * SR, dtype=np.float32)
    quiet, _ = run(spec, silence, call_seed=5)
    assert not quiet.any()  # no speech level to set them against: silence stays silent
    _out, applied = run(spec, silence, call_seed=5, reference_power=1e-3)
    events = [e for e in applied if e["type"] == "event"]
    assert events and all(abs(e["params"]["snr_db_measured"]) < 0.1 for e in events)


# -- the bed's volume envelope -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["random", "sine"])
def test_drift_moves_the_bed_gain_within_its_bounds(shape: str) -> None:
    steady = {"op": "noise", "environment": "static", "snr_db": 10.0}
    drifting = {**steady, "drift_db": 6.0, "drift_period_s": 8.0, "drift_shape": shape}
    silence = np.zeros(30 * SR, dtype=np.float32)
    ctx = {"call_seed": 4, "reference_power": 1e-3}
    base, _ = run([steady], silence, **ctx)
    out, applied = run([drifting], silence, **ctx)
    again, _ = run([drifting], silence, **ctx)
    assert np.array_equal(out, again)
    ok = np.abs(base) > 1e-4
    gain_db = 20 * np.log10(np.abs(out[ok]) / np.abs(base[ok]))  # the same noise: the ratio is the envelope
    assert gain_db.max() - gain_db.min() > 6.0  # it really moves ...
    assert gain_db.max() <= 6.0 + 0.01 and gain_db.min() >= -6.0 - 0.01  # ... within +-drift_db
    params = applied[0]["params"]
    assert params["drift_shape"] == shape and params["drift_db_max"] <= 6.0
    # and it is the op's documented curve of call time, sample by sample
    expected = drift_curve_db(4, np.flatnonzero(ok) / SR, 6.0, 8.0, zlib.crc32(b"static"), shape)
    assert np.max(np.abs(gain_db - expected)) < 0.01


def test_sine_envelope_has_the_period_asked_for() -> None:
    t = np.arange(0.0, 80.0, 0.01)
    curve = drift_curve_db(1, t, 5.0, 8.0, 0, "sine")
    assert np.max(np.abs(curve)) == pytest.approx(5.0, abs=1e-3)
    spectrum = np.abs(np.fft.rfft(curve))
    assert np.fft.rfftfreq(len(t), 0.01)[np.argmax(spectrum)] == pytest.approx(1 / 8.0, abs=0.02)


# -- telephone band ---------------------------------------------------------------------------------------------------


def test_telephone_band_removes_30_db_outside_the_band() -> None:
    config = validate_config(composed("+perturb=telephone_band"))
    x = speech_like(4.0)
    out, applied = Chain.from_specs(config.perturb.chain)(x, SR, np.random.default_rng(0))
    freqs = np.fft.rfftfreq(len(x), 1 / SR)
    before, after = np.abs(np.fft.rfft(x)) ** 2, np.abs(np.fft.rfft(out)) ** 2

    def drop_db(lo: float, hi: float) -> float:
        band = (freqs >= lo) & (freqs < hi)
        return float(10 * np.log10(after[band].sum() / before[band].sum()))

    # an octave beyond each edge (a 4th-order edge's slope is 24 dB per octave), at least 30 dB down
    assert drop_db(0.0, 150.0) <= -30.0 and drop_db(6800.0, 8000.0) <= -30.0
    assert abs(drop_db(500.0, 3000.0)) < 0.5  # the band itself passes
    assert applied[0]["params"]["low_hz"] == 300.0 and applied[0]["params"]["high_hz"] == 3400.0


# -- line ops: delay and echo ---------------------------------------------------------------------------------------


def voice(text: str) -> tuple[np.ndarray, int]:
    return speech_like(0.1 * len(text.split()), SR, seed=len(text)), SR


def channel(specs: list[dict[str, Any]], keys: tuple[Any, ...] = ("AL-TEST", 0)) -> AudioChannel:
    return AudioChannel(voice, Chain.from_specs(specs), cell_seed=7, keys=keys)


def test_line_ops_leave_a_clip_alone_and_other_ops_streams_unchanged() -> None:
    x = speech_like(1.0)
    line = [{"op": "line_delay"}, {"op": "speakerphone_echo"}]
    noise = [{"op": "noise", "environment": "cafe", "snr_db": 10.0}]
    assert np.array_equal(run(line, x)[0], x) and run(line, x)[1] == []
    assert np.array_equal(run([*line, *noise], x)[0], run(noise, x)[0])


def test_delay_moves_each_utterance_by_its_drawn_round_trip() -> None:
    spec = [{"op": "line_delay", "uplink_ms": 120.0, "downlink_ms": 80.0, "jitter_ms": 40.0}]
    speeches = [channel(spec).say("one two three", i, 1000.0) for i in range(6)]
    again = channel(spec).say("one two three", 3, 1000.0)
    trips = []
    for speech in speeches:
        (delay,) = [e for e in speech.effects if e.type == "line_delay"]
        trip = delay.params["round_trip_ms"]
        assert 200.0 <= trip <= 280.0 and speech.start_ms == pytest.approx(1000.0 + trip)
        assert delay.end_ms == pytest.approx(speech.start_ms) and delay.start_ms == pytest.approx(1000.0)
        trips.append(trip)
    assert len(set(trips)) == 6  # jitter: a different delay per utterance
    assert again.start_ms == speeches[3].start_ms  # seeded


def test_echo_correlates_with_the_agent_at_the_configured_lag() -> None:
    spec = [
        {"op": "line_delay", "uplink_ms": 60.0, "downlink_ms": 40.0, "jitter_ms": 0.0},
        {"op": "speakerphone_echo", "level_db": -20.0, "delay_ms": 25.0},
    ]
    ch = channel(spec)
    agent = speech_like(1.0, ECHO_RATE, seed=5)
    ch.hear_agent(2000.0, agent, ECHO_RATE)
    (record,) = ch.agent_turn_effects(3, 2000.0, 3000.0)
    assert record.type == "speakerphone_echo" and record.params["lag_ms"] == pytest.approx(125.0)
    assert record.start_ms == pytest.approx(2125.0) and record.turn == 3
    # white noise: the loudspeaker band keeps 3100 Hz of the 8000 Hz it spans, -4.1 dB (speech loses ~1-2 dB)
    assert record.params["level_db_delivered"] == pytest.approx(-20.0 + 10 * np.log10(3100 / 8000), abs=1.0)
    line, _ = ch.fill(1500.0, 2500.0, FILL_RATE)
    assert not line[: int(0.6 * FILL_RATE)].any()  # before the echo arrives: the clean line's silence
    corr = np.correlate(line, agent, mode="valid")
    lag_ms = np.argmax(np.abs(corr)) / FILL_RATE * 1000.0 + 1500.0 - 2000.0
    assert lag_ms == pytest.approx(125.0, abs=3.0)  # plus the band-pass's ~1 ms group delay
    twin, _ = channel(spec).fill(1500.0, 2500.0, FILL_RATE)
    assert np.array_equal(twin, np.zeros_like(twin))  # no agent audio played: no echo


def test_echo_reaches_a_turn_based_call_and_its_record() -> None:
    spec = [{"op": "speakerphone_echo", "level_db": -10.0, "delay_ms": 30.0}]

    def tone_voice(text: str) -> tuple[np.ndarray, int]:
        return tone(100.0 * len(text.split())), RATE

    ch = AudioChannel(tone_voice, Chain.from_specs(spec), cell_seed=1, keys=("AL-TEST", 0))
    clock = VirtualClock()
    session = TurnBasedSession(EchoAgent(reply_ms=600.0), clock)
    outcome = asyncio.run(
        run_call(ScriptCaller(["one two", "three"]), session, ch, context(), clock, CallSettings(user_reaction_ms=200))
    )
    assert outcome.end_reason == "user_end_call", outcome.error
    agent_turns = [t for t in outcome.turns if t.role == "assistant"]
    echoes = [e for t in agent_turns for e in t.effects if e.type == "speakerphone_echo"]
    assert len(echoes) == len(agent_turns) and all(
        e.start_ms == t.start_ms + 30.0 for e, t in zip(echoes, agent_turns, strict=True)
    )
    # the recorded line after the agent's first reply carries its echo (the caller is silent there)
    clip = next(c for s, c in outcome.audio.line if s >= agent_turns[0].start_ms)
    assert float(np.max(np.abs(clip.samples))) > 0.01


# -- presets and switches --------------------------------------------------------------------------------------------


def test_switches_leave_one_factor_out_and_the_rest_as_it_was() -> None:
    full = validate_config(composed("+perturb=regular")).perturb.build()
    names = [op.name for op in full]
    assert names == [
        "noise",
        "events",
        "muffle",
        "band_limit",
        "codec",
        "packet_loss",
        "line_delay",
        "speakerphone_echo",
    ]
    for switch, gone in [
        ("bursts", {"events"}),
        ("telephone", {"band_limit", "codec"}),
        ("echo", {"speakerphone_echo"}),
    ]:
        chain = validate_config(composed("+perturb=regular", f"perturb.{switch}=false")).perturb.build()
        assert [op.name for op in chain] == [n for n in names if n not in gone]
    with pytest.raises(PerturbationError, match=r"chain\[0\]: enabled must be true or false, got 'no'"):
        Chain.from_specs([{"op": "noise", "enabled": "no"}])


def test_control_and_regular_run_on_audio() -> None:
    x = speech_like(3.0)
    for option in ("control", "regular"):
        chain = validate_config(composed(f"+perturb={option}")).perturb.build()
        out, applied = chain(x, SR, np.random.default_rng(0), ClipContext(call_seed=2))
        assert out.shape == x.shape and np.abs(out).max() <= 1.0 and applied and not np.array_equal(out, x)


def test_the_ablation_experiment_plans_one_cell_per_factor_beside_one_clean_twin() -> None:
    conditions = yaml.safe_load((CONF_DIR / "experiment" / "ablation_channel.yaml").read_text())["hydra"]["sweeper"]
    jobs = plan_jobs([["+experiment=smoke"]], conditions["conditions"], twins=True)
    assert jobs[0] == ["+experiment=smoke"] and len(jobs) == 11  # the clean twin, control, regular, 8 ablations
    names = [next((o.split("=")[1] for o in job if o.startswith("perturb.name=")), None) for job in jobs[3:]]
    assert len(set(names)) == 8 and all(name.startswith("regular_no_") for name in names)
    # every switch of regular.yaml is ablated once (drift by its level)
    switches = {o.split("=")[0].removeprefix("perturb.") for job in jobs[3:] for o in job if o.endswith("=false")}
    assert switches == {"bed", "bursts", "muffling", "telephone", "loss", "delay", "echo"}
    regular, ablated = (validate_config(composed(*job)) for job in (jobs[2], jobs[5]))  # jobs[5]: no bursts
    assert ablated.condition == "regular_no_bursts" and cell_key(ablated) != cell_key(regular)
    assert [op.name for op in ablated.perturb.build()] == [
        op.name for op in regular.perturb.build() if op.name != "events"
    ]


def test_the_lowest_line_rate_is_the_live_lines() -> None:
    assert LOWEST_LINE_RATE == FILL_RATE


# -- bad input: one line each, before any cell ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        (["+perturb=burst_noise", "perturb.rate_per_min=500"], "rate_per_min must be a number between 0 and 120"),
        (["+perturb=burst_noise", "perturb.snr_db_min=20", "perturb.snr_db_max=5"], ">= snr_db_min, got 5"),
        (["+perturb=telephone_band", "perturb.low_hz=3400", "perturb.high_hz=300"], "low_hz must be below high_hz"),
        (["+perturb=telephone_band", "perturb.low_hz=8000", "perturb.high_hz=9000"], "at or above the Nyquist"),
        (["+perturb=regular", "perturb.delay_ms=-20"], "uplink_ms must be a number between 0 and 2000, got -20"),
        (["+perturb=regular", "perturb.jitter_ms=-1"], "jitter_ms must be a number between 0 and 1000, got -1"),
        (["+perturb=regular", "perturb.echo_level_db=5"], "level_db must be a number between -60 and 0, got 5"),
    ],
)
def test_bad_channel_input_is_one_line(overrides: list[str], fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_config(composed(*overrides))
    assert len(str(caught.value).strip().splitlines()) == 2  # the header and the one problem
    assert fragment in one_line(caught.value)  # what the command line prints (exit 2, before any cell)
