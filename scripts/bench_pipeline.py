"""Throughput of whole conversations on the embedded stack, measured in one run.

For the clean condition and café noise at 15 dB (the README main job's two cells, composed from conf/: 7 airline
scenarios, one per workflow, x 2 trials, run by the cell's ConversationRunner: simulation validation and the
listener's agent-audio ASR for eva_a_proxy included, scoring and logging not), with the transcript cache off:
  - simulated conversation audio seconds per wall second (x real time);
  - the ASR-only bound on the same audio: every clip the agent heard, transcribed again by the same engine on its
    own, and the harness overhead above it (pipeline wall / bound wall - 1; issue 17's target is <= 20 %);
  - per-stage x real time for user TTS, the perturbation chain and the agent ASR.
Then the transcript cache (issue 17 point 4), in a fresh folder: both cells run cold (hits only from repeats
within the run) and again warm (a second run of the same job), each with its hit rate and speed-up over the
uncached run. Usage: python scripts/bench_pipeline.py [--scenarios N] [--trials K] [--no-cache]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.cell.run import ConversationRunner
from evalkit.config.schema import RunConfig, validate_config
from evalkit.domains.scenarios import load_scenarios
from perturbations import generate

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"
CONDITIONS = (("clean", []), ("noise_cafe 15 dB", ["+perturb=noise_cafe"]))


def config_for(overrides: list[str], cache_dir: str | None) -> RunConfig:
    """The main job's cell, composed from conf/ as ``python -m evalkit`` composes it, with one cache setting."""
    cache = "null" if cache_dir is None else cache_dir
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"agent.asr.cache_dir={cache}"])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)  # type: ignore[union-attr]
    return validate_config(raw)


def run_cell(config: RunConfig, n_scenarios: int, trials: int) -> dict[str, Any]:
    """A cell's conversations as the runner does them (simulation validation, the listener's agent-audio ASR);
    wall, audio seconds, the clips the agent heard, the listener's ASR seconds, transcript-cache counts."""
    runner = ConversationRunner(config)
    scenarios = load_scenarios(config.domain.name, config.domain.scenarios)[:n_scenarios]
    audio_s = listener_s = 0.0
    heard = []
    hits = lookups = 0
    started = time.perf_counter()
    for scenario in scenarios:
        for trial in range(trials):
            done = runner.run(scenario, trial)
            audio_s += sum((t.end_ms - t.start_ms) / 1000.0 for t in done.conversation.turns)
            heard += [clip for (_, kind), clip in sorted(done.audio.clips.items()) if kind == "user_heard"]
            listener_s += done.asr_s
            hits += int(done.usage.get("asr_cache_hits", 0))
            lookups += int(done.usage.get("asr_cache_lookups", 0))
    wall = time.perf_counter() - started
    return {"agent": runner.agent, "tts": runner.user_tts, "chain": runner.chain, "wall": wall, "audio_s": audio_s,
            "heard": heard, "listener_s": listener_s, "n": len(scenarios) * trials, "hits": hits, "lookups": lookups,
            "scenarios": scenarios}  # fmt: skip


def asr_bound(asr: Any, clips: list[Any]) -> float:
    """Wall seconds to transcribe ``clips`` with nothing else running: the floor of a cell's wall time."""
    started = time.perf_counter()
    for clip in clips:
        asr.transcribe(clip.samples, clip.sample_rate)
    return time.perf_counter() - started


def stages(r: dict[str, Any]) -> dict[str, float]:
    """x real time of user TTS, the chain and the agent ASR on the scenarios' opening utterances."""
    texts = [s.user_goal.starting_utterance for s in r["scenarios"]] * 2
    t0 = time.perf_counter()
    clips = [r["tts"](t) for t in texts]
    tts_wall = time.perf_counter() - t0
    clip_s = sum(len(c) / sr for c, sr in clips)
    t0 = time.perf_counter()
    for i, (c, sr) in enumerate(clips):
        r["chain"](c, sr, np.random.default_rng(i))
    chain_wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    for c, sr in clips:
        r["agent"].asr.transcribe(c, sr)
    asr_wall = time.perf_counter() - t0
    return {"tts": clip_s / tts_wall, "chain": clip_s / chain_wall if chain_wall > 0 else float("inf"),
            "asr": clip_s / asr_wall}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=7, help="the first N of the main job's 7")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--no-cache", action="store_true", help="skip the transcript-cache runs")
    args = parser.parse_args()
    ids = args.scenarios
    print(f"load average {os.getloadavg()[0]:.2f}; {ids} airline scenarios x {args.trials} trials per cell")
    for index in range(64):  # one-time costs out of the timed runs: every café noise bank at eSpeak's rate ...
        generate("cafe", 1, 22050, np.random.default_rng(index))
    for _, overrides in CONDITIONS:  # ... and a first conversation per condition (models, voices, lazy imports)
        run_cell(config_for(overrides, None), 1, 1)
    uncached: dict[str, dict[str, Any]] = {}
    for label, overrides in CONDITIONS:
        r = run_cell(config_for(overrides, None), ids, args.trials)
        bound = asr_bound(r["agent"].asr, r["heard"]) + r["listener_s"]
        s = stages(r)
        uncached[label] = r
        print(
            f"{label:>18}: {r['n']} conversations, {r['audio_s']:.1f} s of conversation audio in {r['wall']:.1f} s "
            f"wall = {r['audio_s'] / r['wall']:.1f}x real time | ASR-only bound on the same audio ({len(r['heard'])} "
            f"heard clips + the listener's {r['listener_s']:.1f} s) {bound:.1f} s = {r['audio_s'] / bound:.1f}x: "
            f"harness +{100 * (r['wall'] / bound - 1):.0f} % | user TTS {s['tts']:.0f}x, chain {s['chain']:.0f}x, "
            f"agent ASR {s['asr']:.1f}x real time"
        )
    if args.no_cache:
        return
    with tempfile.TemporaryDirectory() as folder:
        for run in ("cold", "warm"):
            for label, overrides in CONDITIONS:
                r = run_cell(config_for(overrides, folder), ids, args.trials)
                base = uncached[label]
                lookups = r["lookups"]
                print(
                    f"{label:>18}, cache {run}: {r['audio_s'] / r['wall']:.1f}x real time, "
                    f"{r['hits']}/{lookups} transcripts from the cache ({100 * r['hits'] / max(1, lookups):.0f} %), "
                    f"{base['wall'] / r['wall']:.2f}x the uncached run's speed"
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
