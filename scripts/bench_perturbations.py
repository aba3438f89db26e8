"""Throughput and SNR accuracy of the perturbation library, one thread, measured in one run.

First, side by side on the same 3 s clips (issue 17 point 4): evalkit's EVA-equivalent chain (static noise 15 dB,
G.711 μ-law at the clip's rate, 3 % random 20 ms packet loss, volume fluctuation) against ``eva_standin``, a
plain-numpy re-writing of EVA-Bench's own steps (Gaussian static at 15 dB SNR, μ-law quantisation, 3 % of 20 ms
segments zeroed, a random gain), interleaved batches, best of 7, the ratio printed at 16 kHz (EVA-Bench's rate),
8 kHz and 22.05 kHz, plus one row where evalkit's G.711 runs on a real 8 kHz leg (resampled in and out) with
repeat concealment: more work than EVA does, shown for what it costs. ``--profile`` adds a cProfile of the chain.

Then, for a 5 s speech-like clip at 16 kHz and at 22.05 kHz (the eSpeak rate):
  1. the noise op for every environment in both signal-power modes: x real time and the worst |SNR error|;
  2. every other op alone: x real time;
  3. like for like, the ops both libraries have: café noise at 15 dB + volume fluctuation against
     audiomentations' AddBackgroundNoise (15 dB, the same café bed written to WAV files) + GainTransition;
  4. the full EVA-style chain (café noise 15 dB + G.711 mu-law + 5% packet loss + volume fluctuation) against
     audiomentations with stand-ins where it has no equivalent (BandPassFilter 300-3400 Hz for the codec: no
     G.711 and no resampling to 8 kHz; TimeMask for packet loss), so that row compares unequal work.
Usage: python scripts/bench_perturbations.py [--calls N] [--eva-only] [--profile]
"""

from __future__ import annotations

import os
import sys

# Single-threaded, set before numpy/scipy load their thread pools.
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # runnable from a checkout

import argparse
import cProfile
import io
import math
import pstats
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import audiomentations
import numpy as np
import soundfile as sf

from perturbations import Chain, ClipContext, available_environments, generate

SECONDS = 5.0
SNR_DB = 15.0
EVA_CHAIN: list[dict[str, Any]] = [
    {"op": "noise", "environment": "cafe", "snr_db": SNR_DB},
    {"op": "codec", "codec": "g711_mulaw"},
    {"op": "packet_loss", "model": "random", "loss_rate": 0.05, "concealment": "repeat"},
    {"op": "volume_fluctuation", "depth_db": 6.0, "rate_hz": 0.5},
]
SINGLE_OPS: dict[str, dict[str, Any]] = {
    "codec g711_mulaw": {"op": "codec", "codec": "g711_mulaw"},
    "codec gsm": {"op": "codec", "codec": "gsm"},
    "codec mp3 32k": {"op": "codec", "codec": "mp3", "bitrate_kbps": 32},
    "codec opus 16k": {"op": "codec", "codec": "opus", "bitrate_kbps": 16},
    "codec amr_nb 12.2k": {"op": "codec", "codec": "amr_nb", "bitrate_kbps": 12.2},
    "packet_loss gilbert_elliott": {
        "op": "packet_loss",
        "model": "gilbert_elliott",
        "loss_rate": 0.05,
        "mean_burst_frames": 3.0,
    },
    "volume_fluctuation": {"op": "volume_fluctuation", "depth_db": 6.0, "rate_hz": 0.5},
    "band_limit": {"op": "band_limit"},
    "resample 8 kHz": {"op": "resample"},
    "clipping": {"op": "clipping"},
    "reverb": {"op": "reverb"},
    "events": {"op": "events"},
    "muffle": {"op": "muffle"},
    "out_of_turn_speech": {"op": "out_of_turn_speech"},
    "noise cafe + drift": {"op": "noise", "environment": "cafe", "drift_db": 6.0},
}


