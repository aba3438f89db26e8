"""Throughput of whole conversations on the embedded stack, measured in one run.

Prints, for the clean condition and café noise at 15 dB: simulated conversation audio seconds per wall second
(x real time), the share of wall time spent in the agent's ASR, and per-stage x real time for user TTS and the
perturbation chain. Usage: python scripts/bench_pipeline.py [--scenarios N] [--trials K]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from evalkit.call import run_conversation
from evalkit.cell import build_components
from evalkit.config.schema import RunConfig
from evalkit.domains.airline import REGISTRY
from evalkit.scenarios import load_scenarios

BASE = {
    "domain": {"name": "airline"},
    "agent": {"name": "cascade_local", "tts": {"voice": "en-gb", "rate_wpm": 185, "pitch": 40}},
    "simulator": {"name": "scripted"},
    "persona": {"name": "default"},
    "voice": {"name": "neutral", "espeak_voice": "en-us", "rate_wpm": 165},
    "seed": 0,
    "trials": 1,
    "metrics": ["task_completion"],
}
CAFE = {"name": "noise_cafe", "snr_db": 15.0, "chain": [{"op": "noise", "environment": "cafe", "snr_db": 15.0}]}


def bench(config: RunConfig, n_scenarios: int, trials: int) -> dict[str, float]:
    agent, user_tts, chain = build_components(config)
    scenarios = load_scenarios("airline")[:n_scenarios]
    audio_s = asr_s = 0.0
    started = time.perf_counter()
    for scenario in scenarios:
        for trial in range(trials):
            conversation, _ = run_conversation(scenario, trial, config.seed, agent, REGISTRY, user_tts, chain)
            audio_s += sum((t.end_ms - t.start_ms) / 1000.0 for t in conversation.turns)
    wall = time.perf_counter() - started
    # Stage timings on one representative utterance set.
    texts = [s.user_goal.starting_utterance for s in scenarios] * 4
    t0 = time.perf_counter()
    clips = [user_tts(t) for t in texts]
    tts_wall = time.perf_counter() - t0
    clip_s = sum(len(c) / sr for c, sr in clips)
    t0 = time.perf_counter()
    for i, (c, sr) in enumerate(clips):
        chain(c, sr, np.random.default_rng(i))
    chain_wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    for c, sr in clips:
        agent.asr.transcribe(c, sr)
    asr_s = time.perf_counter() - t0
    return {
        "conversations": len(scenarios) * trials,
        "wall_s": wall,
        "audio_s": audio_s,
        "x_real_time": audio_s / wall,
        "tts_x_rt": clip_s / tts_wall,
        "chain_x_rt": clip_s / chain_wall if chain_wall > 0 else float("inf"),
        "asr_x_rt": clip_s / asr_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=5)
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()
    for label, perturb in (("clean", None), ("noise_cafe 15 dB", CAFE)):
        config = RunConfig.model_validate({**BASE, "perturb": perturb})
        r = bench(config, args.scenarios, args.trials)
        print(
            f"{label:>18}: {r['conversations']} conversations, {r['audio_s']:.1f} s of conversation audio in "
            f"{r['wall_s']:.1f} s wall = {r['x_real_time']:.1f}x real time | user TTS {r['tts_x_rt']:.0f}x, "
            f"chain {r['chain_x_rt']:.0f}x, agent ASR {r['asr_x_rt']:.1f}x real time"
        )


if __name__ == "__main__":
    main()
