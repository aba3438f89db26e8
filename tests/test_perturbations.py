"""The perturbations library on real signals: exact SNR, determinism, headroom, spec errors, café realism."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field
from pydantic.dataclasses import dataclass
from scipy import signal as sps

from perturbations import (
    Chain,
    Op,
    PerturbationError,
    available_environments,
    available_ops,
    generate,
    register_op,
)
from perturbations.registry import OP_CONFIG, Number
from tests.conftest import REPO

SR = 16000


def speech_like(sample_rate: int = SR, seconds: float = 1.5, peak: float = 0.3) -> np.ndarray:
    """Deterministic stand-in for speech: 10 harmonics of a gliding ~120 Hz F0, half-wave 4.5 Hz syllable
    envelope (so half the time is silent) and a 300 ms pause."""
    t = np.arange(round(seconds * sample_rate)) / sample_rate
    phase = 2 * np.pi * np.cumsum(120.0 + 20.0 * np.sin(2 * np.pi * 0.7 * t)) / sample_rate
    voiced = sum(np.sin(h * phase) / h for h in range(1, 11))
    x = voiced * np.clip(np.sin(2 * np.pi * 4.5 * t), 0.0, None)
    x[(t >= 0.6) & (t < 0.9)] = 0.0
    return (peak * x / np.max(np.abs(x))).astype(np.float32)


def power(x: np.ndarray, sample_rate: int, mode: str) -> float:
    """Independent re-implementation of the SNR's signal power: whole clip, or 20 ms frames within 40 dB of
    the loudest one."""
    x = x.astype(np.float64)
    if mode == "whole":
        return float(np.mean(x * x))
    frame = round(0.02 * sample_rate)
    frames = [x[i : i + frame] for i in range(0, len(x), frame)]
    energy = np.array([np.mean(f * f) for f in frames])
    kept = np.concatenate([f for f, e in zip(frames, energy, strict=True) if e >= energy.max() * 1e-4])
    return float(np.mean(kept * kept))


def realised_snr(clean: np.ndarray, out: np.ndarray, params: dict[str, Any], sample_rate: int) -> float:
    gain = 10.0 ** (params["limiter_gain_db"] / 20.0)
    noise = out.astype(np.float64) - gain * clean.astype(np.float64)
    return 10.0 * np.log10(gain**2 * power(clean, sample_rate, params["signal_power"]) / np.mean(noise**2))


def noise_chain(**fields: Any) -> Chain:
    return Chain.from_specs([{"op": "noise", **fields}])


@settings(max_examples=60, deadline=None)
@given(
    snr_db=st.floats(-5.0, 40.0),
    mode=st.sampled_from(["active", "whole"]),
    environment=st.sampled_from(["cafe", "white", "pink"]),
    peak=st.floats(0.01, 0.95),
    seed=st.integers(0, 2**32 - 1),
)
def test_snr_is_exact(snr_db: float, mode: str, environment: str, peak: float, seed: int) -> None:
    clean = speech_like(peak=peak)
    chain = noise_chain(environment=environment, snr_db=snr_db, signal_power=mode)
    out, applied = chain(clean, SR, np.random.default_rng(seed))
    assert out.dtype == np.float32 and out.shape == clean.shape and np.isfinite(out).all()
    assert np.max(np.abs(out)) <= 1.0
    [entry] = applied
    params = entry["params"]
    assert abs(realised_snr(clean, out, params, SR) - snr_db) < 0.1
    assert abs(params["snr_db_measured"] - snr_db) < 1e-3  # really ~1e-6: float32 rounding only
    assert params["snr_db_requested"] == snr_db and params["signal_power"] == mode
    assert params["environment"] == environment and params["limited"] == (params["limiter_gain_db"] < 0)


def test_active_and_whole_power_differ_on_speech_with_pauses() -> None:
    # Half the clip is silence, so "whole" counts ~half the active power: ~3 dB less noise at the same SNR.
    clean = speech_like()
    outs = {}
    for mode in ("active", "whole"):
        out, _ = noise_chain(environment="white", snr_db=10.0, signal_power=mode)(clean, SR, np.random.default_rng(1))
        outs[mode] = np.mean((out.astype(np.float64) - clean) ** 2)
    assert 2.0 < 10 * np.log10(outs["active"] / outs["whole"]) < 5.0


def test_effect_entry_shape_and_json() -> None:
    clean = speech_like(seconds=1.0)
    _, applied = noise_chain(snr_db=15)(clean, SR, np.random.default_rng(0))
    [entry] = applied
    assert entry["type"] == "noise" and entry["start_ms"] == 0.0 and entry["end_ms"] == pytest.approx(1000.0)
    json.dumps(applied, allow_nan=False)  # numpy scalars converted; no NaN/inf
    params = entry["params"]
    assert {
        "snr_db_requested",
        "snr_db_measured",
        "signal_power",
        "environment",
        "noise_seed",
        "limited",
    } <= set(params)
    # The noise seed reproduces the exact noise that was mixed in.
    noise = generate("cafe", len(clean), SR, np.random.default_rng(params["noise_seed"])).astype(np.float64)
    out, _ = noise_chain(snr_db=15)(clean, SR, np.random.default_rng(0))
    residual = out.astype(np.float64) - clean
    assert abs(np.corrcoef(noise, residual)[0, 1]) > 0.9999


def test_deterministic_per_seed() -> None:
    clean = speech_like()
    chain = noise_chain(environment="cafe", snr_db=5.0)
    a, applied_a = chain(clean, SR, np.random.default_rng(123))
    b, applied_b = chain(clean, SR, np.random.default_rng(123))
    c, _ = chain(clean, SR, np.random.default_rng(124))
    assert a.tobytes() == b.tobytes() and applied_a == applied_b
    assert a.tobytes() != c.tobytes()


def test_noise_does_not_depend_on_cache_state() -> None:
    from perturbations.environments.cafe import cafe

    first = generate("cafe", 4000, 8000, np.random.default_rng(7))
    cafe.bank.cache_clear()
    assert generate("cafe", 4000, 8000, np.random.default_rng(7)).tobytes() == first.tobytes()


def test_global_random_state_is_untouched() -> None:
    np.random.seed(0)
    random.seed(0)
    np_state, py_state = np.random.get_state()[1].copy(), random.getstate()
    noise_chain(environment="cafe")(speech_like(), SR, np.random.default_rng(0))
    assert (np.random.get_state()[1] == np_state).all() and random.getstate() == py_state


def test_ops_get_independent_streams() -> None:
    # Changing the second op must not change the noise the first op drew.
    clean = speech_like()
    one = Chain.from_specs([{"op": "noise", "snr_db": 20}, {"op": "noise", "environment": "white", "snr_db": 30}])
    two = Chain.from_specs([{"op": "noise", "snr_db": 20}, {"op": "noise", "environment": "pink", "snr_db": 10}])
    _, applied_one = one(clean, SR, np.random.default_rng(5))
    _, applied_two = two(clean, SR, np.random.default_rng(5))
    assert len(applied_one) == 2 and applied_one[0] == applied_two[0]


@pytest.mark.parametrize("environment", ["cafe", "white", "pink"])
@pytest.mark.parametrize("n_samples", [1, 2, 160, 1600])  # 1 sample, 10 ms, 100 ms at 16 kHz
def test_short_and_silent_inputs_give_no_nan(environment: str, n_samples: int) -> None:
    chain = noise_chain(environment=environment, snr_db=-5)
    silent = np.zeros(n_samples, dtype=np.float32)
    out, [entry] = chain(silent, SR, np.random.default_rng(0))
    assert out.tobytes() == silent.tobytes() and entry["params"]["skipped"] == "silent input"
    short = (0.1 * np.sin(np.arange(n_samples) + 1.0)).astype(np.float32)
    for mode in ("active", "whole"):
        out, [entry] = noise_chain(environment=environment, signal_power=mode)(short, SR, np.random.default_rng(0))
        assert out.shape == short.shape and np.isfinite(out).all()
        assert abs(entry["params"]["snr_db_measured"] - 15.0) < 0.01


def test_loud_signal_at_low_snr_is_limited_not_clipped() -> None:
    clean = speech_like(peak=0.95)
    out, [entry] = noise_chain(environment="cafe", snr_db=-5.0)(clean, SR, np.random.default_rng(3))
    params = entry["params"]
    assert params["limited"] is True and params["limiter_gain_db"] < -1.0
    assert np.max(np.abs(out)) <= 1.0 and params["peak"] <= 1.0
    assert abs(realised_snr(clean, out, params, SR) - (-5.0)) < 0.01
    quiet = noise_chain(environment="cafe", snr_db=30.0)(speech_like(peak=0.1), SR, np.random.default_rng(3))[1]
    assert quiet[0]["params"]["limited"] is False and quiet[0]["params"]["limiter_gain_db"] == 0.0


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        (
            {"op": "noise", "snr_db": "loud"},
            ["chain[0] (noise)", "snr_db must be a number between -5 and 40", "'loud'"],
        ),
        ({"op": "noise", "snr_db": 60}, ["chain[0] (noise)", "snr_db", "between -5 and 40", "got 60"]),
        ({"op": "noise", "snr_db": True}, ["snr_db must be a number"]),
        ({"op": "echo"}, ["chain[0]", "unknown op 'echo'", "available ops", "noise"]),
        ({"op": "noise", "environment": "forest"}, ["environment", "'forest'", "cafe", "pink", "white"]),
        (
            {"op": "noise", "signal_power": "peak"},
            ["signal_power must be one of 'active', 'whole'", "'peak'"],
        ),
        ({"op": "noise", "snr": 5}, ["unknown field 'snr'", "snr_db"]),
        ({"environment": "cafe"}, ["chain[0]", "missing 'op'", "noise"]),
    ],
)
def test_bad_specs_name_op_index_and_field(spec: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(PerturbationError) as info:
        Chain.from_specs([spec])
    for fragment in fragments:
        assert fragment in str(info.value)


def test_error_names_the_right_index() -> None:
    with pytest.raises(PerturbationError, match=r"perturb chain\[1\] \(noise\): snr_db"):
        Chain.from_specs([{"op": "noise"}, {"op": "noise", "snr_db": 41}])
    with pytest.raises(PerturbationError, match="list of op specs"):
        Chain.from_specs({"op": "noise"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("audio", "sample_rate", "fragment"),
    [
        (np.zeros((2, 100), dtype=np.float32), SR, "1-D"),
        (np.zeros(100, dtype=np.int16), SR, "float"),
        (np.zeros(0, dtype=np.float32), SR, "empty"),
        (np.zeros(100, dtype=np.float32), 0, "sample_rate"),
        (np.zeros(100, dtype=np.float32), -8000, "sample_rate"),
        (np.array([0.1, np.nan], dtype=np.float32), SR, "NaN"),
        ([0.1, 0.2], SR, "numpy array"),
    ],
)
def test_bad_audio_is_rejected(audio: Any, sample_rate: int, fragment: str) -> None:
    for chain in (noise_chain(), Chain([])):
        with pytest.raises(PerturbationError, match=fragment):
            chain(audio, sample_rate, np.random.default_rng(0))


def test_specs_round_trip_and_defaults() -> None:
    chain = Chain.from_specs([{"op": "noise", "snr_db": 5}, {"op": "noise", "environment": "pink"}])
    specs = chain.to_specs()
    assert specs[0] == {
        "op": "noise",
        "environment": "cafe",
        "snr_db": 5.0,
        "signal_power": "active",
        "active_range_db": 40.0,
    }
    assert Chain.from_specs(specs) == chain and Chain.from_specs(specs).to_specs() == specs
    assert len(chain) == 2 and "noise" in available_ops()
    assert {"cafe", "white", "pink"} <= set(available_environments())
    assert Op.from_dict(specs[1]) == chain.ops[1]


def test_empty_chain_is_identity_copy() -> None:
    clean = speech_like()
    for chain in (Chain([]), Chain(), Chain.from_specs([]), Chain.from_specs(None)):
        out, applied = chain(clean, SR, np.random.default_rng(0))
        assert applied == [] and out.tobytes() == clean.tobytes() and out is not clean and len(chain) == 0
    out, _ = Chain([])(clean.astype(np.float64), SR, np.random.default_rng(0))
    assert out.dtype == np.float32


def test_register_op_extends_the_factory() -> None:
    @register_op("test_gain")
    @dataclass(config=OP_CONFIG)
    class Gain(Op):
        gain_db: Number = Field(default=0.0, ge=-60.0, le=20.0)

        def apply(self, audio, sample_rate, rng):  # type: ignore[no-untyped-def]
            factor = 10.0 ** (self.gain_db / 20.0)
            return audio * np.float32(factor), [
                {"type": "gain", "start_ms": 0.0, "end_ms": 1000.0 * len(audio) / sample_rate, "params": {}}
            ]

    from perturbations import registry

    try:
        chain = Chain.from_specs([{"op": "test_gain", "gain_db": -6}, {"op": "noise", "snr_db": 20}])
        out, applied = chain(speech_like(), SR, np.random.default_rng(0))
        assert [e["type"] for e in applied] == ["gain", "noise"] and out.dtype == np.float32
        with pytest.raises(PerturbationError, match=r"chain\[0\] \(test_gain\): gain_db must be a number between -60"):
            Chain.from_specs([{"op": "test_gain", "gain_db": 99}])
    finally:
        registry._OPS.pop("test_gain", None)


def _modulation_and_band(x: np.ndarray, sample_rate: int) -> tuple[float, float]:
    """(share of power in 100-4000 Hz, power of the 10 ms-frame envelope at 3-6 Hz, re its mean squared)."""
    f, p = sps.welch(x, sample_rate, nperseg=1024)
    band = float(p[(f >= 100) & (f <= 4000)].sum() / p.sum())
    hop = sample_rate // 100
    frames = x[: len(x) // hop * hop].astype(np.float64).reshape(-1, hop)
    envelope = np.sqrt(np.mean(frames**2, axis=1))
    envelope /= envelope.mean()
    fm, pm = sps.welch(envelope - 1.0, 100.0, nperseg=256)
    return band, float(pm[(fm >= 3) & (fm <= 6)].sum())


def test_cafe_noise_is_speech_like() -> None:
    rng = np.random.default_rng(11)
    cafe = generate("cafe", 10 * SR, SR, rng)
    white = generate("white", 10 * SR, SR, rng)
    assert cafe.dtype == np.float32 and cafe.shape == (10 * SR,)
    assert np.sqrt(np.mean(cafe.astype(np.float64) ** 2)) == pytest.approx(0.1, rel=0.3)
    cafe_band, cafe_mod = _modulation_and_band(cafe, SR)
    white_band, white_mod = _modulation_and_band(white, SR)
    assert cafe_band > 0.85 and white_band < 0.55  # white: 3900/8000 of the band
    assert cafe_mod > 20 * white_mod  # syllable-rate envelope modulation, as in babble; white noise has none


def test_generate_wraps_past_the_loop_and_checks_arguments() -> None:
    long = generate("cafe", 45 * 8000, 8000, np.random.default_rng(2))  # longer than the 20 s loops
    assert long.shape == (45 * 8000,) and np.isfinite(long).all()
    assert generate("pink", 0, 8000, np.random.default_rng(0)).shape == (0,)
    with pytest.raises(
        PerturbationError,
        match="available environments: airport, baby, cafe, construction, music, pink, road, static, street, white",
    ):
        generate("forest", 10, 8000, np.random.default_rng(0))
    with pytest.raises(PerturbationError, match="Generator"):
        generate("white", 10, 8000, 0)  # type: ignore[arg-type]


def test_package_is_standalone() -> None:
    code = (
        "import sys, perturbations; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('evalkit', 'hydra', 'mlflow', 'omegaconf')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