def speech_like(sample_rate: int, seconds: float = SECONDS, f0: float = 120.0, syllables_hz: float = 4.5) -> np.ndarray:
    """Harmonics of a gliding F0 (120 Hz) with a half-wave syllable envelope (4.5 Hz; half of it silence)."""
    t = np.arange(round(seconds * sample_rate)) / sample_rate
    phase = 2 * np.pi * np.cumsum(f0 + 20.0 * np.sin(2 * np.pi * 0.7 * t)) / sample_rate
    voiced = sum(np.sin(h * phase) / h for h in range(1, 11))
    x = voiced * np.clip(np.sin(2 * np.pi * syllables_hz * t), 0.0, None)
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


# ---- issue 17: evalkit's EVA-equivalent chain vs a plain-numpy stand-in for EVA-Bench's own chain ------------

EVA_SECONDS = 3.0
EVA_RATE = 16000  # EVA-Bench perturbs its simulator's 16 kHz PCM
EVA_RATES = (8000, 16000, 22050)
EVA_LOSS = 0.03  # of 20 ms segments
EVA_GAIN = (0.5, 1.2)  # linear, one draw per clip
# EVA-Bench's steps with evalkit's ops: "bad connection static" at 15 dB against the whole clip's power (EVA's RMS),
# μ-law on the clip as it is, 3 % of 20 ms frames lost and zeroed, a level change (a smooth -6..0 dB fluctuation:
# evalkit's stand-in for the random gain).
EVA_EQUIVALENT: list[dict[str, Any]] = [
    {"op": "noise", "environment": "static", "snr_db": SNR_DB, "signal_power": "whole"},
    {"op": "codec", "codec": "g711_mulaw", "at_clip_rate": True},
    {"op": "packet_loss", "model": "random", "loss_rate": EVA_LOSS, "frame_ms": 20.0, "concealment": "silence"},
    {"op": "volume_fluctuation", "depth_db": 6.0, "rate_hz": 0.5},
]
# The same with a real telephone leg: G.711 on 8 kHz (resampled in and out) and repeat concealment.
TELEPHONE_LEG: list[dict[str, Any]] = [
    EVA_EQUIVALENT[0],
    {"op": "codec", "codec": "g711_mulaw"},
    {**EVA_EQUIVALENT[2], "concealment": "repeat"},
    EVA_EQUIVALENT[3],
]
MU = 255.0


