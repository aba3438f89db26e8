"""Throughput and SNR accuracy of the perturbation chain, single-threaded, measured in one run.

Prints x real time for a 5 s clip at 22.05 kHz (the espeak rate) mixed at 15 dB SNR:
  - perturbations: café (from the cached loops; plus the one-off cost of synthesising a loop and of fresh
    synthesis), white and pink;
  - plain audiomentations at a fixed 15 dB (AddGaussianSNR, AddColorNoise pink) as the baseline, with the
    ratio to it and the realised-SNR error of each.
Usage: python scripts/bench_perturbations.py [--calls N]
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
import time
from collections.abc import Callable

import audiomentations
import numpy as np

from perturbations import Chain
from perturbations.environments.cafe import cafe, synthesize_cafe

RATE = 22050
SECONDS = 5.0
SNR_DB = 15.0


def speech_like(seconds: float = SECONDS, sample_rate: int = RATE) -> np.ndarray:
    """Harmonics of a gliding 120 Hz F0 with a half-wave 4.5 Hz syllable envelope (half of it silence)."""
    t = np.arange(round(seconds * sample_rate)) / sample_rate
    phase = 2 * np.pi * np.cumsum(120.0 + 20.0 * np.sin(2 * np.pi * 0.7 * t)) / sample_rate
    voiced = sum(np.sin(h * phase) / h for h in range(1, 11))
    x = voiced * np.clip(np.sin(2 * np.pi * 4.5 * t), 0.0, None)
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


def x_real_time(run: Callable[[int], object], calls: int, repeats: int = 3) -> float:
    """Best of ``repeats`` batches of ``calls`` calls: audio seconds processed per wall second."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for i in range(calls):
            run(i)
        best = min(best, time.perf_counter() - started)
    return calls * SECONDS / best


def whole_snr_db(clean: np.ndarray, out: np.ndarray) -> float:
    noise = out.astype(np.float64) - clean
    return float(10 * np.log10(np.mean(clean.astype(np.float64) ** 2) / np.mean(noise**2)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    clean = speech_like()
    n = clean.shape[0]
    print(f"clip: {SECONDS:.0f} s at {RATE} Hz, {SNR_DB:.0f} dB SNR, 1 thread, best of 3x{args.calls} calls")

    started = time.perf_counter()
    synthesize_cafe(n, RATE, np.random.default_rng(0))
    fresh = SECONDS / (time.perf_counter() - started)
    cafe.bank.cache_clear()
    started = time.perf_counter()
    for index in range(4):
        cafe.bank(RATE, index)
    loops_s = time.perf_counter() - started
    print(
        f"café fresh synthesis: {fresh:.0f}x real time; first use of the 4 x 20 s loops: {loops_s:.2f} s once"
    )

    results: dict[str, tuple[float, float]] = {}
    for environment in ("cafe", "white", "pink"):
        for mode in ("active", "whole"):
            chain = Chain.from_specs(
                [{"op": "noise", "environment": environment, "snr_db": SNR_DB, "signal_power": mode}]
            )
            errors = [
                abs(chain(clean, RATE, np.random.default_rng(i))[1][0]["params"]["snr_db_measured"] - SNR_DB)
                for i in range(50)
            ]
            speed = x_real_time(lambda i, c=chain: c(clean, RATE, np.random.default_rng(i)), args.calls)
            results[f"perturbations noise {environment} ({mode})"] = (speed, max(errors))

    # audiomentations draws from the global RNG and takes no seed: seed it globally for a repeatable run.
    baselines = {
        "audiomentations AddGaussianSNR": audiomentations.AddGaussianSNR(SNR_DB, SNR_DB, p=1.0),
        "audiomentations AddColorNoise pink": audiomentations.AddColorNoise(
            SNR_DB, SNR_DB, min_f_decay=-3.01, max_f_decay=-3.01, p=1.0
        ),
    }
    for label, transform in baselines.items():
        np.random.seed(0)
        errors = [abs(whole_snr_db(clean, transform(clean, RATE)) - SNR_DB) for _ in range(50)]
        speed = x_real_time(lambda _i, t=transform: t(clean, RATE), args.calls)
        results[label] = (speed, max(errors))

    reference = results["audiomentations AddGaussianSNR"][0]
    print(f"{'':44s} {'x real time':>12s} {'vs AddGaussianSNR':>18s} {'max |SNR error| dB':>19s}")
    for label, (speed, error) in results.items():
        print(f"{label:44s} {speed:12.0f} {speed / reference:17.2f}x {error:19.2e}")


if __name__ == "__main__":
    main()