def eva_standin(clean: np.ndarray, rate: int, rng: np.random.Generator) -> np.ndarray:
    """EVA-Bench's chain (its ``user_simulator/perturbation.py``: static noise, connection degradation) re-written
    as plain numpy on float samples for this benchmark: Gaussian noise scaled to 15 dB SNR over the clip; μ-law
    (μ = 255) compression, quantisation to 8 bits and expansion at the clip's rate; each 20 ms segment zeroed with
    probability 3 %; one gain drawn from U(0.5, 1.2), clipped to full scale."""
    n = clean.shape[0]
    sigma = math.sqrt(float(np.mean(clean * clean))) * 10.0 ** (-SNR_DB / 20.0)
    x = np.clip(clean + sigma * rng.standard_normal(n), -1.0, 1.0)
    y = np.sign(x) * np.log1p(MU * np.abs(x)) / np.log1p(MU)  # compress
    y = np.round((y + 1.0) * (MU / 2.0)) * (2.0 / MU) - 1.0  # to one of 256 codes and back
    x = np.sign(y) * np.expm1(np.abs(y) * np.log1p(MU)) / MU  # expand
    segment = round(0.020 * rate)
    n_segments = -(-n // segment)
    kept = np.repeat(rng.random(n_segments) >= EVA_LOSS, segment)[:n]
    return np.clip(x * kept * rng.uniform(*EVA_GAIN), -1.0, 1.0).astype(np.float32)


def eva_clips(rate: int, count: int = 6) -> list[np.ndarray]:
    """The shared 3 s clips: speech-like signals with different F0s and syllable rates."""
    return [speech_like(rate, EVA_SECONDS, f0=100.0 + 12.0 * i, syllables_hz=3.5 + 0.4 * i) for i in range(count)]


def _warm(chain: Chain, clip: np.ndarray, rate: int) -> None:
    for index in range(64):  # every loop bank the static environment reads from (4 per rate), the G.711 table
        chain(clip, rate, np.random.default_rng(10_000 + index), ClipContext(call_seed=index))


def eva_side_by_side(specs: list[dict[str, Any]], rate: int, calls: int, rounds: int = 7) -> tuple[float, float]:
    """(evalkit x real time, stand-in x real time): interleaved batches over the same clips, best batch each."""
    clips = eva_clips(rate)
    chain = Chain.from_specs(specs)
    _warm(chain, clips[0], rate)

    def ours(i: int) -> object:
        return chain(clips[i % len(clips)], rate, np.random.default_rng(i), ClipContext(call_seed=i))

    def theirs(i: int) -> object:
        return eva_standin(clips[i % len(clips)], rate, np.random.default_rng(i))

    best = {"ours": math.inf, "theirs": math.inf}
    for _ in range(rounds):
        for name, run in (("ours", ours), ("theirs", theirs)):
            started = time.perf_counter()
            for i in range(calls):
                run(i)
            best[name] = min(best[name], time.perf_counter() - started)
    audio = calls * EVA_SECONDS
    return audio / best["ours"], audio / best["theirs"]


def eva_profile(rate: int, calls: int) -> str:
    clips = eva_clips(rate)
    chain = Chain.from_specs(EVA_EQUIVALENT)
    _warm(chain, clips[0], rate)
    profile = cProfile.Profile()
    profile.enable()
    for i in range(calls):
        chain(clips[i % len(clips)], rate, np.random.default_rng(i), ClipContext(call_seed=i))
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(15)
    return text.getvalue()


def bench_eva(calls: int, profile: bool) -> None:
    print(f"== EVA-equivalent chain vs a numpy stand-in for EVA-Bench's chain: same {EVA_SECONDS:.0f} s clips,")
    print(f"   1 thread, interleaved, best of 7 batches of {calls} calls; load average {os.getloadavg()[0]:.2f} ==")
    print(f"{'chain':34s} {'rate':>6s} {'evalkit x RT':>13s} {'stand-in x RT':>14s} {'evalkit/stand-in':>17s}")
    rows = [("EVA-equivalent", EVA_EQUIVALENT, rate) for rate in EVA_RATES]
    rows.append(("with an 8 kHz G.711 leg + repeat PLC", TELEPHONE_LEG, EVA_RATE))
    for label, specs, rate in rows:
        ours, theirs = eva_side_by_side(specs, rate, calls)
        print(f"{label:34s} {rate:6d} {ours:13.0f} {theirs:14.0f} {ours / theirs:16.2f}x")
    print(f"   load average after: {os.getloadavg()[0]:.2f}; EVA-Bench runs at {EVA_RATE} Hz (target: >= 2x there)")
    if profile:
        print(f"\n-- cProfile of evalkit's EVA-equivalent chain at {EVA_RATE} Hz, {calls} calls --")
        print(eva_profile(EVA_RATE, calls))


def x_real_time(run: Callable[[int], object], calls: int, repeats: int = 3) -> float:
    """Best of ``repeats`` batches of ``calls`` calls (after one warm-up call): audio s per wall s."""
    run(-1)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for i in range(calls):
            run(i)
        best = min(best, time.perf_counter() - started)
    return calls * SECONDS / best


def chain_speed(specs: list[dict[str, Any]], clean: np.ndarray, rate: int, calls: int) -> float:
    chain = Chain.from_specs(specs)
    context = ClipContext(offset_ms=0.0, call_seed=1)
    return x_real_time(lambda i: chain(clean, rate, np.random.default_rng(i + 1), context), calls)


def audiomentations_chain(rate: int, folder: Path, full: bool) -> audiomentations.Compose:
    for i in range(4):  # the same café bed our noise op draws from, as files for AddBackgroundNoise
        sf.write(folder / f"cafe_{i}.wav", generate("cafe", round(20 * rate), rate, np.random.default_rng(i)), rate)
    noise = audiomentations.AddBackgroundNoise(str(folder), min_snr_db=SNR_DB, max_snr_db=SNR_DB, p=1.0)
    fluctuation = audiomentations.GainTransition(-6.0, 0.0, 0.5, 2.0, p=1.0)
    if not full:
        return audiomentations.Compose([noise, fluctuation])
    return audiomentations.Compose(
        [
            noise,
            # 300-3400 Hz: centre 1850 Hz, bandwidth 3100 Hz (audiomentations' arithmetic-centre convention)
            audiomentations.BandPassFilter(1850.0, 1850.0, 3100 / 1850, 3100 / 1850, 24, 24, p=1.0),
            audiomentations.TimeMask(0.02, 0.05, p=1.0),
            fluctuation,
        ]
    )


def snr_errors(environment: str, mode: str, clean: np.ndarray, rate: int, n: int = 40) -> float:
    chain = Chain.from_specs([{"op": "noise", "environment": environment, "snr_db": SNR_DB, "signal_power": mode}])
    return max(
        abs(chain(clean, rate, np.random.default_rng(i))[1][0]["params"]["snr_db_measured"] - SNR_DB) for i in range(n)
    )


def bench_rate(rate: int, calls: int) -> None:
    clean = speech_like(rate)
    print(f"\n== {rate} Hz, {SECONDS:.0f} s clip, 1 thread, best of 3 x {calls} calls ==")
    print(f"{'noise environment':22s} {'x RT (active)':>14s} {'x RT (whole)':>13s} {'max |SNR err| dB':>17s}")
    for environment in available_environments():
        for index in range(8):  # warm the loop banks so the table shows the steady state
            generate(environment, 1, rate, np.random.default_rng(index))
        speeds = [
            chain_speed(
                [{"op": "noise", "environment": environment, "snr_db": SNR_DB, "signal_power": mode}],
                clean,
                rate,
                calls,
            )
            for mode in ("active", "whole")
        ]
        error = max(snr_errors(environment, mode, clean, rate) for mode in ("active", "whole"))
        print(f"{environment:22s} {speeds[0]:14.0f} {speeds[1]:13.0f} {error:17.1e}")
    print(f"\n{'op':28s} {'x real time':>12s}")
    for label, spec in SINGLE_OPS.items():
        print(f"{label:28s} {chain_speed([spec], clean, rate, max(10, calls // 4)):12.0f}")

    like_for_like = [EVA_CHAIN[0], EVA_CHAIN[3]]
    rows = []
    for label, specs, full in (
        ("noise 15 dB + volume fluctuation", like_for_like, False),
        ("full EVA chain", EVA_CHAIN, True),
    ):
        ours = chain_speed(specs, clean, rate, calls)
        with tempfile.TemporaryDirectory() as folder:
            baseline = audiomentations_chain(rate, Path(folder), full)
            random.seed(0)
            np.random.seed(0)  # audiomentations draws from the global RNGs and takes no seed
            theirs = x_real_time(lambda _i, b=baseline: b(clean, rate), calls)
        rows.append((label, ours, theirs))
    print(f"\n{'chain':36s} {'ours x RT':>10s} {'audiomentations':>16s} {'ours/theirs':>12s}")
    for label, ours, theirs in rows:
        print(f"{label:36s} {ours:10.0f} {theirs:16.0f} {ours / theirs:11.2f}x")
    print("(full chain: G.711 + packet loss + fluctuation vs band-pass + time mask + gain stand-ins; target >= 1000x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--eva-only", action="store_true", help="only the EVA-Bench side-by-side comparison")
    parser.add_argument("--profile", action="store_true", help="cProfile evalkit's EVA-equivalent chain")
    args = parser.parse_args()
    bench_eva(max(args.calls, 100), args.profile)
    if args.eva_only:
        return
    for rate in (16000, 22050):
        bench_rate(rate, args.calls)


if __name__ == "__main__":
    main()
